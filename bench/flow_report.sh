#!/usr/bin/env bash
# bench/flow_report.sh BUILD_DIR [SIZES] — the flow engine's benchmark matrix: ring, two-tree
# and recursive-doubling allreduce (1 GiB) on a 3-level fat-tree and a dragonfly, one process
# per case (bench/bench_flow.cpp says what each prints). A case that runs past LIMIT seconds
# (default 900: the 16,384-rank dragonfly ring simulates 537 M transfers as events) is
# reported as such. Prints figures, asserts nothing: docs/performance.md
# holds the targets and the latest figures.
set -u
build=${1:?usage: bench/flow_report.sh BUILD_DIR [SIZES]}
sizes=${2:-256 1024 4096 16384}
limit=${LIMIT:-900}
# The partial shortcut's pair (docs/performance.md): one ring where two links are shared by two
# rank pairs each (dragonfly-shared: g = a*h) and one where none is (dragonfly-private), same
# ranks and links, streamed (BENCH_STREAM=1) so both pay the same generation.
for p in $sizes; do
  if [ "$p" != 4096 ] && [ "$p" != 16384 ]; then continue; fi
  for fabric in dragonfly-private dragonfly-shared; do
    BENCH_STREAM=1 timeout "$limit" "$build/bin/bench_flow" "$fabric" ring "$p"
    rc=$?
    if [ "$rc" -eq 124 ]; then echo "$fabric ring P=$p: did not finish in $limit s"; fi
  done
done
for fabric in fat-tree dragonfly; do
  for algo in ring two-tree recursive-doubling; do
    for p in $sizes; do
      timeout "$limit" "$build/bin/bench_flow" "$fabric" "$algo" "$p"
      rc=$?
      if [ "$rc" -eq 124 ]; then echo "$fabric $algo P=$p: did not finish in $limit s"; fi
    done
  done
done
