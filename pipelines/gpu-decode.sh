#!/usr/bin/env bash
# gst-cuda-vision: GPU-resident pipeline: frames decoded by NVDEC stay in
# CUDA memory through two of our elements and leave the GPU once, at
# cudadownload. Needs an NVIDIA GPU with NVDEC and gst-plugins-bad's nvcodec
# plugin (nvh264dec, cudadownload).
#
# Usage: pipelines/gpu-decode.sh [options] [INPUT]
#
#   INPUT                 an H.264 file in MP4 or Matroska (parsebin finds the
#                         stream); default out/vtest-h264.mp4 of the
#                         repository, made from opencv-doc's vtest.avi with
#                         x264enc (gstreamer1.0-plugins-ugly) when missing
#   -n, --frames N        stop after N frames (default: the whole input)
#   --backend B           cuda (default), auto or cpu: with cpu the frames are
#                         downloaded after the decoder (cudadownload) and both
#                         elements run on the CPU, for comparison
#   -o, --output PATH     write the edges as Motion-JPEG, .avi or .mkv
#                         (default: none, the frames are only counted)
#   --decoder NAME        H.264 decoder (default nvh264dec); a software one
#                         (avdec_h264) with --backend cpu runs the script
#                         without a GPU
#   --make-input          only make the default input
#   --build-dir DIR       take the plugin from DIR/plugin (default: build/ of
#                         the repository, unless GST_PLUGIN_PATH is set)
#   --print               only print the equivalent gst-launch-1.0 command
#   -h, --help            this text
#
# Pipeline (--backend cuda):
#   filesrc ! parsebin ! nvh264dec ! cudaconvolve filters=blur ! cudasobel
#     ! video/x-raw(memory:CUDAMemory) ! cudadownload ! fakesink
#     (or ! videoconvert ! jpegenc ! avimux ! filesink)
# Prints cudasobel's host-transfers (planes copied between host and GPU:
# 0 means the frames never left the GPU between the decoder and
# cudadownload), then the summary line
#   gpu-decode.sh: N frames, X fps, backend cuda|cpu, output PATH|none
# Frames are counted by pad probes on cudasobel (pipelines/cvpipe.py).
#
# Examples:
#   pipelines/gpu-decode.sh
#   pipelines/gpu-decode.sh --frames 100 --output out/gpu-edges.avi
#
# SPDX-License-Identifier: LGPL-2.1-or-later
set -euo pipefail

SCRIPT=gpu-decode.sh
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=common.sh
. "$ROOT/pipelines/common.sh"

INPUT=""
FRAMES=0
BACKEND=cuda
OUTPUT=""
DECODER=nvh264dec
MAKE_ONLY=0
PRINT=0
BUILD_DIR=""
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    -n|--frames) need_arg "$@"; FRAMES="$2"; shift ;;
    --backend) need_arg "$@"; BACKEND="$2"; shift ;;
    -o|--output) need_arg "$@"; OUTPUT="$2"; shift ;;
    --decoder) need_arg "$@"; DECODER="$2"; shift ;;
    --make-input) MAKE_ONLY=1 ;;
    --build-dir) need_arg "$@"; BUILD_DIR="$2"; shift ;;
    --print) PRINT=1 ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) [ -z "$INPUT" ] || die "only one INPUT, got '$INPUT' and '$1'"
       INPUT="$1" ;;
  esac
  shift
done
check_frames "$FRAMES"
check_backend "$BACKEND"
[[ "$DECODER" =~ ^[a-z0-9_]+$ ]] || die "--decoder must be an element name, got '$DECODER'"

DEFAULT_INPUT="$ROOT/out/vtest-h264.mp4"
# the default input: vtest.avi as H.264 (constrained baseline) in MP4
make_input() {
  [ -f "$VTEST" ] || die "$VTEST is missing (package opencv-doc); pass an H.264 file"
  gst-inspect-1.0 --exists x264enc ||
    die "x264enc is missing (package gstreamer1.0-plugins-ugly); pass an H.264 file"
  mkdir -p "$(dirname "$DEFAULT_INPUT")"
  say "making $DEFAULT_INPUT from $VTEST (x264enc)"
  gst-launch-1.0 -q filesrc "location=$VTEST" ! decodebin ! videoconvert \
    ! x264enc speed-preset=ultrafast ! "video/x-h264,profile=constrained-baseline" \
    ! h264parse ! mp4mux ! filesink "location=$DEFAULT_INPUT.part" ||
    die "making $DEFAULT_INPUT failed"
  mv "$DEFAULT_INPUT.part" "$DEFAULT_INPUT"
}
if [ "$MAKE_ONLY" = 1 ]; then
  make_input
  exit 0
fi
if [ "$PRINT" = 0 ]; then
  use_build "$BUILD_DIR"
  gst-inspect-1.0 --exists "$DECODER" ||
    die "$DECODER is not available (nvh264dec: no NVIDIA GPU, driver or nvcodec plugin here)"
fi
if [ -z "$INPUT" ]; then
  INPUT="$DEFAULT_INPUT"
  [ -f "$INPUT" ] || [ "$PRINT" = 1 ] || make_input
elif [ "$PRINT" = 0 ]; then
  [ -f "$INPUT" ] || die "input file not found: $INPUT"
fi

# cudadownload where the frames leave CUDA memory: after an NVDEC decoder
# for the CPU backend, after cudasobel otherwise
DEC=("$DECODER" name=dec)
if [ "$BACKEND" = cpu ] && [[ "$DECODER" == nv* ]]; then
  DEC+=(! cudadownload)
fi
EDGES=(cudaconvolve name=blur "backend=$BACKEND" filters=blur
  ! cudasobel name=sobel "backend=$BACKEND")
if [ "$BACKEND" != cpu ]; then
  EDGES+=(! "video/x-raw(memory:CUDAMemory)" ! cudadownload)
fi
if [ -n "$OUTPUT" ]; then
  case "$OUTPUT" in
    *.avi) MUX=avimux ;;
    *.mkv) MUX=matroskamux ;;
    *) die "--output must end in .avi or .mkv, got '$OUTPUT'" ;;
  esac
  [ "$PRINT" = 1 ] || mkdir -p "$(dirname "$OUTPUT")"
  SINK=(videoconvert ! jpegenc ! "$MUX" ! filesink "location=$OUTPUT")
else
  SINK=(fakesink sync=false)
fi
PIPELINE=(filesrc "location=$INPUT" ! parsebin ! "${DEC[@]}" ! "${EDGES[@]}" ! "${SINK[@]}")
say "$(show gst-launch-1.0 -e "${PIPELINE[@]}")"
[ "$PRINT" = 0 ] || exit 0
run_pipeline --element sobel --frames "$FRAMES" --limit-at dec \
  --property host-transfers --output "${OUTPUT:-none}" -- "${PIPELINE[@]}"
