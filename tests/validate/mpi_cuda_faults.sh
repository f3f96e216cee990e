#!/usr/bin/env bash
# tests/validate/mpi_cuda_faults.sh COLLSIM — the mpi+cuda backend's failures: a corrupted
# reduction on the device (emulated stream, staged and direct) is a result mismatch, exit 2
# and one line; and without an emulated device the run uses the real GPUs: on a machine
# without one it ends with exit 2 and one line "no CUDA device: ...", on a machine with one
# it runs and verifies.
set -u
collsim=$1
failed=0

# run_case MODE FAULT args...: prints "rc|lines|stderr"
run_case() {
  local mode=$1 fault=$2
  shift 2
  local err rc
  local environment=("COLLSIM_DEVICE=$mode")
  [ -n "$fault" ] && environment+=("COLLSIM_FAULT=$fault")
  err=$(env "${environment[@]}" timeout 60 "$collsim" run --backend mpi+cuda --iters 2 --warmup 1 "$@" 2>&1 >/dev/null)
  rc=$?
  printf '%s|%s|%s' "$rc" "$(printf '%s\n' "$err" | grep -c .)" "$err"
}

expect_error() {  # NEEDLE MODE FAULT args...
  local needle=$1
  shift
  local result rc lines err
  result=$(run_case "$@")
  IFS='|' read -r rc lines err <<<"$result"
  if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && [[ "$err" == *"$needle"* ]]; then
    echo "ok: $1 $2 -> $err"
  else
    echo "FAIL: $1 $2: exit $rc, $lines line(s): $err (wanted exit 2 and '$needle')"
    failed=$((failed + 1))
  fi
}

expect_error "result mismatch on rank" emulated corrupt-reduction --ranks 3 --algo ring --bytes 4K
expect_error "result mismatch on rank" emulated-direct corrupt-reduction --ranks 4 --algo two-tree --bytes 64K
expect_error "unknown COLLSIM_DEVICE 'gpu9'" gpu9 "" --ranks 2 --algo ring --bytes 4K

# The real device path: COLLSIM_DEVICE unset.
err=$(env -u COLLSIM_DEVICE timeout 60 "$collsim" run --backend mpi+cuda --ranks 2 --algo ring --bytes 4K --iters 2 \
      --warmup 1 2>&1 >/dev/null)
rc=$?
if nvidia-smi -L >/dev/null 2>&1; then
  [ "$rc" -eq 0 ] && echo "ok: ran on the GPU" || { echo "FAIL: GPU present, exit $rc: $err"; failed=$((failed + 1)); }
elif [ "$rc" -eq 2 ] && [ "$(printf '%s\n' "$err" | grep -c .)" -eq 1 ] && [[ "$err" == *"no CUDA device"* ]]; then
  echo "ok: no GPU -> $err"
else
  echo "FAIL: no GPU: exit $rc: $err (wanted exit 2 and one line 'no CUDA device')"
  failed=$((failed + 1))
fi
exit "$failed"
