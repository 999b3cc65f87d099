#!/usr/bin/env bash
# GPU-resident pipeline: frames decoded by NVDEC stay in CUDA memory through
# two of our elements and leave the GPU once, at cudadownload.
#
# Usage: pipelines/gpu-decode.sh [--build-dir DIR] [--output FILE.avi] INPUT
#   INPUT   an H.264 file in MP4/Matroska (parsebin finds the stream)
#   --output  write the edges as Motion-JPEG AVI (default: count frames only)
#
#   filesrc ! parsebin ! nvh264dec ! cudaconvolve filters=blur !
#     cudasobel ! video/x-raw(memory:CUDAMemory) ! cudadownload ! ...
#
# Prints the frames that left cudasobel and the planes it copied between
# host and GPU (host-transfers: 0 means the frames never left the GPU
# between the decoder and cudadownload). Needs an NVIDIA GPU with NVDEC and
# gst-plugins-bad's nvcodec plugin.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build"
output=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build=$2; shift ;;
    --output|-o) output=$2; shift ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
  shift
done
input=${1:?"an H.264 input file is needed (see --help)"}
[ -f "$input" ] || { echo "gpu-decode: $input not found" >&2; exit 1; }
export GST_PLUGIN_PATH="$build/plugin${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
gst-inspect-1.0 nvh264dec >/dev/null 2>&1 ||
  { echo "gpu-decode: nvh264dec is not available (no NVIDIA GPU/driver?)" >&2; exit 1; }
if [ -n "$output" ]; then
  sink="cudadownload ! videoconvert ! jpegenc ! avimux ! filesink location=$output"
else
  sink="cudadownload ! fakesink sync=false"
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# shellcheck disable=SC2086
gst-launch-1.0 -m filesrc location="$input" ! parsebin ! nvh264dec ! \
  cudaconvolve backend=cuda filters=blur ! \
  cudasobel backend=cuda post-stats=true ! "video/x-raw(memory:CUDAMemory)" ! \
  $sink > "$log" 2>&1 || { tail -20 "$log" >&2; exit 1; }
frames=$(grep -o 'frames=(uint)[0-9]*' "$log" | cut -d')' -f2 | awk '{s += $1} END {print s + 0}')
copies=$(grep -o 'host-transfers=(guint64)[0-9]*' "$log" | tail -1 | cut -d')' -f2)
echo "gpu-decode: $frames frames through cudasobel, host-transfers $copies"
