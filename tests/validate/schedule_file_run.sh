#!/usr/bin/env bash
# tests/validate/schedule_file_run.sh COLLSIM — `run --schedule FILE` and `validate --schedule
# FILE` on MPI ranks: a schedule written by `collsim schedule` and read back runs as the
# built-in algorithm runs (the same row but for its times: segments, transfers, every result
# verified), and validate predicts and measures it as one case; collsim's ring and pairwise
# alltoall for 4 ranks written as MSCCL XML run verified with `run --msccl-xml`; a schedule
# whose chunks are not whole 4-byte floats, one the checker refuses, and a --ranks that is not
# the schedule's exit 2 with one line. An all-to-all-v (`schedule --matrix`) by linear and
# pairwise runs verified; one whose sizes are not whole floats is refused. An nvls-tree file
# runs verified, its switches emulated; a reducer count off its layout is refused, and so is
# validate on it.
set -u
collsim=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# CSV columns 1-8 and 14 (collective .. iterations, verified): all but the times.
same_run() {  # ALGO COLLECTIVE RANKS BYTES
  local algo=$1 collective=$2 ranks=$3 bytes=$4
  "$collsim" schedule "$algo" --collective "$collective" --ranks "$ranks" --bytes "$bytes" -o "$tmp/s.json"
  "$collsim" run --backend mpi --schedule "$tmp/s.json" --iters 2 --warmup 1 --no-reference --format csv 2> "$tmp/err" |
    cut -d, -f1-8,14 > "$tmp/file.csv"
  "$collsim" run --backend mpi --algo "$algo" --collective "$collective" --ranks "$ranks" --bytes "$bytes" --iters 2 \
    --warmup 1 --no-reference --format csv 2> /dev/null | cut -d, -f1-8,14 > "$tmp/builtin.csv"
  [ "$(wc -l < "$tmp/file.csv")" = 2 ] || fail "run --schedule ($algo): $(cat "$tmp/file.csv") $(grep -v warning "$tmp/err")"
  tail -n 1 "$tmp/file.csv" | grep -q ',1$' || fail "run --schedule ($algo): not verified: $(cat "$tmp/file.csv")"
  diff -u "$tmp/builtin.csv" "$tmp/file.csv" > /dev/null ||
    fail "run --schedule ($algo) differs from --algo: $(diff "$tmp/builtin.csv" "$tmp/file.csv")"
}
same_run ring allreduce 2 64K
same_run two-tree allreduce 2 4K
same_run rabenseifner allreduce 3 1200
same_run bruck alltoall 2 4K

# all-to-all-v: unequal sizes per pair (one empty), written by `schedule --matrix`, run verified
printf '# bytes from row to column\nto0,to1,to2\n0,64,4\n128,0,256\n12,40,0\n' > "$tmp/m.csv"
for algo in linear pairwise; do
  "$collsim" schedule "$algo" --collective alltoall --ranks 3 --matrix "$tmp/m.csv" -o "$tmp/v.json" ||
    fail "schedule $algo --matrix exited $?"
  "$collsim" run --backend mpi --schedule "$tmp/v.json" --iters 2 --warmup 1 --no-reference --format csv 2> "$tmp/err" |
    cut -d, -f1-5,14 > "$tmp/v.csv"
  [ "$(tail -n 1 "$tmp/v.csv")" = "alltoall,$algo,mpi,3,384,1" ] ||
    fail "run --schedule (all-to-all-v, $algo): $(cat "$tmp/v.csv") $(grep -v warning "$tmp/err")"
done

# MSCCL XML: the ring for 4 ranks, written out and run, every result verified
"$collsim" schedule ring --ranks 4 --bytes 64K --format msccl-xml -o "$tmp/ring.xml"
"$collsim" run --backend mpi --msccl-xml "$tmp/ring.xml" --bytes 64K --iters 2 --warmup 1 --no-reference --format csv \
  2> "$tmp/err" | cut -d, -f1-8,14 > "$tmp/xml.csv"
[ "$(tail -n 1 "$tmp/xml.csv")" = "allreduce,ring,mpi,4,65536,1,24,2,1" ] ||
  fail "run --msccl-xml ring.xml: $(cat "$tmp/xml.csv") $(grep -v warning "$tmp/err")"
# and an alltoall (pairwise, 4 ranks) the same way
"$collsim" schedule pairwise --collective alltoall --ranks 4 --bytes 64K --format msccl-xml -o "$tmp/a2a.xml"
"$collsim" run --backend mpi --msccl-xml "$tmp/a2a.xml" --bytes 64K --iters 2 --warmup 1 --no-reference --format csv \
  2> "$tmp/err" | cut -d, -f1-8,14 > "$tmp/xml.csv"
[ "$(tail -n 1 "$tmp/xml.csv" | cut -d, -f1-5)" = "alltoall,pairwise,mpi,4,65536" ] ||
  fail "run --msccl-xml a2a.xml: $(cat "$tmp/xml.csv") $(grep -v warning "$tmp/err")"

# validate: one case, predicted and measured, the report naming the schedule
"$collsim" schedule ring --ranks 2 --bytes 64K -o "$tmp/r2.json"
"$collsim" validate --backend mpi --schedule "$tmp/r2.json" --iters 1 --warmup 0 --max-bytes 16K -o "$tmp/report" \
  > "$tmp/out" 2> "$tmp/err" || fail "validate --schedule exited $?: $(tail -n 3 "$tmp/err")"
grep -q "^collsim validate: 1 cases" "$tmp/out" || fail "validate --schedule: $(cat "$tmp/out")"
[ "$(cut -d, -f1-3 "$tmp/report/results.csv" | tail -n +2)" = "ring,2,65536" ] ||
  fail "validate --schedule rows: $(cat "$tmp/report/results.csv")"
grep -q "FILE is a ring allreduce on 2 ranks, 65536 bytes" "$tmp/report/results.md" || fail "results.md does not name the schedule"

expect_error() {  # FRAGMENT ARGS...: exit 2, one line, naming the problem
  local fragment=$1; shift
  "$collsim" "$@" > /dev/null 2> "$tmp/err"
  local rc=$?
  [ "$rc" = 2 ] || fail "$* exited $rc, not 2"
  [ "$(wc -l < "$tmp/err")" = 1 ] || fail "$*: not one line: $(cat "$tmp/err")"
  grep -qF -- "$fragment" "$tmp/err" || fail "$*: '$fragment' not in: $(cat "$tmp/err")"
}
"$collsim" schedule ring --ranks 3 --bytes 1K -o "$tmp/r3.json"  # chunks of 341 and 342 bytes
expect_error "is not whole 4-byte floats" run --backend mpi --schedule "$tmp/r3.json"
sed 's/"deps":\[1\]/"deps":[]/' "$tmp/r2.json" > "$tmp/broken.json"
expect_error "is not a correct allreduce" run --backend mpi --schedule "$tmp/broken.json"
printf '0,2,2\n2,0,2\n2,2,0\n' > "$tmp/m2.csv"  # rows of 4 bytes, pairs of 2: not whole floats
"$collsim" schedule linear --collective alltoall --ranks 3 --matrix "$tmp/m2.csv" -o "$tmp/v2.json"
expect_error "every size in its matrix as a multiple of 4 bytes" run --backend mpi --schedule "$tmp/v2.json"
expect_error "the schedule is for 2 ranks, not 4: give --ranks 2" run --backend mpi --schedule "$tmp/r2.json" --ranks 4
expect_error "--algo excludes --schedule" run --backend mpi --schedule "$tmp/r2.json" --algo ring
expect_error "the schedule is for 2 ranks: give --ranks 2" validate --backend mpi --schedule "$tmp/r2.json" --ranks 4
# in-network: a schedule file names its own switches (no cluster needed), each run as one
# more process; a reducer count off its layout, or short of the ids its transfers name, is
# refused; validate refuses the emulated switches' times
"$collsim" schedule nvls-tree --ranks 4 --ranks-per-node 2 --bytes 4K -o "$tmp/nt.json"
"$collsim" run --backend mpi --schedule "$tmp/nt.json" --iters 2 --warmup 1 --no-reference --format csv 2> "$tmp/err" |
  cut -d, -f1-5,14 > "$tmp/nt.csv"
[ "$(tail -n 1 "$tmp/nt.csv")" = "allreduce,nvls-tree,mpi,4,4096,1" ] ||
  fail "run --schedule (nvls-tree, 2 switches): $(cat "$tmp/nt.csv") $(grep -v warning "$tmp/err")"
grep -q "^collsim run: note: nvls-tree reduces in switches, each emulated by one more process" "$tmp/err" ||
  fail "run --schedule (nvls-tree): no note on the emulated switches: $(cat "$tmp/err")"
sed 's/"reducers":2/"reducers":5/' "$tmp/nt.json" > "$tmp/nt5.json"
expect_error "the schedule names 5 switch reducers, but its 4 ranks (2 to a node) have 2 node switches" \
  run --backend mpi --schedule "$tmp/nt5.json"
sed 's/"reducers":2/"reducers":1/' "$tmp/nt.json" > "$tmp/nt1.json"
expect_error "names rank 5 but the schedule has 4 ranks and 1 switch reducers" run --backend mpi --schedule "$tmp/nt1.json"
expect_error "nvls-tree reduces in switches, which a run only emulates" validate --backend mpi --schedule "$tmp/nt.json"
[ "$failed" = 0 ] && echo "ok: run and validate --schedule"
exit "$failed"
