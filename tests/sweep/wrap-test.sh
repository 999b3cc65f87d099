#!/bin/sh
# sweep.py --wrap (meson test sweep-wrap-cpu): the case program runs under
# the command given, as it does under compute-sanitizer on the GPU machine
# (tests/device-run.sh sanitize), in both run modes, and the command's exit
# status is the case's.
#   wrap-test.sh PYTHON SWEEP_PY CASE_BIN WORK
# 1. a wrapper that logs and execs: 3 cases, all identical, every run of
#    them through the wrapper (one log line per process it started);
# 2. a wrapper that exits 86 without running anything (--no-serve): the
#    sweep fails, and no case is identical.
set -u
py=$1 sweep=$2 case_bin=$3 work=$4
rm -rf "$work"
mkdir -p "$work"
fail() { echo "wrap-test: $*"; exit 1; }
cat > "$work/log-and-run.sh" <<EOS
#!/bin/sh
echo "\$*" >> "$work/wrapped.log"
exec "\$@"
EOS
printf '#!/bin/sh\nexit 86\n' > "$work/exit86.sh"
chmod +x "$work/log-and-run.sh" "$work/exit86.sh"
common="--mode cpu --seed 1 --limit 3 --jobs 1 --filter sobel --case-bin $case_bin"

# shellcheck disable=SC2086
"$py" "$sweep" $common --work "$work/ok" --wrap "$work/log-and-run.sh" \
  > "$work/ok.log" 2>&1 || { tail -20 "$work/ok.log"; fail "the passing wrapper failed the sweep"; }
summary=$(grep -E '^seed 1:' "$work/ok.log") || fail "no summary: $(tail -5 "$work/ok.log")"
echo "wrapped: $summary"
echo "$summary" | grep -q ': 3 identical,' || fail "not 3 identical cases: $summary"
[ -s "$work/wrapped.log" ] || fail "no run went through the wrapper"
grep -q "$case_bin" "$work/wrapped.log" || fail "the wrapper did not run $case_bin"

# shellcheck disable=SC2086
"$py" "$sweep" $common --work "$work/bad" --no-serve --wrap "$work/exit86.sh" \
  > "$work/bad.log" 2>&1 && fail "a wrapper exiting 86 passed the sweep"
summary=$(grep -E '^seed 1:' "$work/bad.log") || fail "no summary: $(tail -5 "$work/bad.log")"
echo "exit 86: $summary"
echo "$summary" | grep -q ': 0 identical,' || fail "cases passed although no run ran: $summary"
echo "wrap-test: ok"
