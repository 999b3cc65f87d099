# gst-cuda-vision: shell functions shared by the scripts of pipelines/.
# Sourced (not run) by blur-edges.sh, camera.sh, gpu-decode.sh,
# meanshift-segment.sh and side-by-side.sh, after they set SCRIPT (their
# name, for messages) and ROOT (the repository).
#
# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash

PYTHON=/usr/bin/python3
# shellcheck disable=SC2034  # used by the scripts that source this file
VTEST=/usr/share/doc/opencv-doc/examples/data/vtest.avi
CVPIPE="$ROOT/pipelines/cvpipe.py"

say() { printf '%s: %s\n' "$SCRIPT" "$*"; }
die() { printf '%s: error: %s\n' "$SCRIPT" "$*" >&2; exit 1; }
# the script's header from "# Usage:" to the licence line
usage() { sed -n '/^# Usage:/,/^# SPDX/{/^# SPDX/d;s/^# \{0,1\}//;p}' "$0"; }
need_arg() { [ $# -ge 2 ] || die "$1 needs a value (see --help)"; }
is_int() { [[ "$1" =~ ^-?[0-9]+$ ]] || die "$2 must be an integer, got '$1'"; }
# in_range VALUE MIN MAX OPTION: an integer in MIN..MAX
in_range() {
  is_int "$1" "$4"
  if [ "$1" -lt "$2" ] || [ "$1" -gt "$3" ]; then die "$4 must be in $2..$3, got $1"; fi
}
check_backend() {
  case "$1" in auto|cuda|cpu) ;; *) die "--backend must be auto, cuda or cpu, got '$1'" ;; esac
}
check_frames() { in_range "$1" 0 2147483647 --frames; }
# print a command so that it can be pasted into a shell
show() {
  local w out=""
  for w in "$@"; do
    if [[ "$w" =~ ^[A-Za-z0-9_.,:/=+@%!-]+$ ]]; then out+="$w "; else out+="'$w' "; fi
  done
  printf '%s\n' "${out% }"
}

# use_build DIR: make the plugin findable. DIR (from --build-dir) puts
# DIR/plugin first on GST_PLUGIN_PATH; without it GST_PLUGIN_PATH is kept
# when set, else the repository's build/ is used when it holds the plugin,
# else the installed plugin.
use_build() {
  local dir="$1" plugin
  if [ -n "$dir" ]; then
    [ -f "$dir/plugin/libgstcudavision.so" ] ||
      die "no plugin in $dir/plugin (build it: meson setup $dir && ninja -C $dir, or run pipelines/demo.sh)"
    plugin="$(cd "$dir/plugin" && pwd)"
    export GST_PLUGIN_PATH="$plugin${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
  elif [ -z "${GST_PLUGIN_PATH:-}" ] && [ -f "$ROOT/build/plugin/libgstcudavision.so" ]; then
    export GST_PLUGIN_PATH="$ROOT/build/plugin"
  fi
}

# need_display: a window needs $DISPLAY or $WAYLAND_DISPLAY (without one,
# Debian 12's autovideosink tries DirectFB and crashes)
need_display() {
  [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] ||
    die "no display (\$DISPLAY and \$WAYLAND_DISPLAY are unset): $1"
}

# input_uri INPUT: a URI as is, a file path as file:// URI (the file must exist)
input_uri() {
  if [[ "$1" =~ ^[a-zA-Z][a-zA-Z0-9+.-]*:// ]]; then
    printf '%s\n' "$1"
  else
    [ -f "$1" ] || die "input file not found: $1"
    printf 'file://%s\n' "$(realpath "$1")"
  fi
}

# run_pipeline [cvpipe.py options] -- PIPELINE...: run it with the runner
# (exact frame counts, the summary line); dies with its status on failure
run_pipeline() {
  [ -x "$PYTHON" ] || die "$PYTHON is missing (package python3)"
  local status=0
  "$PYTHON" "$CVPIPE" --name "$SCRIPT" "$@" || status=$?
  [ "$status" = 0 ] || exit "$status"
}
