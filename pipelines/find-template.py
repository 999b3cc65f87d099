#!/usr/bin/python3
# Find a template in the sample video with cudatemplatematch (seed 003) and
# print the positions from the bus.
#
# The template is cut at run time, with GStreamer, from one frame of the
# video (by default frame 40, the 64x64 rectangle at 300,200): decodebin +
# videocrop to GRAY8, encoded to PNG by gst_video_convert_sample() into a
# temporary file; the element loads that file through its `template`
# property. Then the whole video runs through
#   filesrc ! decodebin ! videoconvert ! cudatemplatematch ! sink
# and every `template_match` element message is printed (frame time, then
# x,y score for each match).
#
#   pipelines/find-template.py                       # print positions
#   pipelines/find-template.py --output out/tm.avi   # also write a video
#                                                    # with the rectangles
#   pipelines/find-template.py --frame 0 --rect 380,150,40,80 \
#       --method sqdiff-normed --max-matches 3 --backend cpu
#
# Environment: GST_PLUGIN_PATH (default build/plugin of this checkout).
# Needs python3-gi (run with /usr/bin/python3).
#
# SPDX-License-Identifier: LGPL-2.1-or-later
import argparse
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
os.environ.setdefault("GST_PLUGIN_PATH",
                      os.path.join(HERE, "..", "build", "plugin"))

import gi  # noqa: E402

gi.require_version("Gst", "1.0")
gi.require_version("GstVideo", "1.0")
from gi.repository import Gst, GstVideo  # noqa: E402

DEFAULT_INPUT = "/usr/share/doc/opencv-doc/examples/data/vtest.avi"


def pull_frame(path, frame, crop=""):
    """Sample number `frame` (0 = first) of the decoded GRAY8 video."""
    pipe = Gst.parse_launch(
        "filesrc name=src ! decodebin ! videoconvert ! "
        "video/x-raw,format=GRAY8 ! %s appsink name=sink sync=false" % crop)
    pipe.get_by_name("src").set_property("location", path)
    sink = pipe.get_by_name("sink")
    pipe.set_state(Gst.State.PLAYING)
    sample = None
    for _ in range(frame + 1):
        sample = sink.emit("pull-sample")
        if sample is None:
            break
    pipe.set_state(Gst.State.NULL)
    return sample


def cut_template(path, frame, rect, out_png):
    """Frame `frame` of the video, cropped to rect, as a GRAY8 PNG file."""
    x, y, w, h = rect
    first = pull_frame(path, 0)
    if first is None:
        sys.exit("could not decode %s" % path)
    st = first.get_caps().get_structure(0)
    fw, fh = st.get_value("width"), st.get_value("height")
    if x < 0 or y < 0 or w < 1 or h < 1 or x + w > fw or y + h > fh:
        sys.exit("rect %s outside the %dx%d frame" % (rect, fw, fh))
    sample = pull_frame(path, frame, "videocrop left=%d top=%d right=%d "
                        "bottom=%d !" % (x, y, fw - x - w, fh - y - h))
    if sample is None:
        sys.exit("the video has fewer than %d frames" % (frame + 1))
    write_png(sample, out_png)


def write_png(sample, out_png):
    png = GstVideo.video_convert_sample(
        sample, Gst.Caps.from_string("image/png"), 10 * Gst.SECOND)
    buf = png.get_buffer()
    ok, info = buf.map(Gst.MapFlags.READ)
    with open(out_png, "wb") as f:
        f.write(bytes(info.data))
    buf.unmap(info)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--input", default=DEFAULT_INPUT)
    ap.add_argument("--frame", type=int, default=40,
                    help="frame to cut the template from (default 40)")
    ap.add_argument("--rect", default="300,200,64,64",
                    help="x,y,width,height of the template (default "
                    "300,200,64,64)")
    ap.add_argument("--method", default="ccoeff-normed")
    ap.add_argument("--max-matches", type=int, default=1)
    ap.add_argument("--threshold", type=float, default=-1.0)
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--num-frames", type=int, default=-1,
                    help="stop after this many frames (default: all)")
    ap.add_argument("--output", help="write an MPEG-4 AVI with the "
                    "rectangles drawn (display=true)")
    args = ap.parse_args()

    Gst.init(None)
    if not os.path.isfile(args.input):
        sys.exit("input %s not found (install opencv-doc or use --input)"
                 % args.input)
    if Gst.ElementFactory.find("cudatemplatematch") is None:
        sys.exit("cudatemplatematch not found: build the project (ninja -C "
                 "build) or set GST_PLUGIN_PATH")
    rect = tuple(int(v) for v in args.rect.split(","))
    tmpdir = tempfile.mkdtemp(prefix="find-template-")
    tpath = os.path.join(tmpdir, "template.png")
    cut_template(args.input, args.frame, rect, tpath)
    print("template: %dx%d at %d,%d of frame %d -> %s"
          % (rect[2], rect[3], rect[0], rect[1], args.frame, tpath))

    if args.output:
        os.makedirs(os.path.dirname(os.path.abspath(args.output)),
                    exist_ok=True)
        sink = ("videoconvert ! avenc_mpeg4 bitrate=4000000 ! avimux ! "
                "filesink name=out")
    else:
        sink = "fakesink sync=false"
    pipe = Gst.parse_launch(
        "filesrc name=src num-buffers=-1 ! decodebin ! videoconvert ! "
        "video/x-raw,format=I420 ! cudatemplatematch name=tm ! " + sink)
    pipe.get_by_name("src").set_property("location", args.input)
    if args.output:
        pipe.get_by_name("out").set_property("location", args.output)
    tm = pipe.get_by_name("tm")
    tm.set_property("template", tpath)
    Gst.util_set_object_arg(tm, "method", args.method)
    Gst.util_set_object_arg(tm, "backend", args.backend)
    tm.set_property("max-matches", args.max_matches)
    tm.set_property("threshold", args.threshold)
    tm.set_property("display", bool(args.output))

    bus = pipe.get_bus()
    pipe.set_state(Gst.State.PLAYING)
    frames = 0
    status = 0
    while True:
        msg = bus.timed_pop_filtered(
            Gst.CLOCK_TIME_NONE,
            Gst.MessageType.ELEMENT | Gst.MessageType.ERROR |
            Gst.MessageType.WARNING | Gst.MessageType.EOS)
        if msg.type == Gst.MessageType.EOS:
            break
        if msg.type == Gst.MessageType.ERROR:
            err, dbg = msg.parse_error()
            print("ERROR: %s (%s)" % (err.message, dbg), file=sys.stderr)
            status = 1
            break
        if msg.type == Gst.MessageType.WARNING:
            err, dbg = msg.parse_warning()
            print("WARNING: %s" % err.message, file=sys.stderr)
            continue
        s = msg.get_structure()
        if s is None or s.get_name() != "template_match":
            continue
        if frames == 0:
            print("active backend: %s"
                  % tm.get_property("active-backend").value_nick)
        t = s.get_value("timestamp") / Gst.SECOND
        matches = s.get_value("matches")
        parts = []
        for i in range(s.get_value("count")):
            m = matches[i]
            parts.append("(%d,%d) %.4f" % (m.get_value("x"),
                                            m.get_value("y"),
                                            m.get_value("result")))
        print("%8.3f s  %s" % (t, "  ".join(parts) or "no match"))
        frames += 1
        if frames == args.num_frames:
            pipe.send_event(Gst.Event.new_eos())
    pipe.set_state(Gst.State.NULL)
    print("%d frames" % frames)
    if args.output and status == 0:
        print("wrote %s" % args.output)
    return status


if __name__ == "__main__":
    sys.exit(main())
