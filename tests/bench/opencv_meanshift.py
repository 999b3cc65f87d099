#!/usr/bin/python3
"""Compare cudameanshift kernel=flat with OpenCV's pyrMeanShiftFiltering.

cv2.pyrMeanShiftFiltering(img, sp=hs, sr=hc, maxLevel=0,
termcrit=(MAX_ITER|EPS, iterations, epsilon)) against cudameanshift
kernel=flat spatial-radius=hs color-radius=hc max-iterations=... epsilon=...
on the sample images of opencv-doc (BGR frames, as OpenCV reads them).
Prints, per image and parameter set, the share of equal pixels (all three
channels equal), the share within 2 LSB, the largest channel difference,
and the run times (OpenCV single call vs. the element's CPU backend, best
of --repeat runs).

Usage (python3-opencv, python3-gi; run from the build tree or set
GST_PLUGIN_PATH to build/plugin):
  /usr/bin/python3 tests/bench/opencv_meanshift.py [--backend cpu|cuda]
      [--repeat N] [--size WxH] [images...]
Exit status 1 when an image has < 99 % equal pixels or a difference > 2.
"""
import argparse
import os
import sys
import time

import cv2
import numpy as np
import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

MEDIA = os.environ.get("CUDAVISION_MEDIA_DIR",
                       "/usr/share/doc/opencv-doc/examples/data")


def run_element(img, backend, hs, hc, iters, eps, frames=3):
    """Push `frames` copies of one BGR frame through cudameanshift;
    returns (first output frame, ms per frame: the time between the first
    and the last output divided by frames - 1, so that start-up costs are
    not counted)."""
    h, w = img.shape[:2]
    pipe = Gst.parse_launch(
        "appsrc name=src format=time caps=video/x-raw,format=BGR,"
        f"width={w},height={h},framerate=1/1 ! "
        f"cudameanshift name=ms backend={backend} kernel=flat "
        f"spatial-radius={hs} color-radius={hc} max-iterations={iters} "
        f"epsilon={eps} pipeline-depth=1 ! "
        "appsink name=sink sync=false")
    src = pipe.get_by_name("src")
    sink = pipe.get_by_name("sink")
    bus = pipe.get_bus()
    pipe.set_state(Gst.State.PLAYING)
    stride = (w * 3 + 3) & ~3
    data = np.zeros((h, stride), np.uint8)
    data[:, :w * 3] = img.reshape(h, w * 3)
    for i in range(frames):
        buf = Gst.Buffer.new_wrapped(data.tobytes())
        buf.pts = i * Gst.SECOND
        src.emit("push-buffer", buf)
    src.emit("end-of-stream")
    res = None
    stamps = []
    for i in range(frames):
        sample = sink.emit("pull-sample")
        stamps.append(time.perf_counter())
        if sample is None:
            msg = bus.pop_filtered(Gst.MessageType.ERROR)
            pipe.set_state(Gst.State.NULL)
            raise RuntimeError("no output: %s" %
                               (msg.parse_error()[0].message if msg else "?"))
        if res is None:
            out = sample.get_buffer()
            ok, m = out.map(Gst.MapFlags.READ)
            arr = np.frombuffer(m.data, np.uint8).reshape(h, stride)
            res = arr[:, :w * 3].reshape(h, w, 3).copy()
            out.unmap(m)
    ms = (stamps[-1] - stamps[0]) * 1000.0 / (frames - 1)
    pipe.set_state(Gst.State.NULL)
    return res, ms


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--size", default=None,
                    help="resize the images to WxH first (e.g. 1920x1080)")
    ap.add_argument("--params", default="8:16:5:1,10:20:5:1,5:30:10:0.5",
                    help="comma-separated hs:hc:iterations:epsilon sets")
    ap.add_argument("images", nargs="*",
                    default=["fruits.jpg", "baboon.jpg", "building.jpg",
                             "home.jpg"])
    args = ap.parse_args()
    Gst.init(None)
    if Gst.ElementFactory.find("cudameanshift") is None:
        sys.exit("cudameanshift not found: set GST_PLUGIN_PATH=build/plugin")
    status = 0
    sets = [tuple(float(v) for v in s.split(":"))
            for s in args.params.split(",")]
    print("image size hs hc iter eps | equal% within2% maxdiff | "
          "opencv_ms element_ms")
    for name in args.images:
        path = name if os.path.exists(name) else os.path.join(MEDIA, name)
        img = cv2.imread(path, cv2.IMREAD_COLOR)
        if img is None:
            print("missing", path)
            continue
        if args.size:
            w, h = (int(v) for v in args.size.split("x"))
            img = cv2.resize(img, (w, h), interpolation=cv2.INTER_LINEAR)
        for hs, hc, iters, eps in sets:
            hs, iters = int(hs), int(iters)
            crit = (cv2.TERM_CRITERIA_MAX_ITER | cv2.TERM_CRITERIA_EPS,
                    iters, eps)
            t_cv = t_el = float("inf")
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                ref = cv2.pyrMeanShiftFiltering(img, hs, hc, maxLevel=0,
                                                termcrit=crit)
                t_cv = min(t_cv, (time.perf_counter() - t0) * 1000.0)
                out, ms = run_element(img, args.backend, hs, hc, iters, eps)
                t_el = min(t_el, ms)
            diff = np.abs(out.astype(np.int16) - ref.astype(np.int16))
            px = diff.max(axis=2)
            equal = 100.0 * np.count_nonzero(px == 0) / px.size
            within2 = 100.0 * np.count_nonzero(px <= 2) / px.size
            print(f"{os.path.basename(path)} {img.shape[1]}x{img.shape[0]} "
                  f"{hs} {hc:g} {iters} {eps:g} | {equal:.4f} {within2:.4f} "
                  f"{int(diff.max())} | {t_cv:.1f} {t_el:.1f}")
            if equal < 99.0 or within2 < 100.0:
                status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
