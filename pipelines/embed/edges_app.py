#!/usr/bin/python3
# gst-cuda-vision: embedding cudasobel in a Python (PyGObject) application.
#
# SPDX-License-Identifier: LGPL-2.1-or-later
"""cudasobel in a Python application, the twin of edges-app.c.

Builds  SOURCE ! videoconvert ! videoscale
          ! video/x-raw,format=I420,width=W,height=H ! cudasobel name=sobel
          ! video/x-raw,format=GRAY8 ! appsink
where SOURCE is videotestsrc (a static pattern, default "circular") or a
file/URI (uridecodebin), pulls the edge maps from the appsink, prints for
every frame the number of non-zero (edge) pixels, and raises cudasobel's
threshold while the pipeline is PLAYING once --switch-at frames were read.
On a static pattern every frame read before the change has the same count
and the count drops once the new threshold reaches the element (frames
already queued when it changes still have the old one).

Output, one line per frame, a summary of the counts, then the summary line
shared by the scripts of pipelines/:
  frame 3: 68296 edge pixels (threshold 20)
  summary: frames 20, backend cpu, first 68296 edges (threshold 20),
    last 55862 edges (threshold 120)
  edges_app.py: 20 frames, 95.3 fps, backend cpu, output none
Exit status 0 on success, 1 on a GStreamer error (message on stderr), 2 on
bad arguments. The plugin: --build-dir DIR (DIR/plugin), else
GST_PLUGIN_PATH when set, else build/ of the repository this file is in,
else the installed plugin. Run with /usr/bin/python3 (Debian's python3-gi).
"""

import argparse
import os
import re
import sys
import time

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstApp", "1.0")
gi.require_version("GstVideo", "1.0")
from gi.repository import GLib, Gst, GstApp, GstVideo  # noqa: E402,F401


def count_edges(sample):
    """Non-zero pixels of a GRAY8 frame (rows may be padded: use the
    stride)."""
    info = GstVideo.VideoInfo.new_from_caps(sample.get_caps())
    if info is None or info.finfo.format != GstVideo.VideoFormat.GRAY8:
        raise RuntimeError("the frame is not GRAY8")
    buf = sample.get_buffer()
    meta = GstVideo.buffer_get_video_meta(buf)
    offset = meta.offset[0] if meta else info.offset[0]
    stride = meta.stride[0] if meta else info.stride[0]
    ok, mapinfo = buf.map(Gst.MapFlags.READ)
    if not ok:
        raise RuntimeError("cannot map the frame")
    try:
        data = bytes(mapinfo.data)
        n = 0
        for y in range(info.height):
            start = offset + y * stride
            row = data[start:start + info.width]
            n += info.width - row.count(0)
        return n
    finally:
        buf.unmap(mapinfo)


def bus_error(pipeline, timeout=0):
    """Print a pending bus error and return True, else False."""
    msg = pipeline.get_bus().timed_pop_filtered(timeout,
                                                Gst.MessageType.ERROR)
    if msg is None:
        return False
    err, dbg = msg.parse_error()
    print(f"edges_app: error from {msg.src.get_name()}: {err.message}",
          file=sys.stderr)
    if dbg:
        print(f"  debug: {dbg}", file=sys.stderr)
    return True


def use_build(build_dir):
    """Put the build's plugin folder on GST_PLUGIN_PATH (before Gst.init)."""
    if build_dir:
        plugin_dir = os.path.abspath(os.path.join(build_dir, "plugin"))
        if not os.path.isfile(os.path.join(plugin_dir,
                                           "libgstcudavision.so")):
            return f"no plugin in {plugin_dir}"
    elif os.environ.get("GST_PLUGIN_PATH"):
        return None
    else:
        here = os.path.dirname(os.path.abspath(__file__))
        plugin_dir = os.path.join(here, "..", "..", "build", "plugin")
        if not os.path.isdir(plugin_dir):
            return None
    old = os.environ.get("GST_PLUGIN_PATH")
    os.environ["GST_PLUGIN_PATH"] = plugin_dir + (":" + old if old else "")
    return None


def description(a):
    if a.input:
        uri = a.input if Gst.uri_is_valid(a.input) else \
            Gst.filename_to_uri(os.path.abspath(a.input))
        # the loop below stops after --frames frames
        src = f'uridecodebin uri="{uri}"'
    else:
        src = f"videotestsrc pattern={a.pattern} num-buffers={a.frames}"
    return (f"{src} ! videoconvert ! videoscale "
            f"! video/x-raw,format=I420,width={a.width},"
            f"height={a.height} "
            f"! cudasobel name=sobel threshold={a.threshold_before} "
            f"backend={a.backend} ! video/x-raw,format=GRAY8 "
            f"! appsink name=sink sync=false max-buffers=1")


def main():
    p = argparse.ArgumentParser(description="cudasobel in an application")
    p.add_argument("--frames", type=int, default=20,
                   help="frames to process (20)")
    p.add_argument("--switch-at", type=int, default=10,
                   help="change the threshold after K frames were read (10)")
    p.add_argument("--threshold-before", type=int, default=20,
                   help="threshold at start, 0..255 (20)")
    p.add_argument("--threshold-after", type=int, default=120,
                   help="threshold after the change, 0..255 (120)")
    p.add_argument("--pattern", default="circular",
                   help="videotestsrc pattern (circular)")
    p.add_argument("--size", default="320x240", help="frame size (320x240)")
    p.add_argument("--backend", choices=["auto", "cuda", "cpu"],
                   default="auto", help="cudasobel backend (auto)")
    p.add_argument("--input", help="video file or URI instead of "
                   "videotestsrc")
    p.add_argument("--build-dir", metavar="DIR",
                   help="take the plugin from DIR/plugin (default: "
                   "GST_PLUGIN_PATH when set, else build/ of the repository)")
    a = p.parse_args()
    m = re.fullmatch(r"(\d+)x(\d+)", a.size)
    if not m:
        p.error("--size must be WIDTHxHEIGHT")
    a.width, a.height = int(m.group(1)), int(m.group(2))
    if a.frames < 1 or a.switch_at < 0 or a.width < 1 or a.height < 1 or \
            not 0 <= a.threshold_before <= 255 or \
            not 0 <= a.threshold_after <= 255:
        p.error("bad argument (see --help)")

    sys.stdout.reconfigure(line_buffering=True)
    why = use_build(a.build_dir)
    if why:
        print(f"edges_app: {why}", file=sys.stderr)
        return 2
    Gst.init(None)
    desc = description(a)
    print(f"pipeline: {desc}")
    try:
        pipeline = Gst.parse_launch(desc)
    except GLib.Error as e:
        print(f"edges_app: {e.message}", file=sys.stderr)
        return 1
    sobel = pipeline.get_by_name("sobel")
    sink = pipeline.get_by_name("sink")

    ret = 0
    t0 = time.monotonic()
    if pipeline.set_state(Gst.State.PLAYING) == \
            Gst.StateChangeReturn.FAILURE:
        if not bus_error(pipeline):
            print("edges_app: the pipeline could not start", file=sys.stderr)
        pipeline.set_state(Gst.State.NULL)
        return 1

    current = a.threshold_before
    first = last = None
    for i in range(a.frames):
        if i == a.switch_at:
            # cudasobel reads its properties once per frame, under the object
            # lock: setting one while PLAYING is safe from any thread.
            sobel.set_property("threshold", a.threshold_after)
            current = a.threshold_after
            print(f"threshold set to {current} while playing")
        sample = sink.try_pull_sample(10 * Gst.SECOND)
        if sample is None:
            if not bus_error(pipeline):
                why = "end of stream" if sink.is_eos() else \
                    "no frame within 10 s"
                print(f"edges_app: {why} after {i} frames", file=sys.stderr)
            ret = 1
            break
        n = count_edges(sample)
        print(f"frame {i}: {n} edge pixels (threshold {current})")
        if first is None:
            first = (n, current)
        last = (n, current)
    seconds = time.monotonic() - t0
    if ret == 0 and bus_error(pipeline):
        ret = 1
    if ret == 0:
        backend = sobel.get_property("active-backend").value_nick
        print(f"summary: frames {a.frames}, backend {backend}, "
              f"first {first[0]} edges (threshold {first[1]}), "
              f"last {last[0]} edges (threshold {last[1]})")
        print(f"edges_app.py: {a.frames} frames, "
              f"{a.frames / seconds if seconds > 0 else 0.0:.1f} fps, "
              f"backend {backend}, output none")
    pipeline.set_state(Gst.State.NULL)
    return ret


if __name__ == "__main__":
    sys.exit(main())
