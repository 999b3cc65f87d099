#!/usr/bin/env bash
# gst-cuda-vision: panes side by side, as the seed's GUI showed them: the
# input, the input with cudasobel's brightness offset applied, and
# cudasobel's edge map; with --edges canny cudacanny's edge map instead,
# with --edges both a fourth pane with it.
#
# Usage: pipelines/side-by-side.sh [options] [INPUT]
#
#   INPUT                 video file path or URI (default: vtest.avi from the
#                         opencv-doc package; else use --camera or --test-src)
#   --camera DEV          live V4L2 camera instead of a file (e.g. /dev/video0)
#   --test-src            videotestsrc (pattern=ball) instead of a file
#   --edges E             sobel (default: three panes, cudasobel's edges),
#                         canny (three panes, cudacanny's edges in pane 3)
#                         or both (four panes: cudasobel's, then cudacanny's)
#   --low-threshold L     cudacanny low-threshold, 0..1000000 (default 50)
#   --high-threshold H    cudacanny high-threshold, 0..1000000 (default 150)
#   --threshold T         cudasobel threshold, 0..255 (default 0)
#   --brightness B        brightness offset, -255..255 (default 0), applied to
#                         pane 2 (videobalance) and inside cudasobel (pane 3)
#   --backend B           auto (default), cuda or cpu
#   --size WxH            size of each pane (default 480x360; the view is
#                         three panes wide, four with --edges both)
#   -n, --frames N        stop after N frames (default: a file plays to its
#                         end, a camera or --test-src until Ctrl-C)
#   -o, --output PATH     write the view to a file (Motion-JPEG in .mkv or
#                         .avi) instead of showing it in a window
#   --headless            no window and no file: fakesink (for tests)
#   --snapshot PNG        also write one frame of the view (the three panes
#                         as composited) as a PNG: the middle frame of what
#                         is processed (frame N/2, from 0 and rounded down,
#                         of --frames N or of the whole file), the first one
#                         for a camera or --test-src without --frames
#   --snapshot-frame K    take frame K (0 = first) for --snapshot instead
#   --no-labels           no pane titles (textoverlay)
#   --build-dir DIR       take the plugin from DIR/plugin (default: build/ of
#                         the repository, unless GST_PLUGIN_PATH is set)
#   --print               only print the equivalent gst-launch-1.0 command
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
#   [--edges both:
#   tee ! queue ! cudacanny low-threshold=L high-threshold=H ! videoconvert
#                                 ! [textoverlay] ! compositor.sink_3 (xpos 3W)]
#   compositor ! videoconvert ! autovideosink | encoder ! file | fakesink
# (--edges canny: cudacanny in pane 3 in place of cudasobel). cudacanny
# sees the input's luma (it has no brightness offset).
# Frames are counted by pad probes on cudasobel (on cudacanny with --edges
# canny), --frames cuts the input
# with a pad probe and --snapshot takes its frame at the compositor's output
# (pipelines/cvpipe.py). The last line is
#   side-by-side.sh: N frames, X fps, backend cpu|cuda, output PATH|window|none
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
# Examples:
#   pipelines/side-by-side.sh --brightness 40 --threshold 30
#   pipelines/side-by-side.sh --edges both --low-threshold 40 --high-threshold 120
#   pipelines/side-by-side.sh --frames 100 --output out/side-by-side.mkv \
#       --snapshot out/side-by-side.png
#
# SPDX-License-Identifier: LGPL-2.1-or-later
set -euo pipefail

SCRIPT=side-by-side.sh
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=common.sh
. "$ROOT/pipelines/common.sh"

INPUT=""
CAMERA=""
TESTSRC=0
THRESHOLD=0
BRIGHTNESS=0
EDGES=sobel
LOW=50
HIGH=150
BACKEND=auto
SIZE=480x360
FRAMES=0
OUTPUT=""
HEADLESS=0
LABELS=1
PRINT=0
BUILD_DIR=""
SNAPSHOT=()
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --camera) need_arg "$@"; CAMERA="$2"; shift ;;
    --test-src) TESTSRC=1 ;;
    --edges) need_arg "$@"; EDGES="$2"; shift ;;
    --low-threshold) need_arg "$@"; LOW="$2"; shift ;;
    --high-threshold) need_arg "$@"; HIGH="$2"; shift ;;
    --threshold) need_arg "$@"; THRESHOLD="$2"; shift ;;
    --brightness) need_arg "$@"; BRIGHTNESS="$2"; shift ;;
    --backend) need_arg "$@"; BACKEND="$2"; shift ;;
    --size) need_arg "$@"; SIZE="$2"; shift ;;
    -n|--frames) need_arg "$@"; FRAMES="$2"; shift ;;
    -o|--output) need_arg "$@"; OUTPUT="$2"; shift ;;
    --headless) HEADLESS=1 ;;
    --snapshot|--snapshot-frame) need_arg "$@"; SNAPSHOT+=("$1" "$2"); shift ;;
    --no-labels) LABELS=0 ;;
    --build-dir) need_arg "$@"; BUILD_DIR="$2"; shift ;;
    --print) PRINT=1 ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) [ -z "$INPUT" ] || die "only one INPUT, got '$INPUT' and '$1'"
       INPUT="$1" ;;
  esac
  shift
done

in_range "$THRESHOLD" 0 255 --threshold
in_range "$BRIGHTNESS" -255 255 --brightness
case "$EDGES" in
  sobel|canny|both) ;;
  *) die "--edges must be sobel, canny or both, got '$EDGES'" ;;
esac
for t in "$LOW" "$HIGH"; do
  [[ "$t" =~ ^[0-9]+([.][0-9]+)?$ ]] && awk -v t="$t" 'BEGIN { exit !(t <= 1000000) }' ||
    die "--low-threshold / --high-threshold must be numbers in 0..1000000, got '$t'"
done
check_frames "$FRAMES"
check_backend "$BACKEND"
[[ "$SIZE" =~ ^([0-9]+)x([0-9]+)$ ]] || die "--size must be WIDTHxHEIGHT, got '$SIZE'"
W="${BASH_REMATCH[1]}"
H="${BASH_REMATCH[2]}"
in_range "$W" 16 8192 "--size's width"
in_range "$H" 16 8192 "--size's height"
nsrc="$TESTSRC"
[ -z "$INPUT" ] || nsrc=$((nsrc + 1))
[ -z "$CAMERA" ] || nsrc=$((nsrc + 1))
[ "$nsrc" -le 1 ] || die "give only one of INPUT, --camera and --test-src"
[ -z "$OUTPUT" ] || [ "$HEADLESS" = 0 ] || die "give only one of --output and --headless"

# ---- source -----------------------------------------------------------------
if [ -n "$CAMERA" ]; then
  [ "$PRINT" = 1 ] || [ -e "$CAMERA" ] || die "no camera at $CAMERA"
  # decodebin passes raw frames through and decodes Motion-JPEG cameras
  SRC=(v4l2src "device=$CAMERA" ! decodebin)
elif [ "$TESTSRC" = 1 ]; then
  SRC=(videotestsrc pattern=ball)
else
  if [ -z "$INPUT" ]; then
    [ -f "$VTEST" ] || die "default input $VTEST is missing (package opencv-doc); pass a file, --camera or --test-src"
    INPUT="$VTEST"
  fi
  SRC=(uridecodebin "uri=$(input_uri "$INPUT")")
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
mapfile -t L3 < <(label "Canny $LOW / $HIGH")

if [ -n "$OUTPUT" ]; then
  case "$OUTPUT" in
    *.mkv) MUX=matroskamux ;;
    *.avi) MUX=avimux ;;
    *) die "--output must end in .mkv or .avi, got '$OUTPUT'" ;;
  esac
  [ "$PRINT" = 1 ] || mkdir -p "$(dirname "$OUTPUT")"
  SINK=(videoconvert ! jpegenc quality=90 ! "$MUX" ! filesink "location=$OUTPUT")
  SHOWN="$OUTPUT"
elif [ "$HEADLESS" = 1 ]; then
  SINK=(fakesink)
  SHOWN=none
else
  SINK=(videoconvert ! autovideosink)
  SHOWN=window
fi

SOBEL_PANE=(t. ! queue ! cudasobel name=sobel "threshold=$THRESHOLD" "brightness=$BRIGHTNESS"
  "backend=$BACKEND" ! videoconvert "${L2[@]}")
CANNY_PANE=(t. ! queue ! cudacanny name=canny "low-threshold=$LOW" "high-threshold=$HIGH"
  "backend=$BACKEND" ! videoconvert "${L3[@]}")
XPOS=(sink_0::xpos=0 "sink_1::xpos=$W" "sink_2::xpos=$((2 * W))")
case "$EDGES" in
  sobel) PANES=("${SOBEL_PANE[@]}" ! mix.sink_2); COUNTED=sobel ;;
  canny) PANES=("${CANNY_PANE[@]}" ! mix.sink_2); COUNTED=canny ;;
  both) PANES=("${SOBEL_PANE[@]}" ! mix.sink_2 "${CANNY_PANE[@]}" ! mix.sink_3)
        XPOS+=("sink_3::xpos=$((3 * W))"); COUNTED=sobel ;;
esac

PIPELINE=(
  "${SRC[@]}" ! videoconvert name=in ! videoscale
  ! "video/x-raw,format=I420,width=$W,height=$H,pixel-aspect-ratio=1/1"
  ! tee name=t
  compositor name=mix background=black "${XPOS[@]}"
    ! "${SINK[@]}"
  t. ! queue "${L0[@]}" ! mix.sink_0
  t. ! queue ! videobalance "brightness=$VB_BRIGHTNESS" "${L1[@]}" ! mix.sink_1
  "${PANES[@]}"
)

say "$(show gst-launch-1.0 -e "${PIPELINE[@]}")"
[ "$PRINT" = 0 ] || exit 0
[ "$SHOWN" != window ] || need_display "use --headless or --output"
use_build "$BUILD_DIR"
run_pipeline --element "$COUNTED" --frames "$FRAMES" --limit-at in --snapshot-at mix \
  ${SNAPSHOT[@]+"${SNAPSHOT[@]}"} --output "$SHOWN" -- "${PIPELINE[@]}"
