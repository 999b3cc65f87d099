#!/usr/bin/env bash
# Run on the GPU machine (see docs/benchmarks.md, "Running on the GPU
# machine"): the gpu suites and/or the benchmark matrix, from a build made
# elsewhere and carried along with the GStreamer runtime.
#   tests/device-run.sh BUILD_DIR tests|bench|real|decode|all [bench-args-file]
#   tests/device-run.sh BUILD_DIR upstream  (the reliability issue's crash
#                                            pipelines: videoscale into each
#                                            element on the GPU)
#   tests/device-run.sh BUILD_DIR sanitize  (compute-sanitizer: memcheck
#                                            with leak check over every GPU
#                                            program and sweep cases,
#                                            racecheck over every kernel)
#   tests/device-run.sh BUILD_DIR sweep     (not part of all; SWEEP_ARGS adds
#                                            options, e.g. "--seed 7")
#   tests/device-run.sh BUILD_DIR hostpath  (issue #15: the PCIe-floor and
#                                            CUDA-memory overhead cases by
#                                            wait-mode, --repeat 5; an nsys
#                                            profile with NVTX ranges when
#                                            nsys is there)
#   tests/device-run.sh BUILD_DIR profile   (issue #24: the host's CPU time
#                                            per frame by function,
#                                            gperftools' sampler; see the
#                                            mode's comment)
#   tests/device-run.sh BUILD_DIR streams   (issue #15: 1..64 streams in one
#                                            process, --repeat 5)
#   tests/device-run.sh BUILD_DIR priority  (issue #15: 16 streams, stream 0
#                                            at stream-priority 0 and at the
#                                            highest level, --repeat 5;
#                                            stream 0's latency against the
#                                            others')
#   tests/device-run.sh BUILD_DIR live      (issue #24: the latency each
#                                            element adds to a 30 fps live
#                                            source, then the throughput
#                                            cases, --repeat 5; with
#                                            AB_BASE=DIR also with the plugin
#                                            in DIR, the build before)
#   tests/device-run.sh BUILD_DIR multigpu  (issue #19: the two-GPU tests,
#                                            then 32 streams on GPU 0 and on
#                                            GPUs 0,1, --repeat 5)
#   tests/device-run.sh BUILD_DIR fairness  (issue #24: 32 and 64 streams,
#                                            gated, --cold-start and
#                                            --stagger: the share in steady
#                                            state and each stream's
#                                            start-up beside busy ones;
#                                            each stream's rate in the
#                                            common window)
# hostpath, streams, priority, multigpu and fairness write MODE.log, MODE.json (one JSON object
# per case, for tests/bench/plots.py) and MODE-table.txt under $OUT;
# REPEAT=N changes the 5.
# Logs go to $OUT when set (the device tool's output folder), else ./out.
set -uo pipefail
b=${1:?build dir}
what=${2:-all}
out=${OUT:-out}
mkdir -p "$out"
if [ -f .gst-runtime/env.sh ]; then
  # shellcheck disable=SC1091
  source .gst-runtime/env.sh
fi
export GST_PLUGIN_PATH=$PWD/$b/plugin
export CUDAVISION_MEDIA_DIR=${CUDAVISION_MEDIA_DIR:-$PWD/.media}
export GST_REGISTRY=/tmp/cudavision-registry.bin
if [ -d "$b/extra-lib" ]; then
  export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$PWD/$b/extra-lib
fi
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv 2>&1 | tee "$out/device.txt"
status=0
# the operator test programs (test_op, test_op_<algorithm>: the
# operators' C interface, no element), and the CUDA test functions of one
# (each runnable alone with GST_CHECKS)
op_programs() {
  for p in "$1"/tests/test_op "$1"/tests/test_op_*; do
    [ -x "$p" ] && [ -f "$p" ] && echo "$p"
  done
}
cuda_test_functions() {
  grep -aoE 'test_cuda_[a-z0-9_]+' "$1" | sort -u
}
# every test function an operator program's cuda suite adds: its
# test_cuda_* ones, and test_op's tables and status checks (added for
# both backends, tests/test_op.c)
op_gpu_functions() {
  cuda_test_functions "$1"
  [ "$(basename "$1")" = test_op ] && printf '%s\n' test_tables test_status
  true
}
# the gst-check test functions a test source adds (tcase_add_test,
# tcase_add_loop_test), each runnable alone with GST_CHECKS
test_functions() {
  grep -oE 'tcase_add_[a-z_]*test[[:space:]]*\([^,]+,[[:space:]]*[a-z0-9_]+' "$1" |
    sed -E 's/.*,[[:space:]]*//' | sort -u
}
if [ "$what" = tests ] || [ "$what" = all ]; then
  ops_done=
  for t in "$b"/tests/test_*; do
    [ -x "$t" ] && [ -f "$t" ] || continue
    n=$(basename "$t")
    case "$n" in
      test_op|test_op_*)
        # the operator programs together, when the first is met: their
        # predecessor (test_cvops) needed more than 220 s as one program on
        # an H200 (2026-11-27), so every CUDA test function of every one
        # runs in its own process, all at once (GST_CHECKS)
        [ -n "$ops_done" ] && continue
        ops_done=1
        for p in $(op_programs "$b"); do
          for f in $(op_gpu_functions "$p"); do
            CUDAVISION_TEST_BACKEND=cuda CK_FORK=no GST_CHECKS=$f \
              timeout ${TEST_TIMEOUT:-300} "$p" > "$out/$(basename "$p")-$f.log" 2>&1 &
          done
        done
        wait
        for p in $(op_programs "$b"); do
          for f in $(op_gpu_functions "$p"); do
            l="$out/$(basename "$p")-$f.log"
            grep -qE '^100%: Checks' "$l" || status=1
            printf '%-48s %s\n' "$(basename "$p") $f" "$(grep -E '^[0-9]+%: Checks' "$l" | tail -1)"
            grep -E ':[EF]:' "$l" | head -5
          done
        done
        continue
        ;;
    esac
    CUDAVISION_TEST_BACKEND=cuda CK_FORK=no timeout ${TEST_TIMEOUT:-300} "$t" > "$out/$n.log" 2>&1
    rc=$?
    [ $rc -eq 0 ] || status=1
    printf '%-28s rc=%d  %s\n' "$n" "$rc" "$(grep -E '^[0-9]+%: Checks' "$out/$n.log" | tail -1)"
    grep -E ':[EF]:' "$out/$n.log" | head -5
  done
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
  # inputs the matrix refers to: templates and random custom kernels
  for s in 3x3 64x64 200x150; do
    gst-launch-1.0 -q videotestsrc pattern=snow num-buffers=1 ! \
      "video/x-raw,format=GRAY8,width=${s%x*},height=${s#*x}" ! pngenc ! \
      filesink location=/tmp/tm$s.png
  done
  # a 64x64 template with transparency (random luma, alpha 0 outside an
  # ellipse) for the masked case (python3-opencv, as the -vs-opencv tests)
  python3 -c 'import cv2, numpy as np; r = np.random.default_rng(1); g = r.integers(0, 256, (64, 64), np.uint8); y, x = np.mgrid[0:64, 0:64]; a = np.where((x - 32) ** 2 + (y - 32) ** 2 <= 30 ** 2, 255, 0).astype(np.uint8); cv2.imwrite("/tmp/tm64x64a.png", np.dstack([g, g, g, a]))' 2>/dev/null || \
    gst-launch-1.0 -q videotestsrc pattern=snow num-buffers=1 ! \
      "video/x-raw,format=RGBA,width=64,height=64" ! alpha method=custom \
      target-r=128 target-g=128 target-b=128 angle=40 ! pngenc ! \
      filesink location=/tmp/tm64x64a.png
  K15=$(python3 -c 'import random; random.seed(1); print("<" + ",".join("%.5f" % random.uniform(-1, 1) for _ in range(225)) + ">")')
  K31=$(python3 -c 'import random; random.seed(2); print("<" + ",".join("%.5f" % random.uniform(-1, 1) for _ in range(961)) + ">")')
  export K15 K31
  list=${3:-tests/bench/matrix.txt}
  grep -vE '^\s*(#|$)' "$list" | while read -r args; do
    echo "== cudavision-bench $args" >> "$out/bench.log"
    # shellcheck disable=SC2086
    eval "$b/tests/cudavision-bench $args" >> "$out/bench.log" 2>&1
    grep RESULT "$out/bench.log" | tail -1
  done
  grep -E '^(device|bandwidth)' "$out/bench.log" | sort -u
fi
if [ "$what" = real ] || [ "$what" = all ]; then
  # real content (the sample video scaled to 1080p): kernel-ms from the
  # elements' own statistics
  for el in "cudameanshift mode=filter kernel=uniform" "cudameanshift mode=filter kernel=flat" \
      "cudameanshift mode=segment kernel=uniform" "cudameanshift mode=segment kernel=flat" \
      "cudanlmeans" "cudacanny" "cudacanny kernel-size=5 l2-gradient=true" ; do
    for fmt in RGB GRAY8; do
      case "$el" in cudameanshift*) [ $fmt = RGB ] || continue ;; esac
      gst-launch-1.0 -m filesrc location="$CUDAVISION_MEDIA_DIR/vtest.avi" ! avidemux ! jpegdec ! \
        videoconvert ! videoscale ! video/x-raw,format=$fmt,width=1920,height=1080 ! queue ! \
        $el backend=cuda post-stats=true ! fakesink sync=false > "$out/real.tmp" 2>&1
      k=$(grep -o 'kernel-ms=(double)[0-9.e+-]*' "$out/real.tmp" | tail -1 | cut -d')' -f2)
      echo "real 1080p $fmt: $el: kernel-ms $k" | tee -a "$out/real.log"
    done
  done
fi
if [ "$what" = decode ] || [ "$what" = all ]; then
  # NVDEC -> cudasobel -> cudadownload against NVDEC -> cudadownload alone
  f=${CUDAVISION_MEDIA_DIR}/sample-h264.mp4
  TIMEFORMAT=%R
  for i in 1 2 3; do
    for chain in "cudadownload" "cudasobel ! video/x-raw(memory:CUDAMemory) ! cudadownload" "cudadownload ! cudasobel backend=cpu"; do
      t=$( { time gst-launch-1.0 -q filesrc location="$f" ! qtdemux ! h264parse ! nvh264dec ! $chain ! fakesink sync=false >/dev/null 2>&1; } 2>&1 )
      echo "decode run $i: nvh264dec ! $chain: ${t}s" | tee -a "$out/decode.log"
    done
  done
fi
if [ "$what" = upstream ]; then
  # the reliability issue's pipeline: decoded real video through
  # videoconvert and videoscale into each element on the GPU, packed RGB
  # formats, sizes that crashed with the misaligned pinned pool
  n=0; bad=0
  for el in cudasobel cudaconvolve cudanlmeans "cudatemplatematch template=$PWD/.media/t16.png" cudameanshift cudacanny; do
    for fmt in RGBA BGRA RGBx; do
      for wh in 17x9 33x17 96x64 97x61 400x300 513x257 641x479 1283x719; do
        echo "$el|$fmt|${wh%x*}|${wh#*x}"
      done
    done
  done > /tmp/upstream-cases
  gst-launch-1.0 -q videotestsrc pattern=snow num-buffers=1 ! \
    video/x-raw,format=GRAY8,width=16,height=16 ! pngenc ! \
    filesink location="$PWD/.media/t16.png"
  while IFS='|' read -r el fmt w h; do
    n=$((n + 1))
    timeout 60 gst-launch-1.0 -q filesrc location="$CUDAVISION_MEDIA_DIR/vtest.avi" ! \
      decodebin ! videoconvert ! videoscale ! \
      video/x-raw,format=$fmt,width=$w,height=$h ! identity eos-after=20 ! \
      $el backend=cuda ! fakesink > /tmp/upstream.log 2>&1
    rc=$?
    if [ $rc -ne 0 ]; then
      bad=$((bad + 1))
      echo "upstream: $el $fmt ${w}x$h: exit $rc $(tail -1 /tmp/upstream.log)" | tee -a "$out/upstream.log"
    fi
  done < /tmp/upstream-cases
  echo "upstream: $n pipelines, $bad failed (crashed: exit >= 128)" | tee -a "$out/upstream.log"
  [ $bad -eq 0 ] || status=1
fi
if [ "$what" = sanitize ]; then
  # compute-sanitizer (issue #28), every part in parallel (SANITIZE_JOBS at
  # once, default 8), each log under $out and a summary line each:
  # - memcheck --leak-check full over every GPU test program (device
  #   out-of-bounds, misaligned and uninitialised accesses, device and
  #   pinned memory still held at exit), CVOPS_SMALL=1;
  # - racecheck (shared-memory hazards) over every kernel: each CUDA test
  #   function of each operator program (test_op, test_op_<algorithm>) on
  #   its own (GST_CHECKS), small sizes;
  # - the sweep's cases (real upstream elements, one process per case) under
  #   memcheck --leak-check full through sweep.py --wrap, SANITIZE_SWEEP
  #   cases (default 48). The registry is made first, outside the
  #   sanitizer, and not scanned again in a child (GST_REGISTRY_FORK=no):
  #   gst-plugin-scanner would otherwise be forked under it.
  # SANITIZE_TESTS (programs) / SANITIZE_RACECHECK (CUDA test functions,
  # in each operator program that has them) narrow the lists; TEST_TIMEOUT
  # (default 480 s) bounds each run. Any error, hazard or leak fails.
  cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  jobs=${SANITIZE_JOBS:-8}
  gst-inspect-1.0 cudasobel > /dev/null 2>&1
  export GST_REGISTRY_FORK=no
  sanitize_one() {  # sanitize_one LOG TOOL PROGRAM [ENV=VALUE...]
    local log=$1 tool=$2 prog=$3 rc extra=()
    shift 3
    local small=1
    [ "$tool" = memcheck ] && extra=(--leak-check full)
    [ "$tool" = racecheck ] && small=racecheck
    env "$@" CUDAVISION_TEST_BACKEND=cuda CK_FORK=no CVOPS_SMALL=$small \
      CUDAVISION_TEST_UNDER_SANITIZER=1 \
      timeout "${TEST_TIMEOUT:-480}" "$cs" --tool "$tool" "${extra[@]}" \
      --error-exitcode 86 "$prog" > "$out/$log.log" 2>&1
    rc=$?
    printf '%-60s rc=%-3d %s | %s\n' "$log" "$rc" \
      "$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/$log.log" | tail -1)" \
      "$(grep -E '^[0-9]+%: Checks' "$out/$log.log" | tail -1)" >> "$out/sanitize-summary.txt"
  }
  : > "$out/sanitize-summary.txt"
  # A program that never initializes CUDA exits 255 under compute-sanitizer
  # unless told that this is expected (--require-cuda-init no): the
  # sweep's cpu runs (backend=cpu) do not touch CUDA (issue #28: "memcheck
  # over the sweep exits 255 before its pipeline every time")
  cs_nocuda=""
  "$cs" true > /dev/null 2>&1
  nocuda_rc=$?
  if "$cs" --require-cuda-init no true > /dev/null 2>&1; then
    cs_nocuda="--require-cuda-init no"
  fi
  echo "compute-sanitizer on a program without CUDA: exit $nocuda_rc; with --require-cuda-init no: ${cs_nocuda:+exit 0}${cs_nocuda:-refused}" >> "$out/sanitize-summary.txt"
  # the sweep's cases under memcheck, beside the test programs (a quarter
  # of the jobs)
  sweep_jobs=$(( (jobs + 3) / 4 ))
  if [ -x "$b/tests/cv-sweep-case" ]; then
    (
      timeout "${TEST_TIMEOUT:-480}" python3 tests/sweep/sweep.py --mode gpu \
        --case-bin "$b/tests/cv-sweep-case" --jobs "$sweep_jobs" \
        --limit "${SANITIZE_SWEEP:-48}" --timeout 240 --no-serve \
        --work /tmp/cv-sweep-memcheck --keep --report "$out/sweep-memcheck-report.txt" \
        --wrap "$cs --tool memcheck --leak-check full --error-exitcode 86 $cs_nocuda" \
        > "$out/sweep-memcheck.log" 2>&1
      printf '%-60s rc=%-3d %s\n' sweep-memcheck "$?" \
        "$(grep -E '^seed [0-9]+:' "$out/sweep-memcheck.log" | tail -1)" >> "$out/sanitize-summary.txt"
    ) &
    sweep_pid=$!
    jobs=$(( jobs - sweep_jobs > 0 ? jobs - sweep_jobs : 1 ))
  fi
  # every test function of every GPU program in its own process
  # (GST_CHECKS), so that one slow test bounds only itself and every test
  # gets its own counts; racecheck over each CUDA function of the operator programs (test_op, test_op_<algorithm>)
  runs=()
  # each function's cases split over SANITIZE_SHARDS processes
  # (CVOPS_SHARD=I/N; default 4): racecheck did not finish convolve's and
  # template matching's small cases in 400 s in one process (H200)
  shards=${SANITIZE_SHARDS:-4}
  for p in $(op_programs "$b"); do
    np=$(basename "$p")
    for f in ${SANITIZE_RACECHECK:-$(cuda_test_functions "$p")}; do
      cuda_test_functions "$p" | grep -qx "$f" || continue
      # the functions without comparison cases (OP_CASE) run whole, once
      case " ${SANITIZE_UNSHARDED:-test_cuda_checks test_cuda_in_flight test_cuda_temporal test_cuda_sobel_kernels} " in
        *" $f "*)
          runs+=("racecheck-$np-$f racecheck $p GST_CHECKS=$f")
          continue ;;
      esac
      for i in $(seq 0 $((shards - 1))); do
        runs+=("racecheck-$np-$f-$i racecheck $p GST_CHECKS=$f CVOPS_SHARD=$i/$shards")
      done
    done
  done
  for t in "$b"/tests/test_*; do
    n=$(basename "$t")
    [ -x "$t" ] && [ -f "$t" ] || continue
    case "$n" in
      test_pinned) continue ;;       # the CPU suite's fake CUDA runtime
      test_workspace*) continue ;;   # the CPU operators' allocator: no CUDA
    esac
    case " ${SANITIZE_TESTS:-$n} " in *" $n "*) ;; *) continue ;; esac
    src=tests/$n.c
    [ "$n" = test_pinned_cuda ] && src=tests/test_pinned.c
    case "$n" in
      test_op|test_op_*) fns=$(op_gpu_functions "$t") ;;  # not the cpu-only ones
      *) fns=$(test_functions "$src") ;;
    esac
    if [ -z "$fns" ]; then
      runs+=("memcheck-$n memcheck $t")
      continue
    fi
    for f in $fns; do
      runs+=("memcheck-$n-$f memcheck $t GST_CHECKS=$f")
    done
  done
  echo "sanitize: ${#runs[@]} runs, $jobs at once (+ the sweep's $sweep_jobs)" >> "$out/sanitize-summary.txt"
  for r in "${runs[@]}"; do
    while [ "$(jobs -rp | grep -vc "^${sweep_pid:-none}\$")" -ge "$jobs" ]; do wait -n; done
    # shellcheck disable=SC2086
    sanitize_one $r &
  done
  wait
  # the verdict before the total line (which has no "rc=" of its own)
  grep -E 'rc=' "$out/sanitize-summary.txt" | grep -qvE 'rc=0 ' && status=1
  awk '/rc=/ { n++; if ($0 ~ /rc=0 /) ok++; if ($0 ~ /rc=124 /) to++ }
       END { printf "sanitize total: %d runs, %d clean, %d timed out, %d other\n", n, ok, to, n - ok - to }' \
    "$out/sanitize-summary.txt" >> "$out/sanitize-summary.txt"
  cat "$out/sanitize-summary.txt"
fi
# a matrix file, each line with --repeat and --json added; the table of
# the JSON at the end
run_matrix() {
  local name=$1 list=$2 args
  : > "$out/$name.json"
  grep -vE '^\s*(#|$)' "$list" | while read -r args; do
    echo "== cudavision-bench $args" >> "$out/$name.log"
    # shellcheck disable=SC2086
    eval "timeout 300 $b/tests/cudavision-bench $args --repeat ${REPEAT:-5} --json $out/$name.json" \
      >> "$out/$name.log" 2>&1 || echo "$name: failed: $args (exit $?)" | tee -a "$out/$name.log"
    grep RESULT "$out/$name.log" | tail -1
  done
  python3 tests/bench/plots.py "$out/$name.json" | tee "$out/$name-table.txt"
}
if [ "$what" = live ]; then
  gst-launch-1.0 -q videotestsrc pattern=snow num-buffers=1 ! \
    "video/x-raw,format=GRAY8,width=64,height=64" ! pngenc ! \
    filesink location=/tmp/tm64x64.png
  for side in ${AB_BASE:+base} new; do
    if [ "$side" = base ]; then
      export GST_PLUGIN_PATH=$AB_BASE GST_REGISTRY=/tmp/cudavision-registry-base.bin
    else
      export GST_PLUGIN_PATH=$PWD/$b/plugin GST_REGISTRY=/tmp/cudavision-registry.bin
    fi
    run_matrix "live-$side" tests/bench/matrix-live.txt
    run_matrix "tput-$side" tests/bench/matrix-throughput-24.txt
  done
  export GST_PLUGIN_PATH=$PWD/$b/plugin GST_REGISTRY=/tmp/cudavision-registry.bin
fi
if [ "$what" = hostpath ]; then
  run_matrix hostpath tests/bench/matrix-hostpath.txt
  # the PCIe cases again with the device planes pitched as before (2D
  # copies of one row per descriptor): the difference is the tight planes'
  # (3 runs each, to stay within about 4 minutes)
  ( export CUDAVISION_DEVICE_PITCH=pitched REPEAT=3
    run_matrix hostpath-pitched <(grep -E -- '--label pcie-' tests/bench/matrix-hostpath.txt |
      sed 's/--label pcie-/--label pitched-pcie-/') )
  # the host path under Nsight Systems: NVTX ranges of the scheduler and
  # the CUDA backend (plugin/gstcvtrace.h) beside the CUDA API calls
  nsys=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -1)
  if [ -n "$nsys" ]; then
    timeout 120 "$nsys" profile -t cuda,nvtx -o "$out/hostpath-nv12" --force-overwrite true \
      "$b/tests/cudavision-bench" -e cudasobel -f NV12 -w 1920 -h 1080 -d 2 -i cuda -s 1 \
      --no-floor > "$out/hostpath-nsys.log" 2>&1
    timeout 120 "$nsys" stats -r nvtx_sum,cuda_api_sum,cuda_gpu_kern_sum \
      "$out/hostpath-nv12.nsys-rep" > "$out/hostpath-nsys-stats.txt" 2>&1 ||
      timeout 120 "$nsys" stats -r nvtxsum,cudaapisum,gpukernsum \
        "$out/hostpath-nv12.nsys-rep" > "$out/hostpath-nsys-stats.txt" 2>&1
    grep -A14 -iE 'nvtx' "$out/hostpath-nsys-stats.txt" | head -30
  else
    echo "hostpath: no nsys here: no NVTX profile (the per-stage host times are in hostpath.log)"
  fi
fi
if [ "$what" = profile ]; then
  # where the host's CPU time per frame goes (issue #24), without nsys:
  # gperftools' sampling profiler (SIGPROF at 4 kHz over every thread of
  # the process) preloaded into cudavision-bench, for the cases of
  # PROFILE_CASES (default: cudasobel 1080p NV12 in CUDA memory, with and
  # without post-stats, and GRAY8 pinned), 4 s each; with AB_BASE=DIR the
  # first case also with the plugin in DIR. The libraries come from
  # tests/bench/prepare-profiler.sh (PROFILER_DIR, default .prof; carry
  # it). Read a profile where the build is, with the unstripped plugin:
  #   google-pprof --text BUILD/tests/cudavision-bench OUT/prof-LABEL.prof
  pdir=${PROFILER_DIR:-.prof}
  if [ ! -f "$pdir/libprofiler.so.0" ]; then
    echo "profile: no $pdir/libprofiler.so.0 (tests/bench/prepare-profiler.sh makes it)"
    status=1
  else
    preload=$PWD/$pdir/libprofiler.so.0
    [ -f "$pdir/libunwind.so.8" ] && preload=$preload:$PWD/$pdir/libunwind.so.8
    prof_case() {  # prof_case LABEL PLUGIN_DIR BENCH-ARGS...
      local label=$1 plugdir=$2
      shift 2
      GST_PLUGIN_PATH=$plugdir GST_REGISTRY=/tmp/cudavision-prof-$label.bin \
        CPUPROFILE="$out/prof-$label.prof" CPUPROFILE_FREQUENCY=4000 \
        LD_PRELOAD=$preload timeout 90 "$b/tests/cudavision-bench" "$@" \
        --no-floor > "$out/prof-$label.log" 2>&1
      echo "profile $label: rc=$? $(grep RESULT "$out/prof-$label.log" | grep -oE ' (fps|cpu_us)=[^ ]*' | tr -d '\n')"
      grep -E '^host ' "$out/prof-$label.log" | tail -1
    }
    prof_case nv12-cuda "$PWD/$b/plugin" -e cudasobel -f NV12 -i cuda -s 4
    [ -n "${AB_BASE:-}" ] && prof_case base-nv12-cuda "$AB_BASE" \
      -e cudasobel -f NV12 -i cuda -s 4
    prof_case nv12-cuda-nostats "$PWD/$b/plugin" -e cudasobel -f NV12 -i cuda \
      -s 4 --no-stats
    prof_case gray8-pinned "$PWD/$b/plugin" -e cudasobel -f GRAY8 -i pinned -s 4
  fi
fi
if [ "$what" = streams ]; then
  # first the check: 4 streams must each give what one stream gives
  for input in cuda pinned pageable; do
    timeout 120 "$b/tests/cudavision-bench" --backend cuda --streams 4 \
      -f NV12 -w 1920 -h 1080 -n 40 --no-floor --check -i $input \
      > "$out/streams-check-$input.log" 2>&1
    rc=$?
    [ $rc -eq 0 ] || status=1
    echo "bench --check --streams 4 -i $input: rc=$rc $(grep -E '^(check|SKIP)' "$out/streams-check-$input.log" | tail -1)"
  done
  run_matrix streams tests/bench/matrix-streams.txt
fi
if [ "$what" = priority ]; then
  run_matrix priority tests/bench/matrix-priority.txt
  # stream 0 against the others, per case (medians over the runs)
  python3 - "$out/priority.json" <<'PY' | tee "$out/priority-latency.txt"
import json, sys
print("%-28s %5s %5s %22s %22s %10s" % ("case", "prio", "level",
      "stream 0 p50/p99 ms", "others p50/p99 ms", "fps"))
for line in open(sys.argv[1]):
    c = json.loads(line)
    m = lambda k: c[k]["median"]
    print("%-28s %5s %5d %22s %22s %10.0f" % (c["label"],
          "max" if c["priority"] == 2**31 - 1 else c["priority"],
          c["priority_level"], "%.3f/%.3f" % (m("lat0_p50_ms"), m("lat0_p99_ms")),
          "%.3f/%.3f" % (m("lat_others_p50_ms"), m("lat_others_p99_ms")),
          m("fps")))
PY
fi
if [ "$what" = fairness ]; then
  run_matrix fairness tests/bench/matrix-fairness.txt
  # per case: the start-up and the streams' rates in the common window
  python3 - "$out/fairness.json" <<'PY' | tee "$out/fairness-streams.txt"
import json, sys
for line in open(sys.argv[1]):
    j = json.loads(line)
    r = sorted(v for v in j.get("stream_common_fps", []) if v >= 0)
    ends = " ".join("%.0f" % v for v in r[:3]) + " ... " + \
        " ".join("%.0f" % v for v in r[-3:]) if r else "-"
    print("%-18s %3d streams  fairness %.3f  start-up %.1f / %.1f ms  "
          "gate %.1f ms  common %.3f s  slowest..fastest %s" % (
              j.get("label", ""), j["streams"], j["fairness"]["median"],
              j["start_median_ms"]["median"], j["start_max_ms"]["median"],
              j["gate_ms"]["median"], j["common_window_s"]["median"], ends))
PY
fi
if [ "$what" = multigpu ]; then
  nvidia-smi -L | tee -a "$out/multigpu.log"
  CUDAVISION_TEST_BACKEND=cuda CK_FORK=no timeout ${TEST_TIMEOUT:-300} \
    "$b/tests/test_cudamem" > "$out/multigpu-test_cudamem.log" 2>&1
  rc=$?
  [ $rc -eq 0 ] || status=1
  echo "test_cudamem rc=$rc $(grep -E '^[0-9]+%: Checks' "$out/multigpu-test_cudamem.log" | tail -1)"
  grep -E '^(NOTE|two GPUs|given context)|:[EF]:' "$out/multigpu-test_cudamem.log" | head -20
  # streams spread over the two GPUs, every stream checked against a
  # single-stream run (exit 77: no device 1)
  for input in cuda pinned pageable; do
    timeout 120 "$b/tests/cudavision-bench" --backend cuda --streams 4 --devices 0,1 \
      -f NV12 -w 1920 -h 1080 -n 40 --no-floor --check -i $input \
      > "$out/multigpu-check-$input.log" 2>&1
    rc=$?
    [ $rc -eq 0 ] || [ $rc -eq 77 ] || status=1
    echo "bench --check --devices 0,1 -i $input: rc=$rc $(grep -E '^(check|SKIP)' "$out/multigpu-check-$input.log" | tail -1)"
  done
  run_matrix multigpu tests/bench/matrix-multigpu.txt
fi
if [ "$what" = sweep ]; then
  # the sweep through real upstream elements, backend=cuda against
  # backend=cpu (docs/testing.md): report and log in $out, the metadata of
  # the cases that are not OK in sweep-failing.tar.gz
  rm -rf /tmp/cv-sweep
  # shellcheck disable=SC2086
  PYTHONUNBUFFERED=1 python3 tests/sweep/sweep.py --mode gpu \
    --case-bin "$b/tests/cv-sweep-case" --jobs "$(nproc)" --work /tmp/cv-sweep \
    --keep --report "$out/sweep-report.txt" ${SWEEP_ARGS:-} > "$out/sweep.log" 2>&1
  rc=$?
  grep -E '^(cv-sweep|SKIP|seed [0-9]+:)' "$out/sweep.log"
  if [ $rc -ne 0 ] && [ $rc -ne 77 ]; then
    status=1
    grep -E '^[a-z]+-[0-9]+c? [A-Z]+:|^  why:' "$out/sweep-report.txt" | head -40
    find /tmp/cv-sweep -name '*.meta' -print0 | \
      tar -czf "$out/sweep-failing.tar.gz" --null -T - 2>/dev/null
  fi
fi
exit $status
