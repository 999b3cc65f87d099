#!/bin/sh
# Segment the sample video live with cudameanshift (mode=segment) and show
# it, or write it to a file, or run headless.
#
# Usage: pipelines/meanshift-segment.sh [SINK] [element properties...]
#   SINK: display   autovideosink (default when $DISPLAY/$WAYLAND_DISPLAY
#                   is set)
#         fakesink  headless, as fast as possible (default without a
#                   display); prints the segment counts and timing
#         FILE.avi  MJPEG in AVI, headless
#   element properties override the defaults, e.g.
#     pipelines/meanshift-segment.sh fakesink backend=cpu kernel=flat
#     pipelines/meanshift-segment.sh out.avi spatial-radius=10 color-radius=20
# Environment: VIDEO (default opencv-doc's vtest.avi), NUM_BUFFERS (frames
# to process, default all), GST_PLUGIN_PATH (default: build/plugin of this
# checkout when it exists).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${GST_PLUGIN_PATH:-}" ] && [ -d "$here/build/plugin" ]; then
  export GST_PLUGIN_PATH="$here/build/plugin"
fi
video=${VIDEO:-/usr/share/doc/opencv-doc/examples/data/vtest.avi}
if [ ! -f "$video" ]; then
  echo "missing $video (apt-get install opencv-doc, or set VIDEO)" >&2
  exit 1
fi
if [ $# -gt 0 ]; then
  sink=$1
  shift
elif [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  sink=display
else
  sink=fakesink
fi
if ! gst-inspect-1.0 cudameanshift >/dev/null 2>&1; then
  echo "cudameanshift not found: build first (meson setup build && ninja -C build)" >&2
  exit 1
fi
limit=""
if [ -n "${NUM_BUFFERS:-}" ]; then
  limit="identity eos-after=$NUM_BUFFERS !"
fi

case "$sink" in
  display)
    tail="videoconvert ! autovideosink sync=true" ;;
  fakesink)
    tail="fakesink sync=false" ;;
  *.avi)
    tail="videoconvert ! jpegenc ! avimux ! filesink location=$sink" ;;
  *)
    echo "unknown sink '$sink' (display, fakesink or FILE.avi)" >&2
    exit 2 ;;
esac

# -m prints the meanshift-segments and cudavision-stats element messages
# shellcheck disable=SC2086
exec gst-launch-1.0 -m -e filesrc location="$video" ! decodebin ! $limit \
  videoconvert ! video/x-raw,format=RGBx ! \
  cudameanshift mode=segment spatial-radius=8 color-radius=16 \
    min-segment-size=20 post-stats=true "$@" ! \
  $tail
