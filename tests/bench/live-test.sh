#!/bin/sh
# cudavision-bench --live on the CPU backend (CI):
#   live-test.sh BENCH
# One stream of 320x240 GRAY8 at 60 frames/s, 60 frames, --check: the live
# lines are printed, every frame that went into the element came out of
# it (60 in, 60 out), and the median latency the element adds is a
# positive number below 200 ms (a CPU Sobel of 320x240 takes well under
# 10 ms; a frame stuck in the element until the next one arrives would
# still pass, one held until EOS would not). Then 3 streams of NV12 at
# 30 frames/s, each paced on its own: 90 in, 90 out. A --live that is not
# a positive rate is refused with exit 2.
bench=${1:?bench}
fail() { echo "FAIL: $*"; exit 1; }
field() { echo "$1" | sed -n "s/^RESULT .* $2=\([^ ]*\).*/\1/p"; }

out=$("$bench" --element cudasobel --backend cpu --width 320 --height 240 \
  --live 60 --frames 60 --check 2>&1) || fail "--live 60: exit $?: $out"
echo "$out"
echo "$out" | grep -q '^check: OK' || fail "no 'check: OK'"
echo "$out" | grep -qE '^live +60 frames/s per stream' || fail "no 'live' line"
echo "$out" | grep -qE '^live frames  in 60, out 60 .*: equal$' ||
  fail "no 'live frames in 60, out 60 ... equal' line"
echo "$out" | grep -qE '^live latency p50 [0-9.]+ ms .*, p99 [0-9.]+ ms .*, max [0-9.]+ ms' ||
  fail "no 'live latency' line"
echo "$out" | grep -q 'MEASUREMENT BUG' && fail "MEASUREMENT BUG reported"
[ "$(field "$out" live_in)" = 60 ] && [ "$(field "$out" live_out)" = 60 ] ||
  fail "RESULT: live_in / live_out not 60 / 60"
p50=$(field "$out" live_lat_p50_ms)
p99=$(field "$out" live_lat_p99_ms)
max=$(field "$out" live_lat_max_ms)
[ -n "$p50" ] && [ -n "$p99" ] && [ -n "$max" ] || fail "RESULT without live latencies"
awk -v a="$p50" -v b="$p99" -v c="$max" \
  'BEGIN { exit !(a > 0 && a < 200 && a <= b && b <= c) }' ||
  fail "live latency p50 $p50 ms, p99 $p99, max $max: not 0 < p50 < 200 and p50 <= p99 <= max"

out=$("$bench" --element cudaconvolve --props filters=blur --format NV12 \
  --backend cpu --width 97 --height 61 --streams 3 --live 30 --frames 30 \
  --check 2>&1) || fail "--streams 3 --live 30: exit $?: $out"
echo "$out" | grep -E '^(live|check|RESULT)'
echo "$out" | grep -q '^check: OK' || fail "3 streams: no 'check: OK'"
echo "$out" | grep -qE '^live frames  in 90, out 90 .*: equal$' ||
  fail "3 streams: no 'live frames in 90, out 90 ... equal' line"
echo "$out" | grep -q 'MEASUREMENT BUG' && fail "3 streams: MEASUREMENT BUG reported"

for v in 0 -5 abc; do
  out=$("$bench" --backend cpu --live "$v" --frames 5 2>&1)
  rc=$?
  [ $rc -eq 2 ] || fail "--live '$v': exit $rc, expected 2: $out"
  echo "$out" | grep -q -- '--live' || fail "--live '$v': no message"
done
echo "OK"
