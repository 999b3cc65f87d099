#!/usr/bin/python3
# cudanlmeans rgb-mode=ycrcb: the RGB <-> YCrCb conversions against
# cv2.cvtColor for all 2^24 colours.
#
# 1. The integer maths of kernels/nlmeans_ycrcb.h written in numpy equal
#    cv2.cvtColor COLOR_RGB2YCrCb / COLOR_BGR2YCrCb for every RGB colour and
#    COLOR_YCrCb2RGB / COLOR_YCrCb2BGR for every YCrCb triple.
# 2. The element itself: a 4096x4096 frame holding every colour once (in
#    RGB, BGR, RGBA, BGRx: both byte orders, 3 and 4 bytes; random alpha)
#    through cudanlmeans rgb-mode=ycrcb h=0.001 h-color=0 (Y: only x's own
#    weight counts, Cr and Cb kept) gives exactly cv2's round trip
#    cvtColor (cvtColor (img, RGB2YCrCb), YCrCb2RGB), alpha unchanged; and
#    with rgb-mode=joint-rgb the input itself.
#
# Usage (from the build tree):
#   GST_PLUGIN_PATH=build/plugin /usr/bin/python3 \
#       tests/nlmeans_ycrcb_vs_opencv.py [--backend cpu|cuda]
# Exit 0: pass; 1: fail; 77 (skipped): no cv2 / gi, or --backend cuda
# without a usable GPU.
#
# SPDX-License-Identifier: LGPL-2.1-or-later
import argparse
import sys

try:
    import numpy as np
    import cv2
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import Gst  # noqa: E402
except (ImportError, ValueError) as e:
    print("SKIP: %s (run with /usr/bin/python3, python3-opencv)" % e)
    sys.exit(77)

# the GPU probe of the temporal comparison (same directory)
from nlmeans_temporal_vs_opencv import cuda_usable  # noqa: E402

N = 4096


def all_colours():
    """every 24-bit triple once, as a 4096 x 4096 x 3 image"""
    a = np.arange(1 << 24, dtype=np.uint32)
    return np.stack([(a >> 16) & 255, (a >> 8) & 255, a & 255],
                    -1).astype(np.uint8).reshape(N, N, 3)


def descale14(v):
    return (v + (1 << 13)) >> 14


def to_ycrcb(rgb):
    """kernels/nlmeans_ycrcb.h cv_rgb_to_ycrcb on R, G, B order"""
    r, g, b = [rgb[..., i].astype(np.int32) for i in range(3)]
    y = descale14(r * 4899 + g * 9617 + b * 1868)
    cr = descale14((r - y) * 11682 + (128 << 14))
    cb = descale14((b - y) * 9241 + (128 << 14))
    return np.clip(np.stack([y, cr, cb], -1), 0, 255).astype(np.uint8)


def to_rgb(ycc):
    """kernels/nlmeans_ycrcb.h cv_ycrcb_to_rgb, R, G, B order"""
    y, cr, cb = [ycc[..., i].astype(np.int32) for i in range(3)]
    cr, cb = cr - 128, cb - 128
    r = y + descale14(cr * 22987)
    g = y + descale14(cb * -5636 + cr * -11698)
    b = y + descale14(cb * 29049)
    return np.clip(np.stack([r, g, b], -1), 0, 255).astype(np.uint8)


def check_formulas(img, failures):
    rev = img[..., ::-1]
    for name, ok in (
            ("RGB2YCrCb", np.array_equal(
                to_ycrcb(img), cv2.cvtColor(img, cv2.COLOR_RGB2YCrCb))),
            ("BGR2YCrCb", np.array_equal(
                to_ycrcb(rev), cv2.cvtColor(img, cv2.COLOR_BGR2YCrCb))),
            ("YCrCb2RGB", np.array_equal(
                to_rgb(img), cv2.cvtColor(img, cv2.COLOR_YCrCb2RGB))),
            ("YCrCb2BGR", np.array_equal(
                to_rgb(img)[..., ::-1],
                cv2.cvtColor(img, cv2.COLOR_YCrCb2BGR)))):
        print("  %-10s for all 2^24 inputs: %s" % (name, "equal" if ok else
                                                   "DIFFERENT (FAIL)"))
        if not ok:
            failures.append(name)


def run(backend, fmt, payload, mode):
    pipe = Gst.parse_launch(
        "appsrc name=src format=time ! cudanlmeans name=nlm backend=%s "
        "h=0.001 h-color=0 patch-size=3 search-window=3 rgb-mode=%s ! "
        "appsink name=sink sync=false" % (backend, mode))
    src = pipe.get_by_name("src")
    src.set_property("caps", Gst.Caps.from_string(
        "video/x-raw,format=%s,width=%d,height=%d,framerate=1/1" %
        (fmt, N, N)))
    sink = pipe.get_by_name("sink")
    pipe.set_state(Gst.State.PLAYING)
    b = Gst.Buffer.new_wrapped(payload.tobytes())
    b.pts = 0
    src.emit("push-buffer", b)
    src.emit("end-of-stream")
    s = sink.emit("pull-sample")
    err = pipe.get_bus().pop_filtered(Gst.MessageType.ERROR)
    pipe.set_state(Gst.State.NULL)
    if err or s is None:
        raise RuntimeError("no output: %s" % (err.parse_error()[0].message
                                              if err else "EOS"))
    out = s.get_buffer()
    return np.frombuffer(out.extract_dup(0, out.get_size()), np.uint8)


def check_element(backend, img, failures):
    rng = np.random.default_rng(3)
    alpha = rng.integers(0, 256, (N, N, 1), dtype=np.uint8)
    want = cv2.cvtColor(cv2.cvtColor(img, cv2.COLOR_RGB2YCrCb),
                        cv2.COLOR_YCrCb2RGB)
    # format: (R, G, B byte offsets, bytes per pixel, alpha offset)
    for fmt, order, bpp, ao in (("RGB", (0, 1, 2), 3, None),
                                ("BGR", (2, 1, 0), 3, None),
                                ("RGBA", (0, 1, 2), 4, 3),
                                ("BGRx", (2, 1, 0), 4, 3)):
        payload = np.zeros((N, N, bpp), np.uint8)
        for c in range(3):
            payload[..., order[c]] = img[..., c]
        if ao is not None:
            payload[..., ao] = alpha[..., 0]
        for mode in ("ycrcb", "joint-rgb"):
            out = run(backend, fmt, payload, mode).reshape(N, N, bpp)
            got = np.stack([out[..., order[c]] for c in range(3)], -1)
            ref = want if mode == "ycrcb" else img
            ok = np.array_equal(got, ref)
            nbad = int(np.count_nonzero(np.any(got != ref, -1)))
            if ao is not None and not np.array_equal(out[..., ao],
                                                     alpha[..., 0]):
                ok = False
                print("  %s %s: alpha / padding changed" % (fmt, mode))
            print("  %-5s %-9s all 2^24 colours: %s" % (
                fmt, mode, "equal to cv2's round trip" if ok and
                mode == "ycrcb" else "unchanged" if ok else
                "%d colours differ (FAIL)" % nbad))
            if not ok:
                failures.append("%s %s" % (fmt, mode))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--backend", default="cpu")
    args = ap.parse_args()
    Gst.init(None)
    if Gst.ElementFactory.find("cudanlmeans") is None:
        print("FAIL: cudanlmeans not found (GST_PLUGIN_PATH?)")
        return 1
    if args.backend == "cuda" and not cuda_usable():
        print("SKIP: no usable CUDA GPU")
        return 77
    failures = []
    img = all_colours()
    print("cv2 %s: the conversions of kernels/nlmeans_ycrcb.h" %
          cv2.__version__)
    check_formulas(img, failures)
    print("cudanlmeans backend=%s, %dx%d frame of every colour" % (
        args.backend, N, N))
    check_element(args.backend, img, failures)
    if failures:
        print("FAILED: %s" % ", ".join(failures))
        return 1
    print("all comparisons passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
