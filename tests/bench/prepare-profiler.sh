#!/usr/bin/env bash
# Copy gperftools' sampling CPU profiler (libprofiler) and its libunwind
# into DIR (default .prof, ignored by git) for `tests/device-run.sh BUILD
# profile` on the GPU machine, which has no network: carry DIR there.
# Installs Debian's libgoogle-perftools4 and google-perftools (google-pprof,
# to read the profiles here) when missing. A developer's tool, not a
# dependency of the build or the tests.
set -euo pipefail
dir=${1:-.prof}
if ! dpkg -s libgoogle-perftools4 google-perftools >/dev/null 2>&1; then
  sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
    libgoogle-perftools4 google-perftools >/dev/null
fi
mkdir -p "$dir"
for lib in libprofiler.so.0 libunwind.so.8; do
  src=$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64/ && !f { print $NF; f = 1 }')
  [ -n "$src" ] || { echo "prepare-profiler.sh: $lib not found" >&2; exit 1; }
  cp -L "$src" "$dir/$lib"
done
echo "prepare-profiler.sh: $(ls "$dir" | tr '\n' ' ')in $dir"
