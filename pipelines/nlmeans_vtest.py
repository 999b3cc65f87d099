#!/usr/bin/python3
# gst-cuda-vision: denoise a noisy version of OpenCV's sample video vtest.avi
# with cudanlmeans and print the PSNR gained.
#
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Denoise a noisy vtest.avi with cudanlmeans; print the luma PSNR.

GStreamer has no additive-Gaussian-noise element, so the noise is added by
the application: frames are decoded to I420 by one pipeline (appsink), the
luma gets Gaussian noise (numpy, fixed seed 1; chroma untouched since
cudanlmeans passes I420 chroma through), and the noisy frames are pushed
one by one into a second pipeline:

  appsrc ! tee name=n ! queue ! y4menc ! filesink location=OUT/noisy.y4m
           n. ! queue ! cudanlmeans ! tee name=d
           d. ! queue ! y4menc ! filesink location=OUT/denoised.y4m
           d. ! queue ! appsink

It prints the luma PSNR of the noisy and denoised frames against the clean
ones, frame by frame and on average; the files can be compared again with
the cv-psnr tool of the tests:
  build/tests/tools/cv-psnr --format I420 --max-frames 30 \\
      /usr/share/doc/opencv-doc/examples/data/vtest.avi \\
      out/nlmeans-vtest/denoised.y4m
Frames are counted by pad probes on cudanlmeans (pipelines/cvpipe.py).
The last line is
  nlmeans_vtest.py: N frames, X fps, backend cpu|cuda, output OUT/denoised.y4m

The plugin: --build-dir DIR (DIR/plugin), else GST_PLUGIN_PATH when set,
else the repository's build/, else the installed plugin. Needs python3-gi
and python3-numpy (run it with /usr/bin/python3).

Examples:
  pipelines/nlmeans_vtest.py --frames 10
  pipelines/nlmeans_vtest.py --frames 30 --sigma 20 --h 14 --backend cpu
"""

import argparse
import os
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in pipelines/
import cvpipe  # noqa: E402 (pipelines/cvpipe.py, next to this file)

NAME = "nlmeans_vtest.py"


def i420_luma(buf, w, h, info):
    import numpy as np
    Gst = cvpipe.Gst
    ok, m = buf.map(Gst.MapFlags.READ)
    a = np.frombuffer(m.data, np.uint8)
    stride, off = info.stride[0], info.offset[0]
    y = np.lib.stride_tricks.as_strided(a[off:], (h, w), (stride, 1)).copy()
    rest = bytes(m.data)
    buf.unmap(m)
    return y, rest


def psnr(a, clean):
    import numpy as np
    mse = np.mean((a.astype(np.float64) - clean) ** 2)
    return 10 * np.log10(255.0 ** 2 / mse) if mse > 0 else float("inf")


def denoise(args):
    """Returns (frames, seconds, backend, mean noisy PSNR, mean denoised)."""
    import numpy as np
    Gst, GstVideo = cvpipe.Gst, cvpipe.GstVideo
    cvpipe.need_element("cudanlmeans")
    uri = args.input if Gst.uri_is_valid(args.input) else None
    if uri is None:
        if not os.path.isfile(args.input):
            raise cvpipe.Error(f"input file not found: {args.input}")
        uri = Gst.filename_to_uri(os.path.abspath(args.input))
    dec = Gst.parse_launchv([
        "uridecodebin", "uri=" + uri, "!", "videoconvert", "!",
        "video/x-raw,format=I420", "!", "appsink", "name=sink",
        "sync=false"])
    dsink = dec.get_by_name("sink")
    dec.set_state(Gst.State.PLAYING)

    proc = counter = None
    rng = np.random.default_rng(1)
    p_noisy, p_dn, n = [], [], 0
    t0 = time.monotonic()
    try:
        while args.frames == 0 or n < args.frames:
            s = dsink.emit("try-pull-sample", 30 * Gst.SECOND)
            if s is None:
                msg = dec.get_bus().timed_pop_filtered(0,
                                                       Gst.MessageType.ERROR)
                if msg is not None:
                    raise cvpipe.Error(f"decoding {args.input}: "
                                       f"{msg.parse_error()[0].message}")
                break
            info = GstVideo.VideoInfo.new_from_caps(s.get_caps())
            w, h = info.width, info.height
            clean, raw = i420_luma(s.get_buffer(), w, h, info)
            noisy = np.clip(np.rint(clean + rng.normal(0, args.sigma,
                                                       clean.shape)),
                            0, 255).astype(np.uint8)
            data = bytearray(raw)
            for y in range(h):
                o = info.offset[0] + y * info.stride[0]
                data[o:o + w] = noisy[y].tobytes()
            if proc is None:
                out = args.output_dir
                proc = Gst.parse_launchv([
                    "appsrc", "name=src", "format=time", "!", "tee", "name=n",
                    "n.", "!", "queue", "!", "y4menc", "!", "filesink",
                    "location=" + os.path.join(out, "noisy.y4m"),
                    "n.", "!", "queue", "!", "cudanlmeans", "name=nlm",
                    "backend=" + args.backend, "h=%g" % args.h,
                    "sigma=%g" % args.sigma, "!", "tee", "name=d",
                    "d.", "!", "queue", "!", "y4menc", "!", "filesink",
                    "location=" + os.path.join(out, "denoised.y4m"),
                    "d.", "!", "queue", "!", "appsink", "name=sink",
                    "sync=false"])
                src = proc.get_by_name("src")
                src.set_property("caps", s.get_caps())
                psink = proc.get_by_name("sink")
                nlm = proc.get_by_name("nlm")
                counter = cvpipe.FrameCounter(nlm)
                proc.set_state(Gst.State.PLAYING)
            b = Gst.Buffer.new_wrapped(bytes(data))
            b.pts = s.get_buffer().pts
            b.duration = s.get_buffer().duration
            src.emit("push-buffer", b)
            o = psink.emit("try-pull-sample", 300 * Gst.SECOND)
            if o is None:
                msg = proc.get_bus().timed_pop_filtered(
                    0, Gst.MessageType.ERROR)
                why = msg.parse_error()[0].message if msg else \
                    "no denoised frame within 300 s"
                raise cvpipe.Error(f"{msg.src.get_name() if msg else 'nlm'}:"
                                   f" {why}")
            dn, _ = i420_luma(o.get_buffer(), w, h, info)
            p_noisy.append(psnr(noisy, clean))
            p_dn.append(psnr(dn, clean))
            print("frame %3d  noisy %.2f dB  denoised %.2f dB" %
                  (n, p_noisy[-1], p_dn[-1]))
            n += 1
        seconds = time.monotonic() - t0
        if proc is None:
            raise cvpipe.Error(f"no frame decoded from {args.input}")
        src.emit("end-of-stream")
        msg = proc.get_bus().timed_pop_filtered(
            60 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
        if msg is None or msg.type != Gst.MessageType.EOS:
            why = msg.parse_error()[0].message if msg else "no EOS in 60 s"
            raise cvpipe.Error(f"finishing the files: {why}")
        backend = cvpipe.backend_of(nlm)
    finally:
        dec.set_state(Gst.State.NULL)
        if proc is not None:
            proc.set_state(Gst.State.NULL)
    counter.check()
    if counter.frames_out != n:
        raise cvpipe.Error(f"{n} frames pushed but {counter.frames_out} "
                           f"left cudanlmeans")
    return n, seconds, backend, np.mean(p_noisy), np.mean(p_dn)


def main():
    ap = argparse.ArgumentParser(
        prog=NAME, formatter_class=argparse.RawDescriptionHelpFormatter,
        description=__doc__)
    ap.add_argument("input", nargs="?", metavar="INPUT",
                    help="video file or URI (default: %s)" % cvpipe.VTEST)
    ap.add_argument("--input", dest="input_opt", help=argparse.SUPPRESS)
    ap.add_argument("-n", "--frames", type=int, default=30,
                    help="frames to denoise (default 30; 0: the whole "
                    "video)")
    ap.add_argument("--sigma", type=float, default=20.0,
                    help="standard deviation of the added noise, also "
                    "given to cudanlmeans (default 20)")
    ap.add_argument("--h", type=float, default=14.0,
                    help="cudanlmeans h (default 14, 0.7 sigma)")
    ap.add_argument("--backend", choices=["auto", "cuda", "cpu"],
                    default="auto", help="default auto")
    ap.add_argument("-o", "--output-dir", "--out", dest="output_dir",
                    default=os.path.join(cvpipe.ROOT, "out", "nlmeans-vtest"),
                    metavar="DIR",
                    help="where noisy.y4m and denoised.y4m go (default: "
                    "out/nlmeans-vtest of the repository)")
    ap.add_argument("--build-dir", metavar="DIR",
                    help="take the plugin from DIR/plugin (default: "
                    "GST_PLUGIN_PATH when set, else build/ of the "
                    "repository)")
    args = ap.parse_args()
    if args.input and args.input_opt:
        ap.error("give INPUT or --input, not both")
    args.input = args.input or args.input_opt or cvpipe.VTEST
    if args.frames < 0 or args.sigma < 0 or args.h <= 0:
        ap.error("--frames and --sigma must be >= 0, --h > 0")
    sys.stdout.reconfigure(line_buffering=True)
    import importlib.util
    if importlib.util.find_spec("numpy") is None:
        print(f"{NAME}: error: numpy is missing (package python3-numpy)",
              file=sys.stderr)
        return 1
    try:
        cvpipe.use_build(args.build_dir)
        cvpipe.init()
        os.makedirs(args.output_dir, exist_ok=True)
        n, seconds, backend, noisy, dn = denoise(args)
    except cvpipe.Error as e:
        print(f"{NAME}: error: {e}", file=sys.stderr)
        return 1
    print("luma PSNR: noisy %.2f dB -> denoised %.2f dB (gain %.2f dB); "
          "noisy.y4m and denoised.y4m in %s"
          % (noisy, dn, dn - noisy, args.output_dir))
    print(cvpipe.summary_line(NAME, n, seconds, backend,
                              os.path.join(args.output_dir, "denoised.y4m")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
