#!/usr/bin/python3
# gst-cuda-vision: find a template in a video with cudatemplatematch (seed
# 003) and print the positions from the bus.
#
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Find a template in a video with cudatemplatematch; print the matches.

The template is a PNG/JPEG file (--template) or, by default, cut at run time
with GStreamer from one frame of the video (frame 40, the 64x64 rectangle
at 300,200): uridecodebin + videocrop to GRAY8, encoded to PNG (pngenc,
through gst_video_convert_sample) into a temporary file. Then the video
runs through

  uridecodebin ! videoconvert ! video/x-raw,format=I420
    ! cudatemplatematch template=PNG ! fakesink
    (or, with --output, display=true ! videoconvert ! jpegenc ! avimux
     ! filesink: the matches drawn as rectangles)

and every `template_match` element message is printed (frame time, then
x,y score of each match). --frames N cuts the decoded video with a pad probe
and the frames are counted by probes on cudatemplatematch, so exactly N
frames are processed and reported (pipelines/cvpipe.py). The last line is
  find-template.py: N frames, X fps, backend cpu|cuda, output PATH|none

The plugin: --build-dir DIR (DIR/plugin), else GST_PLUGIN_PATH when set,
else the repository's build/, else the installed plugin. Run it with
/usr/bin/python3 (python3-gi).

Examples:
  pipelines/find-template.py --frames 30
  pipelines/find-template.py --max-matches 2 --output out/tm.avi
  pipelines/find-template.py --frame 0 --rect 380,150,40,80 \\
      --method sqdiff-normed --max-matches 3 --backend cpu
"""

import argparse
import os
import re
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in pipelines/
import cvpipe  # noqa: E402 (pipelines/cvpipe.py, next to this file)

NAME = "find-template.py"
METHODS = ["sqdiff", "sqdiff-normed", "ccorr", "ccorr-normed", "ccoeff",
           "ccoeff-normed"]
MUXERS = {".avi": "avimux", ".mkv": "matroskamux"}


def to_uri(arg):
    Gst = cvpipe.Gst
    if Gst.uri_is_valid(arg):
        return arg
    if not os.path.isfile(arg):
        raise cvpipe.Error(f"input file not found: {arg}")
    return Gst.filename_to_uri(os.path.abspath(arg))


def pull_frame(uri, frame, crop=""):
    """Sample number `frame` (0 = first) of the decoded GRAY8 video."""
    Gst = cvpipe.Gst
    pipe = Gst.parse_launch(
        "uridecodebin name=src ! videoconvert ! "
        "video/x-raw,format=GRAY8 ! %s appsink name=sink sync=false" % crop)
    pipe.get_by_name("src").set_property("uri", uri)
    sink = pipe.get_by_name("sink")
    pipe.set_state(Gst.State.PLAYING)
    sample = None
    for _ in range(frame + 1):
        sample = sink.emit("try-pull-sample", 30 * Gst.SECOND)
        if sample is None:
            break
    pipe.set_state(Gst.State.NULL)
    return sample


def cut_template(uri, frame, rect, out_png):
    """Frame `frame` of the video, cropped to rect, as a GRAY8 PNG file."""
    Gst, GstVideo = cvpipe.Gst, cvpipe.GstVideo
    x, y, w, h = rect
    first = pull_frame(uri, 0)
    if first is None:
        raise cvpipe.Error(f"could not decode {uri}")
    st = first.get_caps()[0]
    fw, fh = st.get_value("width"), st.get_value("height")
    if x < 0 or y < 0 or w < 1 or h < 1 or x + w > fw or y + h > fh:
        raise cvpipe.Error(f"--rect {x},{y},{w},{h} is outside the "
                           f"{fw}x{fh} frame")
    sample = pull_frame(uri, frame, "videocrop left=%d top=%d right=%d "
                        "bottom=%d !" % (x, y, fw - x - w, fh - y - h))
    if sample is None:
        raise cvpipe.Error(f"the video has fewer than {frame + 1} frames")
    png = GstVideo.video_convert_sample(
        sample, Gst.Caps.from_string("image/png"), 10 * Gst.SECOND)
    buf = png.get_buffer()
    ok, info = buf.map(Gst.MapFlags.READ)
    with open(out_png, "wb") as f:
        f.write(bytes(info.data))
    buf.unmap(info)


def main():
    ap = argparse.ArgumentParser(
        prog=NAME, formatter_class=argparse.RawDescriptionHelpFormatter,
        description=__doc__)
    ap.add_argument("input", nargs="?", metavar="INPUT",
                    help="video file or URI (default: %s)" % cvpipe.VTEST)
    ap.add_argument("--input", dest="input_opt", metavar="INPUT",
                    help=argparse.SUPPRESS)
    ap.add_argument("--template", metavar="IMAGE",
                    help="template image file (PNG, JPEG...) instead of "
                    "one cut from the video")
    ap.add_argument("--frame", type=int, default=40,
                    help="frame to cut the template from (default 40)")
    ap.add_argument("--rect", default="300,200,64,64",
                    help="x,y,width,height of the template in that frame "
                    "(default 300,200,64,64)")
    ap.add_argument("--method", choices=METHODS, default="ccoeff-normed",
                    help="matching method (default ccoeff-normed)")
    ap.add_argument("--max-matches", type=int, default=1,
                    help="matches per frame, best first, not overlapping "
                    "(default 1)")
    ap.add_argument("--threshold", type=float, default=-1.0,
                    help="only matches scoring better than this (default "
                    "-1: any)")
    ap.add_argument("--backend", choices=["auto", "cuda", "cpu"],
                    default="auto", help="default auto")
    ap.add_argument("-n", "--frames", "--num-frames", type=int, default=0,
                    dest="frames",
                    help="stop after N frames (default: the whole video)")
    ap.add_argument("-o", "--output", metavar="PATH",
                    help="also write the video with the matches drawn "
                    "(Motion-JPEG, .avi or .mkv)")
    ap.add_argument("--build-dir", metavar="DIR",
                    help="take the plugin from DIR/plugin (default: "
                    "GST_PLUGIN_PATH when set, else build/ of the "
                    "repository)")
    args = ap.parse_args()
    if args.input and args.input_opt:
        ap.error("give INPUT or --input, not both")
    args.input = args.input or args.input_opt or cvpipe.VTEST
    m = re.fullmatch(r"(\d+),(\d+),(\d+),(\d+)", args.rect)
    if not m:
        ap.error("--rect must be x,y,width,height")
    rect = tuple(int(v) for v in m.groups())
    if args.frames < 0 or args.frame < 0 or args.max_matches < 1:
        ap.error("--frames and --frame must be >= 0, --max-matches >= 1")
    ext = os.path.splitext(args.output or "")[1].lower()
    if args.output and ext not in MUXERS:
        ap.error("--output must end in .avi or .mkv")
    sys.stdout.reconfigure(line_buffering=True)

    tmpdir = None
    try:
        cvpipe.use_build(args.build_dir)
        cvpipe.init()
        cvpipe.need_element("cudatemplatematch")
        uri = to_uri(args.input)
        if args.template:
            if not os.path.isfile(args.template):
                raise cvpipe.Error(f"template not found: {args.template}")
            tpath = os.path.abspath(args.template)
            print(f"template: {tpath}")
        else:
            tmpdir = tempfile.mkdtemp(prefix="find-template-")
            tpath = os.path.join(tmpdir, "template.png")
            cut_template(uri, args.frame, rect, tpath)
            print("template: %dx%d at %d,%d of frame %d -> %s"
                  % (rect[2], rect[3], rect[0], rect[1], args.frame, tpath))

        if args.output:
            os.makedirs(os.path.dirname(os.path.abspath(args.output)),
                        exist_ok=True)
            sink = ["videoconvert", "!", "jpegenc", "!", MUXERS[ext], "!",
                    "filesink", "location=" + args.output]
        else:
            sink = ["fakesink", "sync=false"]
        desc = ["uridecodebin", "uri=" + uri, "!", "videoconvert", "name=in",
                "!", "video/x-raw,format=I420", "!",
                "cudatemplatematch", "name=tm", "template=" + tpath,
                "method=" + args.method, "backend=" + args.backend,
                "max-matches=%d" % args.max_matches,
                "threshold=%g" % args.threshold,
                "display=" + ("true" if args.output else "false"),
                "!"] + sink
        pipeline = cvpipe.parse(desc)
        run = cvpipe.Run(pipeline, element="tm", frames=args.frames,
                         limit_at="in", printers=[cvpipe.MatchPrinter()])
        seconds = run.run()
        run.finish()
    except cvpipe.Error as e:
        print(f"{NAME}: error: {e}", file=sys.stderr)
        return 1
    finally:
        if tmpdir:
            shutil.rmtree(tmpdir, ignore_errors=True)
    print(cvpipe.summary_line(NAME, run.counter.frames_out, seconds,
                              run.backend, args.output))
    return 0


if __name__ == "__main__":
    sys.exit(main())
