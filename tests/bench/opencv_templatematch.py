#!/usr/bin/python3
"""CPU fallback of cudatemplatematch against OpenCV's matchTemplate, same
machine, same run, same frame and template (python3-opencv).

    tests/bench/opencv_templatematch.py [--build-dir build] [--repeat 5]
        [--case WxH:TWxTH:METHOD ...] [--path auto|direct|fft]

OpenCV side: cv2.matchTemplate + cv2.minMaxLoc (the best match). Our side:
cv_template_match_cpu (), the CPU implementation below the operator
(cpu-fallback/cpu-internal.h), through ctypes from the CPU library built as
build/tests/libcvcpu-bench.so, best match (max-matches 1), with a workspace
kept across calls as the operator keeps it (FFT plans and the template's
spectrum made on the first call, which is not timed; the template has a
fixed id). Both on the same random
GRAY8 frame with the template cut from it. --path sets CUDAVISION_TM_PATH
(our correlation path). Prints best-of-N milliseconds; the machine may be
shared, so take the best of several runs.
"""
import argparse
import ctypes as C
import os
import time

import cv2
import numpy as np

# name: (CvTemplateMatchMethod, the C interface's value; cv2's method)
METHODS = {"sqdiff": (0, cv2.TM_SQDIFF), "sqdiff-normed": (1, cv2.TM_SQDIFF_NORMED),
           "ccorr-normed": (2, cv2.TM_CCORR_NORMED),
           "ccoeff-normed": (3, cv2.TM_CCOEFF_NORMED),
           "ccorr": (4, cv2.TM_CCORR), "ccoeff": (5, cv2.TM_CCOEFF)}
CASES = ["1920x1080:64x64:ccoeff-normed", "1920x1080:64x64:sqdiff",
         "1920x1080:200x150:ccoeff-normed", "1920x1080:200x150:sqdiff",
         "1920x1080:5x5:ccoeff-normed", "1920x1080:3x3:ccoeff-normed",
         "8140x9925:3x3:ccoeff-normed", "1920x1080:64x64:ccorr",
         "1920x1080:64x64:ccoeff", "1920x1080:64x64:ccoeff-normed:mask",
         "1920x1080:64x64:ccoeff-normed:scales5"]
# scales5: the template at these 5 scales (cv2.resize INTER_NEAREST, as
# the element's scales property), one matchTemplate + minMaxLoc each, the
# best across scales; OpenCV side only (the element's several-template
# search is timed on the GPU by cudavision-bench, tests/bench/matrix.txt)
SCALES5 = [0.5, 0.75, 1.0, 1.5, 2.0]


class Plane(C.Structure):
    _fields_ = [("data", C.c_void_p), ("stride", C.c_size_t), ("width", C.c_int),
                ("height", C.c_int)]


class Layout(C.Structure):
    _fields_ = [("bpp", C.c_int), ("r", C.c_int), ("g", C.c_int), ("b", C.c_int)]


class Templ(C.Structure):
    _fields_ = [("plane", Plane), ("sum", C.c_int64), ("sumsq", C.c_int64),
                ("flat", C.c_int), ("id", C.c_uint64), ("mask", Plane),
                ("count", C.c_int64)]


class Params(C.Structure):
    _fields_ = [("method", C.c_int), ("max_matches", C.c_int),
                ("threshold", C.c_double), ("score_map", C.c_int)]


class Match(C.Structure):
    _fields_ = [("x", C.c_int32), ("y", C.c_int32), ("score", C.c_double),
                ("around", C.c_float * 4), ("scale", C.c_int32),
                ("w", C.c_int32), ("h", C.c_int32)]


class Result(C.Structure):
    _fields_ = [("count", C.c_int32), ("reserved", C.c_int32), ("match", Match * 64)]


def best_ms(fn, repeat):
    out = fn()
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best * 1e3, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", default="build")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--case", action="append")
    ap.add_argument("--path", default="auto")
    a = ap.parse_args()
    os.environ["CUDAVISION_TM_PATH"] = a.path
    lib = C.CDLL(os.path.join(a.build_dir, "tests", "libcvcpu-bench.so"))
    # the last argument: the CvExec (NULL: OpenMP's default threads)
    lib.cv_template_match_cpu.argtypes = [
        C.POINTER(Plane), Layout, C.POINTER(Templ), C.POINTER(Params),
        C.c_void_p, C.POINTER(Result), C.POINTER(C.c_void_p), C.c_void_p]
    lib.cv_template_match_cpu_path.argtypes = [C.c_void_p]
    lib.cv_template_match_cpu_free.argtypes = [C.c_void_p]
    lib.cv_template_stats.argtypes = [C.POINTER(Templ)]
    rng = np.random.default_rng(1)
    print(f"OpenCV {cv2.__version__}, {cv2.getNumThreads()} threads; "
          f"CUDAVISION_TM_PATH={a.path}")
    for case in a.case or CASES:
        size, tsize, method, *extra = case.split(":")
        extra = extra[0] if extra else ""
        w, h = map(int, size.split("x"))
        tw, th = map(int, tsize.split("x"))
        img = rng.integers(0, 256, (h, w), dtype=np.uint8)
        tpl = img[h // 3:h // 3 + th, w // 4:w // 4 + tw].copy()
        ours_m, cv_m = METHODS[method]
        # mask: an ellipse of alpha 255 in the template, 0 around it
        yy, xx = np.mgrid[0:th, 0:tw]
        alpha = np.where(((xx - tw / 2) / (tw / 2)) ** 2 +
                         ((yy - th / 2) / (th / 2)) ** 2 <= 1, 255, 0) \
            .astype(np.uint8)
        mask = alpha.copy()
        kw = {"mask": alpha} if extra == "mask" else {}

        def opencv():
            r = cv2.matchTemplate(img, tpl, cv_m, **kw)
            mn, mx, mnl, mxl = cv2.minMaxLoc(r)
            return mnl if cv_m in (cv2.TM_SQDIFF, cv2.TM_SQDIFF_NORMED) else mxl

        if extra == "scales5":
            tpls = [cv2.resize(tpl, (max(1, round(tw * f)), max(1, round(th * f))),
                               interpolation=cv2.INTER_NEAREST) for f in SCALES5]

            def opencv_scales():
                best = None
                for f, ts in zip(SCALES5, tpls):
                    r = cv2.matchTemplate(img, ts, cv_m)
                    if cv_m in (cv2.TM_SQDIFF, cv2.TM_CCORR, cv2.TM_CCOEFF):
                        r = r / ts.size
                    mn, mx, mnl, mxl = cv2.minMaxLoc(r)
                    k, loc = ((-mn, mnl) if cv_m in (cv2.TM_SQDIFF,
                                                     cv2.TM_SQDIFF_NORMED)
                              else (mx, mxl))
                    if best is None or k > best[0]:
                        best = (k, f, loc)
                return best[1:]
            c_ms, c_loc = best_ms(opencv_scales, a.repeat)
            print(f"{w}x{h} template {tw}x{th} {method} {len(SCALES5)} scales: "
                  f"OpenCV {c_ms:.1f} ms; best {c_loc}")
            continue

        src = Plane(img.ctypes.data, w, w, h)
        t = Templ(Plane(tpl.ctypes.data, tw, tw, th), 0, 0, 0, 1,
                  Plane(mask.ctypes.data if extra == "mask" else None, tw, tw,
                        th), 0)
        assert lib.cv_template_stats(C.byref(t)) == 0
        p = Params(ours_m, 1, -1.0, 0)
        res = Result()
        ws = C.c_void_p()

        def ours():
            st = lib.cv_template_match_cpu(C.byref(src), Layout(1, -1, -1, -1),
                                           C.byref(t), C.byref(p), None,
                                           C.byref(res), C.byref(ws), None)
            assert st == 0 and res.count == 1
            return (res.match[0].x, res.match[0].y)

        o_ms, o_loc = best_ms(ours, a.repeat)
        c_ms, c_loc = best_ms(opencv, a.repeat)
        path = {1: "direct", 2: "fft"}.get(lib.cv_template_match_cpu_path(ws), "?")
        lib.cv_template_match_cpu_free(ws)
        print(f"{w}x{h} template {tw}x{th} {method}{' ' + extra if extra else ''}: ours {o_ms:.1f} ms ({path}), "
              f"OpenCV {c_ms:.1f} ms, ratio {o_ms / c_ms:.2f}; "
              f"best at {o_loc} / {tuple(c_loc)}")


if __name__ == "__main__":
    main()
