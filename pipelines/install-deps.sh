#!/usr/bin/env bash
# Install (apt) what gst-cuda-vision needs to build, run its pipelines and
# run its tests on Debian 12 or 13 (GStreamer 1.22 or 1.26), when something
# is missing; then check that every GStreamer element the scripts and tests
# use exists. Used by pipelines/demo.sh and tests/run.sh. The CUDA toolkit
# is optional (not a Debian package here): without nvcc the plugin builds for
# the CPU only; with it, meson compiles the host side of the CUDA sources
# with g++, installed here.
#
# Usage: pipelines/install-deps.sh [--check]
#
# --check: install nothing; list the missing packages and elements, exit 1
# if any. A missing element fails with the Debian package that provides it.
# nvcodec's elements (cudaupload, cudadownload, nvh264dec) exist only where
# an NVIDIA driver is installed: they are checked there, reported elsewhere.
set -euo pipefail
check=0
case "${1:-}" in
  --check) check=1 ;;
  -h|--help) sed -n '2,/^set -e/p' "$0" | sed -n 's/^# \{0,1\}//p'; exit 0 ;;
  "") ;;
  *) echo "install-deps.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
esac

pkgs="meson ninja-build pkg-config gcc g++ libc6-dev libfftw3-dev
libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev
gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
gstreamer1.0-plugins-bad gstreamer1.0-plugins-ugly gstreamer1.0-libav gstreamer1.0-x
python3 python3-gi gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0
python3-gst-1.0
python3-numpy python3-opencv opencv-doc python3-matplotlib"

# element  package: every element a script in pipelines/ or tests/, a test
# or an example command of the docs uses
elements="
videotestsrc gstreamer1.0-plugins-base
videoconvert gstreamer1.0-plugins-base
videoscale gstreamer1.0-plugins-base
videorate gstreamer1.0-plugins-base
compositor gstreamer1.0-plugins-base
appsrc gstreamer1.0-plugins-base
appsink gstreamer1.0-plugins-base
decodebin gstreamer1.0-plugins-base
uridecodebin gstreamer1.0-plugins-base
parsebin gstreamer1.0-plugins-base
tee libgstreamer1.0-0
capsfilter libgstreamer1.0-0
queue libgstreamer1.0-0
identity libgstreamer1.0-0
filesrc libgstreamer1.0-0
filesink libgstreamer1.0-0
fakesink libgstreamer1.0-0
textoverlay gstreamer1.0-x
videocrop gstreamer1.0-plugins-good
videobalance gstreamer1.0-plugins-good
imagefreeze gstreamer1.0-plugins-good
jpegdec gstreamer1.0-plugins-good
jpegenc gstreamer1.0-plugins-good
pngdec gstreamer1.0-plugins-good
pngenc gstreamer1.0-plugins-good
avidemux gstreamer1.0-plugins-good
avimux gstreamer1.0-plugins-good
matroskamux gstreamer1.0-plugins-good
matroskademux gstreamer1.0-plugins-good
qtdemux gstreamer1.0-plugins-good
mp4mux gstreamer1.0-plugins-good
vp8enc gstreamer1.0-plugins-good
y4menc gstreamer1.0-plugins-good
v4l2src gstreamer1.0-plugins-good
autovideosink gstreamer1.0-plugins-good
h264parse gstreamer1.0-plugins-bad
rawvideoparse gstreamer1.0-plugins-bad
y4mdec gstreamer1.0-plugins-bad
x264enc gstreamer1.0-plugins-ugly
avdec_msmpeg4 gstreamer1.0-libav
avdec_h264 gstreamer1.0-libav
"
# with an NVIDIA driver only (gstreamer1.0-plugins-bad's nvcodec)
gpu_elements="cudaupload cudadownload nvh264dec"

missing=""
for p in $pkgs; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done

if [ -n "$missing" ]; then
  if [ $check = 1 ]; then
    echo "missing Debian packages (not installed):$missing"
  else
    echo "installing:$missing"
    sudo=""
    if [ "$(id -u)" != 0 ]; then
      sudo=sudo
    fi
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    # shellcheck disable=SC2086
    $sudo apt-get install -y -q --no-install-recommends $missing
    missing=""
  fi
else
  echo "all needed Debian packages are installed"
fi

# the elements, from a registry of their own (a stale user registry, or
# GST_PLUGIN_PATH pointing at a build, must not hide a missing plugin)
bad_elements=""
if command -v gst-inspect-1.0 >/dev/null 2>&1; then
  reg=$(mktemp -d)
  trap 'rm -rf "$reg"' EXIT
  export GST_REGISTRY="$reg/registry.bin"
  unset GST_PLUGIN_PATH GST_PLUGIN_PATH_1_0
  while read -r e p; do
    [ -n "$e" ] || continue
    if ! gst-inspect-1.0 --exists "$e" 2>/dev/null; then
      bad_elements="$bad_elements $e($p)"
    fi
  done <<< "$elements"
  gpu_missing=""
  for e in $gpu_elements; do
    gst-inspect-1.0 --exists "$e" 2>/dev/null || gpu_missing="$gpu_missing $e"
  done
  if [ -n "$gpu_missing" ]; then
    if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
      bad_elements="$bad_elements$(for e in $gpu_missing; do printf ' %s(gstreamer1.0-plugins-bad, nvcodec)' "$e"; done)"
    else
      echo "no NVIDIA driver here: nvcodec's$gpu_missing are absent (GPU-only scripts and tests skip)"
    fi
  fi
else
  bad_elements=" gst-inspect-1.0(gstreamer1.0-tools)"
fi

if [ -n "$bad_elements" ]; then
  echo "error: GStreamer elements missing (element(Debian package)):$bad_elements" >&2
  exit 1
fi
echo "all needed GStreamer elements are present"
[ -z "$missing" ] || exit 1
exit 0
