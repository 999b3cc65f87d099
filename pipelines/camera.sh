#!/usr/bin/env bash
# gst-cuda-vision: live edges (Sobel or Canny) of a V4L2 camera in a window.
#
# Usage: pipelines/camera.sh [options]
#
#   -d, --device DEV      V4L2 device (default /dev/video0)
#   --element E           sobel (default: cudasobel, the gradient magnitude)
#                         or canny (cudacanny, thin 0/255 edges)
#   --threshold T         cudasobel threshold, 0..255 (default 0)
#   --brightness B        cudasobel brightness offset, -255..255 (default 0)
#   --kernel-size K       the Sobel aperture of either element: 3 (default),
#                         5 or 7
#   --low-threshold L     cudacanny low-threshold, 0..1000000 (default 50)
#   --high-threshold H    cudacanny high-threshold, 0..1000000 (default 150)
#   --backend B           auto (default), cuda or cpu
#   --size WxH            ask the camera for this frame size (default: its own)
#   --fps N               ask the camera for N frames per second
#   --mjpeg               the camera sends Motion-JPEG (decode it with jpegdec)
#   -n, --frames N        stop after N frames (default: run until Ctrl-C or
#                         the window is closed; with --test: 60)
#   --build-dir DIR       take the plugin from DIR/plugin (default: build/ of
#                         the repository, unless GST_PLUGIN_PATH is set)
#   --test                no camera, no window: videotestsrc is-live=true
#                         (640x480 at 30 fps unless --size/--fps) into a
#                         fakesink, --frames frames
#   --num-buffers N       the same as --frames (older name)
#   --print               only print the equivalent gst-launch-1.0 command
#   -h, --help            this text
#
# The pipeline (Ctrl-C stops it cleanly: EOS, then the summary):
#   v4l2src device=DEV [! image/jpeg ! jpegdec] ! videoconvert
#     ! cudasobel threshold=T brightness=B backend=B ! videoconvert
#     ! autovideosink
# (--element canny: cudacanny name=canny low-threshold=L high-threshold=H
# instead of cudasobel)
# videoconvert before cudasobel turns the camera's YUY2/UYVY... into a
# format cudasobel takes (I420, NV12, GRAY8, RGB family); the one after
# turns its GRAY8 edge map into what the video sink shows. Frames are
# counted by pad probes on the edge element (pipelines/cvpipe.py); the last
# line is
#   camera.sh: N frames, X fps, backend cpu|cuda, output window|none
#
# Examples:
#   pipelines/camera.sh --device /dev/video0 --threshold 40
#   pipelines/camera.sh --test --frames 30 --size 320x240
#   pipelines/camera.sh --element canny --low-threshold 30 --high-threshold 90
#
# SPDX-License-Identifier: LGPL-2.1-or-later
set -euo pipefail

SCRIPT=camera.sh
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=common.sh
. "$ROOT/pipelines/common.sh"

DEVICE=/dev/video0
ELEMENT=sobel
KSIZE=3
LOW=50
HIGH=150
THRESHOLD=0
BRIGHTNESS=0
BACKEND=auto
SIZE=""
FPS=""
MJPEG=0
TEST=0
FRAMES=""
PRINT=0
BUILD_DIR=""
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    -d|--device) need_arg "$@"; DEVICE="$2"; shift ;;
    --element) need_arg "$@"; ELEMENT="$2"; shift ;;
    --kernel-size) need_arg "$@"; KSIZE="$2"; shift ;;
    --low-threshold) need_arg "$@"; LOW="$2"; shift ;;
    --high-threshold) need_arg "$@"; HIGH="$2"; shift ;;
    --threshold) need_arg "$@"; THRESHOLD="$2"; shift ;;
    --brightness) need_arg "$@"; BRIGHTNESS="$2"; shift ;;
    --backend) need_arg "$@"; BACKEND="$2"; shift ;;
    --size) need_arg "$@"; SIZE="$2"; shift ;;
    --fps) need_arg "$@"; FPS="$2"; shift ;;
    --mjpeg) MJPEG=1 ;;
    --build-dir) need_arg "$@"; BUILD_DIR="$2"; shift ;;
    --test) TEST=1 ;;
    -n|--frames|--num-buffers) need_arg "$@"; FRAMES="$2"; shift ;;
    --print) PRINT=1 ;;
    *) die "unknown argument $1 (see --help)" ;;
  esac
  shift
done

case "$ELEMENT" in
  sobel|canny) ;;
  *) die "--element must be sobel or canny, got '$ELEMENT'" ;;
esac
case "$KSIZE" in
  3|5|7) ;;
  *) die "--kernel-size must be 3, 5 or 7, got '$KSIZE'" ;;
esac
for t in "$LOW" "$HIGH"; do
  [[ "$t" =~ ^[0-9]+([.][0-9]+)?$ ]] && awk -v t="$t" 'BEGIN { exit !(t <= 1000000) }' ||
    die "--low-threshold / --high-threshold must be numbers in 0..1000000, got '$t'"
done
in_range "$THRESHOLD" 0 255 --threshold
in_range "$BRIGHTNESS" -255 255 --brightness
check_backend "$BACKEND"
if [ -z "$FRAMES" ]; then
  if [ "$TEST" = 1 ]; then FRAMES=60; else FRAMES=0; fi
fi
check_frames "$FRAMES"
CAPS_FIELDS=""
if [ -n "$SIZE" ]; then
  [[ "$SIZE" =~ ^([0-9]+)x([0-9]+)$ ]] || die "--size must be WIDTHxHEIGHT, got '$SIZE'"
  CAPS_FIELDS+=",width=${BASH_REMATCH[1]},height=${BASH_REMATCH[2]}"
fi
if [ -n "$FPS" ]; then
  in_range "$FPS" 1 1000 --fps
  CAPS_FIELDS+=",framerate=$FPS/1"
fi

if [ "$ELEMENT" = canny ]; then
  EDGES=(cudacanny name=canny "low-threshold=$LOW" "high-threshold=$HIGH" "kernel-size=$KSIZE" "backend=$BACKEND")
else
  EDGES=(cudasobel name=sobel "threshold=$THRESHOLD" "brightness=$BRIGHTNESS" "kernel-size=$KSIZE" "backend=$BACKEND")
fi
if [ "$TEST" = 1 ]; then
  [ -n "$SIZE" ] || CAPS_FIELDS="${CAPS_FIELDS},width=640,height=480"
  [ -n "$FPS" ] || CAPS_FIELDS="${CAPS_FIELDS},framerate=30/1"
  SRC=(videotestsrc is-live=true pattern=ball ! "video/x-raw$CAPS_FIELDS")
  SINK=(fakesink sync=true)
  SHOWN=none
else
  if [ "$PRINT" = 0 ]; then
    [ -e "$DEVICE" ] || die "no camera at $DEVICE (choose one with --device; try --test without a camera)"
    if [ ! -r "$DEVICE" ] || [ ! -w "$DEVICE" ]; then
      die "no access to $DEVICE (are you in the 'video' group?)"
    fi
  fi
  if [ "$MJPEG" = 1 ]; then
    SRC=(v4l2src "device=$DEVICE" ! "image/jpeg$CAPS_FIELDS" ! jpegdec)
  elif [ -n "$CAPS_FIELDS" ]; then
    SRC=(v4l2src "device=$DEVICE" ! "video/x-raw$CAPS_FIELDS")
  else
    SRC=(v4l2src "device=$DEVICE")
  fi
  SINK=(autovideosink)
  SHOWN=window
fi
PIPELINE=("${SRC[@]}" ! videoconvert name=in ! "${EDGES[@]}" ! videoconvert ! "${SINK[@]}")

say "$(show gst-launch-1.0 -e "${PIPELINE[@]}")"
[ "$PRINT" = 0 ] || exit 0
[ "$SHOWN" != window ] || need_display "try --test"
use_build "$BUILD_DIR"
if [ "$FRAMES" = 0 ]; then say "Ctrl-C stops it (EOS, then the summary)"; fi
run_pipeline --element "$ELEMENT" --frames "$FRAMES" --limit-at in --output "$SHOWN" \
  -- "${PIPELINE[@]}"
