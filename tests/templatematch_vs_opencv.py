#!/usr/bin/python3
"""cudatemplatematch against cv2.matchTemplate (python3-opencv), through
GStreamer (appsrc ! cudatemplatematch ! appsink, the template given as
template-sample), every method by its OpenCV number (0..5: the element's
method values are cv2.TM_*):

- locations: the element's best match is cv2.minMaxLoc's (the minimum for
  TM_SQDIFF / TM_SQDIFF_NORMED, else the maximum), or a window whose cv2
  score ties cv2's best within cv2's own float rounding;
- scores: the element's result equals cv2's score of that window within
  1e-4 (normed methods) or 1e-5 of the largest |score| of cv2's result
  (TM_SQDIFF, TM_CCORR, TM_CCOEFF: cv2 computes the correlation with a
  float DFT);
- subpixel=true: a template pasted at a fractional position by bilinear
  interpolation (cv2.warpAffine, INTER_LINEAR): x-subpixel and y-subpixel
  equal the parabola vertex computed here from cv2's result around the peak
  (within 0.01 pixel) and are closer to the true position than the integer
  match (TM_CCORR, which favours bright windows, only the first check).

    tests/templatematch_vs_opencv.py [--backend cpu|cuda]

Exit 0: all pass; 1: a failure; 77 (skipped): no python3-opencv / PyGObject,
or the backend cannot start.
"""
import argparse
import sys

try:
    import numpy as np
    import cv2
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import Gst  # noqa: E402
except (ImportError, ValueError) as e:
    print("skipped: %s" % e)
    sys.exit(77)

NAMES = {0: "sqdiff", 1: "sqdiff-normed", 2: "ccorr", 3: "ccorr-normed",
         4: "ccoeff", 5: "ccoeff-normed"}
LOWER = (cv2.TM_SQDIFF, cv2.TM_SQDIFF_NORMED)
UNNORMED = (cv2.TM_SQDIFF, cv2.TM_CCORR, cv2.TM_CCOEFF)


def gray_bytes(img):
    """GRAY8 bytes with GStreamer's default stride (rows of 4 bytes)"""
    h, w = img.shape
    buf = np.zeros((h, (w + 3) & ~3), np.uint8)
    buf[:, :w] = img
    return buf.tobytes()


def gray_caps(w, h):
    return Gst.Caps.from_string(
        "video/x-raw,format=GRAY8,width=%d,height=%d,framerate=0/1" % (w, h))


def run(backend, img, tpl, method, subpixel):
    """the template_match message's top-level fields of one frame"""
    h, w = img.shape
    pipe = Gst.parse_launch(
        "appsrc name=src format=time ! cudatemplatematch name=e backend=%s "
        "pipeline-depth=1 ! appsink name=sink sync=false" % backend)
    e = pipe.get_by_name("e")
    src = pipe.get_by_name("src")
    sink = pipe.get_by_name("sink")
    th, tw = tpl.shape
    e.set_property("template-sample", Gst.Sample.new(
        Gst.Buffer.new_wrapped(gray_bytes(tpl)), gray_caps(tw, th), None,
        None))
    e.set_property("method", method)
    e.set_property("subpixel", subpixel)
    src.set_property("caps", gray_caps(w, h))
    if pipe.set_state(Gst.State.PLAYING) == Gst.StateChangeReturn.FAILURE:
        raise RuntimeError("the pipeline does not start")
    buf = Gst.Buffer.new_wrapped(gray_bytes(img))
    buf.pts = 0
    buf.duration = Gst.SECOND
    src.emit("push-buffer", buf)
    sample = sink.emit("pull-sample")
    bus = pipe.get_bus()
    found = None
    while True:
        msg = bus.pop()
        if msg is None:
            break
        if msg.type == Gst.MessageType.ERROR:
            raise RuntimeError(msg.parse_error()[0].message)
        s = msg.get_structure()
        if msg.type == Gst.MessageType.ELEMENT and s.get_name() == \
                "template_match":
            found = {k: s.get_value(k) for k in
                     ("count", "x", "y", "result", "x-subpixel",
                      "y-subpixel") if s.has_field(k)}
    pipe.set_state(Gst.State.NULL)
    if sample is None or found is None:
        raise RuntimeError("no output or no template_match message")
    return found


def best(res, method):
    mn, mx, mnl, mxl = cv2.minMaxLoc(res)
    return (mnl, mn) if method in LOWER else (mxl, mx)


def parabola(a, b, c):
    den = 2.0 * (a - 2.0 * b + c)
    if den == 0:
        return 0.0
    return float(np.clip((a - c) / den, -0.5, 0.5))


def check_method(backend, img, tpl, method, what, fails):
    res = cv2.matchTemplate(img, tpl, method).astype(np.float64)
    (bx, by), bv = best(res, method)
    got = run(backend, img, tpl, method, False)
    x, y, r = got["x"], got["y"], got["result"]
    scale = np.abs(res).max() if method in UNNORMED else 1.0
    tol = 1e-5 * scale if method in UNNORMED else 1e-4
    at = res[y, x]
    if (x, y) != (bx, by) and abs(at - bv) > tol:
        fails.append("%s %s: best (%d,%d) %.9g, cv2 (%d,%d) %.9g" %
                     (what, NAMES[method], x, y, at, bx, by, bv))
    elif abs(r - at) > tol:
        fails.append("%s %s: score %.9g, cv2 %.9g" %
                     (what, NAMES[method], r, at))
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--backend", default="cpu")
    a = ap.parse_args()
    Gst.init(None)
    if Gst.ElementFactory.find("cudatemplatematch") is None:
        print("skipped: no cudatemplatematch")
        return 77
    try:
        run(a.backend, np.zeros((8, 8), np.uint8), np.zeros((2, 2), np.uint8),
            0, False)
    except RuntimeError as e:
        print("skipped: backend %s: %s" % (a.backend, e))
        return 77
    rng = np.random.default_rng(18)
    fails = []
    checks = 0

    # locations and scores: smooth random frames with a template cut from
    # them (a little changed), and a random template
    for i, (w, h, tw, th) in enumerate([(96, 72, 9, 7), (160, 120, 31, 23),
                                         (200, 150, 64, 48), (57, 41, 3, 3)]):
        img = cv2.GaussianBlur(rng.integers(0, 256, (h, w), dtype=np.uint8)
                               .astype(np.float32), (0, 0), 1.5)
        img = np.clip(img * 3 - 250 + rng.normal(0, 4, (h, w)), 0, 255) \
            .astype(np.uint8)
        cx, cy = (w - tw) // 3, (h - th) // 2
        tpls = [np.clip(img[cy:cy + th, cx:cx + tw].astype(int) +
                        rng.integers(-3, 4, (th, tw)), 0, 255)
                .astype(np.uint8),
                rng.integers(0, 256, (th, tw), dtype=np.uint8)]
        for j, tpl in enumerate(tpls):
            for method in range(6):
                check_method(a.backend, img, tpl, method,
                             "%dx%d t%dx%d %s" % (w, h, tw, th,
                                                  "cut" if j == 0 else
                                                  "random"), fails)
                checks += 1

    # sub-pixel: a smooth template pasted at fractional positions
    th, tw = 19, 21
    yy, xx = np.mgrid[0:th, 0:tw].astype(np.float64)
    tpl = np.clip(30 + 180 * np.exp(-((xx - 10) ** 2 + (yy - 9) ** 2) / 18)
                  + 40 * np.exp(-((xx - 14) ** 2 + (yy - 6) ** 2) / 8)
                  + 0.8 * xx + 0.5 * yy + 0.5, 0, 255).astype(np.uint8)
    for px, py in ((70.3, 40.7), (31.75, 88.2), (120.5, 20.4)):
        w, h = 180, 130
        m = np.float64([[1, 0, px], [0, 1, py]])
        pasted = cv2.warpAffine(tpl.astype(np.float32), m, (w, h),
                                flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_CONSTANT,
                                borderValue=-1)
        img = np.where(pasted >= 0, pasted,
                       30 + rng.integers(-2, 3, (h, w)))
        img = np.clip(np.floor(img + 0.5), 0, 255).astype(np.uint8)
        for method in range(6):
            what = "subpixel at (%g,%g) %s" % (px, py, NAMES[method])
            res = check_method(a.backend, img, tpl, method, what, fails)
            got = run(a.backend, img, tpl, method, True)
            x, y = got["x"], got["y"]
            sx, sy = got.get("x-subpixel"), got.get("y-subpixel")
            checks += 1
            if sx is None or sy is None:
                fails.append("%s: no x-subpixel / y-subpixel" % what)
                continue
            rh, rw = res.shape
            ex = x + (parabola(res[y, x - 1], res[y, x], res[y, x + 1])
                      if 0 < x < rw - 1 else 0.0)
            ey = y + (parabola(res[y - 1, x], res[y, x], res[y + 1, x])
                      if 0 < y < rh - 1 else 0.0)
            if abs(sx - ex) > 0.01 or abs(sy - ey) > 0.01:
                fails.append("%s: (%.4f,%.4f), from cv2's scores "
                             "(%.4f,%.4f)" % (what, sx, sy, ex, ey))
            if method != cv2.TM_CCORR and not (
                    abs(sx - px) < abs(x - px) or x == px) or \
                    method != cv2.TM_CCORR and not (
                        abs(sy - py) < abs(y - py) or y == py):
                fails.append("%s: (%.4f,%.4f) not closer than (%d,%d)" %
                             (what, sx, sy, x, y))
            print("%s: integer (%d,%d), subpixel (%.4f,%.4f)" %
                  (what, x, y, sx, sy))
    for f in fails:
        print("FAIL:", f)
    print("%d checks, %d failures" % (checks, len(fails)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
