#!/usr/bin/env bash
# gst-cuda-vision demo: Sobel edges of a real video, decoded, filtered by
# cudasobel (GPU when usable, else CPU) and encoded into out/edges.mkv.
#
# Usage: pipelines/demo.sh [options] [INPUT]
#
#   INPUT                 video file path or URI (default: vtest.avi from the
#                         opencv-doc package, 768x576, 795 frames at 10 fps)
#   -o, --output PATH     output file, .mkv, .avi or .mp4 (default: out/edges.mkv
#                         in the repository)
#   --codec C             mjpeg (default, Motion-JPEG: fast) or vp8 (.mkv only:
#                         about 3x smaller files, much slower to encode)
#   -n, --frames N        stop after N frames (default: the whole input)
#   --backend B           auto (default), cuda (error without a GPU) or cpu
#   --threshold T         cudasobel threshold, 0..255 (default 0)
#   --brightness B        cudasobel brightness offset, -255..255 (default 0)
#   --snapshot PNG        also write one edge frame (what is encoded) as a
#                         PNG: the middle frame of what is processed (frame
#                         N/2, counted from 0 and rounded down, of --frames N
#                         or of the whole input)
#   --snapshot-frame K    take frame K (0 = first) for --snapshot instead
#   --build-dir DIR       meson build folder (default: build/ in the repository);
#                         configured with `meson setup` when it is not yet
#   --meson-option OPT    extra `meson setup` option for a new build folder,
#                         repeatable (e.g. --meson-option -Dcuda-archs=90)
#   --no-install          never call apt-get (only warn about missing packages)
#   -h, --help            this text
#
# Steps: (1) on Debian 12 or 13, install the missing packages with apt-get (sudo when
# not root; apt-get update first, and only when something is missing);
# (2) build the plugin with meson/ninja (CUDA is used when nvcc is found, on
# PATH or in /usr/local/cuda/bin; without it the plugin is built for the CPU);
# (3) run pipelines/edges.py (uridecodebin ! cudasobel ! videoconvert !
# jpegenc ! mux ! filesink) with the build's plugin and print the frames
# processed, the fps (decode + edges + encode, wall clock) and the backend
# used (cudasobel's active-backend). The last line is the summary
#   demo.sh: N frames, X fps, backend cpu|cuda, output PATH
#
# Examples:
#   pipelines/demo.sh
#   pipelines/demo.sh --frames 100 --threshold 60 --output out/t60.avi
#   pipelines/demo.sh --frames 50 --snapshot out/edges.png
#   pipelines/demo.sh --no-install --backend cpu ~/Videos/clip.mp4
#
# SPDX-License-Identifier: LGPL-2.1-or-later
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON=/usr/bin/python3
VTEST=/usr/share/doc/opencv-doc/examples/data/vtest.avi
say() { printf 'demo.sh: %s\n' "$*"; }
die() { printf 'demo.sh: error: %s\n' "$*" >&2; exit 1; }
usage() { sed -n '/^# Usage:/,/^# SPDX/{/^# SPDX/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; }
need_arg() { [ $# -ge 2 ] || die "$1 needs a value (see --help)"; }

INSTALL=1
BUILD_DIR="$ROOT/build"
OUTPUT="$ROOT/out/edges.mkv"
INPUT=""
MESON_OPTS=()
RUN_ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --no-install) INSTALL=0 ;;
    --build-dir) need_arg "$@"; BUILD_DIR="$2"; shift ;;
    --meson-option) need_arg "$@"; MESON_OPTS+=("$2"); shift ;;
    -o|--output) need_arg "$@"; OUTPUT="$2"; shift ;;
    -n|--frames|--backend|--threshold|--brightness|--codec|--snapshot|--snapshot-frame)
      need_arg "$@"; RUN_ARGS+=("$1" "$2"); shift ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) [ -z "$INPUT" ] || die "only one INPUT, got '$INPUT' and '$1'"
       INPUT="$1" ;;
  esac
  shift
done

# ---- 1. packages ------------------------------------------------------------
if [ "$INSTALL" = 0 ]; then
  "$ROOT/pipelines/install-deps.sh" --check || true
else
  "$ROOT/pipelines/install-deps.sh"
fi

# ---- 2. build ---------------------------------------------------------------
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi
if command -v nvcc >/dev/null 2>&1; then
  say "nvcc found ($(command -v nvcc)): building the CUDA kernels too"
else
  say "no nvcc: building the CPU backend only"
fi
command -v meson >/dev/null 2>&1 || die "meson is not installed"
command -v ninja >/dev/null 2>&1 || die "ninja is not installed (ninja-build)"
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  say "configuring $BUILD_DIR"
  meson setup "$BUILD_DIR" "$ROOT" "${MESON_OPTS[@]}"
elif [ ${#MESON_OPTS[@]} -gt 0 ]; then
  say "warning: $BUILD_DIR is already configured, ignoring ${MESON_OPTS[*]}"
fi
say "building in $BUILD_DIR"
ninja -C "$BUILD_DIR"
PLUGIN_DIR="$BUILD_DIR/plugin"
[ -f "$PLUGIN_DIR/libgstcudavision.so" ] ||
  die "the build did not produce $PLUGIN_DIR/libgstcudavision.so"

# ---- 3. run -----------------------------------------------------------------
if [ -z "$INPUT" ]; then
  [ -f "$VTEST" ] || die "default input $VTEST is missing (package opencv-doc); pass a video file or URI"
  INPUT="$VTEST"
fi
[ -x "$PYTHON" ] || die "$PYTHON is missing (package python3)"
"$PYTHON" -c 'import gi; gi.require_version("Gst", "1.0"); from gi.repository import Gst' 2>/dev/null ||
  die "$PYTHON cannot import GStreamer (packages python3-gi gir1.2-gstreamer-1.0)"

say "running decode -> cudasobel -> encode into $OUTPUT (play it with: gst-play-1.0 $OUTPUT)"
"$PYTHON" "$ROOT/pipelines/edges.py" --name demo.sh --build-dir "$BUILD_DIR" \
  --output "$OUTPUT" ${RUN_ARGS[@]+"${RUN_ARGS[@]}"} "$INPUT" ||
  die "the pipeline failed (see the message above)"
[ -s "$OUTPUT" ] || die "the output file $OUTPUT is missing or empty"
