#!/usr/bin/env bash
# tests/validate/mpi_faults.sh COLLSIM — failures of a real run end it with exit code 2 and
# one line, within a bounded time, leaving no worker behind: a corrupted reduction (hidden
# fault COLLSIM_FAULT=corrupt-reduction on rank 1) is a result mismatch, never a timing; a
# rank that exits early is reported as dead, and so is a process emulating a switch reducer
# (COLLSIM_FAULT=reducer-exit: the first process after the ranks); a rank that hangs is ended
# by --timeout.
set -u
collsim=$1
failed=0

# expect "<substring>" MAX_SECONDS FAULT args...
expect() {
  local needle=$1 max_s=$2 fault=$3
  shift 3
  local err rc lines start elapsed
  start=$(date +%s)
  err=$(COLLSIM_FAULT=$fault timeout 60 "$collsim" run --backend mpi --iters 2 --warmup 1 "$@" 2>&1 >/dev/null)
  rc=$?
  elapsed=$(( $(date +%s) - start ))
  lines=$(printf '%s\n' "$err" | grep -c .)
  if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && [[ "$err" == *"$needle"* ]] && [ "$elapsed" -le "$max_s" ]; then
    echo "ok: $fault -> $err (${elapsed} s)"
  else
    echo "FAIL: $fault: exit $rc, $lines line(s) in ${elapsed} s: $err (wanted '$needle' within $max_s s)"
    failed=$((failed + 1))
  fi
}

expect "result mismatch on rank"       20 corrupt-reduction --ranks 3 --algo ring --bytes 4K
expect "result mismatch on rank"       20 corrupt-reduction --ranks 4 --algo rabenseifner --bytes 1028
expect "a rank died"                   20 rank-exit --ranks 3 --algo ring --bytes 4K
expect "a rank died: rank 4 (the process emulating switch reducer 0) exited with code 3" 20 reducer-exit --ranks 4 \
  --algo nvls --preset dgx-h100 --bytes 4K
# the same where the first case (ring) leaves that process idle: it waits in the job's barriers
expect "a rank died: rank 2 (the process emulating switch reducer 0) exited" 20 reducer-exit --ranks 2 --algo ring,collnet \
  --ranks-per-node 1 --preset dgx-h100-superpod-su --bytes 4K
expect "no rank made progress for 3 s: rank 1" 10 rank-hang --ranks 3 --algo ring --bytes 4K --timeout 3
sleep 1
# this build's worker only (other builds may be compiling or running theirs)
if pgrep -f "^$(dirname "$collsim")/collsim-mpi-worker" >/dev/null; then
  echo "FAIL: worker processes left behind"
  failed=$((failed + 1))
fi
exit "$failed"
