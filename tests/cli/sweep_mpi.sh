#!/usr/bin/env bash
# tests/cli/sweep_mpi.sh COLLSIM — `collsim sweep --mpi 4` (mpirun, oversubscribed on a small
# machine) gives the table the local workers give; when the worker beside a rank is killed,
# its point is given again and the table is whole; when a whole rank is killed, mpirun ends
# the job, collsim says to resume (exit 2, one line), and --resume gives the same table.
# Skipped (77) where mpirun is missing.
set -u
export COLLSIM_PROGRESS=0
collsim=$1
command -v mpirun > /dev/null || { echo "SKIPPED: mpirun not found (apt-get install openmpi-bin)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

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

rows() { tail -n +2 "$1/results.csv" 2> /dev/null | wc -l; }
same_as_ref() {
  cmp -s "$tmp/ref/results.csv" "$1/results.csv" || { fail "$2: results differ from the local run"; diff "$tmp/ref/results.csv" "$1/results.csv" | head -5; }
}
wait_rows() {
  for _ in $(seq 1200); do
    [ "$(rows "$1")" -ge "$2" ] && return 0
    sleep 0.1
  done
  fail "no $2 rows in $1/results.csv after 120 s"
}
descendants() { local p; for p in $(pgrep -P "$1"); do echo "$p"; descendants "$p"; done; }
# The relay's ranks that price (they have a worker of their own): collsim -> mpirun -> ranks -> worker.
pricing_ranks() { local p; for p in $(descendants "$1"); do [ "$(ps -o comm= -p "$p")" = collsim-sweep-m ] && pgrep -P "$p" > /dev/null && echo "$p"; done; }

"$collsim" sweep "$tmp/s.yaml" -o "$tmp/ref" > /dev/null 2> "$tmp/err" || fail "local sweep: $(cat "$tmp/err")"
"$collsim" sweep "$tmp/s.yaml" -o "$tmp/mpi" --mpi 4 > "$tmp/out" 2> "$tmp/err" || fail "sweep --mpi 4: exit $? ($(cat "$tmp/err"))"
same_as_ref "$tmp/mpi" "--mpi 4"

# The worker beside one rank killed: its point is given again.
"$collsim" sweep "$tmp/s.yaml" -o "$tmp/worker" --mpi 4 > /dev/null 2> "$tmp/err" &
pid=$!
wait_rows "$tmp/worker" 2
rank=$(pricing_ranks "$pid" | head -n 1)
[ -n "$rank" ] && kill -KILL "$(pgrep -P "$rank" | head -n 1)"
wait "$pid" || fail "a killed worker ended the MPI sweep: $(cat "$tmp/err")"
same_as_ref "$tmp/worker" "--mpi 4 with a rank's worker killed"

# A rank killed: mpirun ends the job; collsim keeps the rows and says to resume.
"$collsim" sweep "$tmp/s.yaml" -o "$tmp/rank" --mpi 4 > /dev/null 2> "$tmp/err" &
pid=$!
wait_rows "$tmp/rank" 2
started=$(descendants "$pid")
kill -KILL "$(pricing_ranks "$pid" | head -n 1)"
wait "$pid"
rc=$?
if [ "$rc" = 0 ]; then
  echo "note: the sweep ended before the rank was killed"
else
  [ "$rc" = 2 ] && [ "$(grep -c 'collsim: error' "$tmp/err")" = 1 ] && grep -q "MPI job ended.*--resume" "$tmp/err" ||
    fail "a killed rank: exit $rc, $(cat "$tmp/err")"
  sleep 1
  for p in $started; do kill -0 "$p" 2> /dev/null && fail "a killed rank left process $p ($(ps -o args= -p "$p"))"; done
  "$collsim" sweep "$tmp/s.yaml" -o "$tmp/rank" --mpi 4 --resume > "$tmp/out" 2>&1 || fail "--mpi 4 --resume: $(cat "$tmp/out")"
fi
same_as_ref "$tmp/rank" "--mpi 4 with a rank killed, then --resume"

exit $failed
