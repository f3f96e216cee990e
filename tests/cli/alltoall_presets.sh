#!/usr/bin/env bash
# tests/cli/alltoall_presets.sh COLLSIM — issue 36's "predict --algo all --collective alltoall
# works on every preset", in CI's seconds: on every preset, bruck (the algorithm that answers
# everywhere: streamed where large) prices 1K and 1M on the preset's default engine; on the
# largest (dgx-h100-2048, 16,384 ranks) --algo all exits 0, bruck answers and wins, and linear,
# pairwise and rail-alltoall, which cannot run there, are refused in their own rows with the reason (table,
# CSV and JSON); on a small one all four answer. bench/alltoall_presets.sh times the full loop.
set -u
collsim=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }

for preset in $("$collsim" topo --list); do
  if ! "$collsim" predict --preset "$preset" --collective alltoall --algo bruck --bytes 1K,1M --format csv \
      > "$tmp/csv" 2> "$tmp/err"; then
    fail "$preset: bruck exits non-zero: $(grep -m1 error "$tmp/err")"; continue
  fi
  if ! python3 - "$tmp/csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [r["algorithm"] for r in rows] == ["bruck", "bruck"], rows
for r in rows:
    assert r["refused"] == "" and float(r["time_s"]) >= 0, r
PY
  then fail "$preset: bruck's rows"; continue; fi
  passed=$((passed + 1))
done

# The largest preset: refusals in their rows, the rest answers, exit 0.
big="predict --preset dgx-h100-2048 --collective alltoall --algo all --bytes 1M"
if ! "$collsim" $big --format json > "$tmp/json" 2> "$tmp/err"; then
  fail "dgx-h100-2048 --algo all exits non-zero: $(grep -m1 error "$tmp/err")"
elif ! python3 - "$tmp/json" <<'PY'
import json, sys
rows = {r["algorithm"]: r for r in json.load(open(sys.argv[1]))}
assert set(rows) == {"linear", "pairwise", "bruck", "rail-alltoall"}, rows.keys()
# linear keeps all P(P-1) messages in flight, rail-alltoall P(M-1) of its second step;
# pairwise's 268 M transfers do not fit held.
for refused, why in (("linear", "in flight at once"), ("pairwise", "too large to build"),
                     ("rail-alltoall", "in flight at once")):
    r = rows[refused]
    assert why in r["refused"], r
    assert r["time_s"] is None and not r["winner"], r
assert "refused" not in rows["bruck"] and rows["bruck"]["time_s"] > 0 and rows["bruck"]["winner"], rows["bruck"]
assert rows["bruck"]["streamed"], rows["bruck"]
PY
then fail "dgx-h100-2048 --algo all: JSON rows"
else passed=$((passed + 1)); fi
"$collsim" $big > "$tmp/table" 2> /dev/null
[ "$(grep -c ' refused: ' "$tmp/table")" = 3 ] && grep -q 'bruck .*<- winner' "$tmp/table" \
  && passed=$((passed + 1)) || fail "dgx-h100-2048 --algo all: table rows"
"$collsim" $big --format csv > "$tmp/csv" 2> /dev/null
python3 - "$tmp/csv" <<'PY' && passed=$((passed + 1)) || fail "dgx-h100-2048 --algo all: CSV rows"
import csv, sys
rows = {r["algorithm"]: r for r in csv.DictReader(open(sys.argv[1]))}
assert "in flight at once" in rows["linear"]["refused"] and rows["linear"]["time_s"] == "", rows["linear"]
assert rows["bruck"]["refused"] == "" and float(rows["bruck"]["time_s"]) > 0, rows["bruck"]
PY

# A small preset: all four answer.
"$collsim" predict --preset dgx-h100-superpod-su --collective alltoall --algo all --bytes 1K,1M --format csv > "$tmp/csv" 2> /dev/null
python3 - "$tmp/csv" <<'PY' && passed=$((passed + 1)) || fail "dgx-h100-superpod-su --algo all: every algorithm answers"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert sorted(r["algorithm"] for r in rows) == sorted(["linear", "pairwise", "bruck", "rail-alltoall"] * 2), rows
assert all(r["refused"] == "" for r in rows), rows
PY

echo "$passed passed, $failed failed"
[ "$passed" -ge 14 ] && [ "$failed" -eq 0 ]
