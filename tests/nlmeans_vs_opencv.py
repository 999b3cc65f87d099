#!/usr/bin/python3
# Compare cudanlmeans with OpenCV's fastNlMeansDenoising (python3-opencv):
# PSNR gain on real images with Gaussian noise (fixed seed), each filter at
# its best h for the same patch and search sizes; optionally the CPU speed.
#
# Usage (from the build tree, /usr/bin/python3 has cv2 and gi):
#   GST_PLUGIN_PATH=build/plugin /usr/bin/python3 tests/nlmeans_vs_opencv.py \
#       [--backend cpu|cuda] [--images fruits.jpg,baboon.jpg] [--crop 256]
#       [--sigmas 15,25] [--bench [--runs N] [--bench-filter TEXT]]
#       [--no-quality]
#
# SPDX-License-Identifier: LGPL-2.1-or-later
import argparse
import os
import resource
import time

import cv2
import numpy as np
import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

MEDIA = os.environ.get("CUDAVISION_MEDIA_DIR",
                       "/usr/share/doc/opencv-doc/examples/data")
PATCH, SEARCH = 7, 21


def psnr(a, b):
    se = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return 10 * np.log10(255.0 ** 2 / se)


class Denoiser:
    """cudanlmeans in a GStreamer pipeline: appsrc ! cudanlmeans ! appsink"""

    def __init__(self, backend):
        self.backend = backend

    def run(self, img, **props):
        h, w = img.shape[:2]
        fmt = "GRAY8" if img.ndim == 2 else "BGR"
        pipe = Gst.parse_launch(
            "appsrc name=src ! cudanlmeans name=nlm backend=%s "
            "pipeline-depth=1 ! appsink name=sink sync=false" % self.backend)
        nlm = pipe.get_by_name("nlm")
        for k, v in props.items():
            nlm.set_property(k.replace("_", "-"), v)
        src = pipe.get_by_name("src")
        src.set_property("caps", Gst.Caps.from_string(
            "video/x-raw,format=%s,width=%d,height=%d,framerate=0/1" %
            (fmt, w, h)))
        src.set_property("format", Gst.Format.TIME)
        pipe.set_state(Gst.State.PLAYING)
        # GStreamer's default strides are 4-byte aligned
        bpp = 1 if img.ndim == 2 else 3
        stride = (w * bpp + 3) & ~3
        buf = np.zeros((h, stride), np.uint8)
        buf[:, :w * bpp] = img.reshape(h, w * bpp)
        gbuf = Gst.Buffer.new_wrapped(buf.tobytes())
        gbuf.pts = 0
        t0 = time.perf_counter()
        src.emit("push-buffer", gbuf)
        src.emit("end-of-stream")
        sample = pipe.get_by_name("sink").emit("pull-sample")
        dt = time.perf_counter() - t0
        ob = sample.get_buffer()
        ok, m = ob.map(Gst.MapFlags.READ)
        out = np.frombuffer(m.data, np.uint8, h * stride).reshape(h, stride)
        out = out[:, :w * bpp].reshape(img.shape).copy()
        ob.unmap(m)
        pipe.set_state(Gst.State.NULL)
        return out, dt


def noisy(img, sigma, seed):
    rng = np.random.default_rng(seed)
    n = img.astype(np.float64) + rng.normal(0, sigma, img.shape)
    return np.clip(np.rint(n), 0, 255).astype(np.uint8)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--images", default="fruits.jpg,baboon.jpg,building.jpg")
    ap.add_argument("--crop", type=int, default=0,
                    help="use the central CROPxCROP part (0: whole image)")
    ap.add_argument("--sigmas", default="15,25")
    ap.add_argument("--bench", action="store_true",
                    help="time 1080p GRAY8 and BGR (and 256x256 whole frame)")
    ap.add_argument("--runs", type=int, default=3,
                    help="--bench: interleaved runs per case (best kept)")
    ap.add_argument("--bench-filter", default="",
                    help="--bench: only the cases whose name contains this")
    ap.add_argument("--no-quality", action="store_true",
                    help="skip the PSNR comparison")
    args = ap.parse_args()
    Gst.init(None)
    dn = Denoiser(args.backend)

    if args.no_quality:
        args.images = ""
    print("patch %d, search %d, Gaussian noise seed 1" % (PATCH, SEARCH))
    print("%-14s %5s %7s | %-24s | %-24s | %-24s | %s" % (
        "image", "sigma", "noisy", "OpenCV best h: PSNR gain",
        "ours ps=5/3 s=0 best h", "ours ps=5/3 s=sigma best h", "ok"))
    for name in filter(None, args.images.split(",")):
        clean = cv2.imread(os.path.join(MEDIA, name), cv2.IMREAD_GRAYSCALE)
        if args.crop:
            y0 = (clean.shape[0] - args.crop) // 2
            x0 = (clean.shape[1] - args.crop) // 2
            clean = clean[y0:y0 + args.crop, x0:x0 + args.crop].copy()
        for sigma in [float(s) for s in args.sigmas.split(",")]:
            nz = noisy(clean, sigma, 1)
            p0 = psnr(clean, nz)
            best_cv = max(
                (psnr(clean, cv2.fastNlMeansDenoising(
                    nz, None, h=f * sigma, templateWindowSize=PATCH,
                    searchWindowSize=SEARCH)) - p0, f * sigma)
                for f in np.arange(0.5, 1.61, 0.1))
            best_a = max(
                (psnr(clean, dn.run(nz, h=f * sigma, patch_size=PATCH,
                                    search_window=SEARCH)[0]) - p0, f * sigma)
                for f in np.arange(0.6, 1.61, 0.1))
            best_b = max(
                (psnr(clean, dn.run(nz, h=f * sigma, sigma=sigma,
                                    patch_size=PATCH,
                                    search_window=SEARCH)[0]) - p0, f * sigma)
                for f in np.arange(0.2, 1.01, 0.1))
            ours = max(best_a[0], best_b[0])
            print("%-14s %5.0f %7.2f | %+6.2f dB (h=%5.2f)       | "
                  "%+6.2f dB (h=%5.2f)       | %+6.2f dB (h=%5.2f)       | %s"
                  % (name, sigma, p0, best_cv[0], best_cv[1], best_a[0],
                     best_a[1], best_b[0], best_b[1],
                     "yes" if ours >= best_cv[0] else "NO"))

    if args.bench:
        rng = np.random.default_rng(2)
        big = cv2.resize(cv2.imread(os.path.join(MEDIA, "fruits.jpg")),
                         (1920, 1080))
        big = noisy(big, 20, 2)
        gray = cv2.cvtColor(big, cv2.COLOR_BGR2GRAY)
        small = gray[:256, :256].copy()
        cv2.setNumThreads(os.cpu_count())

        def cpu_s():
            r = resource.getrusage(resource.RUSAGE_SELF)
            return r.ru_utime + r.ru_stime

        def timed(fn):
            # (CPU time of the process, all threads; wall time) of one call
            def run():
                c0, t0 = cpu_s(), time.perf_counter()
                fn()
                return cpu_s() - c0, time.perf_counter() - t0
            return run

        def best(f, g, n=args.runs):
            # interleaved, best of n each: the cores may be shared
            a, b = [], []
            for _ in range(n):
                a.append(f())
                b.append(g())
            return ([min(x[i] for x in a) for i in (0, 1)],
                    [min(x[i] for x in b) for i in (0, 1)])

        cvg = cv2.fastNlMeansDenoising
        cvc = cv2.fastNlMeansDenoisingColored
        rows = [
            ("1080p GRAY8 p7 s21", timed(lambda: dn.run(gray, h=20.0)),
             timed(lambda: cvg(gray, None, 20, 7, 21))),
            ("1080p GRAY8 p7 s21 ps0", timed(lambda: dn.run(
                gray, h=20.0, patch_sigma=0.0)),
             timed(lambda: cvg(gray, None, 20, 7, 21))),
            ("1080p BGR p7 s21", timed(lambda: dn.run(big, h=20.0)),
             timed(lambda: cvc(big, None, 20, 20, 7, 21))),
            ("1080p BGR p7 s21 ps0", timed(lambda: dn.run(
                big, h=20.0, patch_sigma=0.0)),
             timed(lambda: cvc(big, None, 20, 20, 7, 21))),
            ("256x256 GRAY8 p7 whole", timed(lambda: dn.run(
                small, h=20.0, search_window=0)),
             timed(lambda: cvg(small, None, 20, 7, 511))),
        ]
        _ = rng
        print("\nbest of %d interleaved runs; CPU = user + system time of "
              "all threads" % args.runs)
        print("%-26s %10s %10s %10s %10s %7s" % (
            "case (%s)" % args.backend, "ours CPU s", "ours wall",
            "OpenCV CPU", "OCV wall", "CPU x"))
        for name, ours, theirs in rows:
            if args.bench_filter and args.bench_filter not in name:
                continue
            a, b = best(ours, theirs)
            print("%-26s %10.2f %10.2f %10.2f %10.2f %7.2f" % (
                name, a[0], a[1], b[0], b[1], a[0] / b[0]))

if __name__ == "__main__":
    main()
