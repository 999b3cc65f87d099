#!/usr/bin/python3
"""OpenCV's cv2.Canny on the frames that cudavision-bench -k canny and
-k canny-noise time, on every core of this machine: the OpenCV side of the
cudacanny figures of docs/benchmarks.md (run beside the benchmark, same
machine, same run; needs numpy and cv2 only, no GStreamer).

    tests/bench/opencv_canny.py [--size 1920x1080] [--repeat 30]
        [--threads N]

Frames: "camera", the pattern of kbench.cu's alloc_pattern (a smooth wave,
blocks and a little noise, the same formula and generator), and "noise",
uniform random bytes (the worst case). cv2.Canny(frame, 50, 150,
apertureSize=3, L2gradient=False): cudacanny's defaults. Prints the median
and the best of --repeat runs in milliseconds per frame.
"""
import argparse
import os
import statistics
import time

import cv2
import numpy as np


def camera_like(w, h):
    """kbench.cu alloc_pattern: the same values, computed with numpy"""
    n = w * h
    r = np.empty(n, dtype=np.uint64)
    v = 4242
    # the LCG r = r * 1664525 + 1013904223 (mod 2^32), in row-major order
    a, c, m = 1664525, 1013904223, 1 << 32
    for i in range(n):
        v = (v * a + c) % m
        r[i] = v
    r = r.reshape(h, w)
    y, x = np.mgrid[0:h, 0:w]
    val = (128 + 70 * np.sin(x * 0.031 + y * 0.017) * np.cos(y * 0.023)
           + np.where(((x // 97 + y // 61) % 3) == 0, 40, 0)
           + (r >> 29).astype(np.int64) - 4)
    return np.clip(val, 0, 255).astype(np.uint8)


def times_ms(frame, repeat):
    cv2.Canny(frame, 50, 150, apertureSize=3, L2gradient=False)
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        cv2.Canny(frame, 50, 150, apertureSize=3, L2gradient=False)
        out.append((time.perf_counter() - t) * 1e3)
    return statistics.median(out), min(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", default="1920x1080")
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    args = ap.parse_args()
    w, h = (int(v) for v in args.size.split("x"))
    cv2.setNumThreads(args.threads)
    frames = {"camera": camera_like(w, h),
              "noise": np.random.default_rng(1).integers(
                  0, 256, (h, w), dtype=np.uint8)}
    for name, f in frames.items():
        med, best = times_ms(f, args.repeat)
        edges = int(np.count_nonzero(
            cv2.Canny(f, 50, 150, apertureSize=3, L2gradient=False)))
        print("OPENCV cv2.Canny %s %dx%d GRAY8 threads=%d median_ms=%.3f "
              "best_ms=%.3f edge_pixels=%d (OpenCV %s)"
              % (name, w, h, cv2.getNumThreads(), med, best, edges,
                 cv2.__version__))


if __name__ == "__main__":
    main()
