#!/usr/bin/env bash
# gst-cuda-vision: blur, then edges, on a real video (seed 001): cudaconvolve
# smooths the frames (3x3 box blur per colour channel by default) and
# cudasobel computes the edge map of the result.
#
# Usage: pipelines/blur-edges.sh [options] [INPUT]
#
#   INPUT                 video file path or URI (default: vtest.avi from the
#                         opencv-doc package, 768x576, 795 frames at 10 fps)
#   --filters LIST        cudaconvolve's chain (default blur; e.g.
#                         gaussian,gaussian or blur,sharpen)
#   --threshold T         cudasobel threshold, 0..255 (default 0)
#   --backend B           auto (default), cuda or cpu (both elements)
#   -n, --frames N        stop after N frames (default: the whole input)
#   -o, --output PATH     Motion-JPEG file, .avi or .mkv (default
#                         out/blur-edges.avi in the repository)
#   --display             show the edges in a window (autovideosink)
#                         instead of writing a file
#   --headless            no window and no file (fakesink)
#   --build-dir DIR       take the plugin from DIR/plugin (default: build/ of
#                         the repository, unless GST_PLUGIN_PATH is set)
#   --print               only print the equivalent gst-launch-1.0 command
#   -h, --help            this text
#
# Pipeline:
#   uridecodebin ! videoconvert ! video/x-raw,format=BGRx
#     ! cudaconvolve filters=LIST ! cudasobel threshold=T
#     ! videoconvert ! jpegenc ! avimux|matroskamux ! filesink
#     (or ! videoconvert ! autovideosink, or ! fakesink)
# Frames are counted by pad probes on cudasobel; --frames cuts the decoded
# video with a pad probe (pipelines/cvpipe.py). The last line is
#   blur-edges.sh: N frames, X fps, backend cpu|cuda, output PATH|window|none
#
# Examples:
#   pipelines/blur-edges.sh --frames 100
#   pipelines/blur-edges.sh --filters gaussian,gaussian --display
#
# SPDX-License-Identifier: LGPL-2.1-or-later
set -euo pipefail

SCRIPT=blur-edges.sh
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=common.sh
. "$ROOT/pipelines/common.sh"

INPUT=""
FILTERS=blur
THRESHOLD=0
BACKEND=auto
FRAMES=0
OUTPUT=""
MODE="file"
PRINT=0
BUILD_DIR=""
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --filters) need_arg "$@"; FILTERS="$2"; shift ;;
    --threshold) need_arg "$@"; THRESHOLD="$2"; shift ;;
    --backend) need_arg "$@"; BACKEND="$2"; shift ;;
    -n|--frames) need_arg "$@"; FRAMES="$2"; shift ;;
    -o|--output) need_arg "$@"; OUTPUT="$2"; shift ;;
    --display) MODE=display ;;
    --headless) MODE=headless ;;
    --build-dir) need_arg "$@"; BUILD_DIR="$2"; shift ;;
    --print) PRINT=1 ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) [ -z "$INPUT" ] || die "only one INPUT, got '$INPUT' and '$1'"
       INPUT="$1" ;;
  esac
  shift
done

in_range "$THRESHOLD" 0 255 --threshold
check_backend "$BACKEND"
check_frames "$FRAMES"
[[ "$FILTERS" =~ ^[a-z-]+(,[a-z-]+)*$ ]] || die "--filters must be a comma-separated list of filter names, got '$FILTERS'"
[ "$MODE" = file ] || [ -z "$OUTPUT" ] || die "give only one of --output, --display and --headless"
if [ -z "$INPUT" ]; then
  [ -f "$VTEST" ] || die "default input $VTEST is missing (package opencv-doc); pass a video file or URI"
  INPUT="$VTEST"
fi
URI="$(input_uri "$INPUT")"

case "$MODE" in
  file)
    [ -n "$OUTPUT" ] || OUTPUT="$ROOT/out/blur-edges.avi"
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
  uridecodebin "uri=$URI" ! videoconvert name=in ! "video/x-raw,format=BGRx"
  ! cudaconvolve name=blur "filters=$FILTERS" "backend=$BACKEND"
  ! cudasobel name=sobel "threshold=$THRESHOLD" "backend=$BACKEND"
  ! "${SINK[@]}"
)
say "$(show gst-launch-1.0 -e "${PIPELINE[@]}")"
[ "$PRINT" = 0 ] || exit 0
[ "$MODE" != display ] || need_display "use --headless or --output"
use_build "$BUILD_DIR"
run_pipeline --element sobel --frames "$FRAMES" --limit-at in --output "$SHOWN" \
  -- "${PIPELINE[@]}"
