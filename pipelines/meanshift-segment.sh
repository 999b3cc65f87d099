#!/usr/bin/env bash
# gst-cuda-vision: mean-shift segmentation of a real video with cudameanshift
# (mode=segment): each frame painted with its segments' mean colours, and
# the number of segments of every frame printed.
#
# Usage: pipelines/meanshift-segment.sh [options] [INPUT]
#
#   INPUT                 video file path or URI (default: vtest.avi from the
#                         opencv-doc package, 768x576, 795 frames at 10 fps)
#   --spatial-radius HS   spatial bandwidth in pixels (default 8)
#   --color-radius HC     colour bandwidth in 8-bit levels (default 16)
#   --min-segment-size N  smaller segments are merged (default 20)
#   --kernel K            uniform (default) or flat (OpenCV's
#                         pyrMeanShiftFiltering)
#   --set PROP=VALUE      any other cudameanshift property, repeatable
#                         (e.g. --set max-iterations=3 --set roi="<0,0,320,240>")
#   --backend B           auto (default), cuda or cpu
#   -n, --frames N        stop after N frames (default: the whole input; the
#                         CPU takes 1 to 2 s per 768x576 frame)
#   -o, --output PATH     write the segmented video, Motion-JPEG in .avi or .mkv
#   --display             show it in a window (autovideosink)
#   --headless            no window and no file (fakesink)
#                         (default: --display when $DISPLAY or
#                         $WAYLAND_DISPLAY is set, else --headless)
#   --build-dir DIR       take the plugin from DIR/plugin (default: build/ of
#                         the repository, unless GST_PLUGIN_PATH is set)
#   --print               only print the equivalent gst-launch-1.0 command
#   -h, --help            this text
#
# Pipeline:
#   uridecodebin ! videoconvert ! video/x-raw,format=RGBx
#     ! cudameanshift mode=segment spatial-radius=HS color-radius=HC ...
#     ! videoconvert ! jpegenc ! avimux ! filesink   (or a window, a fakesink)
# Prints one line per frame from the element's `meanshift-segments` bus
# messages, e.g. "frame   12 (  1.200 s): 187 segments", then the minimum,
# mean and maximum, then the summary line
#   meanshift-segment.sh: N frames, X fps, backend cpu|cuda, output PATH|window|none
#
# Examples:
#   pipelines/meanshift-segment.sh --frames 20 --headless
#   pipelines/meanshift-segment.sh --frames 50 --kernel flat --spatial-radius 10 \
#       --color-radius 20 --output out/segments.avi
#
# SPDX-License-Identifier: LGPL-2.1-or-later
set -euo pipefail

SCRIPT=meanshift-segment.sh
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=common.sh
. "$ROOT/pipelines/common.sh"

INPUT=""
HS=8
HC=16
MIN_SIZE=20
KERNEL=uniform
EXTRA=()
BACKEND=auto
FRAMES=0
OUTPUT=""
MODE=""
PRINT=0
BUILD_DIR=""
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --spatial-radius) need_arg "$@"; HS="$2"; shift ;;
    --color-radius) need_arg "$@"; HC="$2"; shift ;;
    --min-segment-size) need_arg "$@"; MIN_SIZE="$2"; shift ;;
    --kernel) need_arg "$@"; KERNEL="$2"; shift ;;
    --set) need_arg "$@"
       [[ "$2" =~ ^[a-z][a-z0-9-]*=.+$ ]] || die "--set needs PROP=VALUE, got '$2'"
       EXTRA+=("$2"); shift ;;
    --backend) need_arg "$@"; BACKEND="$2"; shift ;;
    -n|--frames) need_arg "$@"; FRAMES="$2"; shift ;;
    -o|--output) need_arg "$@"; OUTPUT="$2"; shift ;;
    --display|--headless)
      [ -z "$MODE" ] || die "give only one of --display and --headless"
      MODE="${1#--}" ;;
    --build-dir) need_arg "$@"; BUILD_DIR="$2"; shift ;;
    --print) PRINT=1 ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) [ -z "$INPUT" ] || die "only one INPUT, got '$INPUT' and '$1'"
       INPUT="$1" ;;
  esac
  shift
done

in_range "$HS" 1 255 --spatial-radius
[[ "$HC" =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--color-radius must be a number, got '$HC'"
in_range "$MIN_SIZE" 0 2147483647 --min-segment-size
case "$KERNEL" in uniform|flat) ;; *) die "--kernel must be uniform or flat, got '$KERNEL'" ;; esac
check_backend "$BACKEND"
check_frames "$FRAMES"
if [ -n "$OUTPUT" ]; then
  [ -z "$MODE" ] || die "give only one of --output, --display and --headless"
  MODE="file"
elif [ -z "$MODE" ]; then
  if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then MODE=display; else MODE=headless; fi
fi
if [ -z "$INPUT" ]; then
  [ -f "$VTEST" ] || die "default input $VTEST is missing (package opencv-doc); pass a video file or URI"
  INPUT="$VTEST"
fi
URI="$(input_uri "$INPUT")"

case "$MODE" in
  file)
    case "$OUTPUT" in
      *.avi) MUX=avimux ;;
      *.mkv) MUX=matroskamux ;;
      *) die "--output must end in .avi or .mkv, got '$OUTPUT'" ;;
    esac
    [ "$PRINT" = 1 ] || mkdir -p "$(dirname "$OUTPUT")"
    SINK=(videoconvert ! jpegenc ! "$MUX" ! filesink "location=$OUTPUT")
    SHOWN="$OUTPUT" ;;
  display) SINK=(videoconvert ! autovideosink); SHOWN=window ;;
  headless) SINK=(fakesink); SHOWN=none ;;
esac

PIPELINE=(
  uridecodebin "uri=$URI" ! videoconvert name=in ! "video/x-raw,format=RGBx"
  ! cudameanshift name=ms mode=segment "spatial-radius=$HS" "color-radius=$HC"
    "min-segment-size=$MIN_SIZE" "kernel=$KERNEL" "backend=$BACKEND"
    ${EXTRA[@]+"${EXTRA[@]}"}
  ! "${SINK[@]}"
)
say "$(show gst-launch-1.0 -e -m "${PIPELINE[@]}")"
[ "$PRINT" = 0 ] || exit 0
[ "$MODE" != display ] || need_display "use --headless or --output"
use_build "$BUILD_DIR"
run_pipeline --element ms --frames "$FRAMES" --limit-at in \
  --messages meanshift-segments --output "$SHOWN" -- "${PIPELINE[@]}"
