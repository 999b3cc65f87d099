#!/usr/bin/env bash
# gst-cuda-vision: three panes side by side, as the seed's GUI showed them:
# the input, the input with cudasobel's brightness offset applied, and
# cudasobel's edge map.
#
# Usage: pipelines/side-by-side.sh [options] [INPUT]
#
#   INPUT                 video file path or URI (default: vtest.avi from the
#                         opencv-doc package; else use --camera or --test-src)
#   --camera DEV          live V4L2 camera instead of a file (e.g. /dev/video0)
#   --test-src            videotestsrc (pattern=ball) instead of a file
#   --threshold T         cudasobel threshold, 0..255 (default 0)
#   --brightness B        brightness offset, -255..255 (default 0), applied to
#                         pane 2 (videobalance) and inside cudasobel (pane 3)
#   --backend B           auto (default), cuda or cpu
#   --size WxH            size of each pane (default 480x360; the view is
#                         three panes wide)
#   -n, --frames N        with --test-src or --camera: stop after N frames
#                         (num-buffers; a file input always plays to its end)
#   -o, --output PATH     write the view to a file (.mkv, Motion-JPEG)
#                         instead of showing it in a window
#   --headless            no window and no file: fakesink (for tests)
#   --no-labels           no pane titles (textoverlay)
#   --build-dir DIR       take the plugin from DIR/plugin (default: build/ of
#                         the repository when it holds one; else installed)
#   --print               only print the gst-launch-1.0 command
#   -h, --help            this text
#
# Pipeline (gst-launch-1.0 -e):
#   SRC ! videoconvert ! videoscale
#     ! video/x-raw,format=I420,width=W,height=H,pixel-aspect-ratio=1/1 ! tee
#   tee ! queue ! [textoverlay] ! compositor.sink_0          (xpos 0)
#   tee ! queue ! videobalance brightness=B/255 ! [textoverlay]
#                                 ! compositor.sink_1          (xpos W)
#   tee ! queue ! cudasobel threshold=T brightness=B ! videoconvert
#                                 ! [textoverlay] ! compositor.sink_2 (xpos 2W)
#   compositor ! videoconvert ! autovideosink | encoder ! file | fakesink
#
# Brightness, pane 2 versus cudasobel: the frames are I420 when they reach
# both. On an I420 frame videobalance brightness=b (contrast 1) maps the luma
# Y to clamp(rint(Y + 255 b), 0, 255) and leaves the chroma planes as they
# are; with b = B/255 that is clamp(Y + B, 0, 255), exactly the luma
# cudasobel filters (in = clamp(Y + B, 0, 255)). Differences: pane 2 keeps
# the colours (cudasobel only sees the luma); with an RGB input cudasobel
# would use its own BT.601 fixed-point luma while videobalance would convert
# to YUV and back: this script converts to I420 first so both see the same Y.
#
# SPDX-License-Identifier: LGPL-2.1-or-later
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VTEST=/usr/share/doc/opencv-doc/examples/data/vtest.avi

say() { printf 'side-by-side: %s\n' "$*"; }
die() { printf 'side-by-side: error: %s\n' "$*" >&2; exit 1; }
usage() { sed -n '/^# Usage:/,/^# SPDX/{/^# SPDX/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; }
need_arg() { [ $# -ge 2 ] || die "$1 needs a value (see --help)"; }
# print a command so that it can be pasted into a shell
show() {
  local w out=""
  for w in "$@"; do
    if [[ "$w" =~ ^[A-Za-z0-9_.,:/=+@%!-]+$ ]]; then out+="$w "; else out+="'$w' "; fi
  done
  printf '%s\n' "${out% }"
}
is_int() { [[ "$1" =~ ^-?[0-9]+$ ]] || die "$2 must be an integer, got '$1'"; }

INPUT=""
CAMERA=""
TESTSRC=0
THRESHOLD=0
BRIGHTNESS=0
BACKEND=auto
SIZE=480x360
FRAMES=0
OUTPUT=""
HEADLESS=0
LABELS=1
PRINT=0
BUILD_DIR=""
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --camera) need_arg "$@"; CAMERA="$2"; shift ;;
    --test-src) TESTSRC=1 ;;
    --threshold) need_arg "$@"; THRESHOLD="$2"; shift ;;
    --brightness) need_arg "$@"; BRIGHTNESS="$2"; shift ;;
    --backend) need_arg "$@"; BACKEND="$2"; shift ;;
    --size) need_arg "$@"; SIZE="$2"; shift ;;
    -n|--frames) need_arg "$@"; FRAMES="$2"; shift ;;
    -o|--output) need_arg "$@"; OUTPUT="$2"; shift ;;
    --headless) HEADLESS=1 ;;
    --no-labels) LABELS=0 ;;
    --build-dir) need_arg "$@"; BUILD_DIR="$2"; shift ;;
    --print) PRINT=1 ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) [ -z "$INPUT" ] || die "only one INPUT, got '$INPUT' and '$1'"
       INPUT="$1" ;;
  esac
  shift
done

is_int "$THRESHOLD" --threshold
is_int "$BRIGHTNESS" --brightness
is_int "$FRAMES" --frames
[ "$THRESHOLD" -ge 0 ] && [ "$THRESHOLD" -le 255 ] || die "--threshold must be in 0..255"
[ "$BRIGHTNESS" -ge -255 ] && [ "$BRIGHTNESS" -le 255 ] || die "--brightness must be in -255..255"
[ "$FRAMES" -ge 0 ] || die "--frames must be >= 0"
case "$BACKEND" in auto|cuda|cpu) ;; *) die "--backend must be auto, cuda or cpu" ;; esac
[[ "$SIZE" =~ ^([0-9]+)x([0-9]+)$ ]] || die "--size must be WIDTHxHEIGHT, got '$SIZE'"
W="${BASH_REMATCH[1]}"
H="${BASH_REMATCH[2]}"
[ "$W" -ge 16 ] && [ "$H" -ge 16 ] || die "--size must be at least 16x16"
nsrc="$TESTSRC"
[ -z "$INPUT" ] || nsrc=$((nsrc + 1))
[ -z "$CAMERA" ] || nsrc=$((nsrc + 1))
[ "$nsrc" -le 1 ] || die "give only one of INPUT, --camera and --test-src"
[ -z "$OUTPUT" ] || [ "$HEADLESS" = 0 ] || die "give only one of --output and --headless"

# ---- source -----------------------------------------------------------------
NB=()
[ "$FRAMES" = 0 ] || NB=("num-buffers=$FRAMES")
if [ -n "$CAMERA" ]; then
  [ "$PRINT" = 1 ] || [ -e "$CAMERA" ] || die "no camera at $CAMERA"
  # decodebin passes raw frames through and decodes Motion-JPEG cameras
  SRC=(v4l2src "device=$CAMERA" "${NB[@]}" ! decodebin)
elif [ "$TESTSRC" = 1 ]; then
  SRC=(videotestsrc pattern=ball "${NB[@]}")
else
  # (identity eos-after=N would cut a file short, but after avdec_msmpeg4
  # it lets a frame with a wrong timestamp through: not offered)
  [ "$FRAMES" = 0 ] || die "--frames needs --test-src or --camera (a file plays to its end; pipelines/edges.py --frames cuts files)"
  if [ -z "$INPUT" ]; then
    [ -f "$VTEST" ] || die "default input $VTEST is missing (package opencv-doc); pass a file, --camera or --test-src"
    INPUT="$VTEST"
  fi
  if [[ "$INPUT" =~ ^[a-zA-Z][a-zA-Z0-9+.-]*:// ]]; then
    URI="$INPUT"
  else
    [ -f "$INPUT" ] || die "input file not found: $INPUT"
    URI="file://$(realpath "$INPUT")"
  fi
  SRC=(uridecodebin "uri=$URI")
fi

# ---- panes ------------------------------------------------------------------
# videobalance brightness is a fraction of the full 0..255 range
VB_BRIGHTNESS="$(awk -v b="$BRIGHTNESS" 'BEGIN { printf "%.10f", b / 255 }')"
label() { # label TEXT -> textoverlay arguments (or nothing without labels)
  [ "$LABELS" = 1 ] || return 0
  printf '%s\n' ! textoverlay "text=$1" valignment=top halignment=left \
    shaded-background=true "font-desc=Sans 12"
}
mapfile -t L0 < <(label "input")
mapfile -t L1 < <(label "brightness $(printf '%+d' "$BRIGHTNESS")")
mapfile -t L2 < <(label "edges, threshold $THRESHOLD")

if [ -n "$OUTPUT" ]; then
  case "$OUTPUT" in *.mkv) ;; *) die "--output must end in .mkv" ;; esac
  mkdir -p "$(dirname "$OUTPUT")"
  SINK=(videoconvert ! jpegenc quality=90 ! matroskamux ! filesink "location=$OUTPUT")
elif [ "$HEADLESS" = 1 ]; then
  SINK=(fakesink)
else
  SINK=(videoconvert ! autovideosink)
fi

PIPELINE=(
  "${SRC[@]}" ! videoconvert ! videoscale
  ! "video/x-raw,format=I420,width=$W,height=$H,pixel-aspect-ratio=1/1"
  ! tee name=t
  compositor name=mix background=black
    sink_0::xpos=0 "sink_1::xpos=$W" "sink_2::xpos=$((2 * W))"
    ! "${SINK[@]}"
  t. ! queue "${L0[@]}" ! mix.sink_0
  t. ! queue ! videobalance "brightness=$VB_BRIGHTNESS" "${L1[@]}" ! mix.sink_1
  t. ! queue ! cudasobel name=sobel "threshold=$THRESHOLD" "brightness=$BRIGHTNESS"
    "backend=$BACKEND" ! videoconvert "${L2[@]}" ! mix.sink_2
)

# Use the repository's build when there is one (installed plugin otherwise).
[ -n "$BUILD_DIR" ] || { [ -d "$ROOT/build/plugin" ] && BUILD_DIR="$ROOT/build"; } || true
if [ -n "$BUILD_DIR" ]; then
  [ -f "$BUILD_DIR/plugin/libgstcudavision.so" ] ||
    die "no plugin in $BUILD_DIR/plugin (build it: pipelines/demo.sh or ninja -C $BUILD_DIR)"
  export GST_PLUGIN_PATH="$BUILD_DIR/plugin${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
fi

say "$(show gst-launch-1.0 -e "${PIPELINE[@]}")"
[ "$PRINT" = 0 ] || exit 0
command -v gst-launch-1.0 >/dev/null 2>&1 || die "gst-launch-1.0 is missing (package gstreamer1.0-tools)"
status=0
gst-launch-1.0 -e "${PIPELINE[@]}" || status=$?
[ "$status" = 0 ] || die "gst-launch-1.0 failed (exit status $status, message above)"
[ -z "$OUTPUT" ] || say "wrote $OUTPUT"
