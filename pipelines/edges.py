#!/usr/bin/python3
# gst-cuda-vision: decode a video, run cudasobel on every frame, encode the
# edge maps into a video file; print frames, fps and the backend used.
#
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Decode -> cudasobel -> encode, with frame counting and error handling.

Pipeline (built element by element, not parsed from a string):

  uridecodebin (video pad) ! videoconvert ! cudasobel ! videoconvert ! <encoder> ! <muxer> ! filesink

The encoder is jpegenc (Motion-JPEG, --codec mjpeg, the default: fast) or
vp8enc (--codec vp8: files about 3x smaller, encoding much slower); both
are in gstreamer1.0-plugins-good. (Debian 12's avenc_mpeg4, gst-libav
1.22.0, writes invalid timestamps, so it is not used.) The muxer follows
the output's extension: .mkv (matroskamux, default), .avi (avimux, MJPEG
only) or .mp4 (mp4mux, MJPEG only). Non-video streams of the input (audio...)
are decoded into a fakesink. --frames N: a probe on the decoded video pad
passes N frames, then sends EOS downstream and drops the rest (identity
eos-after=N is not used: on Debian 12, behind avdec_msmpeg4, its N-th frame
comes out with a wrong timestamp). Frames are counted by buffer probes on
cudasobel's sink pad (frames in) and src pad (frames out); a difference is
an error (a dropped frame). --snapshot PNG writes one edge map (cudasobel's
output: GRAY8, or the Y plane of its I420/NV12, the values the encoder
gets) as a grey PNG with pngenc: frame N/2 (counted from 0, rounded down)
of --frames N, or of the whole input (its duration x frame rate);
--snapshot-frame K takes frame K. A GStreamer error on the bus stops the run
with exit status 1 and the error message.

The plugin: --build-dir DIR (DIR/plugin), else GST_PLUGIN_PATH when set,
else the repository's build/, else the installed plugin. The last line on
stdout is the summary shared by the scripts of pipelines/:
  edges.py: N frames, X fps, backend cpu|cuda, output PATH
(--name changes the first word; demo.sh passes its own name).

Run it with /usr/bin/python3 (Debian's python3-gi / python3-gst-1.0).
"""

import argparse
import os
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in pipelines/
import cvpipe  # noqa: E402 (pipelines/cvpipe.py, next to this file)
import gi  # noqa: E402

gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402

DEFAULT_INPUT = "/usr/share/doc/opencv-doc/examples/data/vtest.avi"
MUXERS = {".mkv": "matroskamux", ".avi": "avimux", ".mp4": "mp4mux"}


def make_encoder(args):
    if args.codec == "vp8":
        return make("vp8enc", "encoder", deadline=1, cpu_used=8,
                    target_bitrate=args.bitrate,
                    threads=max(1, os.cpu_count() or 1))
    return make("jpegenc", "encoder", quality=args.quality)


def to_uri(arg):
    """A URI is kept as is; a file path must exist and becomes file://."""
    if Gst.uri_is_valid(arg):
        return arg
    if not os.path.exists(arg):
        raise FileNotFoundError(f"input file not found: {arg}")
    return Gst.filename_to_uri(os.path.abspath(arg))


def make(factory, name=None, **props):
    elem = Gst.ElementFactory.make(factory, name)
    if elem is None:
        hint = ""
        if factory == "cudasobel":
            hint = (" (build the plugin: run pipelines/demo.sh, or "
                    "ninja -C build; or give --build-dir)")
        elif factory.startswith("av"):
            hint = " (install gstreamer1.0-libav)"
        raise RuntimeError(f"GStreamer element '{factory}' not found{hint}")
    for key, value in props.items():
        elem.set_property(key.replace("_", "-"), value)
    return elem


class EdgesRun:
    def __init__(self, args):
        self.args = args
        self.loop = GLib.MainLoop()
        self.frames_in = 0
        self.frames_out = 0
        self.error = None
        self.got_video = False
        self.t_first = None
        self.t_last = None

        ext = os.path.splitext(args.output)[1].lower()
        if ext not in MUXERS:
            raise ValueError(f"output must end in one of {', '.join(MUXERS)}:"
                             f" {args.output}")
        if args.codec == "vp8" and ext != ".mkv":
            raise ValueError("--codec vp8 needs a .mkv output")

        self.pipeline = Gst.Pipeline.new("edges")
        self.src = make("uridecodebin", "src", uri=to_uri(args.input))
        self.head = make("videoconvert", "convert-in")
        chain = [self.head]
        self.limit = None
        self.sobel = make("cudasobel", "sobel", threshold=args.threshold,
                          brightness=args.brightness)
        Gst.util_set_object_arg(self.sobel, "backend", args.backend)
        chain += [
            self.sobel,
            make("videoconvert", "convert-out"),
            make_encoder(args),
            make(MUXERS[ext], "mux"),
            make("filesink", "sink", location=args.output),
        ]
        self.pipeline.add(self.src)
        for elem in chain:
            self.pipeline.add(elem)
        for a, b in zip(chain, chain[1:]):
            if not a.link(b):
                raise RuntimeError(f"cannot link {a.get_name()} to "
                                   f"{b.get_name()}")
        self.src.connect("pad-added", self.on_pad_added)
        self.sobel.get_static_pad("sink").add_probe(
            Gst.PadProbeType.BUFFER, self.on_buffer_in)
        self.sobel.get_static_pad("src").add_probe(
            Gst.PadProbeType.BUFFER, self.on_buffer_out)
        self.snapshot = None
        if args.snapshot:
            self.snapshot = cvpipe.Snapshot(
                args.snapshot, self.pipeline, args.snapshot_frame,
                args.frames, luma=True).attach(
                    self.sobel.get_static_pad("src"))

        bus = self.pipeline.get_bus()
        bus.add_signal_watch()
        bus.connect("message", self.on_message)

    # Streaming thread: link the first video pad, drain the others.
    def on_pad_added(self, _src, pad):
        caps = pad.get_current_caps() or pad.query_caps(None)
        name = caps[0].get_name() if caps.get_size() else ""
        if name.startswith("video/") and not self.got_video:
            self.got_video = True
            ret = pad.link(self.head.get_static_pad("sink"))
            if ret != Gst.PadLinkReturn.OK:
                self.error = f"cannot link the decoded video ({ret})"
                GLib.idle_add(self.loop.quit)
            elif self.args.frames > 0:
                self.limit = cvpipe.FrameLimit(self.args.frames)
                self.limit.attach_pad(pad)
            return
        sink = make("fakesink", None, sync=False, async_=False)
        self.pipeline.add(sink)
        sink.sync_state_with_parent()
        pad.link(sink.get_static_pad("sink"))

    def on_buffer_in(self, _pad, _info):
        self.frames_in += 1
        return Gst.PadProbeReturn.OK

    def on_buffer_out(self, _pad, _info):
        now = time.monotonic()
        if self.t_first is None:
            self.t_first = now
        self.t_last = now
        self.frames_out += 1
        return Gst.PadProbeReturn.OK

    def on_message(self, _bus, msg):
        if msg.type == Gst.MessageType.ERROR:
            err, dbg = msg.parse_error()
            self.error = f"{msg.src.get_name()}: {err.message}"
            if dbg:
                self.error += f"\n  debug: {dbg}"
            self.loop.quit()
        elif msg.type == Gst.MessageType.EOS:
            self.loop.quit()
        elif msg.type == Gst.MessageType.WARNING and self.args.verbose:
            warn, _dbg = msg.parse_warning()
            print(f"warning from {msg.src.get_name()}: {warn.message}",
                  file=sys.stderr)

    def expected_frames(self):
        """Frames in the input from duration x framerate, None if unknown."""
        ok, dur = self.pipeline.query_duration(Gst.Format.TIME)
        caps = self.sobel.get_static_pad("sink").get_current_caps()
        if not ok or dur <= 0 or caps is None:
            return None
        ok, num, den = caps[0].get_fraction("framerate")
        if not ok or num <= 0 or den <= 0:
            return None
        return round(dur * num / (den * Gst.SECOND))

    def run(self):
        t0 = time.monotonic()
        if self.pipeline.set_state(Gst.State.PLAYING) == \
                Gst.StateChangeReturn.FAILURE:
            # the reason is normally on the bus as an error message
            msg = self.pipeline.get_bus().timed_pop_filtered(
                0, Gst.MessageType.ERROR)
            if msg is not None:
                self.on_message(None, msg)
            else:
                self.error = "the pipeline could not start"
        else:
            self.loop.run()
        elapsed = time.monotonic() - t0
        expected = self.expected_frames()
        backend = self.sobel.get_property("active-backend").value_nick
        self.pipeline.set_state(Gst.State.NULL)
        self.pipeline.get_bus().remove_signal_watch()
        return elapsed, expected, backend


def main():
    p = argparse.ArgumentParser(
        description="Sobel edges of a video with cudasobel, encoded to a "
                    "file (Motion-JPEG or VP8).")
    p.add_argument("input", nargs="?", default=DEFAULT_INPUT,
                   help="file path or URI (default: %(default)s)")
    p.add_argument("-o", "--output", default="out/edges.mkv",
                   help="output file, .mkv/.avi/.mp4 (default: %(default)s)")
    p.add_argument("-n", "--frames", type=int, default=0,
                   help="stop after N frames (default: all)")
    p.add_argument("--backend", choices=["auto", "cuda", "cpu"],
                   default="auto", help="cudasobel backend (default: auto)")
    p.add_argument("--threshold", type=int, default=0,
                   help="cudasobel threshold, 0..255 (default: 0)")
    p.add_argument("--brightness", type=int, default=0,
                   help="cudasobel brightness offset, -255..255 (default: 0)")
    p.add_argument("--codec", choices=["mjpeg", "vp8"], default="mjpeg",
                   help="output codec (default: mjpeg)")
    p.add_argument("--quality", type=int, default=80,
                   help="JPEG quality 0..100 for mjpeg (default: 80)")
    p.add_argument("--bitrate", type=int, default=4000000,
                   help="bit/s for vp8 (default: %(default)s)")
    p.add_argument("--snapshot", metavar="PNG",
                   help="also write one edge frame as a PNG: frame N/2 of "
                   "--frames N or of the whole input")
    p.add_argument("--snapshot-frame", type=int, metavar="K",
                   help="take frame K (0 = first) for --snapshot")
    p.add_argument("--build-dir", metavar="DIR",
                   help="take the plugin from DIR/plugin (default: "
                   "GST_PLUGIN_PATH when set, else build/ of the "
                   "repository)")
    p.add_argument("--name", default="edges.py",
                   help="first word of the summary line (default: "
                   "%(default)s)")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="also print GStreamer warnings")
    args = p.parse_args()
    if not 0 <= args.threshold <= 255:
        p.error("--threshold must be in 0..255")
    if not -255 <= args.brightness <= 255:
        p.error("--brightness must be in -255..255")
    if not 0 <= args.quality <= 100:
        p.error("--quality must be in 0..100")
    if args.frames < 0:
        p.error("--frames must be >= 0")
    if args.snapshot_frame is not None and args.snapshot_frame < 0:
        p.error("--snapshot-frame must be >= 0")

    sys.stdout.reconfigure(line_buffering=True)
    try:
        cvpipe.use_build(args.build_dir)
    except cvpipe.Error as e:
        print(f"edges.py: error: {e}", file=sys.stderr)
        return 1
    cvpipe.init()
    out_dir = os.path.dirname(os.path.abspath(args.output))
    os.makedirs(out_dir, exist_ok=True)
    try:
        run = EdgesRun(args)
    except (RuntimeError, ValueError, FileNotFoundError) as e:
        print(f"edges.py: error: {e}", file=sys.stderr)
        return 1

    print(f"input:  {args.input}")
    print(f"output: {args.output}")
    elapsed, expected, backend = run.run()

    if run.error:
        print(f"edges.py: error: {run.error}", file=sys.stderr)
        return 1
    if not run.got_video:
        print("edges.py: error: the input has no video stream",
              file=sys.stderr)
        return 1
    if run.frames_out == 0:
        print("edges.py: error: no frame was processed", file=sys.stderr)
        return 1
    if run.frames_in != run.frames_out:
        print(f"edges.py: error: {run.frames_in} frames entered cudasobel "
              f"but {run.frames_out} left it", file=sys.stderr)
        return 1

    fps = run.frames_out / elapsed if elapsed > 0 else 0.0
    of = ""
    if expected is not None and args.frames == 0:
        of = f" of {expected} in the input"
    print(f"backend: {backend}")
    print(f"frames processed: {run.frames_out}{of}")
    print(f"time: {elapsed:.2f} s, {fps:.1f} fps (decode + edges + encode, "
          f"start-up included)")
    if run.frames_out > 1 and run.t_last > run.t_first:
        steady = (run.frames_out - 1) / (run.t_last - run.t_first)
        print(f"steady: {steady:.1f} fps from the first to the last frame")
    if expected is not None and args.frames == 0 and \
            run.frames_out != expected:
        # The duration is the container's; some files round it: warn only.
        print(f"edges.py: warning: the input should have {expected} "
              f"frames", file=sys.stderr)
    if run.snapshot is not None:
        try:
            i, w, h = run.snapshot.write()
        except cvpipe.Error as e:
            print(f"edges.py: error: {e}", file=sys.stderr)
            return 1
        print(f"snapshot: frame {i} ({w}x{h}) -> {args.snapshot}")
    print(cvpipe.summary_line(args.name, run.frames_out, elapsed, backend,
                              args.output))
    return 0


if __name__ == "__main__":
    sys.exit(main())
