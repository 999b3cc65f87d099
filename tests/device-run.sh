#!/usr/bin/env bash
# Run on the GPU machine (see docs/benchmarks.md, "Running on the GPU
# machine"): the gpu suites and/or the benchmark matrix, from a build made
# elsewhere and carried along with the GStreamer runtime.
#   tests/device-run.sh BUILD_DIR tests|bench|all [bench-args-file]
# Logs go to $OUT when set (the device tool's output folder), else ./out.
set -uo pipefail
b=${1:?build dir}
what=${2:-all}
out=${OUT:-out}
mkdir -p "$out"
if [ -f .gst-runtime/env.sh ]; then
  # shellcheck disable=SC1091
  source .gst-runtime/env.sh
fi
export GST_PLUGIN_PATH=$PWD/$b/plugin
export CUDAVISION_MEDIA_DIR=${CUDAVISION_MEDIA_DIR:-$PWD/.media}
export GST_REGISTRY=/tmp/cudavision-registry.bin
if [ -d "$b/extra-lib" ]; then
  export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$PWD/$b/extra-lib
fi
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv 2>&1 | tee "$out/device.txt"
status=0
if [ "$what" = tests ] || [ "$what" = all ]; then
  for t in "$b"/tests/test_*; do
    [ -x "$t" ] && [ -f "$t" ] || continue
    n=$(basename "$t")
    CUDAVISION_TEST_BACKEND=cuda CK_FORK=no timeout 400 "$t" > "$out/$n.log" 2>&1
    rc=$?
    [ $rc -eq 0 ] || status=1
    printf '%-28s rc=%d  %s\n' "$n" "$rc" "$(grep -E '^[0-9]+%: Checks' "$out/$n.log" | tail -1)"
    grep -E ':[EF]:' "$out/$n.log" | head -5
  done
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
  list=${3:-tests/bench/matrix.txt}
  grep -vE '^\s*(#|$)' "$list" | while read -r args; do
    echo "== cudavision-bench $args" >> "$out/bench.log"
    # shellcheck disable=SC2086
    eval "$b/tests/cudavision-bench $args" >> "$out/bench.log" 2>&1
    grep RESULT "$out/bench.log" | tail -1
  done
  grep -E '^(device|bandwidth)' "$out/bench.log" | sort -u
fi
exit $status
