#!/usr/bin/env bash
# tests/bench/plots.py on JSON of the CPU backend (suite cpu): the bench
# run at 1, 2 and 4 streams (depth 2, given) appends 3 cases; the table
# must list them with their stream counts and the scaling figure must be
# written (exit 77, skipped, without matplotlib).
#   plots-test.sh BENCH_BINARY WORK_DIR
set -euo pipefail
bench=$1
work=$2
here=$(cd "$(dirname "$0")" && pwd)
/usr/bin/python3 -c 'import matplotlib' 2>/dev/null || {
  echo "SKIP: no python3-matplotlib"; exit 77; }
rm -rf "$work"
mkdir -p "$work"
for n in 1 2 4; do
  "$bench" --backend cpu -f GRAY8 -w 64 -h 48 -n 30 --warmup 5 -i pageable -d 2 \
    --no-floor --streams $n --repeat 2 --label plots-test \
    --json "$work/cases.json" > "$work/bench-$n.log"
done
[ "$(wc -l < "$work/cases.json")" -eq 3 ] || {
  echo "FAIL: expected 3 JSON lines"; cat "$work/cases.json"; exit 1; }
/usr/bin/python3 "$here/plots.py" "$work/cases.json" --out "$work/img" \
  > "$work/table.txt" 2> "$work/plots.err" || {
  cat "$work/table.txt" "$work/plots.err"; exit 1; }
cat "$work/table.txt"
# one row per case, with its stream count in the streams column
for n in 1 2 4; do
  grep -qE "^plots-test: cudasobel GRAY8 64x48 +pageable +2 +$n +0 " \
    "$work/table.txt" || { echo "FAIL: no table row for $n streams"; exit 1; }
done
for f in streams-scaling.svg streams-scaling.png; do
  [ -s "$work/img/$f" ] || { echo "FAIL: $f not written"; exit 1; }
done
grep -q '<svg' "$work/img/streams-scaling.svg" || { echo "FAIL: not an SVG"; exit 1; }
echo "plots-test: OK"
