#!/bin/sh
# cudavision-bench's aggregate and fairness figures on the CPU backend (CI):
#   aggregate-test.sh BENCH
# 3 streams for 1 s (each pushes as many frames as it can: their counts
# differ), behind the start gate (the default). From the RESULT line, what
# an honest aggregate is:
#   fps * window_s = frames_window (the frames over the wall-clock window,
#     not a sum of rates), frames_window = frames - streams (every counted
#     frame of every stream but its first);
#   fps <= stream_fps_sum (no more than the streams' own rates added up);
#   window_s <= the run's wall time; 0 < common_s <= window_s;
#   0 < common_fps_min <= common_fps_max, fairness = their ratio, in (0, 1];
#   measurement_bug=0;
#   the gate: gate_ms >= 0, 0 < start_med_ms <= start_max_ms, and the
#     common window (every stream ran) most of the window: common_s >=
#     window_s / 2.
# Then --stagger 300 (stream i starts 0.3 i s late, no gate): gate_ms = -1,
# and the common window begins once the last stream (0.6 s late) is past
# its warm-up, and ends when the first stream ends (all end at 1 s, give or
# take their last frame): 0 < common_s <= 0.5 (the streams that started
# later are not charged with the time before they started: that is their
# start-up's, not a share they were denied), fairness in (0, 1].
# --stagger with --live is refused (exit 2).
bench=${1:?bench}
fail() { echo "FAIL: $*"; exit 1; }
field() { echo "$1" | sed -n "s/^RESULT .* $2=\([^ ]*\).*/\1/p"; }

out=$("$bench" --backend cpu --streams 3 -w 160 -h 120 --seconds 1 \
  --warmup 10 --no-floor -i pageable 2>&1) || fail "exit $?: $out"
echo "$out"
echo "$out" | grep -q 'MEASUREMENT BUG' && fail "MEASUREMENT BUG reported"
wall=$(echo "$out" | sed -n 's/^run 1\/1: .*, \([0-9.]*\) s$/\1/p')
set -- fps window_s frames_window frames stream_fps_sum common_s \
  common_fps_min common_fps_max fairness measurement_bug start_med_ms \
  start_max_ms gate_ms
vals=""
for f; do
  v=$(field "$out" "$f")
  [ -n "$v" ] || fail "RESULT without $f"
  vals="$vals -v $f=$v"
done
echo "checking:$vals -v wall=$wall"
# shellcheck disable=SC2086
awk -v wall="$wall" -v streams=3 $vals 'BEGIN {
  bad = 0
  # the printed figures are rounded: fps to 0.1, window_s to 1 us
  if ((fps * window_s - frames_window) ^ 2 > (0.05 * window_s + 0.01) ^ 2) {
    print "fps * window_s = " fps * window_s " != frames_window " frames_window; bad = 1 }
  if (frames_window != frames - streams) {
    print "frames_window " frames_window " != frames " frames " - " streams; bad = 1 }
  if (fps > stream_fps_sum + 0.1) {
    print "fps " fps " > the sum of the streams rates " stream_fps_sum; bad = 1 }
  if (window_s > wall + 0.01 || window_s <= 0) {
    print "window_s " window_s " not in (0, wall " wall "]"; bad = 1 }
  if (common_s <= 0 || common_s > window_s) {
    print "common_s " common_s " not in (0, window_s]"; bad = 1 }
  if (common_fps_min <= 0 || common_fps_min > common_fps_max) {
    print "common fps " common_fps_min " / " common_fps_max; bad = 1 }
  r = common_fps_min / common_fps_max
  if (fairness <= 0 || fairness > 1 || (fairness - r) ^ 2 > 0.002 ^ 2) {
    print "fairness " fairness " != " r; bad = 1 }
  if (measurement_bug != 0) { print "measurement_bug " measurement_bug; bad = 1 }
  if (gate_ms < 0) { print "gate_ms " gate_ms ": no start gate"; bad = 1 }
  if (start_med_ms <= 0 || start_med_ms > start_max_ms) {
    print "start-up " start_med_ms " / " start_max_ms " ms"; bad = 1 }
  if (common_s < window_s / 2) {
    print "common_s " common_s " < window_s / 2 behind the gate"; bad = 1 }
  exit bad }' || fail "not an honest aggregate"

# --stagger: the common window where every stream ran
out=$("$bench" --backend cpu --streams 3 -w 160 -h 120 --seconds 1 \
  --warmup 10 --no-floor -i pageable --stagger 300 2>&1) || fail "exit $?: $out"
echo "$out"
echo "$out" | grep -q 'MEASUREMENT BUG' && fail "MEASUREMENT BUG reported"
vals=""
for f in window_s common_s fairness gate_ms start_max_ms; do
  v=$(field "$out" "$f")
  [ -n "$v" ] || fail "RESULT without $f"
  vals="$vals -v $f=$v"
done
echo "checking --stagger:$vals"
# shellcheck disable=SC2086
awk $vals 'BEGIN {
  bad = 0
  if (gate_ms != -1) { print "gate_ms " gate_ms " with --stagger"; bad = 1 }
  if (common_s <= 0 || common_s > 0.5 || common_s >= window_s) {
    print "common_s " common_s " not in (0, 0.5], below window_s " window_s
    bad = 1 }
  if (fairness <= 0 || fairness > 1) { print "fairness " fairness; bad = 1 }
  if (start_max_ms <= 0) { print "start_max_ms " start_max_ms; bad = 1 }
  exit bad }' || fail "the common window is not where every stream ran"

"$bench" --backend cpu --streams 2 --live 30 --stagger 10 --no-floor \
  >/dev/null 2>&1
rc=$?
[ $rc -eq 2 ] || fail "--stagger with --live: exit $rc, not 2"
echo "OK"
