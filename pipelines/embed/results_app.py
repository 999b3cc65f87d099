#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""results_app.py: read cudatemplatematch's and cudameanshift's results in
Python with GStreamer's own API only (Gst, GstVideo; no ctypes, no copied
structs).

- Template matching: every match is its own GstVideoRegionOfInterestMeta
  whose id is the match's rank (0 = best), reached with
  GstVideo.buffer_get_video_region_of_interest_meta_id(); its
  "template-match" parameter holds the score.
- Mean-shift segmentation: the label map is the custom meta
  "GstCudaMeanShiftLabelsMeta" (Gst.Buffer.get_custom_meta()): its
  structure holds width, height, segments and a Gst.Buffer of
  width x height 32-bit labels.

The template is cut from the image itself (at --cut-x, --cut-y), so the
best match must be there. Prints one line per frame and a closing summary:
  results_app: N frames, backend B, best match (X,Y) ..., segments S ...
Exit status 0 when every frame's results were read and are consistent
(best match at the cut, as many distinct labels as segments), 1 otherwise.

  pipelines/embed/results_app.py [--image PATH] [--frames N]
      [--backend auto|cuda|cpu] [--build-dir DIR] [--max-matches N]
"""

import argparse
import os
import sys
import tempfile

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstVideo", "1.0")
from gi.repository import Gst, GstVideo  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEFAULT_IMAGE = "/usr/share/doc/opencv-doc/examples/data/fruits.jpg"


def run(desc):
    """Run a pipeline to EOS: the samples of its appsink named sink, and
    the backend its element named el ran on (None without one)."""
    pipe = Gst.parse_launch(desc)
    sink = pipe.get_by_name("sink")
    el = pipe.get_by_name("el")
    samples = []
    pipe.set_state(Gst.State.PLAYING)
    while True:
        s = sink.emit("pull-sample")
        if s is None:
            break
        samples.append(s)
    backend = el.get_property("active-backend").value_nick if el else None
    msg = pipe.get_bus().timed_pop_filtered(
        5 * Gst.SECOND, Gst.MessageType.ERROR | Gst.MessageType.EOS)
    pipe.set_state(Gst.State.NULL)
    if msg and msg.type == Gst.MessageType.ERROR:
        err, dbg = msg.parse_error()
        sys.exit("results_app: error: %s (%s)" % (err.message, dbg))
    return samples, backend


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--image", default=DEFAULT_IMAGE)
    ap.add_argument("--frames", type=int, default=3)
    ap.add_argument("--backend", default="auto",
                    choices=["auto", "cuda", "cpu"])
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    ap.add_argument("--max-matches", type=int, default=3)
    ap.add_argument("--cut-x", type=int, default=200)
    ap.add_argument("--cut-y", type=int, default=150)
    args = ap.parse_args()
    plugin = os.path.join(os.path.abspath(args.build_dir), "plugin")
    if os.path.isdir(plugin) and "GST_PLUGIN_PATH" not in os.environ:
        os.environ["GST_PLUGIN_PATH"] = plugin
    Gst.init(None)
    if not os.path.exists(args.image):
        sys.exit("results_app: no %s (opencv-doc)" % args.image)
    src = ('filesrc location="%s" ! decodebin ! videoconvert ! '
           'video/x-raw,format=RGBx' % args.image)
    ok = True

    # the template: 48x40 pixels of the image at (cut-x, cut-y)
    tmp = tempfile.mkdtemp(prefix="results-app-")
    tmpl = os.path.join(tmp, "template.png")
    caps = run(src + " ! appsink name=sink")[0][0].get_caps()
    st = caps[0]
    w, h = st.get_value("width"), st.get_value("height")
    samples, _ = run(src + " ! videocrop left=%d top=%d right=%d bottom=%d ! "
                     "videoconvert ! pngenc ! appsink name=sink" % (
                         args.cut_x, args.cut_y, w - args.cut_x - 48,
                         h - args.cut_y - 40))
    data = samples[0].get_buffer().extract_dup(0, samples[0].get_buffer()
                                               .get_size())
    with open(tmpl, "wb") as f:
        f.write(data)

    # template matching: the ROI metas, by rank
    samples, backend = run(src + " ! imagefreeze num-buffers=%d ! "
                        "cudatemplatematch name=el backend=%s template=%s "
                        "max-matches=%d ! appsink name=sink" % (
                            args.frames, args.backend, tmpl,
                            args.max_matches))
    best = None
    for i, s in enumerate(samples):
        buf = s.get_buffer()
        ranks = []
        rank = 0
        while True:
            roi = GstVideo.buffer_get_video_region_of_interest_meta_id(
                buf, rank)
            if roi is None:
                break
            param = roi.get_param("template-match")
            ranks.append((roi.x, roi.y, roi.w, roi.h,
                          param.get_double("score")[1]))
            rank += 1
        print("frame %d: %d matches: %s" % (
            i, len(ranks), ", ".join("#%d (%d,%d) %dx%d score %.4f" %
                                     ((r,) + m) for r, m in
                                     enumerate(ranks))))
        if len(ranks) != args.max_matches:
            ok = False
        if ranks:
            best = ranks[0]
            if (best[0], best[1]) != (args.cut_x, args.cut_y):
                ok = False

    # segmentation: the label map, from the custom meta
    samples, _ = run(src + " ! imagefreeze num-buffers=%d ! "
                     "cudameanshift name=el backend=%s mode=segment ! "
                     "appsink name=sink" % (args.frames, args.backend))
    segs = []
    for i, s in enumerate(samples):
        meta = s.get_buffer().get_custom_meta("GstCudaMeanShiftLabelsMeta")
        if meta is None:
            print("frame %d: no label map" % i)
            ok = False
            continue
        st = meta.get_structure()
        lw, lh = st.get_value("width"), st.get_value("height")
        n = st.get_value("segments")
        labels = st.get_value("labels")
        raw = labels.extract_dup(0, labels.get_size())
        values = memoryview(raw).cast("I")
        distinct = set(values) - {0xFFFFFFFF}
        print("frame %d: label map %dx%d, %d segments, %d distinct labels" %
              (i, lw, lh, n, len(distinct)))
        segs.append(n)
        if len(values) != lw * lh or len(distinct) != n:
            ok = False
    os.unlink(tmpl)
    os.rmdir(tmp)
    print("results_app: %d frames, backend %s, best match %s, segments %s, "
          "%s" % (len(samples), backend,
                  "(%d,%d)" % best[:2] if best else "none",
                  ",".join(str(x) for x in segs),
                  "consistent" if ok else "INCONSISTENT"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
