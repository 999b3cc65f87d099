#!/usr/bin/python3
# gst-cuda-vision: tests of the scripts in pipelines/ (meson suite "cpu").
#
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Run a pipelines/ script or embedding example and check what it did.

  check.py demo SRCDIR BUILDDIR OUTDIR
  check.py camera SRCDIR BUILDDIR
  check.py side-by-side SRCDIR BUILDDIR OUTDIR
  check.py embed CMD [ARGS...]

Every check decodes what the script wrote again (uridecodebin -> appsink,
no cudasobel) and compares it with an independent Sobel reference written
here from the definition (3x3 Sobel of the luma, replicated borders,
m = min(255, floor(sqrt(Gx^2 + Gy^2))), out = m > threshold ? m : 0).
Exit status 0: pass, 1: fail (with the reason), 77: skipped (a needed file
or GStreamer element is missing on this machine).
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
    print("$ " + " ".join(cmd), flush=True)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, env=env, timeout=600)
    print(p.stdout, flush=True)
    return p.returncode, p.stdout


# ---- decoding and the reference ---------------------------------------------

def decode_luma(location, max_frames=None, launch=None, keep=None):
    """Frames of a file (or of a launch-line source) as (w, h, rows of Y,
    pts in seconds).

    The frames are converted to I420 (a no-op for the decoders used here,
    which output I420) and the Y plane is returned as a list of bytes rows
    (None for the frames whose index is not in keep, when keep is given)."""
    if launch is None:
        uri = Gst.filename_to_uri(os.path.abspath(location))
        launch = f'uridecodebin uri="{uri}"'
    pipe = Gst.parse_launch(
        f"{launch} ! videoconvert ! video/x-raw,format=I420 "
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

def check_demo(src, build, outdir):
    if not os.path.exists(VTEST):
        skip(f"{VTEST} is missing (package opencv-doc)")
    need_elements("avdec_msmpeg4", "jpegenc", "matroskamux")
    out = os.path.join(outdir, "demo-edges.mkv")
    if os.path.exists(out):
        os.remove(out)
    frames = 30
    rc, text = run([os.path.join(src, "pipelines", "demo.sh"), "--no-install",
                    "--build-dir", build, "--frames", str(frames),
                    "--output", out])
    check(rc == 0, "demo.sh exits with status 0")
    check(re.search(rf"^frames processed: {frames}$", text, re.M),
          f"demo.sh reports {frames} frames processed")
    check(re.search(r"^backend: (cpu|cuda)$", text, re.M),
          "demo.sh reports the backend (cpu or cuda)")
    check(re.search(r"^time: [0-9.]+ s, [0-9.]+ fps", text, re.M),
          "demo.sh reports the fps")
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
    ref_in = decode_luma(VTEST, max_frames=frames, keep=(0, frames - 1))
    for i in (0, frames - 1):
        c = correlation(sobel(ref_in[i][2]), got[i][2])
        check(c > 0.9, f"output frame {i} matches the reference Sobel of "
              f"input frame {i} (correlation {c:.3f} > 0.9)")
    last = frames - 1
    c_own = correlation(sobel(ref_in[last][2]), got[last][2])
    c_first = correlation(sobel(ref_in[0][2]), got[last][2])
    check(c_first < c_own - 0.05, f"output frame {last} is the edges of "
          f"input frame {last} ({c_own:.3f}), not of frame 0 ({c_first:.3f})")


def check_camera(src, build):
    n = 30
    rc, text = run([os.path.join(src, "pipelines", "camera.sh"), "--test",
                    "--num-buffers", str(n), "--size", "320x240",
                    "--threshold", "40", "--build-dir", build])
    check(rc == 0, "camera.sh --test exits with status 0")
    check(re.search(rf"test: {n} of {n} frames reached the sink \(backend "
                    r"(cpu|cuda)\)", text), f"{n} frames reached the sink")
    check("cudasobel name=sobel threshold=40" in text,
          "the printed pipeline has cudasobel with threshold=40")
    # a camera that is not there is a clear error, not a hang
    rc, text = run([os.path.join(src, "pipelines", "camera.sh"), "--device",
                    "/dev/no-such-camera", "--build-dir", build])
    check(rc != 0 and "no camera at /dev/no-such-camera" in text,
          "a missing camera device is reported")


def check_side_by_side(src, build, outdir):
    script = os.path.join(src, "pipelines", "side-by-side.sh")
    rc, _ = run([script, "--test-src", "--headless", "--frames", "10",
                 "--build-dir", build])
    check(rc == 0, "side-by-side.sh --test-src --headless exits with 0")

    if not os.path.exists(VTEST):
        skip(f"{VTEST} is missing (package opencv-doc)")
    need_elements("avdec_msmpeg4", "jpegenc", "matroskamux")
    out = os.path.join(outdir, "side-by-side.mkv")
    if os.path.exists(out):
        os.remove(out)
    # the whole of vtest.avi (795 frames at 10 fps), in small panes
    frames, w, h, b, t = 795, 160, 120, 60, 30
    rc, _ = run([script, "--size", f"{w}x{h}", "--brightness", str(b),
                 "--threshold", str(t), "--no-labels", "--output", out,
                 "--build-dir", build])
    check(rc == 0, "side-by-side.sh --output exits with status 0")
    look = (0, 400, frames - 1)
    got = decode_luma(out, keep=look)
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


def check_embed(cmd):
    rc, text = run(cmd)
    check(rc == 0, "the example exits with status 0")
    frames = [(int(i), int(n), int(t)) for i, n, t in re.findall(
        r"^frame (\d+): (\d+) edge pixels \(threshold (\d+)\)$", text, re.M)]
    m = re.search(r"^summary: frames (\d+), backend (cpu|cuda), ", text,
                  re.M)
    check(m is not None, "the example prints its summary and backend")
    total = int(m.group(1))
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


def main():
    Gst.init(None)
    what, args = sys.argv[1], sys.argv[2:]
    try:
        if what == "demo":
            check_demo(*args)
        elif what == "camera":
            check_camera(*args)
        elif what == "side-by-side":
            check_side_by_side(*args)
        elif what == "embed":
            check_embed(args)
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
