#!/bin/sh
# Blur then edges on the real sample video (seed 001): cudaconvolve smooths
# the frames (3x3 box blur, per colour channel) and cudasobel computes the
# edge map of the result.
#
#   pipelines/blur-edges.sh                 -> out/blur-edges.avi (MPEG-4)
#   pipelines/blur-edges.sh autovideosink   -> any sink description
#
# Environment: GST_PLUGIN_PATH (default build/plugin of this checkout),
# INPUT (default opencv-doc's vtest.avi), FILTERS (default blur; e.g.
# FILTERS=gaussian,gaussian), BACKEND (auto|cuda|cpu, default auto).
#
# SPDX-License-Identifier: LGPL-2.1-or-later
set -eu
cd "$(dirname "$0")/.."
export GST_PLUGIN_PATH="${GST_PLUGIN_PATH:-$PWD/build/plugin}"
INPUT="${INPUT:-/usr/share/doc/opencv-doc/examples/data/vtest.avi}"
FILTERS="${FILTERS:-blur}"
BACKEND="${BACKEND:-auto}"

if [ ! -f "$INPUT" ]; then
  echo "input $INPUT not found (install opencv-doc or set INPUT)" >&2
  exit 1
fi
if [ $# -gt 0 ]; then
  SINK="$*"
else
  mkdir -p out
  SINK="videoconvert ! avenc_mpeg4 bitrate=4000000 ! avimux ! filesink location=out/blur-edges.avi"
  echo "writing out/blur-edges.avi"
fi

# shellcheck disable=SC2086  # SINK is a pipeline description
gst-launch-1.0 -e filesrc location="$INPUT" ! decodebin ! videoconvert ! \
  video/x-raw,format=BGRx ! \
  cudaconvolve filters="$FILTERS" backend="$BACKEND" ! \
  cudasobel backend="$BACKEND" ! $SINK
