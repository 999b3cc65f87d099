#!/usr/bin/env bash
# Run README's commands on Debian 13 (trixie: GStreamer 1.26, PyGObject
# 3.50, Python 3.13, gcc 14, meson 1.7) from a Debian 12 host (GStreamer
# 1.22), in a chroot made with debootstrap. .ci/run calls it after the
# Debian 12 run.
#
#   tests/debian13-chroot.sh [--fresh] [--chroot DIR] [-- COMMAND [ARG...]]
#
# COMMAND runs in a copy of this work tree (tracked and untracked,
# not ignored files: uncommitted edits included) at /src in the chroot; the
# default is README's test command, tests/run.sh --build-dir BUILD (BUILD a
# new folder, /var/tmp/gcv-build). README's first command:
#   tests/debian13-chroot.sh -- pipelines/demo.sh --build-dir /var/tmp/gcv-build
# The last line is COMMAND's (tests/run.sh: "N passed, N failed, N skipped"),
# the exit status COMMAND's.
#
# --chroot DIR  the chroot (default /var/cache/gst-cuda-vision/debian13, or
#               $GCV_DEBIAN13_CHROOT): made with debootstrap (installed on the
#               host with apt-get if missing) when absent or older than 30
#               days, kept between runs with the packages that
#               pipelines/install-deps.sh put there
# --fresh       make the chroot again even if it is there
#
# Runs as root (debootstrap, mount, chroot; through sudo otherwise). The
# chroot gets /proc, /sys and /dev, the host's resolv.conf and, when the host
# has a CUDA toolkit (nvcc on PATH or /usr/local/cuda/bin/nvcc), that toolkit
# bind-mounted read-only at the same path, with /usr/local/cuda pointing at it
# and its bin/ on PATH: the build there is a CUDA build (the script fails if
# it is not). Every mount is undone on exit, whatever the exit. A lock
# (flock, next to the chroot) keeps two runs from sharing the chroot at once.
# CUDA archs of the chroot's build: $GCV_CUDA_ARCHS (default 90; the
# compile is what is checked there, there is no GPU in a chroot anyway).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
chroot_dir=${GCV_DEBIAN13_CHROOT:-/var/cache/gst-cuda-vision/debian13}
mirror=${GCV_DEBIAN_MIRROR:-http://deb.debian.org/debian}
archs=${GCV_CUDA_ARCHS:-90}
max_age_days=30
fresh=0
say() { printf 'debian13-chroot.sh: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }
while [ $# -gt 0 ]; do
  case "$1" in
    --fresh) fresh=1 ;;
    --chroot) [ $# -ge 2 ] || die "--chroot needs a directory"
      chroot_dir=$2; shift ;;
    --) shift; break ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed -n 's/^# \{0,1\}//p'; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
  shift
done
build=/var/tmp/gcv-build
if [ $# -eq 0 ]; then
  set -- tests/run.sh --build-dir "$build"
fi

if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null 2>&1 || die "needs root (debootstrap, mount, chroot)"
  exec sudo --preserve-env=GCV_DEBIAN13_CHROOT,GCV_DEBIAN_MIRROR,GCV_CUDA_ARCHS,CI \
    "$0" $([ $fresh = 1 ] && echo --fresh) --chroot "$chroot_dir" -- "$@"
fi

mkdir -p "$(dirname "$chroot_dir")"
exec 9>"$chroot_dir.lock"
flock 9
# mounts a killed run left (the lock is ours: no run uses them), before
# anything is removed in the chroot
stale_mounts() {
  awk -v p="$chroot_dir/" 'index($2, p) == 1 { print $2 }' /proc/mounts | sort -r
}
for m in $(stale_mounts); do
  say "unmounting $m, left by an earlier run"
  umount -l "$m"
done
[ -z "$(stale_mounts)" ] || die "mounts left under $chroot_dir: $(stale_mounts)"

t0=$(date +%s)
stamp="$chroot_dir/etc/gcv-debootstrap-stamp"
if [ -f "$stamp" ] && [ $fresh = 0 ] &&
   [ -z "$(find "$stamp" -mtime +$max_age_days)" ]; then
  say "using the chroot $chroot_dir (made $(cat "$stamp"))"
else
  if ! command -v debootstrap >/dev/null 2>&1; then
    say "installing debootstrap"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      debootstrap >/dev/null
  fi
  say "debootstrap trixie into $chroot_dir"
  rm -rf "$chroot_dir.new" "$chroot_dir"
  debootstrap --variant=minbase trixie "$chroot_dir.new" "$mirror" \
    > "$chroot_dir.debootstrap.log" 2>&1 ||
    { tail -20 "$chroot_dir.debootstrap.log" >&2; die "debootstrap failed"; }
  date -u +%Y-%m-%dT%H:%M:%SZ > "$chroot_dir.new/etc/gcv-debootstrap-stamp"
  mv "$chroot_dir.new" "$chroot_dir"
fi
t1=$(date +%s)

# ---- mounts, undone on every exit -------------------------------------------
mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    umount -R "${mounted[$i]}" 2>/dev/null || umount -R -l "${mounted[$i]}" ||
      say "warning: could not unmount ${mounted[$i]}"
  done
  mounted=()
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mnt() {  # mnt TARGET MOUNT-ARGS...: mount, remembered for cleanup
  local target=$1
  shift
  mkdir -p "$target"
  mount "$@" "$target"
  mounted+=("$target")
}
mnt "$chroot_dir/proc" -t proc proc
mnt "$chroot_dir/sys" --rbind /sys
mount --make-rslave "$chroot_dir/sys"
mnt "$chroot_dir/dev" --rbind /dev
mount --make-rslave "$chroot_dir/dev"
cp -L /etc/resolv.conf "$chroot_dir/etc/resolv.conf"

cuda_path=""
nvcc=$(command -v nvcc || true)
[ -n "$nvcc" ] || [ ! -x /usr/local/cuda/bin/nvcc ] || nvcc=/usr/local/cuda/bin/nvcc
if [ -n "$nvcc" ]; then
  # the toolkit's root as nvcc itself reports it (TOP): nvcc on PATH may be a
  # wrapper script elsewhere (/usr/local/bin/nvcc exec'ing the real one), and
  # the folder above a wrapper is not a toolkit to mount over the chroot's
  toolkit=$(cd / && "$nvcc" --dryrun -c -x cu /dev/null -o /dev/null 2>&1 |
    sed -n 's/^#\$ TOP=//p' | head -1)
  [ -n "$toolkit" ] || toolkit=$(dirname "$(dirname "$nvcc")")
  toolkit=$(readlink -f "$toolkit")
  [ -x "$toolkit/bin/nvcc" ] && [ "$toolkit" != /usr/local ] && [ "$toolkit" != /usr ] ||
    die "$nvcc: no CUDA toolkit root found ($toolkit has no bin/nvcc, or is not a toolkit's own folder)"
  say "CUDA toolkit $toolkit (nvcc on PATH: $nvcc), read-only in the chroot"
  mnt "$chroot_dir$toolkit" --bind "$toolkit"
  mount -o remount,bind,ro "$chroot_dir$toolkit"
  if [ "$toolkit" != /usr/local/cuda ]; then
    rm -rf "$chroot_dir/usr/local/cuda"
    ln -s "$toolkit" "$chroot_dir/usr/local/cuda"
  fi
  cuda_path=/usr/local/cuda/bin:
fi

# ---- the work tree, copied ---------------------------------------------------
rm -rf "$chroot_dir/src" "$chroot_dir$build"
mkdir -p "$chroot_dir/src"
if git -C "$here" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git -C "$here" ls-files -z --cached --others --exclude-standard |
    tar -C "$here" --null -T - --ignore-failed-read -cf - 2>/dev/null |
    tar -xf - -C "$chroot_dir/src"
else
  tar -cf - -C "$here" --exclude=./build --exclude=./out . |
    tar -xf - -C "$chroot_dir/src"
fi

in_chroot() {
  chroot "$chroot_dir" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
    PATH="${cuda_path}/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
    CI="${CI:-}" TERM="${TERM:-dumb}" "$@"
}

# ---- packages, build, COMMAND -----------------------------------------------
say "pipelines/install-deps.sh in the chroot (log: $chroot_dir.install-deps.log)"
in_chroot /src/pipelines/install-deps.sh > "$chroot_dir.install-deps.log" 2>&1 ||
  { tail -40 "$chroot_dir.install-deps.log" >&2; die "install-deps.sh failed in the chroot"; }
grep -E '^(installing|all needed|no NVIDIA)' "$chroot_dir.install-deps.log" | cut -c1-200 >&2
t2=$(date +%s)
in_chroot sh -c '. /etc/os-release; printf "%s, " "$PRETTY_NAME";
  pkg-config --modversion gstreamer-1.0 | sed "s/^/GStreamer /"' >&2
if [ -n "$nvcc" ]; then
  # the CUDA build, with the archs given (tests/run.sh and demo.sh build an
  # already configured folder as it is)
  in_chroot meson setup "$build" /src -Dcuda=enabled -Dcuda-archs="$archs" \
    > "$chroot_dir/var/tmp/gcv-meson-setup.log" 2>&1 ||
    { tail -30 "$chroot_dir/var/tmp/gcv-meson-setup.log" >&2
      die "meson setup with -Dcuda=enabled failed in the chroot"; }
  in_chroot ninja -C "$build" >&2 || die "the CUDA build failed in the chroot"
fi
t3=$(date +%s)
say "timings: chroot $((t1 - t0)) s, packages $((t2 - t1)) s, CUDA build" \
  "$((t3 - t2)) s"
say "running $* in the chroot (/src)"
set +e
(cd / && in_chroot sh -c 'cd /src && exec "$@"' sh "$@")
rc=$?
set -e
exit $rc
