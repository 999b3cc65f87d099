#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""sweep.py: run every element of the plugin behind real upstream elements.

Frames come from decodebin (the sample images through imagefreeze, the
sample clip vtest.avi) or videotestsrc patterns, then
videoconvert ! videoscale ! video/x-raw,format=F,width=W,height=H, some
through videocrop (copying, or in place: the crop then reaches the element as
GstVideoMeta offsets and strides, see cv-sweep-case --crop-meta). Each case is
one element with one parameter set, one input format (read from the element's
pad templates), one size (generated: 1x1 .. 3x2, widths 32k+-1, odd primes,
1080p, 2160p, 8191x3, 3x8191, 65535x2, 65537x1, 2x65537 and random sizes
from the seed), one
pipeline-depth (1..4, cycled) and one memory (system, or CUDA memory through
cudaupload/cudadownload where the templates allow it).

Modes:
  gpu  every case runs with backend=cuda and with backend=cpu (the CPU run in
       system memory); the visible output bytes must be identical
       (cudanlmeans: within 1 LSB; 3 on RGB with rgb-mode=ycrcb, see
       nlmeans_tol), and so must the frame count, every
       frame's PTS and duration, the element's messages (cudavision-stats
       ignored), ROI metas, the mean-shift labels meta and any error. Exits
       77 (skipped) when backend=cuda cannot start.
  cpu  (CI, no GPU) the real pipeline runs with backend=cpu and records the
       visible input bytes the element received; the same element with
       backend=cpu then runs on those bytes, tightly packed, from
       filesrc ! rawvideoparse, and both outputs must agree as above. Every
       fourth case runs the reference a second time with OMP_NUM_THREADS=1.

Each run is its own process (cv-sweep-case), bounded by a timeout: a crash
(signal) or a hang is counted, not fatal. The report gives the seed, the
counts (identical, within 1 LSB, agreed errors, mismatched, crashed, hung,
errored, skipped) and, for every case that is not OK, why and the command
lines that reproduce it. Exit status: 0 every case OK, 1 otherwise, 2 the
sweep could not start, 77 gpu mode without a usable GPU.

Usage (from the project root, after ninja -C build; python3 with numpy):
  GST_PLUGIN_PATH=build/plugin tests/sweep/sweep.py --mode cpu
  tests/sweep/sweep.py --mode gpu --jobs 16 --report out/sweep.txt
  tests/sweep/sweep.py --mode cpu --seed 1234 --case sobel-0042 --keep
  meson test -C build sweep-cpu        (sweep-gpu on the GPU machine)

Options: --mode cpu|gpu, --seed N (default: random, printed), --jobs N
(default: number of CPUs), --quick / --full (default quick for cpu, full for
gpu), --limit N (at most N cases, spread over the list), --filter ELEMENT
(repeatable; "sobel" means cudasobel), --case ID (repeatable: only these
cases of the generated list; an ID names the same case for the same seed,
mode, --quick/--full, media files and elements present), --keep (keep the files of failing cases in the
work folder), --work DIR, --report FILE, --timeout SEC (per run, scaled by
the case's cost), --list (print the cases and exit), --case-bin PATH
(cv-sweep-case; default build/tests/cv-sweep-case), --media DIR (default
$CUDAVISION_MEDIA_DIR, else /usr/share/doc/opencv-doc/examples/data),
--inject-shift (checks the checker: the reference's bytes are shifted by one,
so every case that produces frames must be reported mismatched),
--emulate-gpu (gpu mode's cases and comparisons where there is no GPU: the
"cuda" run is a second backend=cpu run in system memory; checks the sweep
itself, e.g. that every source gives the same frames in two processes),
--no-serve (one process per run instead of one long-lived
cv-sweep-case --serve per worker: slower, a CUDA context per run), --wrap
"CMD ARGS" (run cv-sweep-case under a command, e.g. "compute-sanitizer --tool
memcheck --error-exitcode 86"; its exit status is the case's; also
$CV_SWEEP_WRAP), -v.

Needs python3 and numpy only (no gi): the GStreamer side is cv-sweep-case,
gst-launch-1.0 makes the template images.
"""

import argparse
import concurrent.futures
import itertools
import math
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

try:
    import numpy as np
except ImportError:
    sys.exit("sweep: needs numpy (Debian: python3-numpy; run it with "
             "/usr/bin/python3)")

ELEMENTS = ["cudasobel", "cudaconvolve", "cudanlmeans", "cudatemplatematch",
            "cudameanshift", "cudacanny"]
SHORT = {e: e[4:] for e in ELEMENTS}
SUBSAMPLED = ("I420", "NV12")
PATTERNS = ["smpte", "snow", "ball", "zone-plate", "gradient", "checkers-8",
            "circular", "pinwheel"]
IMAGES = ["fruits.jpg", "baboon.jpg", "building.jpg"]
CLIP = "vtest.avi"
DEFAULT_MEDIA = "/usr/share/doc/opencv-doc/examples/data"
# (name, width, height, videotestsrc pattern) of the generated templates
# (t1x1 is flat: ccoeff-normed warns and scores 1 everywhere)
TEMPLATES = [("t1x1", 1, 1, "snow"), ("t2x2", 2, 2, "snow"),
             ("t3x2", 3, 2, "snow"), ("t4x4", 4, 4, "snow"),
             ("t9x7", 9, 7, "snow"), ("t16x16", 16, 16, "snow"),
             ("t31x23", 31, 23, "snow"), ("t64x48", 64, 48, "smpte")]
BIG_PIXELS = 1_000_000
# videoscale and videoconvert 1.22 negotiate widths and heights up to 32767
VIDEOSCALE_MAX = 32767


def rand_kernel(rng, k):
    vals = [rng.uniform(-1.0, 1.0) for _ in range(k * k)]
    vals[(k * k) // 2] += 1.0
    return '"<' + ",".join("%.4f" % v for v in vals) + '>"'


def param_sets(element, rng):
    """Parameter sets of an element: (label, properties, cost factor,
    extra) with extra: out = output formats rule, tmpl = template size."""
    if element == "cudasobel":
        return [("t0", "threshold=0", 1, {}),
                ("t40", "threshold=40", 1, {}),
                ("t10b-60", "threshold=10 brightness=-60", 1, {}),
                ("t200b120", "threshold=200 brightness=120", 1, {}),
                ("b255", "brightness=255", 1, {}),
                ("k5l1", "kernel-size=5 norm=l1 threshold=30", 2, {}),
                ("k7", "kernel-size=7 brightness=-20", 2, {})]
    if element == "cudacanny":
        return [("default", "", 2, {}),
                ("k5l2", "kernel-size=5 l2-gradient=true "
                 "low-threshold=100 high-threshold=300", 3, {}),
                ("k7swap", "kernel-size=7 low-threshold=2000 "
                 "high-threshold=800", 3, {}),
                ("frac", "low-threshold=12.5 high-threshold=33.7", 2, {})]
    if element == "cudaconvolve":
        return [("blur", "filters=blur", 1, {}),
                ("blur,edge", "filters=blur,edge-detect", 2, {}),
                ("gauss,sharpen,rep", "filters=gaussian,sharpen "
                 "border-mode=replicate", 2, {}),
                ("edge,blur,sharpen,const", "filters=edge-detect,blur,sharpen "
                 "border-mode=constant", 3, {}),
                ("custom3,const", "filters=custom border-mode=constant "
                 "kernel=" + rand_kernel(rng, 3), 1, {}),
                ("custom5,refl", "filters=custom border-mode=reflect "
                 "kernel=" + rand_kernel(rng, 5), 3, {}),
                ("custom9,rep", "filters=custom border-mode=replicate "
                 "kernel=" + rand_kernel(rng, 9), 10, {})]
    if element == "cudanlmeans":
        return [("p3s5", "patch-size=3 search-window=5 h=10", 4, {}),
                ("p5s7", "patch-size=5 search-window=7 h=15 patch-sigma=0",
                 12, {}),
                ("p3s7sig5", "patch-size=3 search-window=7 h=20 sigma=5", 8,
                 {}),
                ("p5s5joint", "patch-size=5 search-window=5 h=8 "
                 "rgb-mode=joint-rgb", 8, {})]
    if element == "cudatemplatematch":
        return [("ccoeff", "method=ccoeff-normed max-matches=1", 3,
                 {"tmpl": "t16x16"}),
                ("sqdiff,3,disp", "method=sqdiff max-matches=3 "
                 "display=true", 2, {"tmpl": "t9x7"}),
                ("sqdiffn,5", "method=sqdiff-normed max-matches=5", 2,
                 {"tmpl": "t4x4"}),
                ("ccorr,2,disp", "method=ccorr-normed max-matches=2 "
                 "display=true", 6, {"tmpl": "t31x23"}),
                ("ccoeff,2", "method=ccoeff-normed max-matches=2", 12,
                 {"tmpl": "t64x48"}),
                ("map,ccoeff", "score-map=true method=ccoeff-normed", 2,
                 {"tmpl": "t9x7", "out": ["GRAY8", "GRAY16_LE"]}),
                ("map,sqdiff", "score-map=true method=sqdiff", 3,
                 {"tmpl": "t16x16", "out": ["GRAY16_LE", "GRAY8"]}),
                # the unnormalised methods (cv2.TM_CCORR, cv2.TM_CCOEFF)
                # and the sub-pixel positions in messages and ROI metas
                ("rawccorr,3,sub", "method=ccorr max-matches=3 "
                 "subpixel=true", 3, {"tmpl": "t9x7"}),
                ("rawccoeff,2,sub", "method=ccoeff max-matches=2 "
                 "subpixel=true", 4, {"tmpl": "t31x23"}),
                ("sub,ccoeffn,4", "method=ccoeff-normed max-matches=4 "
                 "subpixel=true", 3, {"tmpl": "t16x16"}),
                ("map,rawccoeff", "score-map=true method=ccoeff", 2,
                 {"tmpl": "t16x16", "out": ["GRAY8", "GRAY16_LE"]}),
                ("map,rawccorr", "score-map=true method=ccorr", 2,
                 {"tmpl": "t9x7", "out": ["GRAY16_LE"]})]
    if element == "cudameanshift":
        return [("filt,r2", "mode=filter spatial-radius=2 color-radius=8", 4,
                 {}),
                ("filt,flat,r3", "mode=filter kernel=flat spatial-radius=3 "
                 "color-radius=12", 6, {}),
                ("seg,r2", "mode=segment spatial-radius=2 color-radius=10 "
                 "min-segment-size=4", 6, {}),
                ("seg,epan,r3", "mode=segment kernel=epanechnikov "
                 "spatial-radius=3 color-radius=16 max-iterations=3", 8, {}),
                ("filt,tri,r1,roi", "mode=filter kernel=triangular "
                 "spatial-radius=1 color-radius=30 roi=\"<1,1,0,0>\" "
                 "color-min=\"<10>\"", 3, {})]
    raise ValueError(element)


# relative CPU cost per pixel and frame of each element (cheap params)
ELEMENT_COST = {"cudasobel": 1, "cudaconvolve": 1, "cudanlmeans": 4,
                "cudatemplatematch": 2, "cudameanshift": 3, "cudacanny": 2}


class Case:
    """One element, parameter set, source, format, size, depth, memory."""

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def describe(self):
        crop = ""
        if self.crop:
            crop = " crop(%d,%d,%d,%d,%s)" % (tuple(self.crop) +
                                              (self.crop_mode,))
        tmpl = " tmpl=%s" % self.tmpl if self.tmpl else ""
        src = self.source_label
        if self.src_size:
            src += " %dx%d" % self.src_size
        return ("%s %s%s | %s | %s->%s %dx%d%s | depth %d | %s | %d frames" %
                (self.element, self.plabel, tmpl, src, self.fmt,
                 self.out_fmt, self.w, self.h, crop, self.depth,
                 "CUDA memory" if self.memory == "cuda" else "system memory",
                 self.frames))


class Sweep:
    def __init__(self, args):
        self.args = args
        self.rng_seed = args.seed
        self.mode = args.mode
        self.full = args.full
        self.media = args.media
        self.work = args.work
        self.case_bin = args.case_bin
        # a command the case program runs under (--wrap), e.g. a sanitizer
        self.wrap = shlex.split(args.wrap or "")
        self.templates = {}
        self.skipped = []       # visible reasons
        self.env = dict(os.environ)
        self.env.setdefault("G_DEBUG", "fatal-criticals")
        self.local = threading.local()
        self.servers = []
        self.servers_lock = threading.Lock()
        if args.mode == "gpu" and args.jobs > 1:
            # the backend=cpu runs of parallel cases share the cores
            self.env.setdefault("OMP_NUM_THREADS", str(max(
                2, (os.cpu_count() or 1) // args.jobs)))
        if args.jobs > 1:
            # OpenMP threads of parallel processes wait passively
            self.env.setdefault("OMP_WAIT_POLICY", "passive")

    # ---- setup -------------------------------------------------------------
    def run_tool(self, *argv):
        return subprocess.run([self.case_bin] + list(argv), env=self.env,
                              capture_output=True, text=True, timeout=120)

    def formats(self, element):
        """{(direction, memory): [formats]} from the element's templates."""
        r = self.run_tool("--list-formats", element)
        if r.returncode != 0:
            raise SystemExit("sweep: cannot list %s's formats (exit %d): %s" %
                             (element, r.returncode,
                              (r.stderr + r.stdout).strip()[-2000:]))
        out = {}
        for line in r.stdout.splitlines():
            parts = line.split()
            if len(parts) < 3:
                continue
            mem = "cuda" if "memory:CUDAMemory" in parts[1] else "sys"
            out.setdefault((parts[0], mem), [])
            for f in parts[2:]:
                if f not in out[(parts[0], mem)]:
                    out[(parts[0], mem)].append(f)
        return out

    def missing(self, names):
        r = self.run_tool("--check-elements", ",".join(names))
        return [l.split()[1] for l in r.stdout.splitlines()
                if l.startswith("missing ")]

    def make_templates(self):
        gst_launch = shutil.which("gst-launch-1.0")
        os.makedirs(os.path.join(self.work, "templates"), exist_ok=True)
        for name, w, h, pattern in TEMPLATES:
            path = os.path.join(self.work, "templates", name + ".png")
            if not os.path.exists(path):
                if not gst_launch:
                    return "gst-launch-1.0 not found"
                cmd = [gst_launch, "-q", "videotestsrc", "pattern=" + pattern,
                       "num-buffers=1", "!",
                       "video/x-raw,format=GRAY8,width=%d,height=%d" % (w, h),
                       "!", "pngenc", "!", "filesink", "location=" + path]
                r = subprocess.run(cmd, env=self.env, capture_output=True,
                                   text=True, timeout=60)
                if r.returncode != 0 or not os.path.exists(path):
                    return "making %s failed: %s" % (path, r.stderr.strip())
            self.templates[name] = (path, w, h)
        return None

    def setup(self):
        a = self.args
        need = ["videotestsrc", "videoconvert", "videoscale", "capsfilter",
                "appsink", "filesrc"]
        if self.mode == "cpu":
            need.append("rawvideoparse")
        miss = self.missing(need + ELEMENTS)
        if miss:
            print("sweep: missing GStreamer elements: %s (GST_PLUGIN_PATH=%s)"
                  % (", ".join(miss), self.env.get("GST_PLUGIN_PATH", "")))
            return 2
        if self.mode == "gpu" and not a.emulate_gpu and not a.list:
            r = self.run_tool("--check-cuda")
            if r.returncode != 0:
                print("SKIP: gpu sweep: %s" % (r.stdout.strip() or
                                               r.stderr.strip()))
                return 77
        optional = ["decodebin", "imagefreeze", "videocrop", "identity",
                    "pngenc"]
        if self.mode == "gpu" and not a.emulate_gpu:
            optional += ["cudaupload", "cudadownload"]
        self.have = {e: True for e in optional}
        for e in self.missing(optional):
            self.have[e] = False
            self.skipped.append("element %s missing: the cases that need it "
                                "are not generated" % e)
        self.images = []
        if self.have["decodebin"] and self.have["imagefreeze"]:
            for i in IMAGES:
                p = os.path.join(self.media, i)
                if os.path.exists(p):
                    self.images.append(p)
                else:
                    self.skipped.append("no %s: its source is left out" % p)
        self.clip = None
        p = os.path.join(self.media, CLIP)
        if self.have["decodebin"] and self.have["identity"]:
            if os.path.exists(p):
                self.clip = p
            else:
                self.skipped.append("no %s: its source is left out" % p)
        self.fmts = {e: self.formats(e) for e in ELEMENTS}
        self.upload_fmts = None
        if self.mode == "gpu" and a.emulate_gpu:
            # every CUDA-memory case, run in system memory
            self.upload_fmts = set(f for e in ELEMENTS for f in
                                   self.fmts[e].get(("sink", "cuda"), []))
        elif self.mode == "gpu":
            if self.have["cudaupload"] and self.have["cudadownload"]:
                up = self.formats("cudaupload")
                self.upload_fmts = set(up.get(("src", "cuda"), []))
            else:
                self.skipped.append("cudaupload/cudadownload missing: no "
                                    "CUDA-memory cases")
        err = None
        if self.have["pngenc"]:
            err = self.make_templates()
        else:
            err = "pngenc missing"
        if err:
            self.skipped.append("no template images (%s): cudatemplatematch "
                                "cases with a template are left out" % err)
        return 0

    # ---- cases -------------------------------------------------------------
    def sizes(self, rng):
        """(w, h, class) with class tiny|edge|big|wide|huge|random: the smallest
        frames, widths 32k+-1 (64k+-1 among them) with heights of 1 row and
        more, heights 32k+-1, odd primes, 8191x3 and 3x8191, 65535x2,
        65537x1 and 2x65537, 1080p and 2160p, and random sizes from the
        seed."""
        full = self.full
        out = [(w, h, "tiny") for w, h in [(1, 1), (2, 1), (1, 2), (3, 2)]]
        ks = [1, 2, 3, 4, 5, 6, 8, 12, 20, 60]
        heights = [1, 2, 3, 5, 8, 17, 31, 33, 64, 65]
        i = 0
        for k in ks:
            for d in (-1, 1):
                out.append((32 * k + d, heights[i % len(heights)], "edge"))
                i += 1
        talls = [(2, 63), (5, 65), (7, 129), (1, 127), (3, 97), (9, 33)]
        out += [(w, h, "edge") for w, h in talls]
        primes = [(3, 3), (5, 3), (7, 7), (13, 11), (31, 17), (101, 53),
                  (251, 7), (509, 127)]
        out += [(w, h, "edge") for w, h in primes]
        out += [(8191, 3, "wide"), (3, 8191, "wide")]
        # around 2^16: 16-bit row, column and grid-dimension limits (past
        # videoscale's 32767: rendered at the size by videotestsrc)
        out += [(65535, 2, "huge"), (65537, 1, "huge"), (2, 65537, "huge")]
        out += [(1920, 1080, "big"), (3840, 2160, "big")]
        for _ in range(10 if full else 8):
            w = int(math.exp(rng.uniform(0, math.log(1200))))
            h = int(math.exp(rng.uniform(0, math.log(800))))
            out.append((max(1, w), max(1, h), "random"))
        return out

    def sources(self):
        s = [("videotestsrc %s" % p, "videotestsrc pattern=%s" % p, "test")
             for p in PATTERNS]
        for img in self.images:
            s.append((os.path.basename(img), img, "image"))
        if self.clip:
            s.append(("vtest.avi", self.clip, "clip"))
        # interleave: real media every other source
        tests = [x for x in s if x[2] == "test"]
        real = [x for x in s if x[2] != "test"]
        out = []
        for i in range(max(len(tests), len(real) * 2)):
            if tests:
                out.append(tests[i % len(tests)])
            if real and i % 2 == 0:
                out.append(real[(i // 2) % len(real)])
        return out

    def cases(self):
        cases = []
        for element in ELEMENTS:
            rng = random.Random("%d-%s" % (self.rng_seed, element))
            fm = self.fmts[element]
            sink_fmts = fm.get(("sink", "sys"), [])
            src_fmts = fm.get(("src", "sys"), [])
            cuda_sink = fm.get(("sink", "cuda"), [])
            cuda_src = fm.get(("src", "cuda"), [])
            params = param_sets(element, rng)
            if element == "cudatemplatematch" and not self.templates:
                params = []
                self.skipped.append("cudatemplatematch: no cases (no "
                                    "templates)")
            if not params or not sink_fmts:
                continue
            sources = self.sources()
            fmt_rot = rng.randrange(len(sink_fmts))
            p_i = rng.randrange(len(params))
            s_i = rng.randrange(len(sources))
            depth_i = rng.randrange(4)
            n = 0
            cuda_toggle = 0
            for (w, h, cls) in self.sizes(rng):
                # formats of this size
                if cls in ("tiny", "wide", "huge"):
                    fmts = list(sink_fmts)
                elif cls == "big":
                    k = (3 if w < 3000 else 2) if self.full else \
                        (2 if w < 3000 else 1)
                    fmts = [sink_fmts[(fmt_rot + j) % len(sink_fmts)]
                            for j in range(k)]
                    fmt_rot += k
                else:
                    k = 3 if self.full else 2
                    fmts = [sink_fmts[(fmt_rot + j) % len(sink_fmts)]
                            for j in range(k)]
                    fmt_rot += k
                    sub = [f for f in sink_fmts if f in SUBSAMPLED]
                    if sub and (w % 2 or h % 2) and \
                            not any(f in SUBSAMPLED for f in fmts):
                        fmts.append(sub[(w + h) % len(sub)])
                for fmt in fmts:
                    pixels = w * h
                    # parameters: on big frames only the cheap ones
                    for _ in range(len(params)):
                        plabel, props, pcost, extra = params[p_i % len(params)]
                        p_i += 1
                        if pixels < BIG_PIXELS or pcost <= 4:
                            break
                    src = sources[s_i % len(sources)]
                    s_i += 1
                    # (videotestsrc 1.22 pattern=circular crashes,
                    # SIGSEGV, at width 65537)
                    while cls == "huge" and (src[2] != "test" or
                                             "circular" in src[1]):
                        src = sources[s_i % len(sources)]
                        s_i += 1
                    # half the videotestsrc cases render at a size of their
                    # own, so that videoscale scales (zone-plate always:
                    # videotestsrc 1.22 divides by zero at width 1)
                    src_size = None
                    if src[2] == "test" and cls != "huge" and (n % 2 == 0 or (
                            "zone-plate" in src[1] and w == 1)):
                        src_size = [(320, 240), (176, 144),
                                    (640, 360)][(n // 2) % 3]
                    depth = 1 + depth_i % 4
                    depth_i += 1
                    cost = ELEMENT_COST[element] * pcost
                    if pixels >= 4_000_000:
                        frames = 1 if cost >= 6 else 2
                    elif pixels >= BIG_PIXELS:
                        frames = 2 if cost >= 6 else 3
                    else:
                        frames = depth + 2
                    # output format
                    if "out" in extra:
                        outs = [f for f in extra["out"] if f in src_fmts]
                        out_fmt = outs[n % len(outs)]
                    elif fmt in src_fmts and element not in ("cudasobel",
                                                               "cudacanny"):
                        out_fmt = fmt
                    else:
                        out_fmt = src_fmts[n % len(src_fmts)]
                    crop = None
                    crop_mode = None
                    if self.have["videocrop"] and cls != "big" and n % 3 == 1:
                        crop = [rng.randint(1, 7) for _ in range(4)]
                        crop_mode = "meta" if (n // 3) % 2 == 0 else "copy"
                    tmpl = extra.get("tmpl")
                    expect_error = None
                    if tmpl:
                        _, tw, th = self.templates[tmpl]
                        if (tw > w or th > h) and n % 3:
                            # two cases in three: the largest template that
                            # fits; the third checks the error
                            fit = [t for t in TEMPLATES if t[1] <= w and
                                   t[2] <= h]
                            if fit:
                                tmpl, tw, th = fit[-1][0], fit[-1][1], \
                                    fit[-1][2]
                        if tw > w or th > h:
                            expect_error = "is larger than the frame"
                    base = dict(element=element, plabel=plabel,
                                props=props, pcost=pcost, tmpl=tmpl,
                                source_label=src[0], source=src[1],
                                source_kind=src[2], src_size=src_size,
                                fmt=fmt, out_fmt=out_fmt,
                                w=w, h=h, cls=cls, crop=crop,
                                crop_mode=crop_mode, depth=depth,
                                frames=frames, memory="sys",
                                expect_error=expect_error,
                                tol=nlmeans_tol(element, fmt, props),
                                omp=(self.mode == "cpu" and n % 4 == 3),
                                cost=cost * pixels * frames)
                    cid = "%s-%04d" % (SHORT[element], n)
                    cases.append(Case(id=cid, **base))
                    # the same case in CUDA memory (every other eligible one)
                    if (self.mode == "gpu" and self.upload_fmts is not None
                            and fmt in cuda_sink and fmt in self.upload_fmts):
                        cuda_out = out_fmt
                        if cuda_out not in cuda_src:
                            ok = [f for f in cuda_src if f in
                                  extra.get("out", cuda_src)]
                            cuda_out = ok[n % len(ok)] if ok else None
                        if cuda_out and (cuda_toggle % 2 == 0 or
                                         cls in ("tiny", "wide")):
                            c = dict(base)
                            c.update(memory="cuda", out_fmt=cuda_out,
                                     depth=1 + (depth % 4))
                            cases.append(Case(id=cid + "c", **c))
                        cuda_toggle += 1
                    n += 1
        return cases

    # ---- pipelines ---------------------------------------------------------
    def upstream(self, c):
        """Source ... ! capsfilter [! videocrop], the frames entering el."""
        if c.source_kind == "test":
            src = "%s num-buffers=%d" % (c.source, c.frames)
            if c.src_size:
                src += " ! video/x-raw,width=%d,height=%d" % c.src_size
        elif c.source_kind == "image":
            src = ("filesrc location=%s ! decodebin ! imagefreeze "
                   "num-buffers=%d" % (gst_quote(c.source), c.frames))
        else:
            # cv-sweep-case --frames: identity's eos-after let frames out
            # of order behind decodebin
            src = ("filesrc location=%s ! decodebin ! identity name=limit" %
                   gst_quote(c.source))
        w, h = c.w, c.h
        if c.crop:
            w += c.crop[0] + c.crop[2]
            h += c.crop[1] + c.crop[3]
        if max(w, h) > VIDEOSCALE_MAX:
            # videoscale's and videoconvert's caps stop there: videotestsrc
            # renders the format and size itself
            desc = ("%s ! video/x-raw,format=%s,width=%d,height=%d" %
                    (src, c.fmt, w, h))
        else:
            desc = ("%s ! videoconvert ! videoscale ! "
                    "video/x-raw,format=%s,width=%d,height=%d" %
                    (src, c.fmt, w, h))
        if c.crop:
            desc += (" ! videocrop name=crop left=%d top=%d right=%d "
                     "bottom=%d" % tuple(c.crop))
        return desc

    def element_desc(self, c, backend):
        props = c.props
        if c.tmpl:
            props += " template=%s" % gst_quote(self.templates[c.tmpl][0])
        return "%s name=el backend=%s pipeline-depth=%d %s" % (
            c.element, backend, c.depth, props)

    def pipeline(self, c, backend, memory):
        el = self.element_desc(c, backend)
        if memory == "cuda":
            return ("%s ! cudaupload name=rec ! "
                    "video/x-raw(memory:CUDAMemory),format=%s ! %s ! "
                    "video/x-raw(memory:CUDAMemory),format=%s ! cudadownload "
                    "! video/x-raw,format=%s ! appsink name=sink" %
                    (self.upstream(c), c.fmt, el, c.out_fmt, c.out_fmt))
        return "%s ! %s ! video/x-raw,format=%s ! appsink name=sink" % (
            self.upstream(c), el, c.out_fmt)

    def reference_pipeline(self, c, run_a, in_path):
        info = run_a.in_info
        planes = run_a.in_planes
        strides, offsets, off = [], [], 0
        for rb, rows in planes:
            strides.append(rb)
            offsets.append(off)
            off += rb * rows
        return ("filesrc location=%s ! rawvideoparse format=%s width=%d "
                "height=%d framerate=%d/%d plane-strides=\"<%s>\" "
                "plane-offsets=\"<%s>\" frame-size=%d ! %s ! "
                "video/x-raw,format=%s ! appsink name=sink" %
                (gst_quote(in_path), info[0].lower(), info[1], info[2],
                 info[3], max(1, info[4]),
                 ",".join(map(str, strides)), ",".join(map(str, offsets)),
                 off, self.element_desc(c, "cpu"), c.out_fmt))

    # ---- running -----------------------------------------------------------
    def run_timeout(self, c):
        # seconds: the base plus the case's cost (a 4K frame of cheap work on
        # a slow machine takes a few seconds)
        return self.args.timeout + c.cost / 2e6

    def run(self, c, tag, desc, extra_env=None, record=False,
            upstream=True):
        d = os.path.join(self.work, c.id)
        os.makedirs(d, exist_ok=True)
        r = Run(tag, d, desc, extra_env)
        t = self.run_timeout(c)
        argv = self.wrap + [self.case_bin, "--out", r.out, "--meta", r.meta,
                "--timeout", "%.0f" % t]
        if record:
            argv += ["--record-input", r.inp]
        if upstream and c.crop_mode == "meta":
            argv.append("--crop-meta")
        if upstream and c.source_kind == "clip":
            argv += ["--frames", str(c.frames)]
        argv.append(desc)
        r.argv = argv
        env = dict(self.env)
        if extra_env:
            env.update(extra_env)
        t0 = time.monotonic()
        if self.args.serve and not extra_env:
            # the worker thread's long-lived process
            server = getattr(self.local, "server", None)
            if server is None:
                server = self.local.server = Server(
                    self.wrap + [self.case_bin], env)
                with self.servers_lock:
                    self.servers.append(server)
            err_path = os.path.join(d, tag + ".stderr")
            r.rc = server.run(argv[len(self.wrap) + 1:], err_path, t + 15)
            try:
                with open(err_path, errors="replace") as f:
                    r.stderr = f.read()
            except OSError:
                r.stderr = ""
        else:
            try:
                p = subprocess.run(argv, env=env, capture_output=True,
                                   timeout=t + 15)
                r.rc = p.returncode
                r.stderr = p.stderr.decode(errors="replace")
            except subprocess.TimeoutExpired as e:
                r.rc = None
                r.stderr = (e.stderr or b"").decode(errors="replace")
        r.seconds = time.monotonic() - t0
        r.parse()
        return r

    def run_case(self, c):
        runs = []
        try:
            if self.mode == "gpu" and self.args.emulate_gpu:
                runs.append(self.run(c, "cuda", self.pipeline(c, "cpu",
                                                              "sys")))
                runs.append(self.run(c, "cpu", self.pipeline(c, "cpu", "sys")))
            elif self.mode == "gpu":
                runs.append(self.run(c, "cuda",
                                     self.pipeline(c, "cuda", c.memory)))
                runs.append(self.run(c, "cpu", self.pipeline(c, "cpu", "sys")))
            else:
                a = self.run(c, "real", self.pipeline(c, "cpu", "sys"),
                             record=True)
                runs.append(a)
                if a.in_info and a.in_planes and a.rc in (0, 1) \
                        and os.path.exists(a.inp):
                    ref = self.reference_pipeline(c, a, a.inp)
                    runs.append(self.run(c, "ref", ref, upstream=False))
                    if c.omp:
                        runs.append(self.run(c, "ref-omp1", ref,
                                             {"OMP_NUM_THREADS": "1"},
                                             upstream=False))
            verdict = judge(self, c, runs)
        except Exception as e:      # a bug of the sweep itself: count it
            verdict = ("errored", "sweep internal error: %r" % e)
        return c, runs, verdict


class Server:
    """A cv-sweep-case --serve process of one worker thread: runs cases one
    after the other in one process (GStreamer and CUDA start once). A case
    that crashes or times out ends the process; the next case starts a new
    one, so every case still has its own exit status."""

    def __init__(self, cmd, env):
        self.cmd = cmd              # the case program (under --wrap)
        self.env = env
        self.p = None

    def start(self):
        self.p = subprocess.Popen(self.cmd + ["--serve"], env=self.env,
                                  stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True,
                                  bufsize=1)

    def run(self, argv, err_path, timeout):
        """argv without the program; returns the exit status (negative: the
        signal that killed it), None on a timeout."""
        if self.p is None or self.p.poll() is not None:
            self.start()
        line = " ".join(shlex.quote(a) for a in argv + ["--stderr",
                                                          err_path])
        result = {}

        def read():
            for out in self.p.stdout:
                if out.startswith("@@rc "):
                    result["rc"] = int(out.split()[1])
                    return

        try:
            self.p.stdin.write(line + "\n")
            self.p.stdin.flush()
        except BrokenPipeError:
            pass
        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(timeout)
        if "rc" in result:
            return result["rc"]
        if reader.is_alive():       # no answer in time: hung
            self.p.kill()
            self.p.wait()
            self.p = None
            return None
        rc = self.p.wait()          # the process ended during the case
        self.p = None
        return rc

    def stop(self):
        if self.p is not None and self.p.poll() is None:
            self.p.stdin.close()
            try:
                self.p.wait(10)
            except subprocess.TimeoutExpired:
                self.p.kill()


class Run:
    """One process: its files and what its metadata says."""

    def __init__(self, tag, d, desc, extra_env):
        self.tag = tag
        self.desc = desc
        self.extra_env = extra_env or {}
        self.out = os.path.join(d, tag + ".out")
        self.meta = os.path.join(d, tag + ".meta")
        self.inp = os.path.join(d, tag + ".in")
        self.rc = None
        self.stderr = ""
        self.argv = []
        self.seconds = 0.0

    def parse(self):
        self.in_info = None
        self.in_planes = None
        self.out_info = None
        self.sink_info = None
        self.sink_planes = None
        self.ins, self.outs, self.sinks = [], [], []
        self.rois, self.labels, self.msgs = [], [], []
        self.warnings, self.errors = [], []
        self.end = None
        self.unmapped = 0
        if not os.path.exists(self.meta):
            return
        with open(self.meta, errors="replace") as f:
            for line in f:
                line = line.rstrip("\n")
                kind, _, rest = line.partition(" ")
                if kind == "in-info":
                    p = rest.split()
                    self.in_info = (p[0], int(p[1]), int(p[2]), int(p[3]),
                                    int(p[4]))
                elif kind == "in-planes":
                    self.in_planes = planes_of(rest)
                elif kind == "sink-planes":
                    self.sink_planes = planes_of(rest)
                elif kind == "out-info":
                    self.out_info = rest
                elif kind == "sink-info":
                    self.sink_info = rest
                elif kind == "in":
                    f_ = fields(rest)
                    self.ins.append(f_)
                    if "unmapped" in rest:
                        self.unmapped += 1
                elif kind == "out":
                    self.outs.append(fields(rest))
                elif kind == "sink":
                    self.sinks.append(fields(rest))
                    if "unmapped" in rest:
                        self.unmapped += 1
                elif kind == "roi":
                    self.rois.append(rest)
                elif kind == "labels":
                    self.labels.append(rest)
                elif kind == "msg":
                    self.msgs.append(rest)
                elif kind == "warning":
                    self.warnings.append(rest)
                elif kind == "error":
                    self.errors.append(rest)
                elif kind == "end":
                    self.end = rest

    def command(self, case_bin_env):
        env = " ".join("%s=%s" % (k, shlex.quote(v))
                       for k, v in sorted(self.extra_env.items()))
        return ((env + " " if env else "") + case_bin_env +
                " ".join(shlex.quote(a) for a in self.argv))


def planes_of(s):
    out = []
    for p in s.split():
        rb, rows = p.split(":")
        out.append((int(rb), int(rows)))
    return out


def fields(rest):
    d = {}
    parts = rest.split()
    d["n"] = int(parts[0])
    for p in parts[1:]:
        k, _, v = p.partition("=")
        d[k] = v
    return d


def gst_quote(s):
    return '"%s"' % s.replace("\\", "\\\\").replace('"', '\\"')


def signame(rc):
    try:
        return signal.Signals(-rc).name
    except ValueError:
        return "signal %d" % -rc


def el_warnings(r):
    return [w for w in r.warnings if w.startswith("el ")]


def norm_msgs(r):
    """Element messages with the timestamp (and the stream and running
    times, where they equal a frame's PTS) replaced by the frame index, and
    the duration left out: each frame's PTS and duration are compared on
    their own, and rawvideoparse, the cpu mode's reference source, rounds
    them differently from videotestsrc."""
    index = {o.get("pts"): o["n"] for o in r.outs}
    out = []
    for m in r.msgs:
        def sub(mo):
            k = index.get(mo.group(2))
            return "%s=#%s" % (mo.group(1), k if k is not None else "?" +
                               mo.group(2))
        m = re.sub(r"(timestamp|stream-time|running-time)=\(guint64\)(\d+)",
                   sub, m)
        out.append(re.sub(r"duration=\(guint64\)\d+", "duration=*", m))
    return out


def first_difference(x, y):
    """(index, x's item, y's item) of the first difference of two lists."""
    for i, (u, v) in enumerate(itertools.zip_longest(x, y,
                                                     fillvalue="(none)")):
        if u != v:
            return i, u, v
    return None


def locate(idx, planes):
    fsize = sum(rb * rows for rb, rows in planes)
    frame, r = divmod(idx, fsize)
    for p, (rb, rows) in enumerate(planes):
        if r < rb * rows:
            y, x = divmod(r, rb)
            return "frame %d plane %d row %d byte %d" % (frame, p, y, x)
        r -= rb * rows
    return "byte %d" % idx


def nlmeans_tol(element, fmt, props):
    """GPU vs CPU tolerance per byte: cudanlmeans within 1 LSB; its RGB
    formats with rgb-mode=ycrcb (the default) within 3: the denoised Y,
    Cr, Cb agree within 1, and the back conversion to RGB turns a 1-LSB
    step of Cr or Cb into up to 2 in R or B (plus 1 from Y)"""
    if element != "cudanlmeans":
        return 0
    if fmt in ("RGBA", "BGRA", "RGBx", "BGRx", "RGB", "BGR") and \
            "rgb-mode=joint-rgb" not in props:
        return 3
    return 1


def compare_bytes(a, b, tol, planes, shift=False):
    """('identical'|'lsb'|'mismatch', text)"""
    x = np.fromfile(a.out, np.uint8) if os.path.exists(a.out) else \
        np.zeros(0, np.uint8)
    y = np.fromfile(b.out, np.uint8) if os.path.exists(b.out) else \
        np.zeros(0, np.uint8)
    if shift and y.size:
        # a one-byte offset bug; the first byte is changed too, so that a
        # constant output differs as well
        y = np.roll(y, 1)
        y[0] ^= 0x80
    if x.size != y.size:
        return "mismatch", "output sizes differ: %s %d bytes, %s %d bytes" % (
            a.tag, x.size, b.tag, y.size)
    if np.array_equal(x, y):
        return "identical", ""
    diff = x != y
    first = int(np.flatnonzero(diff)[0])
    n = int(np.count_nonzero(diff))
    mx = int(np.max(np.abs(x.astype(np.int16) - y.astype(np.int16))))
    where = locate(first, planes) if planes else "byte %d" % first
    text = ("%d of %d bytes differ, max |diff| %d; first at %s (%s %d, %s %d)"
            % (n, x.size, mx, where, a.tag, x[first], b.tag, y[first]))
    if mx <= tol:
        return "lsb", text
    return "mismatch", text


def judge(sw, c, runs):
    """(status, reason): status identical|lsb|agreed-error|mismatched|
    crashed|hung|errored."""
    for r in runs:
        if r.rc is not None and r.rc < 0:
            tail = r.stderr.strip().splitlines()[-3:]
            return "crashed", "%s run killed by %s%s" % (
                r.tag, signame(r.rc),
                (": " + " / ".join(tail)) if tail else "")
    for r in runs:
        if r.rc is None or r.rc == 3:
            return "hung", "%s run timed out (%.0f s)" % (r.tag, r.seconds)
    for r in runs:
        if r.rc not in (0, 1):
            return "errored", "%s run could not run (exit %s): %s" % (
                r.tag, r.rc, r.stderr.strip().splitlines()[-1:]
                if r.stderr.strip() else "")
        if r.unmapped:
            return "errored", "%s run: %d frames could not be mapped" % (
                r.tag, r.unmapped)
    a = runs[0]
    if sw.mode == "cpu" and len(runs) < 2:
        if a.errors:
            return "errored", "real pipeline error: %s" % a.errors[0]
        return "errored", "real pipeline recorded no input (%s)" % (
            a.end or "no metadata")
    # errors
    errs = [r.errors[0] if r.errors else None for r in runs]
    if any(errs):
        if len(set(errs)) != 1:
            return ("errored" if not c.expect_error else "mismatched",
                    "errors differ: " + "; ".join(
                        "%s: %s" % (r.tag, e or "none")
                        for r, e in zip(runs, errs)))
        e = errs[0]
        if c.expect_error and c.expect_error in e:
            # the frames before the error must still agree
            pass
        else:
            return "errored", "unexpected error (same in every run): %s" % e
    elif c.expect_error:
        return "mismatched", "expected an error (%s), none came" % \
            c.expect_error
    # per run: counts and timestamps preserved by the element
    for r in runs:
        if len(r.outs) != len(r.sinks):
            return "mismatched", "%s run: %d frames left el, %d reached the "\
                "appsink" % (r.tag, len(r.outs), len(r.sinks))
        if not r.errors and len(r.ins) != len(r.outs):
            return "mismatched", "%s run: %d frames entered el, %d left it" \
                % (r.tag, len(r.ins), len(r.outs))
        for i, o in zip(r.ins, r.outs):
            if (i.get("pts"), i.get("dur")) != (o.get("pts"), o.get("dur")):
                return "mismatched", ("%s run: frame %d entered with pts=%s "
                                      "dur=%s, left with pts=%s dur=%s" %
                                      (r.tag, o["n"], i.get("pts"),
                                       i.get("dur"), o.get("pts"),
                                       o.get("dur")))
    if not errs[0] and not a.outs:
        return "errored", "no frame reached the element"
    for b in runs[1:]:
        if len(a.outs) != len(b.outs):
            return "mismatched", "frame counts differ: %s %d, %s %d" % (
                a.tag, len(a.outs), b.tag, len(b.outs))
        if sw.mode == "gpu":
            for x, y in zip(a.ins, b.ins):
                if x.get("hash") != y.get("hash"):
                    return "errored", ("the source is not deterministic: "
                                       "input frame %d differs between runs"
                                       % x["n"])
            for x, y in zip(a.outs, b.outs):
                if (x.get("pts"), x.get("dur")) != (y.get("pts"),
                                                    y.get("dur")):
                    return "mismatched", (
                        "frame %d: %s pts=%s dur=%s, %s pts=%s dur=%s" %
                        (x["n"], a.tag, x.get("pts"), x.get("dur"), b.tag,
                         y.get("pts"), y.get("dur")))
        ai = (a.sink_info or "").split()[:3]
        bi = (b.sink_info or "").split()[:3]
        if ai != bi:
            return "mismatched", "output caps differ: %s %s, %s %s" % (
                a.tag, " ".join(ai), b.tag, " ".join(bi))
        for what, x, y in (("element message", norm_msgs(a), norm_msgs(b)),
                           ("ROI meta", a.rois, b.rois),
                           ("labels meta", a.labels, b.labels),
                           ("element warning", el_warnings(a),
                            el_warnings(b))):
            d = first_difference(x, y)
            if d:
                return "mismatched", "%s %d differs: %s: %s | %s: %s" % (
                    what, d[0], a.tag, d[1], b.tag, d[2])
    status, text = "identical", ""
    for b in runs[1:]:
        s, t = compare_bytes(a, b, c.tol, a.sink_planes,
                             shift=sw.args.inject_shift)
        if s == "mismatch":
            return "mismatched", "output bytes: " + t
        if s == "lsb":
            status, text = "lsb", t
    if errs[0]:
        return "agreed-error", errs[0]
    return status, text


def spread(cases, limit):
    if limit is None or limit >= len(cases):
        return cases
    step = len(cases) / float(limit)
    return [cases[int(i * step)] for i in range(limit)]


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        epilog="See the module docstring (head of this file) for details.")
    ap.add_argument("--mode", choices=["cpu", "gpu"], default="cpu")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--quick", dest="full", action="store_false", default=None)
    g.add_argument("--full", dest="full", action="store_true")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--filter", action="append", default=[])
    ap.add_argument("--case", action="append", default=[])
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--work", default=None)
    ap.add_argument("--report", default=None)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--list", action="store_true")
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--case-bin", default=os.environ.get(
        "CV_SWEEP_CASE", os.path.join(here, "..", "..", "build", "tests",
                                      "cv-sweep-case")))
    ap.add_argument("--media", default=os.environ.get(
        "CUDAVISION_MEDIA_DIR") or DEFAULT_MEDIA)
    ap.add_argument("--inject-shift", action="store_true")
    ap.add_argument("--emulate-gpu", action="store_true")
    ap.add_argument("--wrap", default=os.environ.get("CV_SWEEP_WRAP"),
                    help="a command line the case program runs under, e.g. "
                    "'compute-sanitizer --tool memcheck --error-exitcode 86' "
                    "(its exit status counts as the case's)")
    ap.add_argument("--no-serve", dest="serve", action="store_false",
                    default=True)
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    if args.seed is None:
        args.seed = random.SystemRandom().randrange(1, 1 << 31)
    if args.full is None:
        args.full = args.mode == "gpu"
    args.case_bin = os.path.abspath(args.case_bin)
    if not os.access(args.case_bin, os.X_OK):
        print("sweep: %s not found (build first, or --case-bin)" %
              args.case_bin)
        return 2
    tmp = None
    if args.work is None:
        tmp = args.work = tempfile.mkdtemp(prefix="cv-sweep-")
    os.makedirs(args.work, exist_ok=True)
    args.work = os.path.abspath(args.work)
    try:
        return sweep_main(args)
    finally:
        if tmp and not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


def sweep_main(args):
    sw = Sweep(args)
    t0 = time.monotonic()
    rc = sw.setup()
    if rc:
        return rc
    cases = sw.cases()
    wanted = set()
    for f in args.filter:
        for x in f.split(","):
            wanted.add(x if x.startswith("cuda") else "cuda" + x)
    if wanted:
        unknown = wanted - set(ELEMENTS)
        if unknown:
            print("sweep: unknown element(s): %s" % ", ".join(sorted(unknown)))
            return 2
        cases = [c for c in cases if c.element in wanted]
    if args.case:
        ids = set(args.case)
        cases = [c for c in cases if c.id in ids]
        if not cases:
            print("sweep: no case %s with this seed, mode and size set" %
                  ", ".join(args.case))
            return 2
    cases = spread(cases, args.limit)
    header = ("cv-sweep: mode %s, seed %d, %s, %d cases, %d jobs, media %s" %
              (args.mode, args.seed, "full" if args.full else "quick",
               len(cases), args.jobs, args.media))
    print(header, flush=True)
    for s in sw.skipped:
        print("SKIPPED: " + s, flush=True)
    if args.list:
        for c in cases:
            print("%-16s %s" % (c.id, c.describe()))
        return 0
    # the longest first: the slowest cases do not end the sweep alone
    order = sorted(cases, key=lambda c: -c.cost)
    results = {}
    done = 0
    counts = {}
    env_prefix = "GST_PLUGIN_PATH=%s " % shlex.quote(
        sw.env.get("GST_PLUGIN_PATH", ""))
    if sw.env.get("CUDAVISION_MEDIA_DIR"):
        env_prefix += "CUDAVISION_MEDIA_DIR=%s " % shlex.quote(
            sw.env["CUDAVISION_MEDIA_DIR"])
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as ex:
        futs = [ex.submit(sw.run_case, c) for c in order]
        for fut in concurrent.futures.as_completed(futs):
            c, runs, (status, reason) = fut.result()
            results[c.id] = (c, runs, status, reason)
            counts[status] = counts.get(status, 0) + 1
            done += 1
            ok = status in ("identical", "lsb", "agreed-error")
            if not ok or args.verbose:
                print("[%d/%d] %s %s: %s%s" % (
                    done, len(cases), c.id, status.upper(), c.describe(),
                    ("\n      " + reason) if reason and not ok else ""),
                    flush=True)
            elif done % 50 == 0:
                print("[%d/%d] ... %.0f s" % (done, len(cases),
                                              time.monotonic() - t0),
                      flush=True)
            if ok or not args.keep:
                shutil.rmtree(os.path.join(args.work, c.id),
                              ignore_errors=True)
    for server in sw.servers:
        server.stop()
    elapsed = time.monotonic() - t0
    bad = [results[c.id] for c in cases
           if results[c.id][2] not in ("identical", "lsb", "agreed-error")]
    lines = [header]
    lines += ["SKIPPED: " + s for s in sw.skipped]
    crops = [c for c in cases if c.crop]
    in_place = [c for c in crops if c.crop_mode == "meta"]
    meta_offsets = 0
    for c in in_place:
        for r in results[c.id][1]:
            if r.tag in ("real", "cuda", "cpu") and any(
                    re.match(r"0*[1-9][0-9]*[,/]", i.get("vmeta", ""))
                    for i in r.ins):
                meta_offsets += 1
                break
    per_el = {}
    for c in cases:
        per_el.setdefault(c.element, [0, 0])
        per_el[c.element][0] += 1
        if results[c.id][2] not in ("identical", "lsb", "agreed-error"):
            per_el[c.element][1] += 1
    lines.append("per element: " + ", ".join(
        "%s %d (%d not OK)" % (e, v[0], v[1]) for e, v in per_el.items()))
    lines.append("memory: %d system, %d CUDA; videocrop: %d copying, %d in "
                 "place (%d of them reached the element with GstVideoMeta "
                 "offsets)" % (sum(c.memory == "sys" for c in cases),
                               sum(c.memory == "cuda" for c in cases),
                               len(crops) - len(in_place), len(in_place),
                               meta_offsets))
    slow = sorted(((sum(r.seconds for r in results[c.id][1]), c.id)
                   for c in cases), reverse=True)[:5]
    lines.append("slowest cases: " + ", ".join("%s %.1f s" % (i, t)
                                               for t, i in slow))
    per_tag = {}
    for c in cases:
        for r in results[c.id][1]:
            per_tag.setdefault(r.tag, []).append(r.seconds)
    lines.append("run times: " + ", ".join(
        "%s median %.2f s, mean %.2f s (%d runs)" % (
            t, sorted(v)[len(v) // 2], sum(v) / len(v), len(v))
        for t, v in sorted(per_tag.items())))
    for c, runs, status, reason in bad:
        lines.append("")
        lines.append("%s %s: %s" % (c.id, status.upper(), c.describe()))
        lines.append("  why: " + reason)
        lines.append("  reproduce: %s %s --mode %s --seed %d %s --case %s "
                     "--keep" % (sys.executable, os.path.abspath(__file__),
                                 args.mode, args.seed,
                                 "--full" if args.full else "--quick", c.id))
        for r in runs:
            lines.append("  %s run: %s" % (r.tag, r.command(env_prefix)))
        if args.keep:
            lines.append("  files: %s" % os.path.join(args.work, c.id))
    lines.append("")
    lines.append(
        "seed %d: %d cases run in %.0f s: %d identical, %d within 1 LSB, "
        "%d agreed errors, %d mismatched, %d crashed, %d hung, %d errored; "
        "%d skipped" % (args.seed, len(cases), elapsed,
                        counts.get("identical", 0), counts.get("lsb", 0),
                        counts.get("agreed-error", 0),
                        counts.get("mismatched", 0), counts.get("crashed", 0),
                        counts.get("hung", 0), counts.get("errored", 0),
                        len(sw.skipped)))
    text = "\n".join(lines)
    print("\n".join(lines[len(sw.skipped) + 1:]))
    if args.report:
        os.makedirs(os.path.dirname(os.path.abspath(args.report)),
                    exist_ok=True)
        with open(args.report, "w") as f:
            f.write(text + "\n")
    return 0 if not bad else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:     # --list | head
        sys.exit(0)
