#!/usr/bin/env bash
# Prepare .media/ for the GPU machine (which has no libav and no network):
# sample images, a Motion-JPEG clip of vtest.avi (its DivX 3 needs libav)
# and a 1080p H.264 clip for the NVDEC tests and timings. Run here, in the
# project root; needs opencv-doc and gstreamer1.0-plugins-ugly (x264enc).
# The folder is git-ignored (.git/info/exclude) and carried with the device
# tool's `carry`.
set -euo pipefail
data=/usr/share/doc/opencv-doc/examples/data
out=${1:-.media}
mkdir -p "$out"
cp "$data"/fruits.jpg "$data"/baboon.jpg "$data"/building.jpg "$out"/
gst-launch-1.0 -q filesrc location="$data/vtest.avi" ! decodebin ! videoconvert ! \
  video/x-raw,format=I420 ! identity eos-after=60 ! jpegenc quality=75 ! avimux ! \
  filesink location="$out/vtest.avi"
gst-launch-1.0 -q filesrc location="$data/vtest.avi" ! decodebin ! videoconvert ! videoscale ! \
  video/x-raw,width=1920,height=1080,format=I420 ! videorate ! video/x-raw,framerate=30/1 ! \
  identity eos-after=600 ! x264enc speed-preset=ultrafast bitrate=2500 key-int-max=60 ! \
  video/x-h264,profile=constrained-baseline ! h264parse ! mp4mux ! \
  filesink location="$out/sample-h264.mp4"
du -sh "$out"
