#!/usr/bin/env bash
# gst-cuda-vision: test of pipelines/meanshift-segment.sh (meson test
# meanshift-pipeline, suite cpu).
#
# Usage: pipelines/test-meanshift-segment.sh [--build-dir DIR] [OUTDIR]
#
#   OUTDIR                where the AVI and the log go (default: .)
#   --build-dir DIR       the plugin of DIR/plugin (default: GST_PLUGIN_PATH
#                         when set, as meson test sets it, else build/ of the
#                         repository)
#   -h, --help            this text
#
# Segments the first 4 frames of vtest.avi on the CPU, headless, into an AVI,
# and checks that the script printed a segment count > 0 for each of the 4
# frames and a summary line of 4 frames with backend cpu, and that the file
# holds 4 frames. The last line is "ok: ..." (exit 0) or the reason (exit 1).
#
# SPDX-License-Identifier: LGPL-2.1-or-later
set -euo pipefail

SCRIPT=test-meanshift-segment.sh
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=common.sh
. "$ROOT/pipelines/common.sh"

OUTDIR=.
BUILD=()
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --build-dir) need_arg "$@"; BUILD=(--build-dir "$2"); shift ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) OUTDIR="$1" ;;
  esac
  shift
done
out="$OUTDIR/meanshift-segment-test.avi"
log="$OUTDIR/meanshift-segment-test.log"
rm -f "$out" "$log"
fail() { cat "$log"; die "$*"; }

"$ROOT/pipelines/meanshift-segment.sh" ${BUILD[@]+"${BUILD[@]}"} --frames 4 \
  --output "$out" --backend cpu --kernel flat --spatial-radius 4 >"$log" 2>&1 ||
  fail "meanshift-segment.sh failed"
n=$(grep -cE '^frame +[0-9]+ \( *[0-9.]+ s\): [1-9][0-9]* segments$' "$log" || true)
[ "$n" = 4 ] || fail "expected 4 frames with segments > 0, got $n"
tail -n 1 "$log" | grep -qE "^meanshift-segment.sh: 4 frames, [0-9.]+ fps, backend cpu, output $out\$" ||
  fail "the last line is not the summary of 4 frames on the CPU into $out"
frames=$(gst-launch-1.0 -v filesrc location="$out" ! avidemux ! jpegdec ! \
  fakesink silent=false 2>&1 | grep -c 'last-message = chain' || true)
[ "$frames" = 4 ] || fail "expected 4 frames in $out, found $frames"
echo "ok: 4 frames segmented into $out"
