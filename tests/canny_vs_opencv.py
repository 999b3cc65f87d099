#!/usr/bin/python3
# cudacanny and cudasobel against OpenCV (python3-opencv) on real images:
# each image of opencv-doc's samples (and frames of vtest.avi) decoded by
# GStreamer (decodebin ! videoconvert ! GRAY8), the same bytes given to the
# element (appsrc, one pipeline per image, the properties changed between
# frames while PLAYING) and to cv2.Canny / cv2.Sobel; the share of equal
# pixels per image and setting, which must be >= --bar (99.9 %) everywhere.
#
#   cudacanny: kernel-size 3, 5, 7 x l2-gradient off / on x threshold pairs
#              (50, 150), (20, 60), (100, 40) (swapped), (12.5, 33.7)
#   cudasobel: kernel-size 3, 5, 7 x norm l2 / l1, against the magnitude of
#              cv2.Sobel (CV_32F, BORDER_REPLICATE) floored, clamped to 255
#
# Usage (from the build tree; /usr/bin/python3 has cv2 and gi):
#   GST_PLUGIN_PATH=build/plugin /usr/bin/python3 tests/canny_vs_opencv.py \
#       [--backend cpu|cuda] [--images all|a.jpg,b.jpg] [--video-frames N]
# Exit 0: every setting at or above the bar; 1: below it; 77 (skipped):
# no cv2 / gi / media, or --backend cuda without a usable GPU.
#
# SPDX-License-Identifier: LGPL-2.1-or-later
import argparse
import glob
import os
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

MEDIA = os.environ.get("CUDAVISION_MEDIA_DIR",
                       "/usr/share/doc/opencv-doc/examples/data")
DEFAULT_IMAGES = ["fruits.jpg", "baboon.jpg", "building.jpg", "board.jpg",
                  "starry_night.jpg", "messi5.jpg", "butterfly.jpg",
                  "HappyFish.jpg", "ellipses.jpg", "text_defocus.jpg"]
CANNY_THRESHOLDS = [(50.0, 150.0), (20.0, 60.0), (100.0, 40.0),
                    (12.5, 33.7)]


def decode(path, max_frames=None):
    """frames of a file decoded by GStreamer to GRAY8"""
    desc = ("filesrc location=\"%s\" ! decodebin ! videoconvert ! "
            "video/x-raw,format=GRAY8 ! appsink name=sink sync=false" % path)
    pipe = Gst.parse_launch(desc)
    sink = pipe.get_by_name("sink")
    pipe.set_state(Gst.State.PLAYING)
    frames = []
    while max_frames is None or len(frames) < max_frames:
        sample = sink.emit("pull-sample")
        if sample is None:
            break
        s = sample.get_caps()[0]
        w, h = s.get_value("width"), s.get_value("height")
        buf = sample.get_buffer()
        data = buf.extract_dup(0, buf.get_size())
        stride = len(data) // h
        frames.append(np.frombuffer(data, np.uint8).reshape(
            h, stride)[:, :w].copy())
    pipe.set_state(Gst.State.NULL)
    return frames


class Element:
    """appsrc ! ELEMENT ! appsink, frames pushed one at a time with the
    properties set while PLAYING"""

    def __init__(self, factory, backend, img):
        h, w = img.shape
        self.w, self.h = w, h
        self.pipe = Gst.parse_launch(
            "appsrc name=src format=time ! %s name=e backend=%s "
            "pipeline-depth=1 ! video/x-raw,format=GRAY8 ! "
            "appsink name=sink sync=false" % (factory, backend))
        self.e = self.pipe.get_by_name("e")
        self.src = self.pipe.get_by_name("src")
        self.sink = self.pipe.get_by_name("sink")
        self.src.set_property("caps", Gst.Caps.from_string(
            "video/x-raw,format=GRAY8,width=%d,height=%d,framerate=0/1" %
            (w, h)))
        self.pipe.set_state(Gst.State.PLAYING)
        stride = (w + 3) & ~3   # GStreamer's default GRAY8 stride
        buf = np.zeros((h, stride), np.uint8)
        buf[:, :w] = img
        self.data = buf.tobytes()
        self.n = 0

    def run(self, **props):
        for k, v in props.items():
            self.e.set_property(k.replace("_", "-"), v)
        buf = Gst.Buffer.new_wrapped(self.data)
        buf.pts = self.n * Gst.SECOND
        buf.duration = Gst.SECOND
        self.n += 1
        if self.src.emit("push-buffer", buf) != Gst.FlowReturn.OK:
            raise RuntimeError("push-buffer failed")
        sample = self.sink.emit("pull-sample")
        if sample is None:
            bus = self.pipe.get_bus()
            msg = bus.pop_filtered(Gst.MessageType.ERROR)
            raise RuntimeError("no output: %s" %
                               (msg.parse_error()[0].message if msg else "?"))
        b = sample.get_buffer()
        data = b.extract_dup(0, b.get_size())
        stride = len(data) // self.h
        return np.frombuffer(data, np.uint8).reshape(
            self.h, stride)[:, :self.w]

    def close(self):
        self.src.emit("end-of-stream")
        self.pipe.set_state(Gst.State.NULL)


def sobel_ref(img, k, norm):
    gx = cv2.Sobel(img, cv2.CV_32F, 1, 0, ksize=k,
                   borderType=cv2.BORDER_REPLICATE).astype(np.float64)
    gy = cv2.Sobel(img, cv2.CV_32F, 0, 1, ksize=k,
                   borderType=cv2.BORDER_REPLICATE).astype(np.float64)
    if norm == "l1":
        m = np.abs(gx) + np.abs(gy)
    else:
        m = np.floor(np.sqrt(gx * gx + gy * gy))
    return np.minimum(m, 255).astype(np.uint8)


def gpu_usable():
    pipe = Gst.parse_launch("videotestsrc num-buffers=1 ! "
                            "cudasobel backend=cuda ! fakesink")
    pipe.set_state(Gst.State.PLAYING)
    msg = pipe.get_bus().timed_pop_filtered(
        30 * Gst.SECOND, Gst.MessageType.ERROR | Gst.MessageType.EOS)
    ok = msg is not None and msg.type == Gst.MessageType.EOS
    pipe.set_state(Gst.State.NULL)
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--backend", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--images", default=",".join(DEFAULT_IMAGES),
                    help="comma-separated names in the media folder, or all")
    ap.add_argument("--video-frames", type=int, default=3,
                    help="frames of vtest.avi (0: none)")
    ap.add_argument("--bar", type=float, default=99.9,
                    help="minimum %% of equal pixels per image and setting")
    args = ap.parse_args()

    Gst.init(None)
    for f in ("cudacanny", "cudasobel"):
        if Gst.ElementFactory.find(f) is None:
            print("FAIL: %s not found (GST_PLUGIN_PATH?)" % f)
            return 1
    if args.backend == "cuda" and not gpu_usable():
        print("SKIP: backend=cuda cannot start (no usable GPU)")
        return 77
    if args.images == "all":
        names = sorted(os.path.basename(p)
                       for p in glob.glob(os.path.join(MEDIA, "*.jpg")))
    else:
        names = [n for n in args.images.split(",") if n]
    inputs = []
    for n in names:
        p = os.path.join(MEDIA, n)
        if os.path.exists(p):
            inputs += [(n, f) for f in decode(p, 1)]
    vp = os.path.join(MEDIA, "vtest.avi")
    if args.video_frames > 0 and os.path.exists(vp):
        for i, f in enumerate(decode(vp, args.video_frames)):
            inputs.append(("vtest.avi#%d" % i, f))
    if not inputs:
        print("SKIP: no media in %s (install opencv-doc)" % MEDIA)
        return 77

    worst = 100.0
    failures = 0
    total = 0
    print("backend=%s, bar %.3f %% equal pixels" % (args.backend, args.bar))
    for name, img in inputs:
        h, w = img.shape
        results = []
        canny = Element("cudacanny", args.backend, img)
        for k in (3, 5, 7):
            for l2 in (False, True):
                for lo, hi in CANNY_THRESHOLDS:
                    out = canny.run(kernel_size=k, l2_gradient=l2,
                                    low_threshold=lo, high_threshold=hi)
                    ref = cv2.Canny(img, lo, hi, apertureSize=k,
                                    L2gradient=l2)
                    pct = 100.0 * np.count_nonzero(out == ref) / out.size
                    results.append(("canny k=%d l2=%d t=%g/%g" %
                                    (k, l2, lo, hi), pct,
                                    np.count_nonzero(ref)))
        canny.close()
        sobel = Element("cudasobel", args.backend, img)
        for k in (3, 5, 7):
            for norm in ("l2", "l1"):
                out = sobel.run(kernel_size=k, norm=norm)
                ref = sobel_ref(img, k, norm)
                pct = 100.0 * np.count_nonzero(out == ref) / out.size
                results.append(("sobel k=%d norm=%s" % (k, norm), pct,
                                np.count_nonzero(ref)))
        sobel.close()
        lo_pct = min(r[1] for r in results)
        print("%-22s %4dx%-4d  min %.4f %%  (%d settings)" %
              (name, w, h, lo_pct, len(results)))
        for what, pct, nz in results:
            total += 1
            worst = min(worst, pct)
            bad = pct < args.bar
            failures += bad
            if bad or pct < 100.0:
                print("    %-32s %.4f %% equal (%d reference edge/non-zero "
                      "pixels)%s" % (what, pct, nz, "  BELOW BAR" if bad
                                     else ""))
    print("%d image-settings, worst %.4f %% equal, %d below %.3f %%" %
          (total, worst, failures, args.bar))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
