#!/usr/bin/env bash
# gst-cuda-vision: live Sobel edges of a V4L2 camera in a window.
#
# Usage: pipelines/camera.sh [options]
#
#   -d, --device DEV      V4L2 device (default /dev/video0)
#   --threshold T         cudasobel threshold, 0..255 (default 0)
#   --brightness B        cudasobel brightness offset, -255..255 (default 0)
#   --backend B           auto (default), cuda or cpu
#   --size WxH            ask the camera for this frame size (default: its own)
#   --fps N               ask the camera for N frames per second
#   --mjpeg               the camera sends Motion-JPEG (decode it with jpegdec)
#   --build-dir DIR       take the plugin from DIR/plugin (default: build/ of
#                         the repository when it holds one; else installed)
#   --test                no camera, no window: videotestsrc is-live=true
#                         (640x480 at 30 fps unless --size/--fps) into a
#                         fakesink; prints the frames that reached the sink
#   --num-buffers N       with --test: stop after N frames (default 60)
#   --print               only print the gst-launch-1.0 command
#   -h, --help            this text
#
# The pipeline (gst-launch-1.0 -e, Ctrl-C stops it cleanly):
#   v4l2src device=DEV [! image/jpeg ! jpegdec] ! videoconvert
#     ! cudasobel threshold=T brightness=B backend=B ! videoconvert
#     ! autovideosink
# videoconvert before cudasobel turns the camera's YUY2/UYVY... into a
# format cudasobel takes (I420, NV12, GRAY8, RGB family); the one after
# turns its GRAY8 edge map into what the video sink shows.
#
# SPDX-License-Identifier: LGPL-2.1-or-later
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

say() { printf 'camera: %s\n' "$*"; }
die() { printf 'camera: error: %s\n' "$*" >&2; exit 1; }
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

DEVICE=/dev/video0
THRESHOLD=0
BRIGHTNESS=0
BACKEND=auto
SIZE=""
FPS=""
MJPEG=0
TEST=0
NUM_BUFFERS=60
PRINT=0
BUILD_DIR=""
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    -d|--device) need_arg "$@"; DEVICE="$2"; shift ;;
    --threshold) need_arg "$@"; THRESHOLD="$2"; shift ;;
    --brightness) need_arg "$@"; BRIGHTNESS="$2"; shift ;;
    --backend) need_arg "$@"; BACKEND="$2"; shift ;;
    --size) need_arg "$@"; SIZE="$2"; shift ;;
    --fps) need_arg "$@"; FPS="$2"; shift ;;
    --mjpeg) MJPEG=1 ;;
    --build-dir) need_arg "$@"; BUILD_DIR="$2"; shift ;;
    --test) TEST=1 ;;
    --num-buffers) need_arg "$@"; NUM_BUFFERS="$2"; shift ;;
    --print) PRINT=1 ;;
    *) die "unknown argument $1 (see --help)" ;;
  esac
  shift
done

is_int "$THRESHOLD" --threshold
is_int "$BRIGHTNESS" --brightness
is_int "$NUM_BUFFERS" --num-buffers
[ "$THRESHOLD" -ge 0 ] && [ "$THRESHOLD" -le 255 ] || die "--threshold must be in 0..255"
[ "$BRIGHTNESS" -ge -255 ] && [ "$BRIGHTNESS" -le 255 ] || die "--brightness must be in -255..255"
[ "$NUM_BUFFERS" -gt 0 ] || die "--num-buffers must be > 0"
case "$BACKEND" in auto|cuda|cpu) ;; *) die "--backend must be auto, cuda or cpu" ;; esac
CAPS_FIELDS=""
if [ -n "$SIZE" ]; then
  [[ "$SIZE" =~ ^([0-9]+)x([0-9]+)$ ]] || die "--size must be WIDTHxHEIGHT, got '$SIZE'"
  CAPS_FIELDS+=",width=${BASH_REMATCH[1]},height=${BASH_REMATCH[2]}"
fi
if [ -n "$FPS" ]; then
  [[ "$FPS" =~ ^[0-9]+$ ]] && [ "$FPS" -gt 0 ] || die "--fps must be a positive integer"
  CAPS_FIELDS+=",framerate=$FPS/1"
fi

# Use the repository's build when there is one (installed plugin otherwise).
[ -n "$BUILD_DIR" ] || { [ -d "$ROOT/build/plugin" ] && BUILD_DIR="$ROOT/build"; } || true
if [ -n "$BUILD_DIR" ]; then
  [ -f "$BUILD_DIR/plugin/libgstcudavision.so" ] ||
    die "no plugin in $BUILD_DIR/plugin (build it: pipelines/demo.sh or ninja -C $BUILD_DIR)"
  export GST_PLUGIN_PATH="$BUILD_DIR/plugin${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
fi

SOBEL=(cudasobel name=sobel "threshold=$THRESHOLD" "brightness=$BRIGHTNESS" "backend=$BACKEND")
if [ "$TEST" = 1 ]; then
  [ -n "$SIZE" ] || CAPS_FIELDS="${CAPS_FIELDS},width=640,height=480"
  [ -n "$FPS" ] || CAPS_FIELDS="${CAPS_FIELDS},framerate=30/1"
  SRC=(videotestsrc is-live=true pattern=ball "num-buffers=$NUM_BUFFERS"
    ! "video/x-raw$CAPS_FIELDS")
  # silent=false + -v: one "last-message = chain" line per frame, counted below
  SINK=(fakesink name=sink sync=true silent=false)
else
  if [ "$PRINT" = 0 ]; then
    [ -e "$DEVICE" ] || die "no camera at $DEVICE (choose one with --device; try --test without a camera)"
    [ -r "$DEVICE" ] && [ -w "$DEVICE" ] ||
      die "no access to $DEVICE (are you in the 'video' group?)"
  fi
  if [ "$MJPEG" = 1 ]; then
    SRC=(v4l2src "device=$DEVICE" ! "image/jpeg$CAPS_FIELDS" ! jpegdec)
  elif [ -n "$CAPS_FIELDS" ]; then
    SRC=(v4l2src "device=$DEVICE" ! "video/x-raw$CAPS_FIELDS")
  else
    SRC=(v4l2src "device=$DEVICE")
  fi
  SINK=(autovideosink)
fi
PIPELINE=("${SRC[@]}" ! videoconvert ! "${SOBEL[@]}" ! videoconvert ! "${SINK[@]}")

say "$(show gst-launch-1.0 -e "${PIPELINE[@]}")"
[ "$PRINT" = 0 ] || exit 0
command -v gst-launch-1.0 >/dev/null 2>&1 || die "gst-launch-1.0 is missing (package gstreamer1.0-tools)"

if [ "$TEST" = 0 ]; then
  exec gst-launch-1.0 -e "${PIPELINE[@]}"
fi

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
gst-launch-1.0 -e -v "${PIPELINE[@]}" >"$log" 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
  grep -E 'ERROR|error|WARNING' "$log" >&2 || tail -n 20 "$log" >&2
  die "gst-launch-1.0 failed (exit status $status)"
fi
frames="$(grep -c 'sink: last-message = chain' "$log" || true)"
backend="$(sed -n 's/.*sobel: active-backend = //p' "$log" | tail -n 1)"
say "test: $frames of $NUM_BUFFERS frames reached the sink (backend ${backend:-unknown})"
[ "$frames" -eq "$NUM_BUFFERS" ] || die "expected $NUM_BUFFERS frames at the sink, got $frames"
