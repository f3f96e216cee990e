#!/usr/bin/env bash
# tests/cli/interrupt.sh COLLSIM — Ctrl-C (SIGINT) or SIGTERM during `run`, `calibrate` and
# `validate --backend mpi` ends collsim with exit 2 and one line saying it was interrupted,
# and leaves no process (mpirun, ranks) and no temporary folder behind, and the output that
# was there unchanged. Each run hangs on purpose (the hidden fault COLLSIM_FAULT=rank-hang),
# so the signal always arrives while the ranks are alive; a private TMPDIR tells this test's
# processes and folders from anyone else's.
set -u
export COLLSIM_PROGRESS=0
collsim=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# interrupt SIGNAL OUTPUT ARGS...: starts collsim ARGS, waits until its ranks run, sends SIGNAL
# to collsim alone, then checks what is left.
interrupt() {
  local signal=$1 output=$2
  shift 2
  local scratch=$tmp/scratch
  mkdir -p "$scratch"
  local before
  before=$(find "$output" -type f -exec md5sum {} + 2>/dev/null | sort)
  TMPDIR=$scratch COLLSIM_FAULT=rank-hang "$collsim" "$@" > /dev/null 2> "$tmp/err" &
  local pid=$!
  local waited=0
  until [ "$(pgrep -f "$scratch/collsim-run" | wc -l)" -ge 3 ] || [ "$waited" -ge 300 ]; do
    sleep 0.1; waited=$((waited + 1))
  done
  [ "$waited" -lt 300 ] || fail "collsim $*: the ranks never started"
  sleep 1  # past MPI_Init: the ranks are working (one of them hanging)
  kill -s "$signal" "$pid"
  wait "$pid"
  local rc=$?
  local err
  err=$(tail -n 1 "$tmp/err")  # validate's notes come before it
  [ "$rc" = 2 ] || fail "collsim $* on $signal: exit $rc (wanted 2)"
  [ "$(grep -c "error" "$tmp/err")" = 1 ] && [[ "$err" == "collsim: error: interrupted by $signal"* ]] ||
    fail "collsim $* on $signal: wanted the error line 'collsim: error: interrupted by $signal', got: $(cat "$tmp/err")"
  local left
  left=$(pgrep -af "$scratch")
  [ -z "$left" ] || fail "collsim $* on $signal: processes left: $left"
  left=$(ls -A "$scratch")
  [ -z "$left" ] || fail "collsim $* on $signal: temporary files left in TMPDIR: $left"
  [ "$before" = "$(find "$output" -type f -exec md5sum {} + 2>/dev/null | sort)" ] ||
    fail "collsim $* on $signal: $output changed"
  [ -z "$(find "$(dirname "$output")" -maxdepth 1 -name '.*collsim-*')" ] || fail "collsim $*: a staged output was left"
  echo "ok: $1 on $signal -> $err"
}

echo "old" > "$tmp/calibrated.yaml"
mkdir -p "$tmp/report"
echo "old" > "$tmp/report/results.csv"
interrupt SIGINT "$tmp/calibrated.yaml" run --backend mpi --ranks 3 --algo ring --bytes 4K --timeout 600
interrupt SIGTERM "$tmp/calibrated.yaml" run --backend mpi --ranks 2 --algo ring --bytes 4K --timeout 600
interrupt SIGINT "$tmp/calibrated.yaml" calibrate --backend mpi --ranks 2 --max-bytes 64K --timeout 600 -o "$tmp/calibrated.yaml"
interrupt SIGTERM "$tmp/calibrated.yaml" calibrate --backend mpi --ranks 2 --max-bytes 64K --timeout 600 -o "$tmp/calibrated.yaml"
interrupt SIGINT "$tmp/report" validate --backend mpi --ranks 2 --bytes 4K --iters 1 --timeout 600 -o "$tmp/report"
interrupt SIGTERM "$tmp/report" validate --backend mpi --ranks 2 --bytes 4K --iters 1 --timeout 600 -o "$tmp/report"
[ "$failed" = 0 ]
