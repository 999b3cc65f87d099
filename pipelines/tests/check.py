#!/usr/bin/python3
# gst-cuda-vision: tests of the scripts in pipelines/ (meson suite "cpu").
#
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Run a pipelines/ script or embedding example and check what it did.

  check.py help SRCDIR BUILDDIR
  check.py demo SRCDIR BUILDDIR OUTDIR
  check.py camera SRCDIR BUILDDIR
  check.py side-by-side SRCDIR BUILDDIR OUTDIR
  check.py blur-edges SRCDIR BUILDDIR OUTDIR
  check.py meanshift-segment SRCDIR BUILDDIR OUTDIR
  check.py find-template SRCDIR BUILDDIR OUTDIR
  check.py nlmeans SRCDIR BUILDDIR OUTDIR
  check.py gpu-decode SRCDIR BUILDDIR OUTDIR
  check.py embed CMD [ARGS...]

help: every script's --help prints its own usage (not gst-launch-1.0's)
with the shared options and exits 0. Every run checks the summary line that
closes a script's stdout,
  SCRIPT: N frames, X fps, backend cpu|cuda, output PATH|window|none
(N exactly the --frames asked for), decodes what the script wrote again
(uridecodebin -> appsink, none of our elements) and compares it with an
independent reference written here from the definition (3x3 Sobel of the
luma, replicated borders, m = min(255, floor(sqrt(Gx^2 + Gy^2))),
out = m > threshold ? m : 0); the --snapshot PNGs of demo.sh and
side-by-side.sh are decoded (pngdec) and checked for their size and
content. Exit status 0: pass, 1: fail (with the reason), 77: skipped (a
needed file or GStreamer element is missing on this machine).
"""

import math
import os
import re
import subprocess
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstApp", "1.0")
gi.require_version("GstVideo", "1.0")
from gi.repository import Gst, GstApp, GstVideo  # noqa: E402,F401

VTEST = "/usr/share/doc/opencv-doc/examples/data/vtest.avi"
SKIP = 77


class Fail(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Fail(what)
    print(f"ok: {what}")


def skip(why):
    print(f"SKIP: {why}")
    sys.exit(SKIP)


def need_elements(*names):
    for n in names:
        if Gst.ElementFactory.find(n) is None:
            skip(f"GStreamer element {n} is not installed")


def run(cmd, env=None):
    """Run cmd; returns (exit status, stdout + stderr, stdout)."""
    print("$ " + " ".join(cmd), flush=True)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, env=env, timeout=600)
    print(p.stdout, flush=True)
    if p.stderr:
        print("(stderr)\n" + p.stderr, flush=True)
    return p.returncode, p.stdout + p.stderr, p.stdout


SUMMARY = re.compile(r"^(?P<name>\S+): (?P<frames>\d+) frames, "
                     r"(?P<fps>[0-9.]+) fps, backend (?P<backend>cpu|cuda), "
                     r"output (?P<output>.+)$")


def check_summary(stdout, name, frames, output):
    """The last line of stdout is the shared summary line."""
    lines = stdout.rstrip("\n").split("\n")
    m = SUMMARY.match(lines[-1])
    check(m is not None, f"the last line of stdout is the summary line "
          f"({lines[-1]!r})")
    check(m.group("name") == name, f"the summary names {name}")
    check(int(m.group("frames")) == frames,
          f"the summary reports exactly {frames} frames "
          f"(got {m.group('frames')})")
    check(float(m.group("fps")) > 0, "the summary reports the fps")
    check(m.group("output") == output, f"the summary names the output "
          f"{output} (got {m.group('output')})")
    return m


# ---- decoding and the reference ---------------------------------------------

def decode_luma(location, max_frames=None, launch=None, keep=None,
                format="I420"):
    """Frames of a file (or of a launch-line source) as (w, h, rows of Y,
    pts in seconds).

    The frames are converted to I420 (a no-op for the decoders used here,
    which output I420) and the Y plane is returned as a list of bytes rows
    (None for the frames whose index is not in keep, when keep is given)."""
    if launch is None:
        uri = Gst.filename_to_uri(os.path.abspath(location))
        launch = f'uridecodebin uri="{uri}"'
    pipe = Gst.parse_launch(
        f"{launch} ! videoconvert ! video/x-raw,format={format} "
        f"! appsink name=sink sync=false")
    sink = pipe.get_by_name("sink")
    pipe.set_state(Gst.State.PLAYING)
    frames = []
    while max_frames is None or len(frames) < max_frames:
        sample = sink.try_pull_sample(30 * Gst.SECOND)
        if sample is None:
            break
        info = GstVideo.VideoInfo.new_from_caps(sample.get_caps())
        buf = sample.get_buffer()
        meta = GstVideo.buffer_get_video_meta(buf)
        off = meta.offset[0] if meta else info.offset[0]
        stride = meta.stride[0] if meta else info.stride[0]
        rows = None
        if keep is None or len(frames) in keep:
            ok, m = buf.map(Gst.MapFlags.READ)
            data = bytes(m.data)
            buf.unmap(m)
            rows = [data[off + y * stride:off + y * stride + info.width]
                    for y in range(info.height)]
        pts = buf.pts / Gst.SECOND if buf.pts != Gst.CLOCK_TIME_NONE else None
        frames.append((info.width, info.height, rows, pts))
    msg = pipe.get_bus().timed_pop_filtered(0, Gst.MessageType.ERROR)
    pipe.set_state(Gst.State.NULL)
    if msg is not None:
        raise Fail(f"decoding {location or launch}: "
                   f"{msg.parse_error()[0].message}")
    return frames


def decode_gray(location):
    """The frames of an image or video file as GRAY8 rows, no conversion of
    GRAY8 sources (an edge map PNG stays exact)."""
    uri = Gst.filename_to_uri(os.path.abspath(location))
    return decode_luma(None, launch=f'uridecodebin uri="{uri}" ! '
                       f'videoconvert ! video/x-raw,format=GRAY8 ! '
                       f'identity', format="GRAY8")


def png_size(path):
    """(width, height) from the PNG header (and that it is a PNG)."""
    with open(path, "rb") as f:
        head = f.read(24)
    check(head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR",
          f"{path} is a PNG file")
    return (int.from_bytes(head[16:20], "big"),
            int.from_bytes(head[20:24], "big"))


def crop(rows, x0, w):
    return [r[x0:x0 + w] for r in rows]


def sobel_g2(rows, brightness=0):
    """Gx^2 + Gy^2 of clamp(Y + brightness) with replicated borders."""
    h, w = len(rows), len(rows[0])
    img = [[min(255, max(0, v + brightness)) for v in r] for r in rows]
    out = []
    for y in range(h):
        up, mid, dn = img[max(y - 1, 0)], img[y], img[min(y + 1, h - 1)]
        line = []
        for x in range(w):
            xl, xr = max(x - 1, 0), min(x + 1, w - 1)
            gx = (up[xr] + 2 * mid[xr] + dn[xr]) - (up[xl] + 2 * mid[xl]
                                                     + dn[xl])
            gy = (dn[xl] + 2 * dn[x] + dn[xr]) - (up[xl] + 2 * up[x] + up[xr])
            line.append(gx * gx + gy * gy)
        out.append(line)
    return out


def sobel(rows, brightness=0, threshold=0):
    out = []
    for line in sobel_g2(rows, brightness):
        r = []
        for g2 in line:
            m = min(255, math.isqrt(g2))
            r.append(m if m > threshold else 0)
        out.append(r)
    return out


def edge_count(rows, threshold):
    """Non-zero pixels of cudasobel's output: m > threshold, with
    m = floor(sqrt(g2)) (> threshold >= 0 means non-zero)."""
    lim = (threshold + 1) ** 2
    return sum(g2 >= lim for line in sobel_g2(rows) for g2 in line)


def scale(rows, w, h):
    """Box-filter resize (mean of each source block), only to compare a
    pane with the input frame it shows."""
    sh, sw = len(rows), len(rows[0])
    out = []
    for y in range(h):
        y0, y1 = y * sh // h, max(y * sh // h + 1, (y + 1) * sh // h)
        line = []
        for x in range(w):
            x0, x1 = x * sw // w, max(x * sw // w + 1, (x + 1) * sw // w)
            tot = sum(sum(rows[yy][x0:x1]) for yy in range(y0, y1))
            line.append(tot / ((y1 - y0) * (x1 - x0)))
        out.append(line)
    return out


def mean(rows):
    return sum(sum(r) for r in rows) / (len(rows) * len(rows[0]))


def correlation(a, b):
    xs = [v for r in a for v in r]
    ys = [v for r in b for v in r]
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else 0.0


# ---- the checks ------------------------------------------------------------

# every script of pipelines/ and the options its --help must name (the shared
# style: long options, --build-dir, --backend, --frames where they apply)
SHARED = ["--frames", "--backend", "--build-dir"]
SCRIPTS = {
    "demo.sh": SHARED + ["--output", "--snapshot"],
    "edges.py": SHARED + ["--output", "--snapshot"],
    "camera.sh": SHARED + ["--device", "--test", "--element"],
    "side-by-side.sh": SHARED + ["--output", "--snapshot", "--headless",
                                 "--edges"],
    "blur-edges.sh": SHARED + ["--output", "--filters", "--headless"],
    "meanshift-segment.sh": SHARED + ["--output", "--spatial-radius"],
    "find-template.py": SHARED + ["--output", "--template"],
    "nlmeans_vtest.py": SHARED + ["--output-dir", "--sigma"],
    "gpu-decode.sh": SHARED + ["--output", "--decoder"],
    "cvpipe.py": ["--frames", "--build-dir", "--snapshot", "--element"],
    "install-deps.sh": ["--check"],
    "test-meanshift-segment.sh": ["--build-dir"],
    "embed/edges_app.py": SHARED + ["--input"],
    "embed/results_app.py": SHARED + ["--image"],
}
NOT_SCRIPTS = {"common.sh"}  # sourced by the shell scripts


def check_help(src, build):
    pdir = os.path.join(src, "pipelines")
    found = {f for f in os.listdir(pdir)
             if f.endswith((".sh", ".py")) and f not in NOT_SCRIPTS}
    found |= {"embed/" + f for f in os.listdir(os.path.join(pdir, "embed"))
              if f.endswith(".py")}
    check(found == set(SCRIPTS), f"the list of scripts is complete "
          f"(new: {sorted(found - set(SCRIPTS))}, gone: "
          f"{sorted(set(SCRIPTS) - found)})")
    cmds = {name: [os.path.join(pdir, name)] for name in SCRIPTS}
    cmds["edges-app"] = [os.path.join(build, "pipelines", "edges-app")]
    wants = dict(SCRIPTS, **{"edges-app": SHARED + ["--input"]})
    for name, cmd in cmds.items():
        check(os.access(cmd[0], os.X_OK), f"{name} is executable")
        rc, text, stdout = run(cmd + ["--help"])
        check(rc == 0, f"{name} --help exits with status 0")
        check("usage" in stdout.lower(), f"{name} --help prints a usage "
              f"text on stdout")
        check("gst-launch-1.0 [OPTION" not in text,
              f"{name} --help is not gst-launch-1.0's help")
        missing = [o for o in wants[name] if o not in stdout]
        check(not missing, f"{name} --help names {' '.join(wants[name])} "
              f"(missing: {missing})")
        rc, text, _ = run(cmd + ["--no-such-option"])
        check(rc != 0 and "Traceback" not in text,
              f"{name} refuses an unknown option with a message")


def check_demo(src, build, outdir):
    if not os.path.exists(VTEST):
        skip(f"{VTEST} is missing (package opencv-doc)")
    need_elements("avdec_msmpeg4", "jpegenc", "matroskamux", "pngenc",
                  "pngdec")
    out = os.path.join(outdir, "demo-edges.mkv")
    png = os.path.join(outdir, "demo-edges.png")
    for f in (out, png):
        if os.path.exists(f):
            os.remove(f)
    frames = 30
    k = frames // 2  # the snapshot: the middle frame
    rc, text, stdout = run([os.path.join(src, "pipelines", "demo.sh"),
                            "--no-install", "--build-dir", build,
                            "--frames", str(frames), "--output", out,
                            "--snapshot", png])
    check(rc == 0, "demo.sh exits with status 0")
    check(re.search(rf"^frames processed: {frames}$", text, re.M),
          f"demo.sh reports {frames} frames processed")
    check(re.search(r"^backend: (cpu|cuda)$", text, re.M),
          "demo.sh reports the backend (cpu or cuda)")
    check(re.search(r"^time: [0-9.]+ s, [0-9.]+ fps", text, re.M),
          "demo.sh reports the fps")
    check_summary(stdout, "demo.sh", frames, out)
    check(os.path.getsize(out) > 0, f"{out} exists and is not empty")
    got = decode_luma(out, keep=(0, frames - 1))
    check(len(got) == frames, f"the output has {frames} frames "
          f"(decoded: {len(got)})")
    check(all((f[0], f[1]) == (768, 576) for f in got),
          "the output frames are 768x576")
    steps = {round(b[3] - a[3], 3) for a, b in zip(got, got[1:])}
    check(steps == {0.1}, f"the output frames are 0.1 s apart ({steps})")
    # Frame 0 and the last frame against the reference Sobel of the input's
    # luma. The output went through GRAY8 -> I420 (range scaling) and a lossy
    # JPEG encoder: compare by correlation, not value for value.
    ref_in = decode_luma(VTEST, max_frames=frames, keep=(0, k, frames - 1))
    for i in (0, frames - 1):
        c = correlation(sobel(ref_in[i][2]), got[i][2])
        check(c > 0.9, f"output frame {i} matches the reference Sobel of "
              f"input frame {i} (correlation {c:.3f} > 0.9)")
    last = frames - 1
    c_own = correlation(sobel(ref_in[last][2]), got[last][2])
    c_first = correlation(sobel(ref_in[0][2]), got[last][2])
    check(c_first < c_own - 0.05, f"output frame {last} is the edges of "
          f"input frame {last} ({c_own:.3f}), not of frame 0 ({c_first:.3f})")
    # The snapshot: cudasobel's GRAY8 output of frame k, lossless in a PNG,
    # so exactly the reference.
    check(f"snapshot: frame {k} (768x576) -> {png}" in stdout,
          f"demo.sh reports the snapshot of frame {k}")
    check(png_size(png) == (768, 576), "the snapshot PNG is 768x576")
    snap = decode_gray(png)
    check(len(snap) == 1 and (snap[0][0], snap[0][1]) == (768, 576),
          "the snapshot decodes (pngdec) to one 768x576 frame")
    want = sobel(ref_in[k][2])
    bad = sum(a != b for wr, sr in zip(want, snap[0][2])
              for a, b in zip(wr, sr))
    check(bad == 0, f"the snapshot is exactly the reference Sobel of input "
          f"frame {k} ({bad} pixels differ)")


def check_camera(src, build):
    n = 30
    rc, text, stdout = run([os.path.join(src, "pipelines", "camera.sh"),
                            "--test", "--frames", str(n), "--size",
                            "320x240", "--threshold", "40", "--build-dir",
                            build])
    check(rc == 0, "camera.sh --test exits with status 0")
    check_summary(stdout, "camera.sh", n, "none")
    check("cudasobel name=sobel threshold=40" in text,
          "the printed pipeline has cudasobel with threshold=40")
    # a camera that is not there is a clear error, not a hang
    rc, text, _ = run([os.path.join(src, "pipelines", "camera.sh"),
                       "--device", "/dev/no-such-camera", "--build-dir",
                       build])
    check(rc != 0 and "no camera at /dev/no-such-camera" in text,
          "a missing camera device is reported")
    # --print: the camera pipeline, v4l2src into a window
    rc, text, _ = run([os.path.join(src, "pipelines", "camera.sh"),
                       "--print", "--device", "/dev/video7", "--mjpeg"])
    check(rc == 0 and "v4l2src device=/dev/video7 ! image/jpeg ! jpegdec"
          in text and "autovideosink" in text,
          "--print shows the camera pipeline without running it")
    # --element canny: cudacanny with its thresholds, frames counted on it
    rc, text, stdout = run([os.path.join(src, "pipelines", "camera.sh"),
                            "--test", "--element", "canny", "--frames", "12",
                            "--size", "160x120", "--low-threshold", "30",
                            "--high-threshold", "90.5", "--kernel-size", "5",
                            "--build-dir", build])
    check(rc == 0, "camera.sh --test --element canny exits with status 0")
    check_summary(stdout, "camera.sh", 12, "none")
    check("cudacanny name=canny low-threshold=30 high-threshold=90.5 "
          "kernel-size=5" in text,
          "the printed pipeline has cudacanny with the thresholds")
    for bad in (["--element", "prewitt"], ["--kernel-size", "4"],
                ["--element", "canny", "--low-threshold", "-3"]):
        rc, text, _ = run([os.path.join(src, "pipelines", "camera.sh"),
                           "--test", "--print"] + bad)
        check(rc != 0 and "error" in text, f"camera.sh refuses {bad}")


def check_side_by_side(src, build, outdir):
    script = os.path.join(src, "pipelines", "side-by-side.sh")
    rc, _, stdout = run([script, "--test-src", "--headless", "--frames",
                         "10", "--build-dir", build])
    check(rc == 0, "side-by-side.sh --test-src --headless exits with 0")
    check_summary(stdout, "side-by-side.sh", 10, "none")

    if not os.path.exists(VTEST):
        skip(f"{VTEST} is missing (package opencv-doc)")
    need_elements("avdec_msmpeg4", "jpegenc", "matroskamux", "pngenc",
                  "pngdec")
    # --frames cuts a file too
    rc, _, stdout = run([script, "--frames", "20", "--headless", "--size",
                         "160x120", "--build-dir", build])
    check(rc == 0, "side-by-side.sh --frames 20 on the file exits with 0")
    check_summary(stdout, "side-by-side.sh", 20, "none")

    out = os.path.join(outdir, "side-by-side.mkv")
    png = os.path.join(outdir, "side-by-side.png")
    for f in (out, png):
        if os.path.exists(f):
            os.remove(f)
    # the whole of vtest.avi (795 frames at 10 fps), in small panes
    frames, w, h, b, t = 795, 160, 120, 60, 30
    k = frames // 2  # the snapshot: the middle frame
    rc, _, stdout = run([script, "--size", f"{w}x{h}", "--brightness", str(b),
                         "--threshold", str(t), "--no-labels", "--output",
                         out, "--snapshot", png, "--build-dir", build])
    check(rc == 0, "side-by-side.sh --output exits with status 0")
    check_summary(stdout, "side-by-side.sh", frames, out)
    look = (0, 400, frames - 1)
    got = decode_luma(out, keep=look + (k,))
    check(len(got) == frames, f"the view has the {frames} frames of the "
          f"input (decoded: {len(got)})")
    check(all((f[0], f[1]) == (3 * w, h) for f in got),
          f"the view is three {w}x{h} panes wide ({3 * w}x{h})")
    steps = {round(b[3] - a[3], 3) for a, b in zip(got, got[1:])}
    check(steps == {0.1}, f"the view's frames are 0.1 s apart ({steps})")
    src = decode_luma(VTEST, keep=look)
    for i in look:
        rows = got[i][2]
        p0, p1, p2 = crop(rows, 0, w), crop(rows, w, w), crop(rows, 2 * w, w)
        # pane 1 is the input frame, scaled: compare by correlation
        c = correlation(p0, scale(src[i][2], w, h))
        check(c > 0.95, f"frame {i}: pane 1 is input frame {i} (correlation "
              f"{c:.3f} > 0.95)")
        other = look[(look.index(i) + 1) % len(look)]
        c = correlation(p0, scale(src[other][2], w, h))
        check(c < 0.95, f"frame {i}: pane 1 is not input frame {other} "
              f"(correlation {c:.3f} < 0.95)")
        # pane 2 = clamp(pane 1 + b): compare the means (lossy encoder)
        want = mean([[min(255, v + b) for v in r] for r in p0])
        check(abs(mean(p1) - want) < 4, f"frame {i}: pane 2 mean "
              f"{mean(p1):.1f} is pane 1 + {b} clamped ({want:.1f})")
        c = correlation(sobel(p0, brightness=b, threshold=t), p2)
        check(c > 0.9, f"frame {i}: pane 3 matches the reference Sobel of "
              f"pane 1 with brightness {b}, threshold {t} (correlation "
              f"{c:.3f} > 0.9)")
    # The snapshot: the composited frame k, as the file has it (the file's
    # is JPEG-compressed, the PNG is not: compare by correlation).
    check(f"snapshot: frame {k} ({3 * w}x{h}) -> {png}" in stdout,
          f"side-by-side.sh reports the snapshot of frame {k}")
    check(png_size(png) == (3 * w, h), f"the snapshot PNG is {3 * w}x{h}")
    snap = decode_luma(png)
    check(len(snap) == 1 and (snap[0][0], snap[0][1]) == (3 * w, h),
          f"the snapshot decodes (pngdec) to one {3 * w}x{h} frame")
    c = correlation(snap[0][2], got[k][2])
    check(c > 0.98, f"the snapshot is frame {k} of the view (correlation "
          f"{c:.3f} > 0.98)")
    c0 = correlation(snap[0][2], got[0][2])
    check(c0 < c - 0.02, f"the snapshot is not frame 0 of the view "
          f"(correlation {c0:.3f})")


def check_side_by_side_canny(src, build, outdir):
    """--edges canny and both: the panes, cudacanny's pane binary and
    the Canny of pane 1 (cv2.Canny where python3-opencv is there)"""
    script = os.path.join(src, "pipelines", "side-by-side.sh")
    rc, text, stdout = run([script, "--test-src", "--headless", "--frames",
                            "6", "--edges", "canny", "--size", "160x120",
                            "--build-dir", build])
    check(rc == 0, "side-by-side.sh --edges canny exits with 0")
    check_summary(stdout, "side-by-side.sh", 6, "none")
    check("cudacanny name=canny" in text and "cudasobel" not in text,
          "--edges canny: cudacanny in place of cudasobel")
    rc, _, _ = run([script, "--test-src", "--print", "--edges", "prewitt"])
    check(rc != 0, "--edges prewitt is refused")

    if not os.path.exists(VTEST):
        skip(f"{VTEST} is missing (package opencv-doc)")
    need_elements("avdec_msmpeg4", "pngenc", "pngdec")
    png = os.path.join(outdir, "side-by-side-both.png")
    if os.path.exists(png):
        os.remove(png)
    w, h, lo, hi = 160, 120, 40, 120
    rc, text, stdout = run([script, "--edges", "both", "--frames", "20",
                            "--size", f"{w}x{h}", "--headless",
                            "--no-labels", "--low-threshold", str(lo),
                            "--high-threshold", str(hi), "--snapshot", png,
                            "--build-dir", build])
    check(rc == 0, "side-by-side.sh --edges both exits with 0")
    check_summary(stdout, "side-by-side.sh", 20, "none")
    check("cudasobel name=sobel" in text and "cudacanny name=canny "
          f"low-threshold={lo} high-threshold={hi}" in text,
          "--edges both: cudasobel and cudacanny")
    check(png_size(png) == (4 * w, h), f"the snapshot is four {w}x{h} "
          f"panes wide ({4 * w}x{h})")
    snap = decode_luma(png)[0][2]
    p0, p2, p3 = crop(snap, 0, w), crop(snap, 2 * w, w), crop(snap, 3 * w, w)
    c = correlation(sobel(p0), p2)
    check(c > 0.9, f"pane 3 is the Sobel of pane 1 (correlation {c:.3f})")
    values = [v for r in p3 for v in r]
    mid = sum(30 < v < 225 for v in values) / len(values)
    bright = sum(v >= 225 for v in values) / len(values)
    check(mid < 0.01, f"pane 4 is a 0/255 edge map ({100 * mid:.2f} % of "
          f"its pixels in between)")
    check(0.005 < bright < 0.3, f"pane 4 has edges ({100 * bright:.2f} %)")
    try:
        import numpy as np
        import cv2
    except ImportError:
        print("note: no python3-opencv, pane 4 not compared with cv2.Canny")
        return
    ref = cv2.Canny(np.array([list(r) for r in p0], np.uint8), lo, hi)
    c = correlation(ref.tolist(), p3)
    check(c > 0.7, f"pane 4 is cv2.Canny of pane 1 (correlation {c:.3f} "
          f"> 0.7; pane 1 went through I420 and RGB)")


def check_blur_edges(src, build, outdir):
    if not os.path.exists(VTEST):
        skip(f"{VTEST} is missing (package opencv-doc)")
    need_elements("avdec_msmpeg4", "jpegenc", "avimux")
    script = os.path.join(src, "pipelines", "blur-edges.sh")
    out = os.path.join(outdir, "blur-edges.avi")
    if os.path.exists(out):
        os.remove(out)
    frames = 12
    rc, _, stdout = run([script, "--frames", str(frames), "--output", out,
                         "--build-dir", build])
    check(rc == 0, "blur-edges.sh exits with status 0")
    check_summary(stdout, "blur-edges.sh", frames, out)
    got = decode_luma(out, keep=(0, frames - 1))
    check(len(got) == frames, f"the output has {frames} frames "
          f"(decoded: {len(got)})")
    check(all((f[0], f[1]) == (768, 576) for f in got),
          "the output frames are 768x576")
    steps = {round(b[3] - a[3], 3) for a, b in zip(got, got[1:])}
    check(steps == {0.1}, f"the output frames are 0.1 s apart ({steps})")
    # edges of the blurred frame: close to the edges of the frame itself
    ref = decode_luma(VTEST, max_frames=frames, keep=(0, frames - 1))
    last = frames - 1
    c_own = correlation(sobel(ref[last][2]), got[last][2])
    c_first = correlation(sobel(ref[0][2]), got[last][2])
    check(c_own > 0.7, f"output frame {last} follows the edges of input "
          f"frame {last} (correlation {c_own:.3f} > 0.7)")
    check(c_first < c_own - 0.03, f"output frame {last} is not the edges "
          f"of input frame 0 ({c_first:.3f})")
    rc, text, _ = run([script, "--print", "--filters", "gaussian,gaussian",
                       "--display"])
    check(rc == 0 and "cudaconvolve name=blur filters=gaussian,gaussian"
          in text and "autovideosink" in text,
          "--print shows the --filters chain and the window")


def check_meanshift_segment(src, build, outdir):
    if not os.path.exists(VTEST):
        skip(f"{VTEST} is missing (package opencv-doc)")
    need_elements("avdec_msmpeg4")
    script = os.path.join(src, "pipelines", "meanshift-segment.sh")
    frames = 3
    rc, _, stdout = run([script, "--frames", str(frames), "--headless",
                         "--spatial-radius", "4", "--build-dir", build])
    check(rc == 0, "meanshift-segment.sh exits with status 0")
    check_summary(stdout, "meanshift-segment.sh", frames, "none")
    per = re.findall(r"^frame +(\d+) \( *([0-9.]+) s\): (\d+) segments$",
                     stdout, re.M)
    check([int(i) for i, _, _ in per] == list(range(frames)),
          f"one segments line per frame, frames 0..{frames - 1}")
    check([round(float(t), 3) for _, t, _ in per] ==
          [round(0.1 * i, 3) for i in range(frames)],
          "the lines carry the frames' times")
    counts = [int(n) for _, _, n in per]
    check(all(n > 0 for n in counts), f"every frame has segments {counts}")
    check(f"segments per frame: min {min(counts)}, " in stdout,
          "the digest gives the minimum")
    check("gst-launch-1.0 -m " not in stdout.split("\n", 1)[1],
          "no raw gst-launch -m message dump")


def check_find_template(src, build, outdir):
    if not os.path.exists(VTEST):
        skip(f"{VTEST} is missing (package opencv-doc)")
    need_elements("avdec_msmpeg4", "videocrop", "pngenc", "pngdec")
    script = os.path.join(src, "pipelines", "find-template.py")
    # frame 40 holds the template (cut at 300,200): 41 frames, exactly
    frames = 41
    rc, _, stdout = run([script, "--frames", str(frames), "--build-dir",
                         build])
    check(rc == 0, "find-template.py exits with status 0")
    check_summary(stdout, "find-template.py", frames, "none")
    lines = re.findall(r"^ +([0-9.]+) s  (.*)$", stdout, re.M)
    check(len(lines) == frames, f"one match line per frame ({len(lines)})")
    check([round(float(t), 3) for t, _ in lines] ==
          [round(0.1 * i, 3) for i in range(frames)],
          "the match lines carry the frames' times, in order")
    check(lines[40][1].startswith("(300,200) 1.0000"),
          f"frame 40, where the template was cut, matches at 300,200 with "
          f"score 1 ({lines[40][1]})")
    out = os.path.join(outdir, "find-template.avi")
    if os.path.exists(out):
        os.remove(out)
    rc, _, stdout = run([script, "--frames", "5", "--max-matches", "2",
                         "--output", out, "--build-dir", build])
    check(rc == 0, "find-template.py --output exits with status 0")
    check_summary(stdout, "find-template.py", 5, out)
    got = decode_luma(out, keep=())
    check(len(got) == 5 and (got[0][0], got[0][1]) == (768, 576),
          f"the output has 5 768x576 frames ({len(got)})")


def check_nlmeans(src, build, outdir):
    if not os.path.exists(VTEST):
        skip(f"{VTEST} is missing (package opencv-doc)")
    need_elements("avdec_msmpeg4", "y4menc")
    import importlib.util
    if importlib.util.find_spec("numpy") is None:
        skip("numpy is not installed (python3-numpy)")
    script = os.path.join(src, "pipelines", "nlmeans_vtest.py")
    out = os.path.join(outdir, "nlmeans")
    frames = 2
    rc, _, stdout = run([script, "--frames", str(frames), "--output-dir",
                         out, "--build-dir", build])
    check(rc == 0, "nlmeans_vtest.py exits with status 0")
    check_summary(stdout, "nlmeans_vtest.py", frames,
                  os.path.join(out, "denoised.y4m"))
    m = re.search(r"^luma PSNR: noisy ([0-9.]+) dB -> denoised ([0-9.]+) dB",
                  stdout, re.M)
    check(m and float(m.group(2)) > float(m.group(1)) + 5,
          "denoising gains more than 5 dB of luma PSNR")
    for f in ("noisy.y4m", "denoised.y4m"):
        got = decode_luma(os.path.join(out, f), keep=())
        check(len(got) == frames, f"{f} has {frames} frames ({len(got)})")
    # without GST_PLUGIN_PATH and --build-dir it finds the repository's
    # build (only when this build is the repository's build/)
    if os.path.realpath(build) == os.path.realpath(os.path.join(src,
                                                                "build")):
        # a registry of its own: a cached one may still list the plugin
        env = {k: v for k, v in os.environ.items()
               if k not in ("GST_PLUGIN_PATH", "GST_PLUGIN_PATH_1_0")}
        env["GST_REGISTRY"] = os.path.join(outdir, "nlmeans-registry.bin")
        if os.path.exists(env["GST_REGISTRY"]):
            os.remove(env["GST_REGISTRY"])
        rc, _, stdout = run([script, "--frames", "1", "--output-dir", out],
                            env=env)
        check(rc == 0, "nlmeans_vtest.py runs without GST_PLUGIN_PATH")


def check_gpu_decode(src, build, outdir):
    script = os.path.join(src, "pipelines", "gpu-decode.sh")
    rc, text, _ = run([script, "--print", "in.mp4"])
    check(rc == 0 and "parsebin ! nvh264dec name=dec" in text and
          "'video/x-raw(memory:CUDAMemory)' ! cudadownload" in text,
          "--print shows the NVDEC pipeline in CUDA memory")
    if Gst.ElementFactory.find("nvh264dec") is not None:
        rc, _, stdout = run([script, "--frames", "30", "--build-dir", build])
        check(rc == 0, "gpu-decode.sh exits with status 0")
        check_summary(stdout, "gpu-decode.sh", 30, "none")
        check(re.search(r"^host-transfers: 0$", stdout, re.M),
              "no frame left the GPU (host-transfers 0)")
        return
    # no NVDEC here: the same script with a software decoder on the CPU
    if not os.path.exists(VTEST):
        skip(f"{VTEST} is missing (package opencv-doc)")
    need_elements("x264enc", "avdec_h264", "mp4mux", "jpegenc", "avimux")
    print("nvh264dec is not available: checking with --decoder avdec_h264 "
          "--backend cpu")
    h264 = os.path.join(outdir, "gpu-decode-in.mp4")
    rc, _, _ = run(["gst-launch-1.0", "-q", "videotestsrc", "num-buffers=30",
                    "pattern=ball", "!",
                    "video/x-raw,format=I420,width=320,height=240",
                    "!", "x264enc", "speed-preset=ultrafast", "!", "mp4mux",
                    "!", "filesink", "location=" + h264])
    check(rc == 0, "an H.264 input was made")
    out = os.path.join(outdir, "gpu-decode.avi")
    rc, _, stdout = run([script, "--decoder", "avdec_h264", "--backend", "cpu",
                         "--frames", "20", "--output", out, "--build-dir",
                         build, h264])
    check(rc == 0, "gpu-decode.sh --decoder avdec_h264 exits with status 0")
    check_summary(stdout, "gpu-decode.sh", 20, out)
    check(re.search(r"^host-transfers: 0$", stdout, re.M),
          "host-transfers is printed")
    got = decode_luma(out, keep=())
    check(len(got) == 20, f"the output has 20 frames ({len(got)})")


def check_embed(cmd):
    rc, text, stdout = run(cmd)
    check(rc == 0, "the example exits with status 0")
    frames = [(int(i), int(n), int(t)) for i, n, t in re.findall(
        r"^frame (\d+): (\d+) edge pixels \(threshold (\d+)\)$", text, re.M)]
    m = re.search(r"^summary: frames (\d+), backend (cpu|cuda), ", text,
                  re.M)
    check(m is not None, "the example prints its summary and backend")
    total = int(m.group(1))
    name = os.path.basename(cmd[1] if cmd[1].endswith(".py") else cmd[0])
    check_summary(stdout, name, total, "none")
    check([f[0] for f in frames] == list(range(total)),
          f"the example read all {total} frames in order")
    switched = [f for f in frames if f[2] != frames[0][2]]
    check(switched and frames[-1][2] > frames[0][2],
          "the threshold was raised while playing")
    t0, t1 = frames[0][2], frames[-1][2]
    # The reference: the same videotestsrc frame, decoded without cudasobel.
    pat = re.search(r"videotestsrc pattern=(\S+)", text)
    size = re.search(r"video/x-raw,format=I420,width=(\d+),height=(\d+)",
                     text)
    check(pat and size, "the example uses a videotestsrc I420 pattern")
    w, h = int(size.group(1)), int(size.group(2))
    ref = decode_luma(None, max_frames=1, launch=(
        f"videotestsrc pattern={pat.group(1)} num-buffers=1 "
        f"! video/x-raw,format=I420,width={w},height={h}"))[0][2]
    n0, n1 = edge_count(ref, t0), edge_count(ref, t1)
    print(f"reference: {n0} edge pixels at threshold {t0}, {n1} at {t1}")
    check(n1 < n0, "the reference count drops when the threshold rises")
    before = [f[1] for f in frames if f[0] < switched[0][0]]
    check(before and all(n == n0 for n in before),
          f"every frame read before the change has the reference count {n0}")
    check(frames[-1][1] == n1,
          f"the last frame has the reference count {n1} of threshold {t1}")
    check(all(f[1] in (n0, n1) for f in frames),
          "every frame has the count of the old or of the new threshold")


CHECKS = {
    "help": check_help,
    "demo": check_demo,
    "camera": check_camera,
    "side-by-side": check_side_by_side,
    "side-by-side-canny": check_side_by_side_canny,
    "blur-edges": check_blur_edges,
    "meanshift-segment": check_meanshift_segment,
    "find-template": check_find_template,
    "nlmeans": check_nlmeans,
    "gpu-decode": check_gpu_decode,
}


def main():
    Gst.init(None)
    what, args = sys.argv[1], sys.argv[2:]
    try:
        if what == "embed":
            check_embed(args)
        elif what in CHECKS:
            CHECKS[what](*args)
        else:
            print(f"unknown check {what}", file=sys.stderr)
            return 2
    except Fail as e:
        print(f"FAIL: {e}", file=sys.stderr)
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
