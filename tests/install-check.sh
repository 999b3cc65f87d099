#!/usr/bin/env bash
# meson install puts the plugin where GStreamer looks for plugins (the
# pluginsdir of gstreamer-1.0.pc, unless -Dplugin-dir says otherwise), the
# plugin exports GStreamer's entry points only, and gst-inspect-1.0 finds
# its elements there without GST_PLUGIN_PATH. Installs into a temporary
# DESTDIR (a meson test of the cpu suite).
#   tests/install-check.sh BUILD_DIR
set -euo pipefail
build=${1:?build dir}
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
meson install -C "$build" --no-rebuild --destdir "$dest" >/dev/null
dir=$(meson introspect "$build" --buildoptions |
  /usr/bin/python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"] == "plugin-dir"][0])')
if [ -z "$dir" ]; then
  dir=$(pkg-config --variable=pluginsdir gstreamer-1.0)
fi
so="$dest$dir/libgstcudavision.so"
[ -f "$so" ] || { echo "FAIL: not installed as $dir/libgstcudavision.so"; find "$dest" -name '*.so'; exit 1; }
echo "installed: $dir/libgstcudavision.so"
syms=$(nm -D --defined-only "$so" | awk '{print $3}' | sort | tr '\n' ' ')
if [ "$syms" != "gst_plugin_cudavision_get_desc gst_plugin_cudavision_register " ]; then
  echo "FAIL: exported symbols: $syms"
  exit 1
fi
echo "exported: $syms"
# the installed directory as GStreamer's system plugin path, no
# GST_PLUGIN_PATH: as an installed system sees it
env -u GST_PLUGIN_PATH -u GST_PLUGIN_PATH_1_0 GST_PLUGIN_SYSTEM_PATH_1_0="$dest$dir" \
  GST_REGISTRY="$dest/registry.bin" gst-inspect-1.0 cudasobel > "$dest/inspect.txt" 2>&1 ||
  { echo "FAIL: gst-inspect-1.0 cudasobel"; cat "$dest/inspect.txt"; exit 1; }
grep -q "Filter/Effect/Video/Hardware" "$dest/inspect.txt"
echo "gst-inspect-1.0 cudasobel: found in $dir"
