#!/usr/bin/python3
# cudanlmeans' temporal-window and h-color against OpenCV (python3-opencv)
# on real video: frames of vtest.avi (opencv-doc) decoded by GStreamer,
# cropped, with seeded Gaussian noise, through
# appsrc ! cudanlmeans ! appsink.
#
# Check (default): every output frame against cv2.fastNlMeansDenoisingMulti
# on the same frames with temporalWindowSize = 2 min (r, k, n-1-k) + 1 (the
# window shrunk symmetrically at the ends of the stream, as the element
# does), patch-sigma 0 (OpenCV's uniform patch weights), sigma 0: GRAY8
# and the luma of I420 with h, the I420 chroma (U and V as one 2-channel
# image) with h-color; h-color 0 leaves the chroma unchanged; frame count
# and timestamps kept. rgb-mode=ycrcb (BGR, RGBA) against OpenCV's
# pipeline cvtColor BGR2YCrCb -> the above on Y with h and on the
# 2-channel CrCb with h-color -> cvtColor YCrCb2BGR (alpha unchanged). Compared on the pixels whose search window and
# patches stay inside the frame (OpenCV searches a padded frame, the
# element clips the window: the borders differ by design). OpenCV's
# weights are fixed-point and its distances quantised, ours are float:
# the bar is >= 99 % of those pixels within 1 and none more than 10 apart
# (measured: 98.7-99.6 % equal, 99.5-100 % within 1, a few pixels up to 7
# apart, spatial windows included: where OpenCV drops weights below 0.001
# of the largest, WEIGHT_THRESHOLD, ours keeps them; see
# docs/cudanlmeans.md).
#
# --quality: the PSNR table of docs/cudanlmeans.md (spatial and temporal,
# grey and colour, sigma 10, 20, 30, each filter at its best h).
#
# Usage (from the build tree):
#   GST_PLUGIN_PATH=build/plugin /usr/bin/python3 \
#       tests/nlmeans_temporal_vs_opencv.py [--backend cpu|cuda]
#       [--quality [--frames N] [--crop WxH]]
# Exit 0: pass; 1: fail; 77 (skipped): no cv2 / gi / media, or --backend
# cuda without a usable GPU.
#
# SPDX-License-Identifier: LGPL-2.1-or-later
import argparse
import os
import sys
import time

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
PATCH, SEARCH = 7, 21
MARGIN = SEARCH // 2 + PATCH // 2


def cuda_usable():
    """whether cudanlmeans backend=cuda runs a frame (a GPU is usable);
    Gst.init first"""
    p = Gst.parse_launch("videotestsrc num-buffers=1 ! cudanlmeans "
                         "backend=cuda ! fakesink")
    p.set_state(Gst.State.PLAYING)
    msg = p.get_bus().timed_pop_filtered(
        10 * Gst.SECOND, Gst.MessageType.ERROR | Gst.MessageType.EOS)
    p.set_state(Gst.State.NULL)
    return msg is not None and msg.type != Gst.MessageType.ERROR


def decode(path, n, skip=0):
    """n BGR frames of a file decoded by GStreamer (after skip frames)"""
    pipe = Gst.parse_launch(
        "filesrc location=\"%s\" ! decodebin ! videoconvert ! "
        "video/x-raw,format=BGR ! appsink name=sink sync=false" % path)
    sink = pipe.get_by_name("sink")
    pipe.set_state(Gst.State.PLAYING)
    frames = []
    i = 0
    while len(frames) < n:
        sample = sink.emit("pull-sample")
        if sample is None:
            break
        i += 1
        if i <= skip:
            continue
        s = sample.get_caps()[0]
        w, h = s.get_value("width"), s.get_value("height")
        buf = sample.get_buffer()
        stride = (w * 3 + 3) & ~3
        a = np.frombuffer(buf.extract_dup(0, buf.get_size()), np.uint8)
        frames.append(a[:h * stride].reshape(h, stride)[:, :w * 3]
                      .reshape(h, w, 3).copy())
    pipe.set_state(Gst.State.NULL)
    return frames


def crop(frames, w, h):
    H, W = frames[0].shape[:2]
    y0, x0 = (H - h) // 2, (W - w) // 2
    return [f[y0:y0 + h, x0:x0 + w].copy() for f in frames]


def noisy(img, sigma, rng):
    n = img.astype(np.float64) + rng.normal(0, sigma, img.shape)
    return np.clip(np.rint(n), 0, 255).astype(np.uint8)


def i420_planes(bgr):
    """Y, and U, V as one 2-channel image, of a BGR frame (even size)"""
    h, w = bgr.shape[:2]
    yuv = cv2.cvtColor(bgr, cv2.COLOR_BGR2YUV_I420).reshape(-1)
    y = yuv[:w * h].reshape(h, w)
    u = yuv[w * h:w * h + w * h // 4].reshape(h // 2, w // 2)
    v = yuv[w * h + w * h // 4:].reshape(h // 2, w // 2)
    return y.copy(), np.dstack([u, v])


def to_i420(y, uv):
    return np.concatenate([y.reshape(-1), uv[:, :, 0].reshape(-1),
                           uv[:, :, 1].reshape(-1)])


class Element:
    """appsrc ! cudanlmeans ! appsink over a list of frames"""

    def __init__(self, backend):
        self.backend = backend

    def run(self, fmt, w, hgt, payloads, **props):
        pipe = Gst.parse_launch(
            "appsrc name=src format=time ! cudanlmeans name=nlm backend=%s "
            "! appsink name=sink sync=false" % self.backend)
        nlm = pipe.get_by_name("nlm")
        for k, v in props.items():
            if isinstance(v, str):      # an enum by its nick
                Gst.util_set_object_arg(nlm, k.replace("_", "-"), v)
            else:
                nlm.set_property(k.replace("_", "-"), v)
        src = pipe.get_by_name("src")
        src.set_property("caps", Gst.Caps.from_string(
            "video/x-raw,format=%s,width=%d,height=%d,framerate=10/1" %
            (fmt, w, hgt)))
        sink = pipe.get_by_name("sink")
        pipe.set_state(Gst.State.PLAYING)
        t0 = time.perf_counter()
        for i, p in enumerate(payloads):
            b = Gst.Buffer.new_wrapped(p.tobytes())
            b.pts = i * Gst.SECOND // 10
            b.duration = Gst.SECOND // 10
            src.emit("push-buffer", b)
        src.emit("end-of-stream")
        outs, pts = [], []
        while True:
            s = sink.emit("pull-sample")
            if s is None:
                break
            b = s.get_buffer()
            outs.append(np.frombuffer(b.extract_dup(0, b.get_size()),
                                      np.uint8))
            pts.append(b.pts)
        dt = time.perf_counter() - t0
        bus = pipe.get_bus()
        err = bus.pop_filtered(Gst.MessageType.ERROR)
        pipe.set_state(Gst.State.NULL)
        if err:
            raise RuntimeError(err.parse_error()[0].message)
        if pts != [i * Gst.SECOND // 10 for i in range(len(payloads))]:
            raise RuntimeError("timestamps or frame count changed: %s" % pts)
        self.seconds = dt
        return outs


def window(k, n, r):
    rr = min(r, k, n - 1 - k)
    return 2 * rr + 1


def cv_multi(frames, tw, h):
    """OpenCV's temporal NLM of every frame, the window shrunk at the ends
    (frames: 1-channel or 2/3-channel images)"""
    n, r = len(frames), tw // 2
    out = []
    for k in range(n):
        t = window(k, n, r)
        if t == 1:
            out.append(cv2.fastNlMeansDenoising(
                frames[k], None, h, PATCH, SEARCH))
        else:
            out.append(cv2.fastNlMeansDenoisingMulti(
                frames, k, t, None, h, PATCH, SEARCH))
    return out


def compare(name, ours, ref, failures):
    m = MARGIN
    a = ours[m:-m, m:-m].astype(int)
    b = ref[m:-m, m:-m].astype(int)
    d = np.abs(a - b)
    within1 = np.mean(d <= 1) * 100
    ok = within1 >= 99.0 and d.max() <= 10
    print("  %-40s equal %6.2f %%  within 1 %6.2f %%  max %d  %s" % (
        name, np.mean(d == 0) * 100, within1, d.max(), "ok" if ok else
        "FAIL"))
    if not ok:
        failures.append(name)


def check(el, failures):
    path = os.path.join(MEDIA, "vtest.avi")
    w, h = 128, 96
    clean = crop(decode(path, 7, skip=20), w, h)
    rng = np.random.default_rng(7)
    ys, uvs = [], []
    for f in clean:
        y, uv = i420_planes(noisy(f, 20, rng))
        ys.append(y)
        uvs.append(uv)
    n = len(ys)
    print("vtest.avi frames 21..27, %dx%d crop, sigma 20, patch %d search "
          "%d, patch-sigma 0" % (w, h, PATCH, SEARCH))
    for tw in (1, 3, 5, 7):
        hy, hc = 18.0, 12.0
        outs = el.run("GRAY8", w, h, ys, h=hy, temporal_window=tw,
                      patch_sigma=0.0, patch_size=PATCH, search_window=SEARCH)
        ref = cv_multi(ys, tw, hy)
        for k in range(n):
            compare("GRAY8 tw %d frame %d (window %d)" % (tw, k,
                    window(k, n, tw // 2)),
                    outs[k].reshape(h, w), ref[k], failures)
        outs = el.run("I420", w, h, [to_i420(y, uv) for y, uv in
                                     zip(ys, uvs)], h=hy, h_color=hc,
                      temporal_window=tw, patch_sigma=0.0, patch_size=PATCH,
                      search_window=SEARCH)
        refc = cv_multi(uvs, tw, hc)
        for k in (0, n // 2, n - 1):
            o = outs[k]
            compare("I420 Y tw %d frame %d" % (tw, k),
                    o[:w * h].reshape(h, w), ref[k], failures)
            u = o[w * h:w * h + w * h // 4].reshape(h // 2, w // 2)
            v = o[w * h + w * h // 4:].reshape(h // 2, w // 2)
            ou = np.dstack([u, v])
            for c in range(2):
                mm = MARGIN
                d = np.abs(ou[mm:-mm, mm:-mm, c].astype(int) -
                           refc[k][mm:-mm, mm:-mm, c].astype(int))
                ok = np.mean(d <= 1) >= 0.99 and d.max() <= 10
                print("  %-40s within 1 %6.2f %%  max %d  %s" % (
                    "I420 %s tw %d frame %d (h-color %g)" % ("UV"[c], tw, k,
                                                             hc),
                    np.mean(d <= 1) * 100, d.max(), "ok" if ok else "FAIL"))
                if not ok:
                    failures.append("I420 chroma tw %d frame %d" % (tw, k))
    # h-color = 0: the chroma unchanged, the luma as with chroma denoised
    outs = el.run("I420", w, h, [to_i420(y, uv) for y, uv in zip(ys, uvs)],
                  h=18.0, h_color=0.0, temporal_window=3, patch_sigma=0.0)
    ref = cv_multi(ys, 3, 18.0)
    bad = [k for k in range(n) if not np.array_equal(
        outs[k][w * h:], to_i420(ys[k], uvs[k])[w * h:])]
    print("  h-color 0: chroma unchanged in %d of %d frames: %s" % (
        n - len(bad), n, "ok" if not bad else "FAIL"))
    if bad:
        failures.append("h-color 0 changed the chroma of frames %s" % bad)
    for k in range(n):
        compare("I420 Y tw 3 h-color 0 frame %d" % k,
                outs[k][:w * h].reshape(h, w), ref[k], failures)
    check_rgb(el, clean, w, h, failures)


def check_rgb(el, clean, w, h, failures):
    """rgb-mode=ycrcb against cvtColor BGR2YCrCb -> Y with h, the
    2-channel CrCb with h-color -> cvtColor back, with the bar of the grey
    and I420 comparisons on the RGB components and on Y, Cr, Cb of both
    outputs converted again (cvtColor BGR2YCrCb: the denoised values
    themselves are not in the output; where both denoised triples agree so
    do these)"""
    rng = np.random.default_rng(8)
    bgrs = [noisy(f, 20, rng) for f in clean]
    alpha = [rng.integers(0, 256, (h, w, 1), dtype=np.uint8) for f in clean]
    yccs = [cv2.cvtColor(f, cv2.COLOR_BGR2YCrCb) for f in bgrs]
    ys = [f[:, :, 0].copy() for f in yccs]
    ccs = [f[:, :, 1:3].copy() for f in yccs]
    n = len(bgrs)
    hy, hc = 18.0, 12.0
    for fmt, tw in (("BGR", 1), ("BGR", 3), ("RGBA", 5), ("BGR", 7),
                    ("RGBA", 1)):
        if fmt == "BGR":
            payloads = bgrs
        else:
            payloads = [np.dstack([f[:, :, ::-1], a]) for f, a in
                        zip(bgrs, alpha)]
        outs = el.run(fmt, w, h, payloads, h=hy, h_color=hc,
                      temporal_window=tw, patch_sigma=0.0, patch_size=PATCH,
                      search_window=SEARCH, rgb_mode="ycrcb")
        refy = cv_multi(ys, tw, hy)
        refc = cv_multi(ccs, tw, hc)
        for k in (0, n // 2, n - 1):
            if fmt == "BGR":
                o = outs[k].reshape(h, w, 3)
            else:
                o4 = outs[k].reshape(h, w, 4)
                o = o4[:, :, 2::-1]
                if not np.array_equal(o4[:, :, 3:], alpha[k]):
                    print("  %s tw %d frame %d: alpha changed FAIL" % (
                        fmt, tw, k))
                    failures.append("%s alpha tw %d frame %d" % (fmt, tw, k))
            ref = cv2.cvtColor(np.dstack([refy[k], refc[k]]),
                               cv2.COLOR_YCrCb2BGR)
            a = cv2.cvtColor(np.ascontiguousarray(o), cv2.COLOR_BGR2YCrCb)
            b = cv2.cvtColor(ref, cv2.COLOR_BGR2YCrCb)
            compare("%s ycrcb tw %d frame %d RGB" % (fmt, tw, k),
                    np.ascontiguousarray(o), ref, failures)
            for c in range(3):
                compare("%s ycrcb tw %d frame %d %s" % (
                    fmt, tw, k, ("Y", "Cr", "Cb")[c]), a[:, :, c],
                    b[:, :, c], failures)
    # h-color 0: Cr, Cb kept: back (denoised Y, original CrCb)
    outs = el.run("BGR", w, h, bgrs, h=hy, h_color=0.0, temporal_window=3,
                  patch_sigma=0.0, patch_size=PATCH, search_window=SEARCH,
                  rgb_mode="ycrcb")
    refy = cv_multi(ys, 3, hy)
    for k in range(n):
        o = outs[k].reshape(h, w, 3)
        ref = cv2.cvtColor(np.dstack([refy[k], ccs[k]]), cv2.COLOR_YCrCb2BGR)
        a = cv2.cvtColor(o, cv2.COLOR_BGR2YCrCb)
        b = cv2.cvtColor(ref, cv2.COLOR_BGR2YCrCb)
        for c in range(3):
            compare("BGR ycrcb tw 3 h-color 0 frame %d %s" % (
                k, ("Y", "Cr", "Cb")[c]), a[:, :, c], b[:, :, c], failures)


def psnr(a, b):
    se = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return 10 * np.log10(255.0 ** 2 / se)


def quality(el, args):
    """PSNR of the frames with a full window against the clean ones, each
    filter at its best h over a grid of factors of sigma. Grey: the luma
    of the frames, noise added to it. Colour: the frames as I420 (the
    video's own format), seeded noise on Y, U and V; OpenCV gets them
    converted to BGR, cudanlmeans the I420 frames (h-color = h); both
    outputs are compared in BGR with the clean I420 frames converted the
    same way (cv2 I420 -> BGR)."""
    w, h = [int(x) for x in args.crop.split("x")]
    nf = args.frames
    frames = crop(decode(os.path.join(MEDIA, "vtest.avi"), nf, skip=20), w, h)
    ks = range(2, nf - 2)       # frames with a full window of 5
    print("vtest.avi frames 21..%d, %dx%d crop, PSNR (dB) over frames "
          "%d..%d, patch %d, search %d, noise seed 1, backend %s; best h in "
          "brackets" % (20 + nf, w, h, ks[0], ks[-1], PATCH, SEARCH,
                        args.backend))
    print("| input | sigma | noisy | OpenCV tw=1 | OpenCV tw=5 | "
          "ours tw=1 | ours tw=5 | ours tw=5 - tw=1 |")
    print("|---|---|---|---|---|---|---|---|")
    cvf = [float(f) for f in args.factors.split(",")]
    ourf = [float(f) for f in args.our_factors.split(",")]
    for kind in ("grey", "colour"):
        for sigma in [int(x) for x in args.sigmas.split(",")]:
            rng = np.random.default_rng(1)
            if kind == "grey":
                cl = [cv2.cvtColor(f, cv2.COLOR_BGR2GRAY) for f in frames]
                nz = [noisy(f, sigma, rng) for f in cl]
                ref = cl
            else:
                cl = [cv2.cvtColor(f, cv2.COLOR_BGR2YUV_I420) for f in frames]
                nz = [noisy(f, sigma, rng) for f in cl]
                ref = [cv2.cvtColor(f, cv2.COLOR_YUV2BGR_I420) for f in cl]
                nzbgr = [cv2.cvtColor(f, cv2.COLOR_YUV2BGR_I420) for f in nz]
            p0 = np.mean([psnr(ref[k], nz[k] if kind == "grey" else
                               nzbgr[k]) for k in ks])

            def score(outs):
                return np.mean([psnr(ref[k], outs[k]) for k in ks])

            res = {}
            for tw in (1, 5):
                best = (-1, 0)
                for f in cvf:
                    hh = f * sigma
                    if kind == "grey":
                        o = cv_multi(nz, tw, hh)
                    else:
                        o = [cv2.fastNlMeansDenoisingColoredMulti(
                            nzbgr, k, window(k, nf, tw // 2), None, hh, hh,
                            PATCH, SEARCH) if window(k, nf, tw // 2) > 1
                            else cv2.fastNlMeansDenoisingColored(
                                nzbgr[k], None, hh, hh, PATCH, SEARCH)
                            if k in ks else nzbgr[k] for k in range(nf)]
                    best = max(best, (score(o), hh))
                res["cv%d" % tw] = best
                best = (-1, 0)
                for f in ourf:
                    hh = f * sigma
                    if kind == "grey":
                        o = el.run("GRAY8", w, h, nz, h=hh,
                                   temporal_window=tw, sigma=float(sigma))
                        o = [x.reshape(h, w) for x in o]
                    else:
                        o = el.run("I420", w, h, nz, h=hh, h_color=hh,
                                   temporal_window=tw, sigma=float(sigma))
                        o = [cv2.cvtColor(x.reshape(h * 3 // 2, w),
                                          cv2.COLOR_YUV2BGR_I420) for x in o]
                    best = max(best, (score(o), hh))
                res["us%d" % tw] = best
            print("| %s | %d | %.2f | %.2f (%.0f) | %.2f (%.0f) | "
                  "%.2f (%.0f) | %.2f (%.0f) | %+.2f |" % (
                      kind, sigma, p0, res["cv1"][0], res["cv1"][1],
                      res["cv5"][0], res["cv5"][1], res["us1"][0],
                      res["us1"][1], res["us5"][0], res["us5"][1],
                      res["us5"][0] - res["us1"][0]))
            sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--quality", action="store_true")
    ap.add_argument("--frames", type=int, default=7)
    ap.add_argument("--crop", default="240x176")
    ap.add_argument("--factors", default="0.6,0.8,1.0,1.2,1.4",
                    help="--quality: OpenCV's h / sigma grid")
    ap.add_argument("--our-factors", default="0.3,0.5,0.7,0.9",
                    help="--quality: our h / sigma grid (sigma = noise)")
    ap.add_argument("--sigmas", default="10,20,30")
    args = ap.parse_args()
    Gst.init(None)
    if not os.path.exists(os.path.join(MEDIA, "vtest.avi")):
        print("SKIP: no vtest.avi in %s" % MEDIA)
        return 77
    if Gst.ElementFactory.find("cudanlmeans") is None:
        print("FAIL: cudanlmeans not found (GST_PLUGIN_PATH?)")
        return 1
    if args.backend == "cuda" and not cuda_usable():
        print("SKIP: no usable CUDA GPU")
        return 77
    el = Element(args.backend)
    if args.quality:
        quality(el, args)
        return 0
    failures = []
    check(el, failures)
    if failures:
        print("FAILED: %d comparisons: %s" % (len(failures),
                                             ", ".join(failures[:10])))
        return 1
    print("all comparisons passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
