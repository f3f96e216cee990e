#!/usr/bin/env bash
# tests/cli/bad_input.sh COLLSIM — every kind of bad input gives exit code 2 and exactly one
# line on stderr, "collsim: error: ..." naming the problem, with no raw control bytes; nothing
# crashes or hangs. The cases are the table tests/cli/bad_inputs.txt (its header says the
# format), plus the ones below that need files made by collsim itself.
set -u
# Stderr must be the one error line: no progress line from a command that runs a while first.
export COLLSIM_PROGRESS=0
collsim=$1
table=$(dirname "$0")/bad_inputs.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
cases=0
touch "$tmp/afile"

# expect FRAGMENT ARGS...: exit 2, one "collsim: error:" line containing FRAGMENT, printable.
expect() {
  local needle=$1
  shift
  local err rc lines
  cases=$((cases + 1))
  err=$(timeout 60 "$collsim" "$@" 2>&1 >/dev/null)
  rc=$?
  lines=$(printf '%s\n' "$err" | grep -c .)
  if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && [[ "$err" == "collsim: error: "*"$needle"* ]] &&
     ! printf '%s' "$err" | LC_ALL=C grep -q '[[:cntrl:]]'; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: collsim $* -> exit $rc, $lines line(s): $err (wanted '$needle')"
  fi
}

declare -A fixture
# Fixture names in ARGS (@NAME) become files.
with_files() {
  local word out=()
  for word in "$@"; do
    if [[ "$word" == @* ]]; then out+=("$tmp/${word#@}.yaml"); else out+=("$word"); fi
  done
  printf '%s\0' "${out[@]}"
}

# "% FRAGMENT | BASE | OLD => NEW": the base with OLD replaced by NEW (\n: a line break).
yaml_case() {
  local fragment=$1 base=$2 edit=$3
  local old=${edit%% => *} new=${edit#* => }
  local text=${fixture[$base]}
  if [[ "$text" != *"$old"* ]]; then
    failed=$((failed + 1)); cases=$((cases + 1))
    echo "FAIL: table: '$old' is not in fixture @$base"
    return
  fi
  printf '%b\n' "${text/"$old"/"$new"}" > "$tmp/case.yaml"
  expect "$fragment" predict --config "$tmp/case.yaml" --algo ring --bytes 1K
}

trim() { local s=$1; s=${s#"${s%%[![:space:]]*}"}; printf '%s' "${s%"${s##*[![:space:]]}"}"; }

checked_bases=""
while IFS= read -r line; do
  [[ -z "$line" || "$line" == \#* ]] && continue
  if [[ "$line" == @* ]]; then  # @NAME = YAML
    name=$(trim "${line%% = *}"); name=${name#@}
    fixture[$name]=${line#* = }
    printf '%b\n' "${fixture[$name]}" > "$tmp/$name.yaml"
    continue
  fi
  if [[ "$line" == %* ]]; then  # % FRAGMENT | BASE | OLD => NEW
    rest=${line#%}
    fragment=$(trim "${rest%% | *}"); rest=${rest#* | }
    base=$(trim "${rest%% | *}"); edit=${rest#* | }
    if [[ " $checked_bases " != *" $base "* ]]; then  # an edit case means nothing if its base fails
      checked_bases="$checked_bases $base"
      cases=$((cases + 1))
      if "$collsim" predict --config "$tmp/$base.yaml" --algo ring --bytes 1K >/dev/null 2>"$tmp/err"; then
        passed=$((passed + 1))
      else
        failed=$((failed + 1)); echo "FAIL: fixture @$base does not load: $(cat "$tmp/err")"
      fi
    fi
    yaml_case "$fragment" "$base" "$edit"
    continue
  fi
  if [[ "$line" == \&* ]]; then  # & FRAGMENT | BASE | OLD => NEW | ARGS (ARGS name the edit @case)
    rest=${line#&}
    fragment=$(trim "${rest%% | *}"); rest=${rest#* | }
    base=$(trim "${rest%% | *}"); rest=${rest#* | }
    edit=${rest%% | *}; args=${rest#* | }
    old=${edit%% => *}; new=${edit#* => }
    if [[ "${fixture[$base]}" != *"$old"* ]]; then
      failed=$((failed + 1)); cases=$((cases + 1)); echo "FAIL: table: '$old' is not in fixture @$base"; continue
    fi
    printf '%b\n' "${fixture[$base]/"$old"/"$new"}" > "$tmp/case.yaml"
    eval "words=($args)"
    mapfile -d '' argv < <(with_files "${words[@]}")
    expect "$fragment" "${argv[@]}"
    continue
  fi
  fragment=$(trim "${line%% | *}")
  fragment=${fragment//\$tmp/$tmp}
  eval "words=(${line#* | })"
  mapfile -d '' argv < <(with_files "${words[@]}")
  expect "$fragment" "${argv[@]}"
done < "$table"

# A corrupt file: its raw bytes must not reach the terminal.
head -c 300 "$collsim" > "$tmp/binary.yaml"
expect "binary.yaml"                  predict --config "$tmp/binary.yaml"
printf 'name: "\x01\x02\xff"\nranks: [\n' > "$tmp/control.yaml"
expect "control.yaml"                 topo "$tmp/control.yaml"

# The GPU backends: where collsim-gpu-worker was built next to collsim, a machine without a
# GPU gets the worker's "no CUDA device: <why>"; where it was not, the launcher's "is not built".
if [ -x "$(dirname "$collsim")/collsim-gpu-worker" ] && ! command -v nvidia-smi >/dev/null; then
  expect "no CUDA device: "            run --backend cuda --ranks 2 --algo ring --bytes 4K
  expect "no CUDA device: "            run --backend nccl --ranks 2 --algo ring --bytes 4K
  expect "no CUDA device: "            calibrate --backend cuda --ranks 4
elif [ ! -e "$(dirname "$collsim")/collsim-gpu-worker" ]; then
  expect "backend 'cuda' is not built" run --backend cuda --ranks 2 --algo ring --bytes 4K
  expect "backend 'nccl' is not built" run --backend nccl --ranks 2 --algo ring --bytes 4K
fi
if [ ! -e "$(dirname "$collsim")/collsim-mpi-cuda-worker" ]; then
  expect "backend 'mpi+cuda' is not built" run --backend mpi+cuda --ranks 2 --algo ring --bytes 4K
fi

# The simgrid engine exists only in builds with SimGrid: the unknown-engine error lists what is built.
if "$collsim" predict --engine none 2>&1 | grep -q "simgrid"; then
  printf 'name: e\nlink_classes:\n  e: {bandwidth_Bps: 1e9}\ntopology: {kind: xgft, m: [4, 4], w: [1, 2], link: e}\nrouting: ecmp\ngamma_s_per_byte: 0\n' > "$tmp/ecmp.yaml"
  expect "engine 'simgrid' needs one route per rank pair (routing minimal or shortest-path), not ecmp" \
         predict --config "$tmp/ecmp.yaml" --engine simgrid --algo ring --bytes 1M
  expect "engine 'simgrid' shares links, and a flat network of 4194304 ranks has none built" \
         predict --engine simgrid --ranks 4194304 --bandwidth 1e9 --algo naive --bytes 1K
  expect "use --engine flow"            predict --preset fat-tree-2to1 --engine simgrid --detail
else
  expect "--engine: expected one of auto, analytic, flow, got 'simgrid'" predict --engine simgrid
fi

# Files that are not files: a device is refused before reading, a FIFO nobody writes reads as
# empty at once (never a hang), a file over the config bound is refused by its size alone.
mkfifo "$tmp/fifo"
expect "it is a device"               predict --config /dev/zero
expect "it is a device"               check --file /dev/zero
expect "it is a device"               validate --measured /dev/zero --preset dgx-h100
expect "it is a device"               calibrate --measured /dev/zero --preset dgx-h100
expect "empty: a cluster file must be a mapping" predict --config "$tmp/fifo"
expect "not valid JSON"               check --file "$tmp/fifo"
expect "empty file"                   validate --measured "$tmp/fifo" --preset dgx-h100
truncate -s 17M "$tmp/big.yaml"
expect "more than the 16777216 bytes allowed" predict --config "$tmp/big.yaml"
expect "more than the 16777216 bytes allowed" topo "$tmp/big.yaml"
"$collsim" predict --preset dgx-h100 --algo ring --bytes 1K,64K --format nccl-tests > "$tmp/ring.log"
expect "it is a device"               calibrate --measured "$tmp/ring.log" --config /dev/urandom
expect "more than the 16777216 bytes allowed" calibrate --measured "$tmp/ring.log" --config "$tmp/big.yaml"
expect "more than the 16777216 bytes allowed" validate --measured "$tmp/ring.log" --config "$tmp/big.yaml"
# Many link classes load in n log n: 300,000 classes (10 MB, under the 16 MiB bound), the last
# one broken, are read and refused within expect's 60 s.
python3 -c "
import sys
with open(sys.argv[1], 'w') as f:
    f.write('name: many\\nlink_classes:\\n')
    for i in range(300000): f.write('  c%d: {bandwidth_Bps: %s}\\n' % (i, '1.0e+9' if i < 299999 else '0'))
    f.write('topology: {kind: star, endpoints: 8, link: c0}\\ngamma_s_per_byte: 0\\n')
" "$tmp/many.yaml"
expect "link_classes.c299999.bandwidth_Bps" predict --config "$tmp/many.yaml"
expect "link_classes.c299999.bandwidth_Bps" topo "$tmp/many.yaml"
# A list of 4 million numbers (16 MB, under the byte bound) would take yaml-cpp gigabytes: the
# values are counted in the text first and the file refused at once, naming the line.
python3 -c "
import sys
with open(sys.argv[1], 'w') as f:
    f.write('name: list\\nranks: 8\\nlinks:\\n  inter_node: {alpha_s: 1.0e-6, bandwidth_Bps: 1.0e+9}\\nextra:\\n')
    f.write('- 1\\n' * 4000000)
" "$tmp/list.yaml"
expect "list.yaml:1000000: more than 1000000 values" predict --config "$tmp/list.yaml"

# Outputs checked before the work: an unwritable -o fails before measuring or fitting.
expect "its folder '$tmp/none' does not exist" calibrate --measured "$tmp/ring.log" --preset dgx-h100 -o "$tmp/none/fit.yaml"
expect "its folder '$tmp/none' does not exist" calibrate --backend mpi --ranks 2 -o "$tmp/none/cal.yaml"
expect "it is a folder"               calibrate --backend mpi --ranks 2 -o "$tmp"
# A missing or unusable TMPDIR names itself and the way out.
TMPDIR=$tmp/no-such-dir expect "cannot create a temporary folder in '$tmp/no-such-dir' (TMPDIR)" \
  run --backend mpi --ranks 2 --algo ring --bytes 4K
TMPDIR=$tmp/afile expect "set TMPDIR to a writable folder" run --backend mpi --ranks 2 --algo ring --bytes 4K

# Schedule files: made by collsim, then broken.
"$collsim" schedule ring --ranks 4 --bytes 1K -o "$tmp/ring.json"
head -c 300 "$tmp/ring.json" > "$tmp/truncated.json"
expect "not valid JSON"               check --file "$tmp/truncated.json"
sed 's/"deps":\[\]/"deps":[99]/' "$tmp/ring.json" > "$tmp/dangling.json"
expect "does not exist"               check --file "$tmp/dangling.json"
sed 's/"src":0,/"src":7,/' "$tmp/ring.json" > "$tmp/rank.json"
expect "names rank 7"                 check --file "$tmp/rank.json"
sed 's/"ranks":4,/"ranks":2147483648,/' "$tmp/ring.json" > "$tmp/huge.json"
expect "ranks must be 1..16777216"    check --file "$tmp/huge.json"
sed 's/"op":"copy"/"op":"xor"/' "$tmp/ring.json" > "$tmp/op.json"
expect "xor"                          check --file "$tmp/op.json"
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

# A valid schedule file is accepted.
cases=$((cases + 1))
if "$collsim" check --file "$tmp/ring.json" | grep -q '^valid: ring allreduce on 4 ranks'; then
  passed=$((passed + 1))
else
  failed=$((failed + 1)); echo "FAIL: a valid schedule file was not accepted"
fi

echo "$cases cases: $passed passed, $failed failed"
[ "$cases" -ge 100 ] || { echo "FAIL: the table holds $cases cases, fewer than 100"; exit 1; }
[ "$failed" -eq 0 ]
