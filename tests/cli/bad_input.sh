#!/usr/bin/env bash
# tests/cli/bad_input.sh COLLSIM — every kind of bad input gives exit code 2 and exactly one
# line on stderr that names the problem; nothing crashes or hangs.
set -u
collsim=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

# expect "<substring of the message>" args...
expect() {
  local needle=$1
  shift
  local err rc lines
  err=$(timeout 20 "$collsim" "$@" 2>&1 >/dev/null)
  rc=$?
  lines=$(printf '%s\n' "$err" | grep -c .)
  if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && [[ "$err" == *"$needle"* ]]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: collsim $* -> exit $rc, $lines line(s): $err (wanted '$needle')"
  fi
}

expect "unknown algorithm 'rng'"      explain rng --ranks 4
expect "unknown algorithm 'foo'"      predict --algo foo
expect "--ranks"                      explain ring --ranks 0
expect "--ranks"                      predict --ranks 0 --bandwidth 1e9
expect "--ranks"                      explain ring --ranks four
expect "--ranks"                      explain ring --ranks -3
expect "invalid size '-1K'"           predict --bytes=-1K
expect "invalid size 'abc'"           predict --bytes 1K,abc
expect "invalid size '12Q'"           predict --bytes 12Q
expect "--alpha"                      predict --alpha fast --ranks 4 --bandwidth 1e9
expect "--bandwidth"                  predict --ranks 4 --bandwidth 0
expect "unknown collective 'alltoall'" predict --collective alltoall
expect "does not implement reduce-scatter" explain two-tree --ranks 4 --collective reduce-scatter
expect "engine 'fluid' is not available" predict --engine fluid
expect "engine 'flow' needs a cluster with a topology" predict --engine flow --ranks 8 --bandwidth 1e9
expect "add --engine flow"             predict --preset fat-tree-2to1 --trace /tmp/collsim-unused.json
expect "add --engine flow"             predict --preset fat-tree-2to1 --detail
expect "not CSV"                       predict --preset fat-tree-2to1 --engine flow --detail --format csv
expect "cannot write trace"            predict --preset fat-tree-2to1 --engine flow --trace /nonexistent/t.json
expect "needs --bandwidth"            predict --ranks 8 --alpha 1e-6
expect "41 ranks do not fit on 40 endpoints" predict --ranks 41
expect "hierarchical-ring needs"      explain hierarchical-ring --ranks 8
expect "at most 32 ranks"             explain ring --ranks 64
expect "root 9 is not a rank"         explain tree --ranks 4 --collective broadcast --root 9
expect "not pipelined"                explain ring --ranks 4 --segments 3
expect "--config"                     predict --config "$tmp/missing.yaml"

printf 'name: x\nranks: 8\nlinks:\n  inter_node: {alpha_s: 1e-6}\ngamma_s_per_byte: 0\n' > "$tmp/bad.yaml"
expect "missing key 'bandwidth_Bps'"  predict --config "$tmp/bad.yaml"
expect "not a whole number of nodes"  predict --ranks 12 --ranks-per-node 5 --bandwidth 1e9

# Topologies: impossible networks, unknown presets, ranks that do not exist.
printf 'name: d\nlink_classes:\n  e: {bandwidth_Bps: 1e9}\ntopology: {kind: dragonfly, p: 2, a: 4, h: 2, g: 40, terminal_link: e, local_link: e, global_link: e}\ngamma_s_per_byte: 0\n' > "$tmp/dragonfly.yaml"
expect "dragonfly.yaml:4:11:"         topo "$tmp/dragonfly.yaml"
expect "dragonfly.yaml:4:11:"         predict --config "$tmp/dragonfly.yaml"
printf 'name: s\nlink_classes:\n  e: {bandwidth_Bps: 1e9}\ntopology: {kind: star, endpoints: 4, link: e}\nranks: 5\ngamma_s_per_byte: 0\n' > "$tmp/star.yaml"
expect "star.yaml:5:8: 'ranks' is 5"  topo "$tmp/star.yaml"
expect "give a cluster FILE or --preset" topo
expect "unknown preset 'nope'"        topo --preset nope
expect "unknown preset 'nope'"        predict --preset nope
expect "rank 99 does not exist"       topo --preset baidu-40gpu --route 0,99
expect "--format"                     topo --preset baidu-40gpu --format svg
expect "describe a flat network"      predict --preset baidu-40gpu --bandwidth 1e9
expect "unknown placement 'diagonal'" predict --placement diagonal
printf 'name: f\nranks: 8\nlinks:\n  inter_node: {alpha_s: 1e-6, bandwidth_Bps: 1e9}\ngamma_s_per_byte: 0\n' > "$tmp/flat.yaml"
expect "needs a cluster with a topology" predict --config "$tmp/flat.yaml" --placement random
expect "nothing to draw"              topo "$tmp/flat.yaml"

# Real execution (validate/): checked before any process starts, or by the worker.
expect "unknown backend 'tcp'"        run --backend tcp --ranks 2
expect "--ranks"                      run --backend mpi --ranks 0
expect "not a whole number of 4-byte float" run --backend mpi --ranks 2 --algo ring --bytes 6
expect "does not implement reduce-scatter" run --backend mpi --ranks 2 --algo two-tree --collective reduce-scatter
expect "--ranks"                      calibrate --backend mpi --ranks 1
expect "calibration of backend 'nccl' is not implemented (only mpi and cuda)" calibrate --backend nccl
expect "cannot read hostfile '$tmp/none'" run --backend mpi --ranks 2 --algo ring --bytes 4K --hostfile "$tmp/none"
# GPU backends: where collsim-gpu-worker was built next to collsim, a machine without a GPU
# gets the worker's "no CUDA device: <why>"; where it was not, the launcher's "is not built".
if [ -x "$(dirname "$collsim")/collsim-gpu-worker" ] && ! command -v nvidia-smi >/dev/null; then
  expect "no CUDA device: "            run --backend cuda --ranks 2 --algo ring --bytes 4K
  expect "no CUDA device: "            run --backend nccl --ranks 2 --algo ring --bytes 4K
  expect "no CUDA device: "            calibrate --backend cuda --ranks 4
elif [ ! -e "$(dirname "$collsim")/collsim-gpu-worker" ]; then
  expect "backend 'cuda' is not built" run --backend cuda --ranks 2 --algo ring --bytes 4K
  expect "backend 'nccl' is not built" run --backend nccl --ranks 2 --algo ring --bytes 4K
fi
if [ ! -e "$(dirname "$collsim")/collsim-mpi-cuda-worker" ]; then
  expect "backend 'mpi+cuda' is not built: it needs both MPI" run --backend mpi+cuda --ranks 2 --algo ring --bytes 4K
fi

# The simgrid engine exists only in builds with SimGrid: the unknown-engine error lists what is built.
if "$collsim" predict --engine none 2>&1 | grep -q "simgrid"; then
  printf 'name: e\nlink_classes:\n  e: {bandwidth_Bps: 1e9}\ntopology: {kind: xgft, m: [4, 4], w: [1, 2], link: e}\nrouting: ecmp\ngamma_s_per_byte: 0\n' > "$tmp/ecmp.yaml"
  expect "engine 'simgrid' needs one route per rank pair (routing minimal or shortest-path), not ecmp" \
         predict --config "$tmp/ecmp.yaml" --engine simgrid --algo ring --bytes 1M
  expect "engine 'simgrid' needs a cluster with a topology" predict --engine simgrid --ranks 8 --bandwidth 1e9
  expect "add --engine flow"            predict --preset fat-tree-2to1 --engine simgrid --detail
else
  expect "engine 'simgrid' is not available in this build (available: analytic, flow)" predict --engine simgrid
fi

"$collsim" schedule ring --ranks 4 --bytes 1K -o "$tmp/ring.json"
head -c 300 "$tmp/ring.json" > "$tmp/truncated.json"
expect "not valid JSON"               check --file "$tmp/truncated.json"
sed 's/"deps":\[\]/"deps":[99]/' "$tmp/ring.json" > "$tmp/dangling.json"
expect "does not exist"               check --file "$tmp/dangling.json"
sed 's/"src":0,/"src":7,/' "$tmp/ring.json" > "$tmp/rank.json"
expect "names rank 7"                 check --file "$tmp/rank.json"
python3 - "$tmp/ring.json" "$tmp/cycle.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["transfers"][0]["deps"] = [len(s["transfers"]) - 1]
json.dump(s, open(sys.argv[2], "w"))
PY
expect "cycle"                        check --file "$tmp/cycle.json"
python3 - "$tmp/ring.json" "$tmp/race.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
for t in s["transfers"]:
    if t["deps"]:
        t["deps"] = []
        break
json.dump(s, open(sys.argv[2], "w"))
PY
expect "read before arrival"          check --file "$tmp/race.json"
expect "check needs either"           check

# A valid schedule file is accepted.
if "$collsim" check --file "$tmp/ring.json" | grep -q '^valid: ring allreduce on 4 ranks'; then
  passed=$((passed + 1))
else
  failed=$((failed + 1)); echo "FAIL: a valid schedule file was not accepted"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
