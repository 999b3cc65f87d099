#!/usr/bin/python3
"""OpenCV's temporal non-local means on every core of this machine: the
OpenCV side of the cudanlmeans temporal-window figures of
docs/benchmarks.md (issue #16: >= 100x cv2.fastNlMeansDenoisingColoredMulti
on 16 cores). Run beside cudavision-bench, same machine, same run; needs
numpy and cv2 only.

    tests/bench/opencv_nlmeans_multi.py [--size 1920x1080] [--window 5]
        [--repeat 3] [--threads N]

Frames: seeded random BGR frames (the bench's frames are random too); the
cost of OpenCV's NLM depends on the size, the window, the patch and the
search window, not on the content. Times per output frame (one call
denoises one frame, imgToDenoiseIndex = window // 2), median and best of
--repeat, for ColoredMulti (BGR, patch 7, search 21, the element's I420
case) and Multi (grey, the element's GRAY8 case).
"""
import argparse
import statistics
import time

import cv2
import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", default="1920x1080")
    ap.add_argument("--window", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=0)
    a = ap.parse_args()
    w, h = (int(v) for v in a.size.split("x"))
    if a.threads:
        cv2.setNumThreads(a.threads)
    rng = np.random.default_rng(16)
    frames = [rng.integers(0, 256, (h, w, 3), np.uint8)
              for _ in range(a.window)]
    grey = [cv2.cvtColor(f, cv2.COLOR_BGR2GRAY) for f in frames]
    mid = a.window // 2
    for name, call in (
            ("fastNlMeansDenoisingColoredMulti",
             lambda: cv2.fastNlMeansDenoisingColoredMulti(
                 frames, mid, a.window, None, 10, 10, 7, 21)),
            ("fastNlMeansDenoisingMulti",
             lambda: cv2.fastNlMeansDenoisingMulti(
                 grey, mid, a.window, None, 10, 7, 21))):
        t = []
        for _ in range(a.repeat):
            t0 = time.perf_counter()
            call()
            t.append((time.perf_counter() - t0) * 1000.0)
        print("RESULT opencv=%s size=%dx%d window=%d patch=7 search=21 "
              "threads=%d ms_median=%.1f ms_best=%.1f" % (
                  name, w, h, a.window, cv2.getNumThreads(),
                  statistics.median(t), min(t)))


if __name__ == "__main__":
    main()
