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
- masks (use-alpha, real opencv-doc images decoded through GStreamer): a
  template with an alpha, as an RGBA template-sample and as a PNG file with
  transparency, finds cv2.matchTemplate (image, templ, method, mask=alpha)'s
  best window (or a tie within cv2's rounding) for all six methods;
- scales: the best (scale, x, y) of cv2.resize (templ, round (w f) x
  round (h f), INTER_NEAREST) + matchTemplate over the scales (keys score,
  or score / N for the unnormalised methods), and the scaled width/height;
  a scale too large for the frame is skipped;
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


def push_one(pipe, src, sink, img):
    """start pipe, push img (GRAY8) through appsrc src, pull the output
    from appsink sink; returns (the output sample, the last
    template_match message or None); an ERROR message raises"""
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
            found = msg
    return sample, found


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
    sample, msg = push_one(pipe, src, sink, img)
    s = msg.get_structure() if msg is not None else None
    found = None if s is None else {
        k: s.get_value(k) for k in
        ("count", "x", "y", "result", "x-subpixel", "y-subpixel")
        if s.has_field(k)}
    pipe.set_state(Gst.State.NULL)
    if sample is None or found is None:
        raise RuntimeError("no output or no template_match message")
    return found


def decode_gray(path):
    """a real image's luma, decoded through GStreamer (decodebin !
    videoconvert ! GRAY8), as the element's template loading does"""
    pipe = Gst.parse_launch(
        "filesrc location=%s ! decodebin ! videoconvert ! "
        "video/x-raw,format=GRAY8 ! appsink name=sink sync=false" % path)
    sink = pipe.get_by_name("sink")
    pipe.set_state(Gst.State.PLAYING)
    sample = sink.emit("pull-sample")
    pipe.set_state(Gst.State.NULL)
    if sample is None:
        raise RuntimeError("cannot decode %s" % path)
    return sample_gray(sample)


def sample_gray(sample):
    s = sample.get_caps()[0]
    w, h = s.get_value("width"), s.get_value("height")
    buf = sample.get_buffer()
    ok, info = buf.map(Gst.MapFlags.READ)
    stride = (w + 3) & ~3
    a = np.frombuffer(info.data, np.uint8)[:stride * h].reshape(h, stride)
    out = a[:, :w].copy()
    buf.unmap(info)
    return out


def run_ext(backend, img, props, tpl_rgba=None, max_matches=1):
    """one frame through the element with the properties props (a
    template-sample of RGBA pixels tpl_rgba, or props["template"]): the
    messages' matches (dicts) and the GRAY8 template in use"""
    h, w = img.shape
    pipe = Gst.parse_launch(
        "appsrc name=src format=time ! cudatemplatematch name=e backend=%s "
        "pipeline-depth=1 ! appsink name=sink sync=false" % backend)
    e = pipe.get_by_name("e")
    src = pipe.get_by_name("src")
    sink = pipe.get_by_name("sink")
    if tpl_rgba is not None:
        th, tw = tpl_rgba.shape[:2]
        e.set_property("template-sample", Gst.Sample.new(
            Gst.Buffer.new_wrapped(tpl_rgba.tobytes()), Gst.Caps.from_string(
                "video/x-raw,format=RGBA,width=%d,height=%d,framerate=0/1" %
                (tw, th)), None, None))
    for k, v in props.items():
        if k == "scales":
            Gst.util_set_object_arg(e, "scales", "<%s>" % ", ".join(
                repr(float(f)) for f in v))
        else:
            e.set_property(k, v)
    e.set_property("max-matches", max_matches)
    src.set_property("caps", gray_caps(w, h))
    sample, msg = push_one(pipe, src, sink, img)
    s = msg.get_structure() if msg is not None else None
    found = None
    if s is not None:
        ms = s.get_value("matches")
        found = [{k: ms[i].get_value(k) for k in
                  ("x", "y", "width", "height", "result", "scale", "masked")}
                 for i in range(len(ms))]
    used = sample_gray(e.get_property("template-sample"))
    pipe.set_state(Gst.State.NULL)
    if sample is None or found is None:
        raise RuntimeError("no output or no template_match message")
    return found, used


def real_image(name, w, h):
    """an opencv-doc sample decoded through GStreamer, cropped to w x h"""
    for d in ("/usr/share/doc/opencv-doc/examples/data",
              "/usr/share/opencv4/samples/data"):
        path = "%s/%s" % (d, name)
        try:
            with open(path, "rb"):
                pass
        except OSError:
            continue
        return decode_gray(path)[:h, :w].copy()
    return None


def ties(res, x, y, bv, method):
    """is res[y, x] cv2's best bv within cv2's own float rounding?"""
    scale = np.abs(res).max() if method in UNNORMED else 1.0
    tol = 1e-5 * scale if method in UNNORMED else 1e-4
    return abs(res[y, x] - bv) <= tol


def check_masked(backend, img, tpl_rgba, what, fails, path=None):
    """the masked match against cv2.matchTemplate (..., mask=alpha)"""
    alpha = tpl_rgba[:, :, 3].copy()
    for method in range(6):
        props = {"method": method}
        if path:
            props["template"] = path
        got, tpl = run_ext(backend, img, props,
                           None if path else tpl_rgba)
        res = cv2.matchTemplate(img, tpl, method, mask=alpha) \
            .astype(np.float64)
        res[~np.isfinite(res)] = np.nan
        mn, mx, mnl, mxl = cv2.minMaxLoc(np.nan_to_num(
            res, nan=np.inf if method in LOWER else -np.inf))
        (bx, by), bv = (mnl, mn) if method in LOWER else (mxl, mx)
        m = got[0]
        x, y = m["x"], m["y"]
        if not m["masked"]:
            fails.append("%s %s: not masked" % (what, NAMES[method]))
        elif (x, y) != (bx, by) and not ties(res, x, y, bv, method):
            fails.append("%s %s: best (%d,%d) %.9g, cv2 mask= (%d,%d) %.9g"
                         % (what, NAMES[method], x, y, res[y, x], bx, by,
                            bv))
        print("%s %s: (%d,%d), cv2 mask= (%d,%d)" % (what, NAMES[method], x,
                                                      y, bx, by))


def check_scales(backend, img, tpl, scales, what, fails):
    """several scales against cv2.resize (INTER_NEAREST) + matchTemplate"""
    th, tw = tpl.shape
    rgba = np.dstack([tpl, tpl, tpl, np.full_like(tpl, 255)])
    for method in range(6):
        got, used = run_ext(backend, img, {"method": method,
                                           "scales": scales}, rgba)
        best_key, ref = None, None
        maps = {}
        for f in scales:
            sw, sh = max(1, int(np.rint(tw * f))), max(1, int(np.rint(th * f)))
            if sw > img.shape[1] or sh > img.shape[0]:
                continue
            ts = cv2.resize(used, (sw, sh), interpolation=cv2.INTER_NEAREST)
            res = cv2.matchTemplate(img, ts, method).astype(np.float64)
            key = res / (sw * sh) if method in UNNORMED else res
            key = -key if method in LOWER else key
            maps[f] = (res, key, sw, sh)
            _, mx, _, mxl = cv2.minMaxLoc(key)
            if best_key is None or mx > best_key:
                best_key, ref = mx, (f, mxl)
        m = got[0]
        f, (bx, by) = ref
        x, y, sf = m["x"], m["y"], m["scale"]
        if sf not in maps:
            fails.append("%s %s: scale %g reported" % (what, NAMES[method],
                                                       sf))
            continue
        res, key, sw, sh = maps[sf]
        if (m["width"], m["height"]) != (sw, sh):
            fails.append("%s %s: size %dx%d at scale %g, expected %dx%d" %
                         (what, NAMES[method], m["width"], m["height"], sf,
                          sw, sh))
        k = abs(best_key) if method in UNNORMED else 1.0
        if (sf, x, y) != (f, bx, by) and \
                abs(key[y, x] - best_key) > 1e-4 * max(k, 1e-9):
            fails.append("%s %s: best scale %g (%d,%d), cv2 scale %g (%d,%d)"
                         % (what, NAMES[method], sf, x, y, f, bx, by))
        print("%s %s: scale %g (%d,%d), cv2 scale %g (%d,%d)" %
              (what, NAMES[method], sf, x, y, f, bx, by))


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
    # masks: real images (opencv-doc samples), templates cut from them with
    # an alpha (0 outside an ellipse, 1..255 inside: OpenCV's 8-bit masks
    # are binary), as a template-sample and as a PNG file with transparency
    img = real_image("baboon.jpg", 240, 200)
    if img is None:
        img = real_image("lena.jpg", 240, 200)
    if img is None:
        print("no opencv-doc sample image: masks and scales not checked")
    else:
        for (cx, cy, tw, th) in ((60, 50, 33, 27), (150, 110, 20, 24)):
            yy, xx = np.mgrid[0:th, 0:tw]
            inside = ((xx - tw / 2) / (tw / 2)) ** 2 + \
                ((yy - th / 2) / (th / 2)) ** 2 <= 1
            alpha = np.where(inside, rng.integers(1, 256, (th, tw)), 0) \
                .astype(np.uint8)
            cut = img[cy:cy + th, cx:cx + tw]
            # outside the mask: unrelated pixels that must not count
            body = np.where(inside, cut, rng.integers(0, 256, (th, tw))) \
                .astype(np.uint8)
            rgba = np.dstack([body, body, body, alpha])
            check_masked(a.backend, img, rgba, "masked %dx%d at (%d,%d)" %
                         (tw, th, cx, cy), fails)
            checks += 6
            import tempfile
            import os
            fd, path = tempfile.mkstemp(suffix=".png")
            os.close(fd)
            cv2.imwrite(path, np.dstack([body, body, body, alpha]))
            try:
                check_masked(a.backend, img, rgba, "masked png %dx%d" %
                             (tw, th), fails, path=path)
            finally:
                os.unlink(path)
            checks += 6
        # scales: the template cut at 1x, the frame holding it at 1.5x
        tpl = img[40:72, 50:86].copy()
        big = cv2.resize(tpl, (54, 48), interpolation=cv2.INTER_NEAREST)
        frame = img.copy()
        frame[120:168, 150:204] = big
        frame[40:72, 50:86] = rng.integers(0, 256, (32, 36))
        check_scales(a.backend, frame, tpl, [0.5, 1.0, 1.5, 2.0], "scales",
                     fails)
        checks += 6
        check_scales(a.backend, img, tpl, [0.75, 1.0, 1.25, 9.0],
                     "scales (9 skipped)", fails)
        checks += 6
    for f in fails:
        print("FAIL:", f)
    print("%d checks, %d failures" % (checks, len(fails)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
