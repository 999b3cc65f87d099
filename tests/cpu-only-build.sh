#!/usr/bin/env bash
# The CPU-only configuration (meson -Dcuda=disabled: no nvcc, no CUDA
# runtime) must keep building and working: configure it in a folder of the
# build tree, build it, and run two of its suites (the base class and
# cudasobel on the CPU backend). A meson test of the cpu suite.
#   tests/cpu-only-build.sh SOURCE_DIR BUILD_SUBDIR
set -euo pipefail
src=${1:?source dir}
dir=${2:?build dir}
if [ ! -f "$dir/build.ninja" ]; then
  meson setup "$dir" "$src" -Dcuda=disabled
else
  meson configure "$dir" -Dcuda=disabled
fi
grep -q "HAVE_CUDA" "$dir/config.h" && { echo "HAVE_CUDA set in a -Dcuda=disabled build"; exit 1; }
ninja -C "$dir"
meson test -C "$dir" --print-errorlogs --num-processes 1 base-cpu sobel-cpu
