#!/usr/bin/env bash
# tests/cli/progress_long.sh COLLSIM BIN_DIR — check, validate and the benches tell how far
# along they are as predict does (tests/cli/progress.sh): "collsim CMD: K of N done, now
# ...; T elapsed" on stderr, never on stdout, whose output stays intact. COLLSIM_PROGRESS=1
# prints every update at once (so this does not depend on the machine's speed); =0 nothing.
# validate runs where the MPI worker was built next to collsim (it executes on 2 ranks).
set -u
collsim=$1
bin=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# expect_progress NAME STDOUT_PATTERN STDERR_PATTERN COMMAND...: with COLLSIM_PROGRESS=1 the
# command exits 0, its stderr has a line matching STDERR_PATTERN, its stdout matches
# STDOUT_PATTERN and has no progress; with COLLSIM_PROGRESS=0 no progress line at all.
expect_progress() {
  local name=$1 out_pattern=$2 err_pattern=$3
  shift 3
  COLLSIM_PROGRESS=1 "$@" > "$tmp/out" 2> "$tmp/err" || { fail "$name exited $?: $(head -c 300 "$tmp/err")"; return; }
  grep -Eq "$err_pattern" "$tmp/err" || fail "$name: no progress line like '$err_pattern' on stderr: $(head -c 400 "$tmp/err")"
  grep -q ' done, now ' "$tmp/out" && fail "$name: progress leaked into stdout"
  grep -Eq "$out_pattern" "$tmp/out" || fail "$name: stdout is not intact: $(head -c 300 "$tmp/out")"
  COLLSIM_PROGRESS=0 "$@" > /dev/null 2> "$tmp/err" || fail "$name (silenced) exited $?"
  grep -q ' done, now ' "$tmp/err" && fail "$name: COLLSIM_PROGRESS=0 still printed progress: $(head -c 300 "$tmp/err")"
}

# check: the build, then the check part by part.
expect_progress "check" '^valid: ring allreduce on 64 ranks' \
  '^collsim check: 1 of 2 done, now checking hazards and contributions \(0% of 8064 transfers\); [0-9.]+ s elapsed' \
  "$collsim" check ring --ranks 64 --bytes 1M
expect_progress "check --format json" '"valid": true' '^collsim check: 0 of 2 done, now building two-tree; ' \
  "$collsim" check two-tree --ranks 64 --bytes 1M --format json

# The benches (bench/): the same line, named after the bench.
expect_progress "bench_schedule_build" '^  check ' \
  '^collsim bench_schedule_build: 1 of 2 done, now checking postcondition \(100% of 8064 transfers\); [0-9.]+ s elapsed' \
  "$bin/bench_schedule_build" 64 ring 1M
expect_progress "bench_flow" 'P=64 .* predicted ' '^collsim bench_flow: 1 of 2 done, now simulating two-tree' \
  "$bin/bench_flow" fat-tree two-tree 64 1M
expect_progress "bench_topology" '^  all destinations from 64 sources' \
  '^collsim bench_topology: 2 of 3 done, now routing to all destinations from source 0 of 64; ' \
  "$bin/bench_topology" fat-tree

# validate: calibration, then prediction and execution per rank count. A calibration on a
# busy machine can be refused ("cannot fit"); the progress up to there must still be right.
if [ -x "$(dirname "$collsim")/collsim-mpi-worker" ]; then
  validate=("$collsim" validate --backend mpi --ranks 2 --bytes 4K --algo ring --iters 1 --warmup 0 --max-bytes 4M -o "$tmp/report")
  COLLSIM_PROGRESS=1 "${validate[@]}" > "$tmp/out" 2> "$tmp/err"
  rc=$?
  grep -Eq '^collsim validate: 0 of 3 done, now calibrating on 2 ranks; ' "$tmp/err" ||
    fail "validate: no progress line for the calibration: $(head -c 400 "$tmp/err")"
  grep -q ' done, now ' "$tmp/out" && fail "validate: progress leaked into stdout"
  if [ "$rc" = 0 ]; then
    grep -Eq '^collsim validate: 2 of 3 done, now executing on 2 ranks; ' "$tmp/err" ||
      fail "validate: no progress line for the execution: $(head -c 600 "$tmp/err")"
    grep -q '^collsim validate: 1 cases, ' "$tmp/out" || fail "validate: stdout is not intact: $(cat "$tmp/out")"
    # The case was bracketed by ping-pong probes (validate/machine_drift.hpp): its drift is a number.
    grep -Eq '^collsim validate: [01] of 1 cases measured with the machine as calibrated ' "$tmp/out" ||
      fail "validate: no line on the machine's drift: $(cat "$tmp/out")"
    head -1 "$tmp/report/results.csv" | grep -q ',machine_drift_pct$' || fail "validate: results.csv has no drift column"
    tail -1 "$tmp/report/results.csv" | grep -Eq ',[0-9]+\.[0-9]$' || fail "validate: the case has no drift: $(tail -1 "$tmp/report/results.csv")"
    # The report names the calibrated tables the prediction used beyond the size factors.
    grep -Eq 'exchanges by [0-9]+ rows of their own, reductions by [0-9]+ size rows, reductions into data just sent by [0-9]+ more' \
      "$tmp/report/results.md" || fail "validate: results.md does not name the calibrated tables: $(sed -n 5p "$tmp/report/results.md")"
  else
    grep -q '^collsim: error: ' "$tmp/err" || fail "validate exited $rc without an error line"
    echo "validate: the calibration was refused on this machine ($(grep -m1 '^collsim: error' "$tmp/err")); progress up to it checked"
  fi
  COLLSIM_PROGRESS=0 "${validate[@]}" > /dev/null 2> "$tmp/err"
  grep -q ' done, now ' "$tmp/err" && fail "validate: COLLSIM_PROGRESS=0 still printed progress"
else
  echo "validate: skipped (collsim-mpi-worker not built)"
fi

[ "$failed" = 0 ] && echo "progress of check, validate and the benches: ok"
exit "$failed"
