#!/usr/bin/env bash
# The CPU-only configuration (meson -Dcuda=disabled: no nvcc, no CUDA
# runtime) built with AddressSanitizer and UndefinedBehaviorSanitizer
# (-Db_sanitize=address,undefined), and every cpu suite run in it: any
# out-of-bounds access, use after free, leak or undefined behaviour fails.
# A meson test of the cpu suite (cpu-only-sanitized); also by hand:
#   tests/cpu-only-sanitized.sh SOURCE_DIR BUILD_SUBDIR [meson test names]
# Leaks: allocations made while shared libraries load (_dl_init, GLib's own;
# the loader's frames where they have no symbols) are suppressed
# (tests/lsan.supp); nothing else is. Tests that load the plugin into a
# program not built here (gst-launch-1.0, gst-inspect-1.0, python3: an
# uninstrumented program cannot load the instrumented plugin; ASan aborts
# with "ASan runtime does not come first") are in the suites "pipelines" or
# "uninstrumented" and are left out, as is the sweep (sweep-cpu and
# sweep-wrap-cpu: the plain build's).
set -euo pipefail
src=$(cd "${1:?source dir}" && pwd)
dir=${2:?build dir}
shift 2
opts=(-Dcuda=disabled -Db_sanitize=address,undefined -Db_lundef=false
  -Dbuildtype=debugoptimized)
if [ ! -f "$dir/build.ninja" ]; then
  meson setup "$dir" "$src" "${opts[@]}"
else
  meson configure "$dir" "${opts[@]}"
fi
grep -q "HAVE_CUDA" "$dir/config.h" && { echo "HAVE_CUDA set in a -Dcuda=disabled build"; exit 1; }
ninja -C "$dir"

# the plugin registry is scanned in this process (no uninstrumented
# gst-plugin-scanner), once, before leaks are counted: loading the system's
# plugins leaves allocations that are theirs
export GST_REGISTRY_FORK=no
export CK_FORK=no
ASAN_OPTIONS=detect_leaks=0 CK_RUN_CASE=none GST_PLUGIN_PATH="$dir/plugin" \
  GST_REGISTRY="$dir/tests/registry.bin" CUDAVISION_TEST_BACKEND=cpu \
  "$dir/tests/test_base" >/dev/null 2>&1 || true
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:fast_unwind_on_malloc=0:detect_stack_use_after_return=1
export LSAN_OPTIONS=suppressions=$src/tests/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
if [ $# -gt 0 ]; then
  tests=("$@")
else
  mapfile -t tests < <(meson test -C "$dir" --list --suite cpu --no-suite pipelines \
    --no-suite uninstrumented 2>/dev/null |
    sed -n 's/^gst-cuda-vision:[^/]* \/ //p' | grep -v -e '^sweep-cpu$' -e '^sweep-wrap-cpu$')
fi
echo "under ASan/UBSan: ${tests[*]}"
meson test -C "$dir" --no-rebuild --print-errorlogs --num-processes 2 "${tests[@]}"
