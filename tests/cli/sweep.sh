#!/usr/bin/env bash
# tests/cli/sweep.sh COLLSIM CONFIGS — `collsim sweep` on local workers: the same results table
# on one worker and on all cores; after Ctrl-C and --resume; after a worker is killed (its
# point is given again); with a point whose worker always dies (marked failed, the rest
# priced, the next --resume prices it); a refused value (reported per point, the sweep goes
# on); a changed file (only the points it changed are priced again); progress on stderr only.
set -u
export COLLSIM_PROGRESS=0
collsim=$1
configs=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# 4 nodes x 2 tapers x 2 sizes x 3 algorithms = 48 points, some seconds of work
cat > "$tmp/s.yaml" <<'YAML'
name: t
base: {preset: dgx-h100-superpod-su}
axes:
  - {path: nodes.count, name: nodes, values: [2, 4, 8, 16]}
  - {path: topology.taper, name: taper, values: [[1, 1], [1, 0.5]], labels: ["1:1", "2:1"]}
request:
  algorithms: [ring, two-tree, nccl]
  sizes: 64K,1G
YAML

rows() { tail -n +2 "$1/results.csv" | wc -l; }
same_as_ref() {  # DIR WHAT
  cmp -s "$tmp/ref/results.csv" "$1/results.csv" || { fail "$2: results differ from the uninterrupted run"; diff "$tmp/ref/results.csv" "$1/results.csv" | head -5; }
}
# Waits until DIR/results.csv holds at least N rows (or 120 s).
wait_rows() {
  for _ in $(seq 1200); do
    [ -f "$1/results.csv" ] && [ "$(rows "$1")" -ge "$2" ] && return 0
    sleep 0.1
  done
  fail "no $2 rows in $1/results.csv after 120 s"
}

# The uninterrupted run, on all cores; then one worker: the same table.
"$collsim" sweep "$tmp/s.yaml" -o "$tmp/ref" > "$tmp/out" 2> "$tmp/err" || fail "sweep: exit $? ($(cat "$tmp/err"))"
[ "$(rows "$tmp/ref")" = 48 ] || fail "sweep: $(rows "$tmp/ref") rows, wanted 48"
[ "$(grep -c ',ok,' "$tmp/ref/results.csv")" = 48 ] || fail "sweep: not every point priced"
for f in winners.svg scaling.svg summary.md; do [ -s "$tmp/ref/$f" ] || fail "sweep: no $f"; done
grep -q '<rect' "$tmp/ref/winners.svg" || fail "winners.svg draws no cell"
grep -q '<path' "$tmp/ref/scaling.svg" || fail "scaling.svg draws no line"
grep -q '| nodes=16 taper=2:1 |' "$tmp/ref/summary.md" || fail "summary.md has no row for nodes=16 taper=2:1"
"$collsim" sweep "$tmp/s.yaml" -o "$tmp/one" --workers 1 > /dev/null 2>&1 || fail "sweep --workers 1: exit $?"
same_as_ref "$tmp/one" "--workers 1"

# Again into the same folder without --resume: refused, the table kept.
"$collsim" sweep "$tmp/s.yaml" -o "$tmp/ref" > /dev/null 2> "$tmp/err"
[ $? = 2 ] && grep -q "give --resume" "$tmp/err" || fail "a second sweep into a full folder: $(cat "$tmp/err")"

# Ctrl-C half-way, then --resume: the uninterrupted table, no worker left.
"$collsim" sweep "$tmp/s.yaml" -o "$tmp/int" --workers 1 > /dev/null 2> "$tmp/err" &
pid=$!
wait_rows "$tmp/int" 4
workers=$(pgrep -P "$pid")
kill -INT "$pid"
wait "$pid"
rc=$?
[ "$rc" = 2 ] && grep -q "interrupted by SIGINT" "$tmp/err" || fail "SIGINT: exit $rc, $(cat "$tmp/err")"
for w in $workers; do kill -0 "$w" 2> /dev/null && fail "SIGINT: worker $w left running"; done
kept=$(rows "$tmp/int")
[ "$kept" -lt 48 ] || fail "SIGINT came after the sweep ended: nothing was interrupted (make the sweep longer)"
ls -A "$tmp/int" | grep -q collsim- && fail "SIGINT left a temporary file: $(ls -A "$tmp/int")"
"$collsim" sweep "$tmp/s.yaml" -o "$tmp/int" --resume > "$tmp/out" 2>&1 || fail "--resume: exit $? ($(cat "$tmp/out"))"
grep -q "$kept from the results before" "$tmp/out" || fail "--resume did not reuse the $kept rows: $(cat "$tmp/out")"
same_as_ref "$tmp/int" "SIGINT, then --resume"

# A worker killed mid-sweep: its point is given again, the table is whole.
"$collsim" sweep "$tmp/s.yaml" -o "$tmp/kill" > /dev/null 2> "$tmp/err" &
pid=$!
wait_rows "$tmp/kill" 2
kill -KILL "$(pgrep -P "$pid" | head -n 1)"
wait "$pid" || fail "a killed worker ended the sweep: $(cat "$tmp/err")"
same_as_ref "$tmp/kill" "a worker killed"

# A point whose worker always dies: tried twice, marked failed, the others priced; exit 2 in one line.
COLLSIM_FAULT=sweep-worker-dies:5 "$collsim" sweep "$tmp/s.yaml" -o "$tmp/dies" > /dev/null 2> "$tmp/err"
rc=$?
[ "$rc" = 2 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -q "collsim: error: 1 of 48 points have no time.*died twice" "$tmp/err" ||
  fail "a point whose worker dies: exit $rc, $(cat "$tmp/err")"
grep -q '^5,.*,failed,.*died twice' "$tmp/dies/results.csv" || fail "point 5 is not marked failed"
[ "$(grep -c ',ok,' "$tmp/dies/results.csv")" = 47 ] || fail "a dying point stopped the others"
"$collsim" sweep "$tmp/s.yaml" -o "$tmp/dies" --resume > "$tmp/out" 2>&1 || fail "--resume after a failed point: $(cat "$tmp/out")"
grep -q "1 priced now, 47 from the results before" "$tmp/out" || fail "--resume did not price only the failed point: $(cat "$tmp/out")"
same_as_ref "$tmp/dies" "a failed point, then --resume"

# A changed file: the points it changed (taper 2:1 is now 4:1 under the same label) are priced again.
sed 's/\[1, 0.5\]/[1, 0.25]/' "$tmp/s.yaml" > "$tmp/changed.yaml"
cp -r "$tmp/ref" "$tmp/changed"
"$collsim" sweep "$tmp/changed.yaml" -o "$tmp/changed" --resume > "$tmp/out" 2>&1 || fail "changed file: $(cat "$tmp/out")"
grep -q "24 priced now, 24 from the results before" "$tmp/out" || fail "a changed file reused stale rows: $(cat "$tmp/out")"

# A value the config reader refuses: its points say why (with their values), the others run.
sed 's/values: \[2, 4, 8, 16\]/values: [0, 4]/' "$tmp/s.yaml" > "$tmp/zero.yaml"
"$collsim" sweep "$tmp/zero.yaml" -o "$tmp/zero" > /dev/null 2> "$tmp/err"
rc=$?
[ "$rc" = 2 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -q "12 of 24 points have no time.*nodes=0 taper=1:1" "$tmp/err" ||
  fail "a refused value: exit $rc, $(cat "$tmp/err")"
[ "$(grep -c ',refused,' "$tmp/zero/results.csv")" = 12 ] && [ "$(grep -c ',ok,' "$tmp/zero/results.csv")" = 12 ] ||
  fail "a refused value: wanted 12 refused and 12 priced rows"

# Progress: on stderr (done/total, rate), never on stdout.
COLLSIM_PROGRESS=1 "$collsim" sweep "$tmp/s.yaml" -o "$tmp/progress" > "$tmp/out" 2> "$tmp/err" || fail "progress run failed"
grep -q "of 48 done.*points/s" "$tmp/err" || fail "no progress on stderr: $(head -3 "$tmp/err")"
grep -q "done" "$tmp/out" && fail "progress on stdout"

exit $failed
