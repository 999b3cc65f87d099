#!/usr/bin/python3
# Denoise a noisy version of OpenCV's sample video vtest.avi with cudanlmeans.
#
# GStreamer has no additive-Gaussian-noise element, so the noise is added by
# the application: frames are decoded to I420 by one pipeline (appsink), the
# luma gets Gaussian noise (numpy, fixed seed; chroma untouched since
# cudanlmeans passes I420 chroma through), and the noisy frames are pushed
# into a second pipeline:
#
#   appsrc ! tee name=n ! queue ! y4menc ! filesink location=OUT/noisy.y4m
#            n. ! queue ! cudanlmeans ! tee name=d
#            d. ! queue ! y4menc ! filesink location=OUT/denoised.y4m
#            d. ! queue ! appsink
#
# It prints the luma PSNR of the noisy and denoised frames against the clean
# ones; the files can be compared again with the cv-psnr tool:
#   build/tests/cv-psnr --format I420 vtest.avi OUT/denoised.y4m
#
# Usage: GST_PLUGIN_PATH=build/plugin /usr/bin/python3 pipelines/nlmeans_vtest.py
#   [--frames 30] [--sigma 20] [--h 14] [--backend auto] [--out /tmp/nlm]
#
# SPDX-License-Identifier: LGPL-2.1-or-later
import argparse
import os
import time

import numpy as np
import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstVideo", "1.0")
from gi.repository import Gst, GstVideo  # noqa: E402

VIDEO = "/usr/share/doc/opencv-doc/examples/data/vtest.avi"


def i420_luma(buf, w, h, info):
    ok, m = buf.map(Gst.MapFlags.READ)
    a = np.frombuffer(m.data, np.uint8)
    stride, off = info.stride[0], info.offset[0]
    y = np.lib.stride_tricks.as_strided(a[off:], (h, w), (stride, 1)).copy()
    rest = bytes(m.data)
    buf.unmap(m)
    return y, rest


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--input", default=VIDEO)
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--sigma", type=float, default=20.0)
    ap.add_argument("--h", type=float, default=14.0,
                    help="cudanlmeans h (default 0.7 sigma, with sigma set)")
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--out", default="/tmp/nlmeans-vtest")
    args = ap.parse_args()
    Gst.init(None)
    os.makedirs(args.out, exist_ok=True)

    dec = Gst.parse_launch(
        'filesrc location="%s" ! decodebin ! videoconvert ! '
        "video/x-raw,format=I420 ! appsink name=sink sync=false" % args.input)
    dsink = dec.get_by_name("sink")
    dec.set_state(Gst.State.PLAYING)

    proc = None
    rng = np.random.default_rng(1)
    p_noisy, p_dn, n = [], [], 0
    t0 = time.perf_counter()
    while n < args.frames:
        s = dsink.emit("pull-sample")
        if s is None:
            break
        info = GstVideo.VideoInfo.new_from_caps(s.get_caps())
        w, h = info.width, info.height
        clean, raw = i420_luma(s.get_buffer(), w, h, info)
        noisy = np.clip(np.rint(clean + rng.normal(0, args.sigma, clean.shape)),
                        0, 255).astype(np.uint8)
        data = bytearray(raw)
        for y in range(h):
            o = info.offset[0] + y * info.stride[0]
            data[o:o + w] = noisy[y].tobytes()
        if proc is None:
            proc = Gst.parse_launch(
                "appsrc name=src format=time ! tee name=n "
                "n. ! queue ! y4menc ! filesink location=%s/noisy.y4m "
                "n. ! queue ! cudanlmeans name=nlm backend=%s h=%f sigma=%f "
                "! tee name=d d. ! queue ! y4menc ! "
                "filesink location=%s/denoised.y4m "
                "d. ! queue ! appsink name=sink sync=false"
                % (args.out, args.backend, args.h, args.sigma, args.out))
            src = proc.get_by_name("src")
            src.set_property("caps", s.get_caps())
            psink = proc.get_by_name("sink")
            proc.set_state(Gst.State.PLAYING)
        b = Gst.Buffer.new_wrapped(bytes(data))
        b.pts = s.get_buffer().pts
        b.duration = s.get_buffer().duration
        src.emit("push-buffer", b)
        out = psink.emit("pull-sample")
        dn, _ = i420_luma(out.get_buffer(), w, h, info)

        def psnr(a):
            mse = np.mean((a.astype(np.float64) - clean) ** 2)
            return 10 * np.log10(255.0 ** 2 / mse)
        p_noisy.append(psnr(noisy))
        p_dn.append(psnr(dn))
        print("frame %3d  noisy %.2f dB  denoised %.2f dB" %
              (n, p_noisy[-1], p_dn[-1]))
        n += 1
    dt = time.perf_counter() - t0
    dec.set_state(Gst.State.NULL)
    if proc is None:
        raise SystemExit("no frame decoded from %s" % args.input)
    src.emit("end-of-stream")
    proc.get_bus().timed_pop_filtered(10 * Gst.SECOND, Gst.MessageType.EOS |
                                      Gst.MessageType.ERROR)
    backend = proc.get_by_name("nlm").get_property("active-backend")
    proc.set_state(Gst.State.NULL)
    print("%d frames, backend %s, %.1f s: luma PSNR noisy %.2f dB -> "
          "denoised %.2f dB (gain %.2f dB); files in %s" %
          (n, backend.value_nick, dt, np.mean(p_noisy), np.mean(p_dn),
           np.mean(p_dn) - np.mean(p_noisy), args.out))


if __name__ == "__main__":
    main()
