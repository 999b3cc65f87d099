#!/usr/bin/python3
"""CPU fallback of cudasobel against OpenCV's Sobel magnitude, same machine,
same run (python3-opencv).

    tests/bench/opencv_sobel.py [--build-dir build] [--repeat 30]

OpenCV side, per frame: luma (cvtColor for RGBA), brightness offset
(cv2.add, saturating), Sobel dx and dy (ksize 3, CV_16S, BORDER_REPLICATE),
cv2.magnitude in float32, convert to 8 bit, threshold: the same output as
cudasobel. Our side: the element's own processing time on the CPU backend
(cudavision-bench -b cpu, "kernel" = time inside process_cpu), so neither
side counts GStreamer or Python overhead. Prints best-of-N milliseconds.
"""
import argparse
import re
import subprocess
import time

import cv2
import numpy as np


def best_ms(fn, repeat):
    fn()
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best * 1e3


def opencv_sobel(img, rgba, brightness=10, threshold=20):
    def run():
        y = cv2.cvtColor(img, cv2.COLOR_RGBA2GRAY) if rgba else img
        y = cv2.add(y, brightness)
        gx = cv2.Sobel(y, cv2.CV_16S, 1, 0, ksize=3, borderType=cv2.BORDER_REPLICATE)
        gy = cv2.Sobel(y, cv2.CV_16S, 0, 1, ksize=3, borderType=cv2.BORDER_REPLICATE)
        m = cv2.magnitude(gx.astype(np.float32), gy.astype(np.float32))
        m8 = cv2.convertScaleAbs(m)
        cv2.threshold(m8, threshold, 255, cv2.THRESH_TOZERO, dst=m8)
        return m8
    return run


def ours_ms(build, fmt, w, h, seconds):
    out = subprocess.run(
        [f"{build}/tests/cudavision-bench", "-e", "cudasobel", "-b", "cpu", "-d", "1",
         "-f", fmt, "-w", str(w), "-h", str(h), "-s", str(seconds), "--no-floor",
         "-i", "pageable", "-p", "brightness=10 threshold=20"],
        check=True, capture_output=True, text=True,
        env={"GST_PLUGIN_PATH": f"{build}/plugin", "PATH": "/usr/bin:/bin"}).stdout
    m = re.search(r"kernel ([0-9.]+) ms", out)
    return float(m.group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", default="build")
    ap.add_argument("--repeat", type=int, default=30)
    a = ap.parse_args()
    rng = np.random.default_rng(1)
    print(f"OpenCV {cv2.__version__}, {cv2.getNumThreads()} threads")
    for fmt, w, h in (("GRAY8", 1920, 1080), ("RGBA", 3840, 2160)):
        img = rng.integers(0, 256, (h, w, 4 if fmt == "RGBA" else 1), dtype=np.uint8)
        if fmt == "GRAY8":
            img = img[:, :, 0].copy()
        cv = best_ms(opencv_sobel(img, fmt == "RGBA"), a.repeat)
        ours = ours_ms(a.build_dir, fmt, w, h, 3)
        print(f"{fmt} {w}x{h}: OpenCV {cv:.2f} ms, cudasobel cpu {ours:.2f} ms "
              f"(mean in element), ratio {ours / cv:.2f}")


if __name__ == "__main__":
    main()
