#!/usr/bin/env bash
# tests/cli/presets.sh COLLSIM — every preset (every configs/*.yaml) loads, `collsim topo`
# reports its one-line description, endpoints, a routed diameter and a positive bisection
# for it, its runtime (NCCL's GPUs, tuner and environment where it names one), a route between
# its first and last rank ends where it should, and `predict` prices
# a ring allreduce and what NCCL would run (--algo nccl) on it.
set -u
collsim=$1
passed=0
failed=0
for preset in $("$collsim" topo --list); do
  if ! json=$("$collsim" topo --preset "$preset" --format json --route 0,1); then
    failed=$((failed + 1)); echo "FAIL: topo --preset $preset"; continue
  fi
  if ! python3 - "$preset" "$json" <<'PY'
import json, sys
preset, j = sys.argv[1], json.loads(sys.argv[2])
assert j["name"] == preset, j["name"]
assert len(j["description"]) >= 20, "a preset describes itself in a line: " + repr(j["description"])
assert j["endpoints"] >= 2 and j["ranks"] >= 2, (j["endpoints"], j["ranks"])
assert 1 <= j["diameter_links"] <= 16, j["diameter_links"]
assert j["bisection_Bps"] > 0, j["bisection_Bps"]
assert j["route"]["hops"], "empty route"
assert j["route"]["bottleneck_Bps"] > 0
# the runtime as the preset's YAML gives it: NCCL's GPUs on every preset that names one
runtime = j["runtime"]
if runtime is not None:
    assert runtime["library"] == "nccl" and runtime["compute_capability"] >= 7.0, runtime
    assert all(k.startswith("NCCL_") for k in runtime["environment"]), runtime
if preset == "gcp-a3mega-tcpxo":
    assert runtime["environment"] == {"NCCL_BUFFSIZE": "8388608", "NCCL_ALGO": "tree,ring", "NCCL_PROTO": "simple",
                                      "NCCL_NVLS_ENABLE": "0"}, runtime
if preset == "gcp-a3mega-tcpxo-v1015":  # TCPXO installer v1.0.15's profile: no NCCL_ALGO, NVLS allowed
    assert runtime["environment"] == {"NCCL_BUFFSIZE": "8388608", "NCCL_PROTO": "ll128,simple",
                                      "NCCL_NVLSTREE_MAX_CHUNKSIZE": "131072"}, runtime
if preset == "aws-p5-efa":
    assert runtime["tuner"] == "aws-ofi-nccl-p5" and runtime["amd_hosts"], runtime
    assert round(runtime["net_latency_s"] * 1e6, 6) == 75, runtime
PY
  then
    failed=$((failed + 1)); echo "FAIL: topo --preset $preset: facts out of range"; continue
  fi
  # 8 ranks, or all of them on a smaller preset (two GPUs on PCIe)
  ranks=$(python3 -c 'import json, sys; print(min(8, json.loads(sys.argv[1])["ranks"]))' "$json")
  if ! "$collsim" predict --preset "$preset" --algo ring --ranks "$ranks" --bytes 1M --format csv | grep -q "^allreduce,ring,$ranks,1048576"; then
    failed=$((failed + 1)); echo "FAIL: predict --preset $preset"; continue
  fi
  if ! "$collsim" predict --preset "$preset" --algo nccl --ranks "$ranks" --bytes 8,1M --format csv | grep -q "^allreduce,nccl,$ranks,1048576"; then
    failed=$((failed + 1)); echo "FAIL: predict --preset $preset --algo nccl"; continue
  fi
  # the network's reported latency is said in predict's header where a preset gives one
  if [ "$preset" = aws-p5-efa ] && ! "$collsim" predict --preset "$preset" --ranks 16 --bytes 1M |
      grep -q "each network step 75 us more, the latency the network's plugin reports"; then
    failed=$((failed + 1)); echo "FAIL: predict --preset $preset: header without the network's latency"; continue
  fi
  passed=$((passed + 1))
done
echo "$passed passed, $failed failed"
[ "$passed" -ge 10 ] && [ "$failed" -eq 0 ]
