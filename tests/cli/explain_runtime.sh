#!/usr/bin/env bash
# tests/cli/explain_runtime.sh COLLSIM — `explain ALGO --preset CLUSTER` on a cluster whose config
# names a runtime prices the run as predict does: its total (--format json: costs.total_s) is
# `predict --engine analytic --protocol simple` of the same run to 1e-9 relative, its fixed
# part predict's runtime_s; for a ring in one channel and one segment the fixed part plus the
# steps is that total, each step's sync NCCL's Simple ring latency over NVLink (3.4 us,
# tuning.cc hwLatencies, as sim/runtime.cpp prices it), and the table says so; where steps
# overlap (a ring across nodes) it says they do not add up. A calibrated GPU whose host issues
# the transfers (host_issue:) is priced the same way, its steps waiting for the issue. A cluster
# with neither is refused (bad_inputs.txt).
set -u
collsim=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# CLUSTER RANKS ALGO BYTES ADD_UP [explain options...]: explain's costs against predict's record.
compare() {
  local cluster=$1 ranks=$2 algo=$3 bytes=$4 add_up=$5; shift 5
  "$collsim" explain "$algo" -p "$ranks" --bytes "$bytes" --preset "$cluster" "$@" --format json > "$tmp/explain.json" ||
    { fail "explain $algo $cluster $bytes exited $?"; return; }
  local segments channels
  segments=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["costs"]["segments"])' "$tmp/explain.json")
  channels=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["costs"]["channels"])' "$tmp/explain.json")
  "$collsim" predict --preset "$cluster" --ranks "$ranks" --algo "$algo" --bytes "$bytes" --engine analytic \
    --protocol simple --segments "$segments" --channels "$channels" --format json > "$tmp/predict.json" ||
    { fail "predict $algo $cluster $bytes exited $?"; return; }
  python3 - "$tmp/explain.json" "$tmp/predict.json" "$add_up" "$cluster $algo $bytes" <<'PY' || failed=1
import json, sys
explain, predict, add_up, what = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))[0], sys.argv[3] == "yes", sys.argv[4]
costs = explain["costs"]
def close(a, b): return abs(a - b) <= 1e-9 * abs(b)
ok = True
def check(cond, message):
    global ok
    if not cond:
        print(f"FAIL: {what}: {message}")
        ok = False
check(close(costs["total_s"], predict["time_s"]), f"total {costs['total_s']!r} != predict's {predict['time_s']!r}")
check(close(costs["fixed_s"], predict["runtime_s"]), f"fixed {costs['fixed_s']!r} != predict's runtime_s {predict['runtime_s']!r}")
steps = costs["steps"]
check(len(steps) > 0 and all(s["time_s"] > 0 for s in steps), "a step without a cost")
check(costs["steps_add_up"] == add_up, f"steps_add_up {costs['steps_add_up']}, expected {add_up}")
if add_up:
    check(close(costs["fixed_s"] + sum(s["time_s"] for s in steps), predict["time_s"]), "fixed + steps != predict's time")
    check(all(s["transport"] == "nvlink" and close(s["sync_s"], 3.4e-6) for s in steps),
          "a step's sync is not NCCL's Simple ring NVLink latency, 3.4 us")
sys.exit(0 if ok else 1)
PY
}

compare dgx-h100 8 ring 8 yes
compare dgx-h100 8 ring 64K yes
compare dgx-h100 8 ring 1M yes
compare dgx-h100 8 ring 16M yes --segments 1
compare dgx-h100 4 ring 64K yes
compare dgx-h100-superpod-su 16 ring 1M no
compare dgx-h100 8 two-tree 1M no
compare dgx-h100 8 nvls 1M no
compare dgx-a100 8 ring 256K yes

# The table: the runtime's fixed part first, a cost per step, the total as their sum.
out=$("$collsim" explain ring -p 8 --bytes 64K --preset dgx-h100)
grep -q "^runtime (NCCL 2.30, ring, simple protocol): launch + base latency 8.4 us once; pipeline flag waits 47.6 us (14 waits beyond one per step)$" <<< "$out" ||
  fail "no runtime preface: $(sed -n 4p <<< "$out")"
[ "$(grep -c '^  cost: sync 3.4 us (step latency, NVLink) + 8192 bytes at ' <<< "$out")" = 14 ] ||
  fail "not 14 step costs of 8192 bytes: $(grep -m1 '  cost:' <<< "$out")"
grep -q "^total (contention-free): 104 us = fixed 56 us + sum of steps 48 us$" <<< "$out" ||
  fail "no total: $(tail -n 1 <<< "$out")"
# One rank: no algorithm runs; NCCL copies the buffer out of place, one launch call (3.72 us)
# and 64 MiB at the preset's copy rate (1.46577 TB/s: 45.8 us), predict's time to 1e-9.
out=$("$collsim" explain ring -p 1 --bytes 64M --segments 1 --preset dgx-h100)
grep -q "^runtime (NCCL 2.30, one rank): no algorithm runs; out of place NCCL copies the buffer on the GPU, one launch call 3.72 us + the copy 45.8 us = 49.5 us once" <<< "$out" ||
  fail "one rank: no copy in the preface: $(sed -n 4p <<< "$out")"
"$collsim" explain ring -p 1 --bytes 64M --segments 1 --preset dgx-h100 --format json > "$tmp/one.json"
"$collsim" predict --preset dgx-h100 --ranks 1 --algo ring --bytes 64M --format json > "$tmp/one-predict.json"
python3 - "$tmp/one.json" "$tmp/one-predict.json" <<'PY' || fail "one rank: explain's total is not predict's time, 3.72 us + 64 MiB / 1.46577 TB/s"
import json, sys
total = json.load(open(sys.argv[1]))["costs"]["total_s"]
time = json.load(open(sys.argv[2]))[0]["time_s"]
expected = 3.72e-6 + 67108864 / 1.46577e12
sys.exit(0 if abs(total - expected) <= 1e-9 * expected and abs(time - expected) <= 1e-6 * expected else 1)
PY
# predict's header on one rank: the copy, no route-based bound or closed form, no step runtime,
# and "nccl" names the copy.
out=$("$collsim" predict --preset dgx-h100 --ranks 1 --algo nccl --bytes 64M)
grep -q "^nccl: on one rank the copy above" <<< "$out" || fail "one rank: predict's header names no copy for nccl"
! grep -q -e "cheapest routes" -e "^runtime nccl:" -e "'x bound' without ports" <<< "$out" ||
  fail "one rank: predict's header describes routes or steps: $(grep -m1 -e 'cheapest routes' -e '^runtime nccl:' -e 'without ports' <<< "$out")"
grep -q "^       64M  nccl (copy)  *none  *49.5 us" <<< "$out" || fail "one rank: no row of the copy: $(grep 64M <<< "$out")"
grep -q "not fixed + sum of steps" <(
  "$collsim" explain ring -p 16 --bytes 1M --preset dgx-h100-superpod-su) || fail "across nodes: no note that the steps overlap"
# A calibrated GPU (host_issue:, no library): one host thread issues the transfers, 5 us each,
# and synchronizes 4 streams 2 + 4 x 0.5 us after the last; the steps wait for the issue, add
# up with the synchronization to predict's analytic time, and the preface says so.
cat > "$tmp/host.yaml" <<'YAML'
name: host-issued
link_classes:
  hbm: {bandwidth_Bps: 1.0e+12, latency_s: 0, alpha_s: 3.0e-6}
topology: {kind: star, endpoints: 4, link: hbm}
gamma_s_per_byte: 1.0e-12
host_issue: {per_transfer_s: 5.0e-6, sync_s: 2.0e-6, sync_per_stream_s: 0.5e-6}
YAML
"$collsim" explain ring -p 4 --bytes 4K --config "$tmp/host.yaml" --format json > "$tmp/host.json" || fail "explain on a host-issued cluster exited $?"
"$collsim" predict --config "$tmp/host.yaml" --ranks 4 --algo ring --bytes 4K --engine analytic --protocol simple \
  --segments 1 --channels 1 --format json > "$tmp/host-predict.json" || fail "predict on a host-issued cluster exited $?"
python3 - "$tmp/host.json" "$tmp/host-predict.json" <<'PY' || failed=1
import json, sys
costs, predict = json.load(open(sys.argv[1]))["costs"], json.load(open(sys.argv[2]))[0]
def close(a, b): return abs(a - b) <= 1e-9 * abs(b)
problems = []
if not close(costs["total_s"], predict["time_s"]): problems.append(f"total {costs['total_s']} != predict's {predict['time_s']}")
if not close(costs["fixed_s"], 4.0e-6): problems.append(f"fixed {costs['fixed_s']} != the sync of 4 streams, 4 us")
if costs["issue_per_transfer_s"] != 5.0e-6: problems.append("issue per transfer not 5 us")
if not costs["steps_add_up"]: problems.append("a ring in one channel: the steps should add up")
# 24 transfers, 6 steps of 4: the last is issued at 24 x 5 us = 120 us, so the issue waits add to
# at least 120 us less the steps' own start-ups and drains before it.
waits = sum(s["issue_wait_s"] for s in costs["steps"])
if waits <= 0: problems.append("no step waits for the host's issue")
if not close(costs["fixed_s"] + sum(s["time_s"] for s in costs["steps"]), predict["time_s"]): problems.append("fixed + steps != predict")
for p in problems: print("FAIL: host-issued cluster:", p)
sys.exit(1 if problems else 0)
PY
out=$("$collsim" explain ring -p 4 --bytes 4K --config "$tmp/host.yaml")
grep -q "^host issue (a calibrated host: host_issue): one thread issues the 24 transfers in list order, 5 us each" <<< "$out" ||
  fail "no host-issue preface: $(grep -m1 '^host issue' <<< "$out")"
grep -q "^  cost: wait for the host's issue " <<< "$out" || fail "no step names its wait for the host's issue"
# Without a cluster nothing is priced.
"$collsim" explain ring -p 8 --bytes 64K | grep -q "cost:" && fail "explain without a cluster prints costs"

exit $failed
