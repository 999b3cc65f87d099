#!/bin/sh
# Test of pipelines/meanshift-segment.sh (meson suite cpu): segments the
# first frames of the sample video headless into an AVI and checks that
# every frame posted its meanshift-segments message and that the file holds
# the frames. Usage: test-meanshift-segment.sh OUTDIR
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-.}/meanshift-segment-test.avi
log=${1:-.}/meanshift-segment-test.log
rm -f "$out" "$log"
NUM_BUFFERS=4 "$here/meanshift-segment.sh" "$out" backend=cpu kernel=flat \
  spatial-radius=4 >"$log" 2>&1 || { cat "$log"; exit 1; }
n=$(grep -c 'meanshift-segments, segments=(uint)[1-9]' "$log" || true)
if [ "$n" != 4 ]; then
  cat "$log"
  echo "expected 4 meanshift-segments messages with segments > 0, got $n" >&2
  exit 1
fi
frames=$(gst-launch-1.0 -v filesrc location="$out" ! avidemux ! jpegdec ! \
  fakesink silent=false 2>&1 | grep -c 'last-message = chain' || true)
if [ "$frames" != 4 ]; then
  echo "expected 4 frames in $out, found $frames" >&2
  exit 1
fi
echo "ok: 4 frames segmented into $out"
