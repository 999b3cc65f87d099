#!/usr/bin/python3
# gst-cuda-vision: the pipeline runner shared by the scripts of pipelines/.
#
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Run a gst-launch-1.0 style pipeline with exact frame counts.

Usage: pipelines/cvpipe.py [options] -- PIPELINE-DESCRIPTION...

The shell scripts of pipelines/ (blur-edges.sh, camera.sh, gpu-decode.sh,
meanshift-segment.sh, side-by-side.sh) build a pipeline description and run
it with this runner instead of gst-launch-1.0; the Python scripts import it
as a module (use_build, FrameLimit, FrameCounter, Snapshot, summary_line).
The description is parsed as gst-launch-1.0 parses its arguments
(gst_parse_launchv), so `--print` output of a script runs as is with
gst-launch-1.0 (without the frame limit and counts).

What it adds to gst-launch-1.0 -e:
  --frames N          a pad probe on the src pad of --limit-at (an element
                      name; its first video pad when its pads are dynamic,
                      e.g. decodebin) passes N frames, then sends EOS
                      downstream and drops the rest (identity eos-after=N
                      is not used: behind avdec_msmpeg4 its N-th frame
                      comes out with a wrong timestamp)
  --element NAME      the element under test: buffer probes on its sink and
                      src pads count the frames in and out (a difference is
                      an error) and the summary gives its active-backend
  --snapshot PNG      one frame of the src pad of --snapshot-at (default:
                      --element) written as a PNG (pngenc): the middle frame
                      of what is processed (frame N/2, counted from 0 and
                      rounded down, of --frames N, else of the input's
                      duration x frame rate), the first
                      frame when the length is unknown (a live source
                      without --frames); --snapshot-frame K picks frame K
  --messages NAME     print the element messages NAME as they come
                      (meanshift-segments: segments per frame,
                      template_match: the matches), and a digest at the end
  --property P        print the element's property P after the run (e.g.
                      host-transfers)
  Ctrl-C              sends EOS (as gst-launch-1.0 -e does): files are
                      finalized and the summary is printed; twice: abort

Its last line on stdout, on success, is the summary shared by every script:
  NAME: N frames, X fps, backend cpu|cuda, output PATH|window|none
(frames: those that left the element under test; fps: frames / wall time
from PLAYING to EOS, start-up included). Exit status 0 on success, 1 on a
GStreamer error or a dropped frame (message on stderr), 2 on bad arguments.

The plugin: --build-dir DIR puts DIR/plugin first on GST_PLUGIN_PATH; without
it GST_PLUGIN_PATH is used when set, else the repository's build/ when it
holds the plugin, else the installed plugin.
"""

import os
import re
import signal
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLUGIN_FILE = "libgstcudavision.so"
DATA = "/usr/share/doc/opencv-doc/examples/data"
VTEST = DATA + "/vtest.avi"

Gst = GLib = GstVideo = None  # imported by init()


class Error(Exception):
    """A failure with a message for the user."""


def use_build(build_dir=None):
    """Make the build's plugin findable; call before init() (Gst.init).

    --build-dir DIR: DIR/plugin first on GST_PLUGIN_PATH; else
    GST_PLUGIN_PATH as the caller set it; else ROOT/build when it holds the
    plugin; else the installed plugin. Returns the plugin folder used, or
    None (GST_PLUGIN_PATH or the installed plugin)."""
    if build_dir:
        plugin_dir = os.path.abspath(os.path.join(build_dir, "plugin"))
        if not os.path.isfile(os.path.join(plugin_dir, PLUGIN_FILE)):
            raise Error(f"no plugin in {plugin_dir} (build it: meson setup "
                        f"{build_dir} && ninja -C {build_dir}, or run "
                        f"pipelines/demo.sh)")
    elif os.environ.get("GST_PLUGIN_PATH"):
        return None
    else:
        plugin_dir = os.path.join(ROOT, "build", "plugin")
        if not os.path.isfile(os.path.join(plugin_dir, PLUGIN_FILE)):
            return None
    old = os.environ.get("GST_PLUGIN_PATH")
    os.environ["GST_PLUGIN_PATH"] = plugin_dir + (":" + old if old else "")
    return plugin_dir


def init():
    """Import and initialise GStreamer (after use_build)."""
    global Gst, GLib, GstVideo
    import gi
    gi.require_version("Gst", "1.0")
    gi.require_version("GstVideo", "1.0")
    from gi.repository import GLib as _GLib, Gst as _Gst, \
        GstVideo as _GstVideo
    Gst, GLib, GstVideo = _Gst, _GLib, _GstVideo
    Gst.init(None)


def need_element(name):
    if Gst.ElementFactory.find(name) is None:
        hint = ""
        if name.startswith("cuda") and name not in ("cudaupload",
                                                    "cudadownload"):
            hint = (" (build the plugin: meson setup build && ninja -C "
                    "build, or give --build-dir)")
        raise Error(f"GStreamer element {name} not found{hint}")


def summary_line(name, frames, seconds, backend, output):
    fps = frames / seconds if seconds > 0 else 0.0
    return (f"{name}: {frames} frames, {fps:.1f} fps, backend {backend}, "
            f"output {output or 'none'}")


def backend_of(element):
    return element.get_property("active-backend").value_nick


# ---- frame limit -------------------------------------------------------------

class FrameLimit:
    """Pass `frames` buffers through a src pad, then send EOS to its peer
    and drop everything after (buffers, and the upstream EOS)."""

    def __init__(self, frames):
        self.frames = frames
        self.passed = 0
        self.eos_sent = False
        self.pad = None

    def attach(self, element):
        """On the element's static src pad, or on its first video pad
        when its pads come later (decodebin, uridecodebin, parsebin)."""
        pad = element.get_static_pad("src")
        if pad is not None:
            self.attach_pad(pad)
        else:
            element.connect("pad-added", self._on_pad_added)
        return self

    def _on_pad_added(self, _element, pad):
        if self.pad is not None:
            return
        caps = pad.get_current_caps() or pad.query_caps(None)
        name = caps[0].get_name() if caps.get_size() else ""
        if name.startswith("video/"):
            self.attach_pad(pad)

    def attach_pad(self, pad):
        self.pad = pad
        pad.add_probe(Gst.PadProbeType.BUFFER |
                      Gst.PadProbeType.EVENT_DOWNSTREAM, self._probe)

    def _probe(self, pad, info):
        if info.type & Gst.PadProbeType.BUFFER:
            self.passed += 1
            if self.passed <= self.frames:
                return Gst.PadProbeReturn.OK
            if not self.eos_sent:
                self.eos_sent = True
                peer = pad.get_peer()
                # the peer is another element's pad: its stream lock is free
                if peer is not None:
                    peer.send_event(Gst.Event.new_eos())
            return Gst.PadProbeReturn.DROP
        event = info.get_event()
        if self.eos_sent and event is not None and \
                event.type == Gst.EventType.EOS:
            return Gst.PadProbeReturn.DROP
        return Gst.PadProbeReturn.OK


# ---- frame counts --------------------------------------------------------------

class FrameCounter:
    """Buffers entering (sink pad) and leaving (src pad) an element."""

    def __init__(self, element):
        self.element = element
        self.frames_in = 0
        self.frames_out = 0
        self.t_first = self.t_last = None
        element.get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER,
                                                 self._in)
        element.get_static_pad("src").add_probe(Gst.PadProbeType.BUFFER,
                                                self._out)

    def _in(self, _pad, _info):
        self.frames_in += 1
        return Gst.PadProbeReturn.OK

    def _out(self, _pad, _info):
        now = time.monotonic()
        if self.t_first is None:
            self.t_first = now
        self.t_last = now
        self.frames_out += 1
        return Gst.PadProbeReturn.OK

    def check(self):
        if self.frames_in != self.frames_out:
            raise Error(f"{self.frames_in} frames entered "
                        f"{self.element.get_name()} but {self.frames_out} "
                        f"left it")


# ---- snapshot ------------------------------------------------------------------

class Snapshot:
    """Keep one frame of a src pad and write it as a PNG with pngenc.

    Frame `index` (0 = first) when given; else the middle of `frames` when
    that is known (> 0); else, at the first frame, half of the pipeline's
    duration x the pad's frame rate; else the first frame. With luma=True
    (an edge map: cudasobel's GRAY8, or NV12/I420 with the edges in Y) the
    PNG is the Y plane as it is, 8-bit grey; else videoconvert makes an RGB
    picture of the frame."""

    def __init__(self, path, pipeline, index=None, frames=0, luma=False):
        self.path = path
        self.luma = luma
        self.pipeline = pipeline
        self.index = index
        if self.index is None and frames > 0:
            self.index = frames // 2
        self.seen = 0
        self.sample = None
        self.taken = None

    def attach(self, pad):
        pad.add_probe(Gst.PadProbeType.BUFFER, self._probe)
        return self

    def _middle_of_input(self, pad):
        caps = pad.get_current_caps()
        ok, dur = self.pipeline.query_duration(Gst.Format.TIME)
        if caps is None or not ok or dur <= 0:
            return 0
        ok, num, den = caps[0].get_fraction("framerate")
        if not ok or num <= 0 or den <= 0:
            return 0
        total = dur * num // (den * Gst.SECOND)
        return total // 2 if total > 0 else 0

    def _probe(self, pad, info):
        if self.index is None:
            self.index = self._middle_of_input(pad)
        i = self.seen
        self.seen += 1
        if i <= self.index:
            # a copy: a buffer of a pool must not be held for the whole run
            self.sample = Gst.Sample.new(info.get_buffer().copy_deep(),
                                         pad.get_current_caps(), None, None)
            self.taken = i
        return Gst.PadProbeReturn.OK

    def _luma(self):
        """The kept frame's Y plane as a GRAY8 sample (rows of 4n bytes)."""
        buf, caps = self.sample.get_buffer(), self.sample.get_caps()
        info = GstVideo.VideoInfo.new_from_caps(caps)
        meta = GstVideo.buffer_get_video_meta(buf)
        off = meta.offset[0] if meta else info.offset[0]
        stride = meta.stride[0] if meta else info.stride[0]
        ok, m = buf.map(Gst.MapFlags.READ)
        if not ok:
            raise Error("cannot map the snapshot frame")
        data = bytes(m.data)
        buf.unmap(m)
        w, h = info.width, info.height
        pad = bytes(((w + 3) & ~3) - w)
        rows = b"".join(data[off + y * stride:off + y * stride + w] + pad
                        for y in range(h))
        gray = Gst.Caps.from_string(
            f"video/x-raw,format=GRAY8,width={w},height={h},framerate=0/1")
        return Gst.Sample.new(Gst.Buffer.new_wrapped(rows), gray, None, None)

    def write(self):
        """Encode the kept frame; returns (index, width, height)."""
        if self.sample is None:
            raise Error("no frame reached the snapshot point")
        caps = self.sample.get_caps()
        st = caps[0]
        if self.luma:
            if st.get_value("format") not in ("GRAY8", "I420", "NV12"):
                raise Error(f"no luma plane in {st.get_value('format')}")
            self.sample = self._luma()
            caps = self.sample.get_caps()
            st = caps[0]
        w, h = st.get_value("width"), st.get_value("height")
        d = os.path.dirname(os.path.abspath(self.path))
        os.makedirs(d, exist_ok=True)
        # an edge map stays grey, anything else becomes RGB
        fmt = st.get_value("format")
        out = "GRAY8" if fmt in ("GRAY8", "GRAY16_LE", "GRAY16_BE") else "RGB"
        pipe = Gst.parse_launch(
            "appsrc name=src format=time ! videoconvert "
            f"! video/x-raw,format={out} ! pngenc ! filesink name=sink")
        src = pipe.get_by_name("src")
        src.set_property("caps", caps)
        pipe.get_by_name("sink").set_property("location", self.path)
        pipe.set_state(Gst.State.PLAYING)
        src.emit("push-buffer", self.sample.get_buffer())
        src.emit("end-of-stream")
        msg = pipe.get_bus().timed_pop_filtered(
            30 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
        pipe.set_state(Gst.State.NULL)
        if msg is None or msg.type != Gst.MessageType.EOS:
            why = msg.parse_error()[0].message if msg else "timeout"
            raise Error(f"writing the snapshot {self.path}: {why}")
        return self.taken, w, h


# ---- element messages ------------------------------------------------------------

def ts_of(s):
    ok, ts = s.get_uint64("timestamp")
    return ts / Gst.SECOND if ok and ts != Gst.CLOCK_TIME_NONE else -1.0


class SegmentsPrinter:
    """meanshift-segments: one line per frame, a digest at the end."""
    name = "meanshift-segments"

    def __init__(self):
        self.counts = []

    def message(self, s):
        ok, n = s.get_uint("segments")
        self.counts.append(n)
        print(f"frame {len(self.counts) - 1:4d} ({ts_of(s):7.3f} s): "
              f"{n} segments")

    def digest(self):
        c = self.counts
        if not c:
            return "segments: no meanshift-segments message"
        return (f"segments per frame: min {min(c)}, mean "
                f"{sum(c) / len(c):.1f}, max {max(c)} ({len(c)} frames)")


class MatchPrinter:
    """template_match: the matches of each frame."""
    name = "template_match"

    def __init__(self):
        self.frames = 0
        self.matched = 0

    def message(self, s):
        matches = s.get_value("matches")
        ok, count = s.get_uint("count")
        parts = []
        for i in range(count):
            m = matches[i]
            parts.append("(%d,%d) %.4f" % (m.get_value("x"), m.get_value("y"),
                                           m.get_value("result")))
        self.frames += 1
        self.matched += count > 0
        print("%8.3f s  %s" % (ts_of(s), "  ".join(parts) or "no match"))

    def digest(self):
        return (f"matches: {self.matched} of {self.frames} frames had a "
                f"match")


PRINTERS = {p.name: p for p in (SegmentsPrinter, MatchPrinter)}


# ---- the run ---------------------------------------------------------------------

class Run:
    """A pipeline run to EOS with a main loop, Ctrl-C sending EOS."""

    def __init__(self, pipeline, element=None, frames=0, limit_at=None,
                 snapshot=None, snapshot_at=None, snapshot_frame=None,
                 printers=(), properties=(), verbose=False):
        self.pipeline = pipeline
        self.properties = properties
        self.values = {}
        self.loop = GLib.MainLoop()
        self.error = None
        self.interrupted = 0
        self.verbose = verbose
        self.printers = {p.name: p for p in printers}
        self.element = self.by_name(element) if element else None
        self.counter = FrameCounter(self.element) if self.element else None
        self.limit = None
        if frames > 0:
            if not limit_at:
                raise Error("--frames needs --limit-at")
            self.limit = FrameLimit(frames).attach(self.by_name(limit_at))
        self.snapshot = None
        if snapshot:
            at = self.by_name(snapshot_at) if snapshot_at else self.element
            if at is None:
                raise Error("--snapshot needs --snapshot-at or --element")
            self.snapshot = Snapshot(snapshot, pipeline, snapshot_frame,
                                     frames).attach(at.get_static_pad("src"))
        bus = pipeline.get_bus()
        bus.add_signal_watch()
        bus.connect("message", self._on_message)

    def by_name(self, name):
        e = self.pipeline.get_by_name(name)
        if e is None:
            raise Error(f"no element named {name} in the pipeline")
        return e

    def _on_message(self, _bus, msg):
        t = msg.type
        if t == Gst.MessageType.ERROR:
            err, dbg = msg.parse_error()
            self.error = f"{msg.src.get_name()}: {err.message}"
            if dbg and self.verbose:
                self.error += f"\n  debug: {dbg}"
            self.loop.quit()
        elif t == Gst.MessageType.EOS:
            self.loop.quit()
        elif t == Gst.MessageType.WARNING:
            warn, _dbg = msg.parse_warning()
            print(f"warning from {msg.src.get_name()}: {warn.message}",
                  file=sys.stderr)
        elif t == Gst.MessageType.ELEMENT:
            s = msg.get_structure()
            p = self.printers.get(s.get_name()) if s else None
            if p is not None:
                p.message(s)

    def _on_sigint(self):
        self.interrupted += 1
        if self.interrupted == 1:
            print("interrupt: sending EOS (Ctrl-C again to abort)",
                  file=sys.stderr)
            self.pipeline.send_event(Gst.Event.new_eos())
        else:
            self.error = "interrupted"
            self.loop.quit()
        return True

    def run(self):
        """To EOS; returns the seconds from PLAYING to EOS."""
        sig = GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGINT,
                                   self._on_sigint)
        t0 = time.monotonic()
        try:
            if self.pipeline.set_state(Gst.State.PLAYING) == \
                    Gst.StateChangeReturn.FAILURE:
                msg = self.pipeline.get_bus().timed_pop_filtered(
                    0, Gst.MessageType.ERROR)
                if msg is not None:
                    self._on_message(None, msg)
                else:
                    self.error = "the pipeline could not start"
            else:
                self.loop.run()
            return time.monotonic() - t0
        finally:
            GLib.source_remove(sig)
            # read while the element is still started
            self.backend = backend_of(self.element) \
                if self.element is not None and \
                self.element.find_property("active-backend") else "?"
            for p in self.properties:
                self.values[p] = self.element.get_property(p)
            self.pipeline.set_state(Gst.State.NULL)
            self.pipeline.get_bus().remove_signal_watch()

    def finish(self):
        """After run(): raise Error on a failure; write the snapshot."""
        if self.error:
            raise Error(self.error)
        if self.counter is not None:
            self.counter.check()
            if self.counter.frames_out == 0:
                raise Error(f"no frame left {self.element.get_name()}")
        if self.snapshot is not None:
            i, w, h = self.snapshot.write()
            print(f"snapshot: frame {i} ({w}x{h}) -> {self.snapshot.path}")
        for p in self.printers.values():
            print(p.digest())


def parse(argv):
    try:
        return Gst.parse_launchv(argv)
    except GLib.Error as e:
        msg = e.message
        m = re.search(r'no element "(cuda\w+)"', msg)
        if m and m.group(1) not in ("cudaupload", "cudadownload"):
            msg += (" (build the plugin: meson setup build && ninja -C "
                    "build, or give --build-dir)")
        raise Error(f"bad pipeline: {msg}")


def main():
    import argparse
    argv = sys.argv[1:]
    if "--" in argv:
        i = argv.index("--")
        opts, desc = argv[:i], argv[i + 1:]
    else:
        opts, desc = argv, []
    ap = argparse.ArgumentParser(
        prog="cvpipe.py", usage="%(prog)s [options] -- PIPELINE...",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--name", default="cvpipe.py",
                    help="the name the summary line starts with")
    ap.add_argument("--build-dir", help="the meson build folder of the "
                    "plugin (default: see above)")
    ap.add_argument("--element", help="name of the element under test")
    ap.add_argument("--frames", type=int, default=0,
                    help="stop after N frames (0: all)")
    ap.add_argument("--limit-at", help="element whose src pad --frames cuts")
    ap.add_argument("--snapshot", metavar="PNG")
    ap.add_argument("--snapshot-at", metavar="NAME")
    ap.add_argument("--snapshot-frame", type=int, metavar="K")
    ap.add_argument("--messages", action="append", default=[],
                    choices=sorted(PRINTERS))
    ap.add_argument("--property", action="append", default=[],
                    help="print this property of --element after the run")
    ap.add_argument("--output", default="none",
                    help="what the summary names as the output")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="debug details of errors")
    a = ap.parse_args(opts)
    if not desc:
        ap.error("no pipeline description after --")
    if a.frames < 0:
        ap.error("--frames must be >= 0")
    sys.stdout.reconfigure(line_buffering=True)
    try:
        use_build(a.build_dir)
        init()
        pipeline = parse(desc)
        run = Run(pipeline, element=a.element, frames=a.frames,
                  limit_at=a.limit_at, snapshot=a.snapshot,
                  snapshot_at=a.snapshot_at, snapshot_frame=a.snapshot_frame,
                  printers=[PRINTERS[m]() for m in a.messages],
                  properties=a.property, verbose=a.verbose)
        if a.property and run.element is None:
            raise Error("--property needs --element")
        seconds = run.run()
        run.finish()
        for p, v in run.values.items():
            print(f"{p}: {v}")
    except Error as e:
        print(f"{a.name}: error: {e}", file=sys.stderr)
        return 1
    frames = run.counter.frames_out if run.counter else 0
    print(summary_line(a.name, frames, seconds, run.backend, a.output))
    return 0


if __name__ == "__main__":
    sys.exit(main())
