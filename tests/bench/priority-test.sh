#!/bin/sh
# cudavision-bench --priority on the CPU backend (CI):
#   priority-test.sh BENCH
# 'max' and a number are taken (stream 0's stream-priority is set, the
# others stay at 0, and --check still passes: every stream delivers the
# single-stream run's output); negative numbers, junk and a number that
# does not fit an int are refused with exit 2 and a message naming the
# option. The report has stream 0's latency beside the others'.
bench=${1:?bench}
common="--backend cpu --streams 3 -w 64 -h 48 -n 20 --no-floor --check -f RGBA -i pageable"
fail() { echo "FAIL: $*"; exit 1; }

for p in max 0 3; do
  # shellcheck disable=SC2086
  out=$("$bench" $common --priority $p 2>&1) || fail "--priority $p: exit $?: $out"
  echo "$out" | grep -q '^check: OK' || fail "--priority $p: no 'check: OK'"
  want=$p
  [ "$p" = max ] && want=2147483647
  echo "$out" | grep -q "^priority     stream 0: stream-priority $want, level -1" ||
    fail "--priority $p: no priority line for $want (CPU: level -1)"
  echo "$out" | grep -qE '^stream 0 latency p99 \(ms\) +[0-9.]+' ||
    fail "--priority $p: no stream 0 latency row"
  echo "$out" | grep -qE '^others latency p99 \(ms\) +[0-9.]+' ||
    fail "--priority $p: no others' latency row"
  echo "$out" | grep -qE '^by stream .* 2: [0-9.]+/[0-9.]+$' ||
    fail "--priority $p: no per-stream latencies"
  echo "$out" | grep -qE "^RESULT .* priority=$want priority_level=-1 lat0_p50_ms=[0-9.]+" ||
    fail "--priority $p: RESULT line without the priority fields"
done
for p in -1 abc 2147483648 ''; do
  # shellcheck disable=SC2086
  out=$("$bench" $common --priority "$p" 2>&1)
  rc=$?
  [ $rc -eq 2 ] || fail "--priority '$p': exit $rc, expected 2: $out"
  echo "$out" | grep -q -- '--priority' || fail "--priority '$p': no message"
done
echo "OK"
