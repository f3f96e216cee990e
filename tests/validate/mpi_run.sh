#!/usr/bin/env bash
# tests/validate/mpi_run.sh COLLSIM RANKS [BACKEND] — `collsim run --backend mpi` (or
# BACKEND, e.g. mpi+cuda with COLLSIM_DEVICE=emulated in the environment) executes every
# algorithm of a collective on RANKS real MPI processes: each must finish and report one row
# per algorithm and size, every result verified and every time positive; with more ranks than
# cores, a warning that says so (and none otherwise). At P = 4 also
# hierarchical-ring, nccl-tree and rail-alltoall (2 ranks per node) and ring, tree, two-tree, nccl-tree in 2 channels, and the ring on the
# 4-GPU A100 mesh's searched rings, and the in-network algorithms on presets whose switches reduce, each switch emulated
# by one more process (nvls-tree on 2 nodes of 2, nvls on 4 ranks, collnet on SHARP), a note saying so, and the
# oversubscription warning counting those processes; at P = 3 the other collectives, alltoall included.
set -u
collsim=$1
ranks=$2
backend=${3:-mpi}
failed=0
err=$(mktemp)
trap 'rm -f "$err"' EXIT

# The algorithms `collsim algorithms` lists for a collective (hierarchical-ring and rail-alltoall need nodes;
# in-network ones need switches that reduce, which "all" leaves out on ranks).
algorithms_of() {
  "$collsim" algorithms | awk -v c="$1" '/^[a-z]/ {name = $1} /collectives:/ && $0 ~ (" " c "(,|;|$)") && !/switches that reduce/ {print name}' |
    grep -v -e hierarchical-ring -e rail-alltoall | grep -c .
}

# check_run ROWS "<what>" args...: exit 0, ROWS CSV rows, all verified with positive times.
# SWITCHES=R before it: the run emulates R switch reducers, as R more processes.
check_run() {
  local want=$1 what=$2 switches=${SWITCHES:-0}
  shift 2
  local out rc rows bad
  out=$(timeout 120 "$collsim" run --backend "$backend" --ranks "$ranks" --iters 2 --warmup 1 --format csv "$@" 2>"$err")
  rc=$?
  # more processes than cores (all on this machine, no hostfile): one warning says so; else none
  local cores processes=$((ranks + switches)) counted="$ranks ranks"
  cores=$(getconf _NPROCESSORS_ONLN)  # as std::thread::hardware_concurrency counts them
  case " $* " in *" --hostfile "*) cores=$processes ;; esac
  [ "$switches" -gt 0 ] && counted="$processes processes ($ranks ranks and $switches emulated switch"
  if [ "$processes" -gt "$cores" ] && ! grep -qF "collsim run: warning: $counted" "$err"; then
    echo "FAIL ($what): $processes processes on $cores cores and no oversubscription warning: $(cat "$err")"
    failed=$((failed + 1))
  elif [ "$processes" -le "$cores" ] && grep -q "cores of this machine" "$err"; then
    echo "FAIL ($what): an oversubscription warning with $processes processes on $cores cores"
    failed=$((failed + 1))
  fi
  # emulated switches: a note says so (the times are the ranks' alone); none otherwise
  if [ "$switches" -gt 0 ] && ! grep -q "^collsim run: note: .* in switches, each emulated by one more process" "$err"; then
    echo "FAIL ($what): no note on the emulated switches: $(cat "$err")"
    failed=$((failed + 1))
  elif [ "$switches" -eq 0 ] && grep -q "^collsim run: note:" "$err"; then
    echo "FAIL ($what): a note on emulated switches where none ran: $(cat "$err")"
    failed=$((failed + 1))
  fi
  out="$out
$(grep -v -e '^collsim run: warning:' -e '^collsim run: note:' "$err")"
  rows=$(printf '%s\n' "$out" | tail -n +2 | grep -c .)
  bad=$(printf '%s\n' "$out" | tail -n +2 | awk -F, '$14 != 1 || $10 <= 0' | grep -c .)
  if [ "$rc" -ne 0 ] || [ "$rows" -ne "$want" ] || [ "$bad" -ne 0 ]; then
    echo "FAIL ($what): exit $rc, $rows rows (wanted $want), $bad unverified or non-positive:"
    echo "$out"
    failed=$((failed + 1))
  fi
}

# allreduce: 3 sizes (one element; sizes not multiples of P or 13), plus MPI_Allreduce per size
n=$(algorithms_of allreduce)
[ "$n" -ge 7 ] || { echo "FAIL: only $n allreduce algorithms listed"; exit 1; }
check_run $(( (n + 1) * 3 )) "allreduce, every algorithm" --algo all --bytes 4,1028,64K
if [ "$ranks" -eq 4 ]; then
  check_run 2 "hierarchical-ring" --algo hierarchical-ring --ranks-per-node 2 --bytes 4K,64K --no-reference
  check_run 2 "nccl-tree: a chain in each node of 2" --algo nccl-tree --ranks-per-node 2 --bytes 4K,1028 --no-reference
  # 2 nodes of 2: blocks staged on the rail's GPU, then one message per rail peer; 1028 bytes leave 4 over
  check_run 2 "rail-alltoall on 2 nodes of 2" --collective alltoall --algo rail-alltoall --ranks-per-node 2 --bytes 4K,1028 --no-reference
  # channels: two instances on halves of the buffer, rank orders rotated within nodes of 2
  check_run 8 "ring, tree, two-tree, nccl-tree in 2 channels" --algo ring,tree,two-tree,nccl-tree --channels 2 --ranks-per-node 2 \
    --bytes 4K,1028 --no-reference
  # a switchless NVLink mesh: the ring's 12 channels over the rings the search finds on the 4-GPU A100 board
  check_run 2 "ring on hgx-a100-4gpu's 12 searched rings" --algo ring --preset hgx-a100-4gpu --bytes 4K,1028 --no-reference
  # in-network: every switch reducer is one more process running its program, the results verified on the ranks
  SWITCHES=2 check_run 2 "nvls-tree on 2 nodes of 2, its 2 node switches emulated" --algo nvls-tree --ranks-per-node 2 \
    --preset dgx-h100 --bytes 4K,1028 --no-reference
  # with MPI_Allreduce beside it, which runs on the 4 ranks alone
  SWITCHES=1 check_run 4 "nvls on 4 ranks, its switch emulated" --algo nvls --preset dgx-h100 --bytes 4K,1028
  SWITCHES=3 check_run 2 "collnet on 2 nodes of 2, its 2 node switches and SHARP switch emulated" --algo collnet \
    --ranks-per-node 2 --preset dgx-h100-superpod-su --bytes 4K,1028 --no-reference
  # "all" on a cluster whose switches reduce takes them in (nvls needs one node, so not on nodes of 2)
  SWITCHES=3 check_run $(( $(algorithms_of allreduce) + 3 )) "every allreduce on dgx-h100-superpod-su, nodes of 2" \
    --algo all --ranks-per-node 2 --preset dgx-h100-superpod-su --bytes 1028 --no-reference
fi
if [ "$ranks" -eq 3 ]; then
  for c in reduce-scatter allgather broadcast reduce alltoall; do
    check_run $(( $(algorithms_of "$c") * 2 )) "$c" --collective "$c" --bytes 4K,1028
  done
fi
if [ "$ranks" -eq 2 ]; then  # a hostfile (here this node only): the path runs across nodes take
  hostfile=$(mktemp)
  echo "localhost slots=$ranks" > "$hostfile"
  check_run 1 "--hostfile" --algo ring --bytes 64K --no-reference --hostfile "$hostfile"
  rm -f "$hostfile"
fi
[ "$failed" -eq 0 ] && echo "$backend run on $ranks ranks${COLLSIM_DEVICE:+ (COLLSIM_DEVICE=$COLLSIM_DEVICE)}: every result verified"
exit "$failed"
