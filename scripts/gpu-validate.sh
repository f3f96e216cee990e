#!/usr/bin/env bash
# scripts/gpu-validate.sh — what one lent GPU must show (issue 35), in one bounded command:
# the machine, collsim-gpu-microbench's CSV, `collsim calibrate --backend cuda`,
# `collsim validate --backend cuda` at P = 2, 4, 8 and `collsim run --backend cuda` of every
# allreduce algorithm at P = 2, 4, 8 on 4K .. 16M, every result verified. Each step runs under
# `timeout` within a total budget checked before each step starts (a step that no longer fits
# is skipped, and summary.txt says so); results are packed after every step, so a run cut short
# keeps what it had. Touches only OUT_DIR and a temporary folder of its own.
#
# Usage:  gpu-validate.sh [--rehearse] [--budget SECONDS] [--bundle DIR] [--bin DIR] OUT_DIR
#   OUT_DIR     gets two files (the device tool returns at most 8): summary.txt (what ran, how
#               long each step took, what failed or was skipped) and results.tar.gz (every file:
#               summary.txt, machine.txt, microbench.csv, calibration.yaml, validate/ (results.csv,
#               results.md, plot.svg, machine.md, calibrated.yaml), run-p{2,4,8}.csv, logs/)
#   --budget    seconds for the whole run (default 290: under 5 minutes, so that a rerun fits)
#   --bundle    the folder scripts/gpu-bundle.sh made (default: the folder this script is in,
#               when run.sh is beside it: gpu-bundle.sh copies this script into the bundle)
#   --bin       a build's bin/, used where there is no bundle (a GPU machine with the build's
#               libraries); with --rehearse, where the stand-ins' MPI workers are (they are not
#               bundled; default: build/bin of this repo)
#   --rehearse  without a GPU (CI, the development machine): every cuda command below runs as
#               written and must end with exit 2 and "no CUDA device" (so its arguments are
#               right and its worker starts), then the nearest backend that runs here stands in
#               (run: mpi+cuda on the emulated device; calibrate and validate: mpi, smaller),
#               and summary.txt says which; the microbenchmark must exit 2 with "no CUDA device".
# Exit status: 0 when no step failed (skipped steps are named in summary.txt), 1 when one did,
# 2 on bad usage.
#
# The GPU run, as a session lent a GPU makes it (the device tool; docs: its README):
#   1. here:  cmake --build build -j2 --target collsim collsim-gpu-worker collsim-gpu-microbench
#             bash scripts/gpu-bundle.sh build gpu-bundle      # copies this script in too
#   2. run    carry=["gpu-bundle"], timeout_s=360,
#             command="gpu-bundle/gpu-validate.sh $OUT"
#      (the budget, 290 s, ends the script inside 300 s; the machine's start, a minute or two,
#      is extra: about 7 minutes of the 15, so one rerun on the warm machine still fits)
#   3. give_back, unless rerunning at once (15 minutes of device time in all: one rerun fits)
#   4. here:  d=validate/results/gpu-<gpu>-<yyyy-mm-dd>   # <gpu> as in summary.txt, e.g. h100
#             mkdir -p $d && tar -xzf <files_at>/results.tar.gz -C $d
#             git add $d && git commit -m "GPU run on <gpu>: gpu-bundle/gpu-validate.sh \$OUT"
#
# Sizing (upper bounds, from the rehearsal and the cuda backend's per-iteration work: each
# iteration uploads every rank's buffer and copies it back to be verified on the host, about
# 1 s at P = 8 x 256 MiB): machine 20 s, smoke 30, microbench 60, calibrate 45, validate 150 (its drifted cases run again),
# run P=2 40, P=4 50, P=8 80; measured on an H100 (2026-11-27, these sizes): machine 2, smoke 1,
# microbench 3, calibrate 2, run 3/4/7, validate 4K..1M about 10 s: about 40 s in all.
set -uo pipefail

usage() { sed -n '10,26p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rehearse=0
budget=290
bundle=""
bin=""
out=""
while [ "$#" -gt 0 ]; do
  case "$1" in
    --rehearse) rehearse=1 ;;
    --budget) budget=${2:-}; shift ;;
    --bundle) bundle=${2:-}; shift ;;
    --bin) bin=${2:-}; shift ;;
    -h|--help) usage ;;
    -*) echo "gpu-validate: error: unknown option $1" >&2; usage ;;
    *) [ -z "$out" ] || { echo "gpu-validate: error: one OUT_DIR only (got $out and $1)" >&2; exit 2; }; out=$1 ;;
  esac
  shift
done
[ -n "$out" ] || { echo "gpu-validate: error: give OUT_DIR, the folder for summary.txt and results.tar.gz" >&2; exit 2; }
case "$budget" in ''|*[!0-9]*) echo "gpu-validate: error: --budget takes whole seconds, got '$budget'" >&2; exit 2 ;; esac
[ "$budget" -ge 10 ] || { echo "gpu-validate: error: --budget $budget: give at least 10 s" >&2; exit 2; }

# Where the programs come from: a bundle's run.sh (which sets LD_LIBRARY_PATH) or a bin/ folder.
if [ -z "$bundle" ] && [ -x "$here/run.sh" ]; then bundle=$here; fi
if [ "$rehearse" = 1 ] && [ -z "$bin" ]; then bin=$(cd "$here/.." && pwd)/build/bin; fi
if [ -n "$bundle" ] && [ ! -x "$bundle/run.sh" ]; then
  echo "gpu-validate: error: $bundle/run.sh not found: make the bundle with scripts/gpu-bundle.sh" >&2; exit 2
fi
if [ -z "$bundle" ] && [ -z "$bin" ]; then
  echo "gpu-validate: error: no programs: run the copy inside a bundle (scripts/gpu-bundle.sh), or give --bundle DIR or --bin DIR" >&2; exit 2
fi
if [ -n "$bin" ] && [ ! -x "$bin/collsim" ]; then
  echo "gpu-validate: error: $bin/collsim not found: build first (cmake --build build), or give --bin DIR" >&2; exit 2
fi
mkdir -p "$out" || { echo "gpu-validate: error: cannot create $out" >&2; exit 2; }
out=$(cd "$out" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/collsim-gpu-validate.XXXXXX") || { echo "gpu-validate: error: no temporary folder" >&2; exit 2; }
trap 'rm -rf "$work"' EXIT   # everything is in OUT_DIR/results.tar.gz
mkdir -p "$work/logs"

now() { echo "${EPOCHREALTIME:-$(date +%s.%N)}"; }
elapsed_since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
started=$(now)
seconds_left() { awk -v a="$started" -v b="$(now)" -v t="$budget" 'BEGIN { printf "%d", t - (b - a) }'; }

# tool NAME ARGS...: one of collsim's programs, from the bundle (through run.sh) or bin/.
tool() {
  local name=$1; shift
  if [ -n "$bundle" ]; then "$bundle/run.sh" "$name" "$@"; else "$bin/$name" "$@"; fi
}
# build_tool NAME ARGS...: a program of the build (the rehearsal's stand-ins: MPI workers are not bundled).
build_tool() { local name=$1; shift; "$bin/$name" "$@"; }

# ---- bounded commands ----------------------------------------------------------------------
# bounded CMD...: runs CMD (or `tool NAME ...`, `build_tool NAME ...`) until the current step's
# deadline, in a session of its own, so that everything it started (collsim's worker runs in a
# process group of its own) ends with it.
step_deadline=0
bounded() {
  local left sid_file sid rc cmd
  case "$1" in
    tool) if [ -n "$bundle" ]; then cmd=("$bundle/run.sh" "${@:2}"); else cmd=("$bin/$2" "${@:3}"); fi ;;
    build_tool) cmd=("$bin/$2" "${@:3}") ;;
    *) cmd=("$@") ;;
  esac
  left=$(awk -v d="$step_deadline" -v n="$(now)" 'BEGIN { printf "%d", d - n }')
  [ "$left" -gt 0 ] || return 124
  echo "+ ${cmd[*]}" >&2
  if ! command -v setsid > /dev/null; then   # util-linux missing: the timeout alone
    timeout -k 5 "$left" "${cmd[@]}"
    return
  fi
  sid_file=$(mktemp "$work/.sid.XXXXXX")
  timeout -k 5 "$left" setsid bash -c 'echo $$ >"$0"; exec "$@"' "$sid_file" "${cmd[@]}"
  rc=$?
  sid=$(cat "$sid_file" 2>/dev/null)
  rm -f "$sid_file"
  [ -n "$sid" ] && end_session "$sid"
  return "$rc"
}
# end_session SID: kills what is left of the session SID (by process id, read from /proc).
end_session() {
  local stat pid
  for stat in /proc/[0-9]*/stat; do
    pid=${stat#/proc/}; pid=${pid%/stat}
    [ "$(awk '{ sub(/^.*\) /, ""); print $4 }' "$stat" 2>/dev/null)" = "$1" ] && kill -KILL "$pid" 2>/dev/null
  done
  return 0
}
# last_line FILE: the file's last non-empty line, for the summary.
last_line() { grep -v '^[[:space:]]*$' "$1" 2>/dev/null | tail -n 1 | cut -c1-300; }

# ---- steps and the summary -----------------------------------------------------------------
rows=()   # one summary line per step
notes=()  # indented lines under it
failed=0
skipped=0
note() { notes+=("    $*"); }

write_summary() {
  {
    if [ "$rehearse" = 1 ]; then
      echo "collsim gpu-validate: REHEARSAL (no GPU): every cuda command ran as written and had to end with"
      echo "\"no CUDA device\"; the nearest backend that runs here stood in for it (noted under each step)"
    else
      echo "collsim gpu-validate: GPU run"
    fi
    echo "started $(date -u -d "@${started%.*}" +%Y-%m-%dT%H:%M:%SZ 2>/dev/null), budget ${budget} s, $(elapsed_since "$started") s so far"
    echo "programs: ${bundle:+bundle $bundle}${bundle:+${bin:+; }}${bin:+bin $bin}"
    echo "command: $0 ${original_args}"
    echo
    printf '%-12s %-10s %8s  %s\n' step status seconds what
    printf '%s\n' "${summary_lines[@]}"
    echo
    echo "total $(elapsed_since "$started") s of ${budget} s; $ok_count ok, $failed failed, $skipped skipped"
  } > "$work/summary.txt"
  cp "$work/summary.txt" "$out/summary.txt.part" && mv -f "$out/summary.txt.part" "$out/summary.txt"
  tar -czf "$out/results.tar.gz.part" -C "$work" --exclude='.sid.*' . && mv -f "$out/results.tar.gz.part" "$out/results.tar.gz"
}

summary_lines=()
ok_count=0
# step NAME LIMIT_S MIN_S WHAT FUNCTION: FUNCTION within min(LIMIT_S, what the budget has left);
# skipped when less than MIN_S is left. FUNCTION returns 0 (ok) or not (failed); it may add notes.
step() {
  local name=$1 limit=$2 min=$3 what=$4 fn=$5 left began status rc
  left=$(seconds_left)
  notes=()
  if [ "$left" -lt "$min" ]; then
    skipped=$((skipped + 1))
    summary_lines+=("$(printf '%-12s %-10s %8s  %s' "$name" skipped - "$what")")
    summary_lines+=("    skipped: ${left} s of the budget left, the step needs at least ${min} s")
    write_summary
    return
  fi
  [ "$left" -lt "$limit" ] && limit=$left
  began=$(now)
  step_deadline=$(awk -v b="$began" -v l="$limit" 'BEGIN { printf "%.3f", b + l }')
  echo "gpu-validate: $name (up to ${limit} s)" >&2
  "$fn" > "$work/logs/$name.log" 2>&1
  rc=$?
  if [ "$rc" = 0 ]; then status=ok; ok_count=$((ok_count + 1))
  elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then status="TIMED-OUT"; failed=$((failed + 1)); note "ran past its ${limit} s (see logs/$name.log)"
  else status=FAILED; failed=$((failed + 1)); note "exit $rc: $(last_line "$work/logs/$name.log") (logs/$name.log)"
  fi
  summary_lines+=("$(printf '%-12s %-10s %8s  %s' "$name" "$status" "$(elapsed_since "$began")" "$what")")
  summary_lines+=("${notes[@]}")
  echo "gpu-validate: $name: $status" >&2
  write_summary
}

# expect_no_device CMD...: (rehearsal) the GPU command as written ends with exit 2 and
# "no CUDA device": its arguments were accepted and its program started.
expect_no_device() {
  local err rc
  err=$(mktemp "$work/.err.XXXXXX")
  echo "+ $* (must end: no CUDA device)"
  bounded "$@" > /dev/null 2> "$err"
  rc=$?
  cat "$err"
  if [ "$rc" = 2 ] && grep -q "no CUDA device" "$err"; then
    note "GPU command checked: exit 2, $(grep -m1 -o 'no CUDA device.*' "$err" | cut -c1-90)"
    rm -f "$err"; return 0
  fi
  note "GPU command did not end with 'no CUDA device' (exit $rc): $(last_line "$err")"
  rm -f "$err"
  return 1
}

# check_run_csv FILE SIZES: every row verified, one per algorithm and size, at least 7 algorithms.
check_run_csv() {
  local file=$1 sizes=$2 rows algos unverified want
  rows=$(tail -n +2 "$file" | grep -c .)
  algos=$(tail -n +2 "$file" | cut -d, -f2 | sort -u | grep -c .)
  unverified=$(tail -n +2 "$file" | awk -F, '$14 != 1 || $10 <= 0' | grep -c .)
  want=$((algos * sizes))
  if [ "$rows" -gt 0 ] && [ "$rows" = "$want" ] && [ "$unverified" = 0 ] && [ "$algos" -ge 7 ]; then
    note "$rows rows ($algos algorithms x $sizes sizes), every one verified"
    return 0
  fi
  note "$rows rows, wanted $algos algorithms x $sizes sizes = $want with at least 7 algorithms; $unverified not verified or not positive"
  return 1
}

# issue_note FILE: size by size, the mean share of a run's median time the host spent issuing it
# (run's issue_median_s, column 15) and its issue per transfer (column 7: transfers): a share
# near 100% says the host bound the case, a small one the GPU's work.
issue_note() {
  local summary
  summary=$(tail -n +2 "$1" | awk -F, '$15 != "" && $7 > 0 && $10 > 0 {
      share[$5] += $15 / $10; per[$5] += $15 / $7; n[$5]++ }
    END { for (b in n) printf "%d %.0f%% %.2fus\n", b, 100 * share[b] / n[b], 1e6 * per[b] / n[b] }' | sort -n |
    awk '{ printf "%s%s: %s of the time, %s a transfer", (NR > 1 ? "; " : ""), $1, $2, $3 }')
  [ -n "$summary" ] && note "host issue by size (bytes): $summary"
  return 0
}

# ---- the steps -----------------------------------------------------------------------------
# Sized by the first H100 run (validate/results/gpu-h100-2026-11-27): there `run` at 4K..16M took
# 3, 4 and 7 s at P = 2, 4, 8 and validate at 4K..1M 5 s at P = 8, while 256M runs and validate's
# 16M-64M at P = 8 ran past 40-150 s (each iteration uploads and verifies every buffer on the host).
# The second (validate/results/gpu-h100-2026-11-27b): run at 4K..16M in 7 sizes 3.6, 7.2 and 13.9 s
# at P = 2, 4, 8, so validate takes the same 7 sizes.
run_sizes=4K,64K,1M,16M
validate_sizes=4K,16K,64K,256K,1M,4M,16M

step_machine() {
  {
    echo "# machine, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "## nvidia-smi"
    if command -v nvidia-smi > /dev/null; then
      bounded nvidia-smi --query-gpu=name,driver_version,pci.bus_id,memory.total,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,power.limit,temperature.gpu,persistence_mode,compute_mode,mig.mode.current --format=csv
      bounded nvidia-smi
    else
      echo "nvidia-smi: not found$([ "$rehearse" = 1 ] && echo ' (rehearsal: no GPU here)')"
    fi
    echo "## CUDA toolkit"
    if command -v nvcc > /dev/null; then nvcc --version | tail -n 2; elif [ -x /usr/local/cuda/bin/nvcc ]; then /usr/local/cuda/bin/nvcc --version | tail -n 2; else echo "nvcc: not found"; fi
    echo "## the programs"
    if [ -n "$bundle" ]; then bounded "$bundle/run.sh"; fi   # what run.sh found: libcudart, libnccl
    tool collsim --version
    tool collsim-gpu-worker --version
    echo "## host"
    uname -srm
    echo "cores: $(getconf _NPROCESSORS_ONLN)"
    grep -m1 'model name' /proc/cpuinfo || true
    grep MemTotal /proc/meminfo || true
  } > "$work/machine.txt" 2>&1
  local rc=$?
  if [ "$rehearse" = 0 ]; then
    command -v nvidia-smi > /dev/null || { note "nvidia-smi not found: is this the GPU machine?"; return 1; }
    note "$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader 2>/dev/null | head -n 1)"
  fi
  return "$rc"
}

# One ring allreduce of 4K on 2 ranks: a broken backend shows here in seconds, not in every later step.
step_smoke() {
  if [ "$rehearse" = 1 ]; then
    expect_no_device tool collsim run --backend cuda --ranks 2 --algo ring --bytes 4K --iters 1 --warmup 1 || return 1
    note "stand-in: mpi+cuda on the emulated device (COLLSIM_DEVICE=emulated)"
    COLLSIM_DEVICE=emulated bounded build_tool collsim run --backend mpi+cuda --ranks 2 --algo ring --bytes 4K --iters 1 --warmup 1
    return
  fi
  bounded tool collsim run --backend cuda --ranks 2 --algo ring --bytes 4K --iters 1 --warmup 1
}

step_microbench() {
  if [ "$rehearse" = 1 ]; then
    expect_no_device tool collsim-gpu-microbench --repeats 20
    return
  fi
  bounded tool collsim-gpu-microbench --repeats 20 > "$work/microbench.csv"
  local rc=$?
  [ -s "$work/microbench.csv" ] &&
    note "$(grep -c -v '^#' "$work/microbench.csv") CSV lines; $(grep -m1 '^# CUDA' "$work/microbench.csv" | cut -c3-)"
  return "$rc"
}

step_calibrate() {
  if [ "$rehearse" = 1 ]; then
    expect_no_device tool collsim calibrate --backend cuda --ranks 8 --repeats 3 -o "$work/calibration.yaml" || return 1
    note "stand-in: calibrate --backend mpi on 2 ranks, 4M at most, 5 ms per size (cuda has no emulated device)"
    bounded build_tool collsim calibrate --backend mpi --ranks 2 --repeats 3 --max-bytes 4M --seconds-per-point 0.005 -o "$work/calibration.yaml"
    return
  fi
  bounded tool collsim calibrate --backend cuda --ranks 8 --repeats 3 -o "$work/calibration.yaml"
}

# validate calibrates on its own (it takes no calibration file), on max(P) ranks, the same way.
step_validate() {
  if [ "$rehearse" = 1 ]; then
    expect_no_device tool collsim validate --backend cuda --ranks 2,4,8 --bytes "$validate_sizes" -o "$work/validate" || return 1
    note "stand-in: validate --backend mpi, 2 ranks, ring, 4K, calibrated up to 1M (cuda has no emulated device)"
    bounded build_tool collsim validate --backend mpi --ranks 2 --algo ring --bytes 4K --max-bytes 1M --iters 2 --warmup 1 -o "$work/validate"
  else
    bounded tool collsim validate --backend cuda --ranks 2,4,8 --bytes "$validate_sizes" -o "$work/validate"
  fi
  local rc=$?
  [ -f "$work/validate/results.md" ] && note "$(grep -m1 -i 'median |error|' "$work/validate/results.md" | cut -c1-200)"
  return "$rc"
}

# run_p P: every allreduce algorithm on P ranks, 4K .. 16M, verified.
run_p() {
  local p=$1 csv="$work/run-p$1.csv" rc
  if [ "$rehearse" = 1 ]; then
    expect_no_device tool collsim run --backend cuda --ranks "$p" --algo all --bytes "$run_sizes" --iters 3 --warmup 1 --format csv || return 1
    note "stand-in: mpi+cuda on the emulated device, 4K and 64K, no MPI_Allreduce reference"
    COLLSIM_DEVICE=emulated bounded build_tool collsim run --backend mpi+cuda --ranks "$p" --algo all --bytes 4K,64K --iters 2 --warmup 1 --no-reference --format csv > "$csv"
    rc=$?
    [ "$rc" = 0 ] || return "$rc"
    check_run_csv "$csv" 2
    return
  fi
  bounded tool collsim run --backend cuda --ranks "$p" --algo all --bytes "$run_sizes" --iters 3 --warmup 1 --format csv > "$csv"
  rc=$?
  [ "$rc" = 0 ] || return "$rc"
  issue_note "$csv"
  check_run_csv "$csv" "$(echo "$run_sizes" | tr , '\n' | grep -c .)"
}
step_run_p2() { run_p 2; }
step_run_p4() { run_p 4; }
step_run_p8() { run_p 8; }

step_machine_after() {
  if ! command -v nvidia-smi > /dev/null; then
    note "nvidia-smi not found$([ "$rehearse" = 1 ] && echo ' (rehearsal)')"
    return 0
  fi
  # clocks_event_reasons (driver 535 and later) says why the clocks were held down, if they were
  local fields=clocks.sm,clocks.mem,temperature.gpu,power.draw
  { echo "## after the runs"
    bounded nvidia-smi --query-gpu=$fields,clocks_event_reasons.active --format=csv ||
      bounded nvidia-smi --query-gpu=$fields --format=csv; } | tee -a "$work/machine.txt"
}

original_args="$*"
[ -n "$original_args" ] || original_args="$out"
write_summary
step machine 20 5 "nvidia-smi (GPU, driver, clocks, memory), CUDA, the bundle's libraries" step_machine
step smoke 30 10 "run --backend cuda: ring, 2 ranks, 4K" step_smoke
step microbench 60 20 "collsim-gpu-microbench: launch/sync latency, per-block copy/sum, memcpy, NCCL 1 rank" step_microbench
step calibrate 45 15 "calibrate --backend cuda, 8 ranks, 3 launches -> calibration.yaml" step_calibrate
step validate 150 30 "validate --backend cuda, P = 2,4,8, $validate_sizes -> validate/" step_validate
step run-p2 40 10 "run --backend cuda, every allreduce algorithm, 2 ranks, $run_sizes" step_run_p2
step run-p4 50 15 "run --backend cuda, every allreduce algorithm, 4 ranks, $run_sizes" step_run_p4
step run-p8 80 20 "run --backend cuda, every allreduce algorithm, 8 ranks, $run_sizes" step_run_p8
step after 10 3 "nvidia-smi again: clocks, temperature, throttling after the runs" step_machine_after
echo "gpu-validate: $out/summary.txt, $out/results.tar.gz ($ok_count ok, $failed failed, $skipped skipped, $(elapsed_since "$started") s)" >&2
[ "$failed" = 0 ]
