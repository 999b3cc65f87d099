#!/bin/sh
# cudavision-bench --threads on the CPU backend (CI):
#   threads-test.sh BENCH
# One stream for 1 s: a "threads" line for the push thread (x1) and one
# for every other thread name, and a total whose CPU per frame is the
# process's (the cpu line, getrusage) within 30 % + 5 us: both are read
# over the same interval and divided by the same frames (one stream: no
# start gate). Then identity in the element's place (the harness alone):
# it runs (the element's own properties are not set on it), backend
# "none", no GLib critical or warning, and --threads still reports.
bench=${1:?bench}
fail() { echo "FAIL: $*"; exit 1; }

out=$("$bench" --backend cpu -w 160 -h 120 --seconds 1 --no-floor \
  -i pageable --threads 2>&1) || fail "exit $?: $out"
echo "$out"
echo "$out" | grep -qE '^threads +push \(bench\) +x1 ' || fail "no push thread line"
total=$(echo "$out" | sed -n 's/^threads  *all  *\([0-9.]*\) us CPU per frame.*/\1/p' | tail -1)
cpu=$(echo "$out" | sed -n 's/^cpu  *\([0-9.]*\) us process CPU.*/\1/p')
[ -n "$total" ] && [ -n "$cpu" ] || fail "no total ($total) or cpu line ($cpu)"
awk -v t="$total" -v c="$cpu" 'BEGIN { d = t - c; if (d < 0) d = -d;
  exit !(d <= 0.3 * c + 5) }' || fail "threads total $total us against process $cpu us"

out=$("$bench" --element identity -w 160 -h 120 --seconds 1 --no-floor \
  -i pageable --threads 2>&1) || fail "identity: exit $?: $out"
echo "$out"
echo "$out" | grep -qE 'CRITICAL|WARNING \*\*' && fail "identity: GLib message"
echo "$out" | grep -q '^RESULT .* backend=none ' || fail "identity: backend not none"
echo "$out" | grep -qE '^threads +all ' || fail "identity: no threads total"
echo "threads-test: OK"
