#!/usr/bin/env bash
# Install (apt) what gst-cuda-vision needs to build, run its pipelines and
# run its tests on Debian 12, when something is missing. Used by
# pipelines/demo.sh and tests/run.sh. The CUDA toolkit is optional: without
# nvcc the plugin builds for the CPU only.
#   pipelines/install-deps.sh [--check]   (--check: only list what is missing)
set -euo pipefail
check=0
[ "${1:-}" = --check ] && check=1
pkgs="meson ninja-build pkg-config gcc libc6-dev libfftw3-dev
libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev
gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
gstreamer1.0-plugins-bad gstreamer1.0-libav
python3 python3-gi gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0 python3-gst-1.0
python3-numpy python3-opencv opencv-doc"
missing=""
for p in $pkgs; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done
if [ -z "$missing" ]; then
  echo "all needed Debian packages are installed"
  exit 0
fi
if [ $check = 1 ]; then
  echo "warning: missing Debian packages (not installed):$missing"
  exit 1
fi
echo "installing:$missing"
sudo=""
if [ "$(id -u)" != 0 ]; then
  sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# shellcheck disable=SC2086
$sudo apt-get install -y -q --no-install-recommends $missing
