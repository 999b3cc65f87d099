#!/usr/bin/env bash
# gst-cuda-vision: install what the build and the tests need (Debian 12 or
# 13), build, and run every test suite.
#
#   tests/run.sh [--no-install] [--build-dir DIR] [-- extra meson test args]
#
# Suites: "cpu" (every element on the CPU backend, the real-video checks,
# the pipelines and examples) and "gpu" (the same suites with backend=cuda,
# plus GPU == CPU comparisons). Without a usable GPU the gpu suite is
# reported as skipped, never as passed. The last line is
#   N passed, N failed, N skipped
# counting meson tests (one per suite and backend).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
build=build
install=1
while [ $# -gt 0 ]; do
  case "$1" in
    --no-install) install=0 ;;
    --build-dir) build=$2; shift ;;
    --) shift; break ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

if [ $install = 1 ]; then
  "$here/pipelines/install-deps.sh"
fi

# nvcc where the CUDA toolkit installs it, as pipelines/demo.sh finds it
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build"
fi
ninja -C "$build"

set +e
meson test -C "$build" --print-errorlogs --num-processes 1 "$@"
rc=$?
set -e
/usr/bin/python3 - "$build/meson-logs/testlog.json" <<'PY'
import json, sys
passed = failed = skipped = 0
with open(sys.argv[1]) as f:
    for line in f:
        r = json.loads(line).get("result")
        if r in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif r == "SKIP":
            skipped += 1
        else:
            failed += 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
PY
exit $rc
