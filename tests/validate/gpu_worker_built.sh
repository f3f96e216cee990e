#!/usr/bin/env bash
# tests/validate/gpu_worker_built.sh WORKER — the GPU worker was built and links (CI has no GPU,
# so this is what proves it there): without arguments it prints one usage line and exits 2;
# --version names the cuda backend (and nccl where NCCL was found).
set -u
worker=$1
err=$("$worker" 2>&1 >/dev/null)
rc=$?
lines=$(printf '%s\n' "$err" | grep -c .)
if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] || [[ "$err" != *"usage: collsim-gpu-worker JOB.json OUT.json"* ]]; then
  echo "FAIL: collsim-gpu-worker with no arguments -> exit $rc, $lines line(s): $err"
  exit 1
fi
version=$("$worker" --version) || { echo "FAIL: collsim-gpu-worker --version failed"; exit 1; }
if [[ "$version" != "collsim-gpu-worker: backends cuda"* ]]; then
  echo "FAIL: unexpected --version line: $version"
  exit 1
fi
echo "ok: $version"
