#!/usr/bin/env bash
# bench/simgrid_report.sh BUILD_DIR [SIZES] — the flow engine and SimGrid side by side
# (bench/bench_simgrid.cpp): ring and two-tree allreduce of 64 MiB on a 3-level fat-tree and a
# dragonfly, P = 64, 256, 1024 (or SIZES), one process per case, each engine in a child of its
# own. Prints a markdown table on stdout and progress on stderr. A case that runs past LIMIT
# seconds (default 1800) is reported as such. Asserts nothing: docs/performance.md holds the
# figures ("Flow engine vs SimGrid").
set -u
build=${1:?usage: bench/simgrid_report.sh BUILD_DIR [SIZES]}
sizes=${2:-64 256 1024}
limit=${LIMIT:-1800}
bench="$build/bin/bench_simgrid"
if [ ! -x "$bench" ]; then
  echo "simgrid_report: skipped ($bench is not built: collsim was configured without SimGrid)"
  exit 0
fi
echo "| scenario | P | transfers | flow wall s | flow peak RSS MB | simgrid wall s | simgrid peak RSS MB | simgrid/flow | flow predicted s | simgrid predicted s | rel. diff |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for fabric in fat-tree dragonfly; do
  for algo in ring two-tree; do
    for p in $sizes; do
      echo "simgrid_report: $fabric $algo P=$p ..." >&2
      timeout "$limit" "$bench" "$fabric" "$algo" "$p"
      rc=$?
      if [ "$rc" -eq 124 ]; then echo "| $fabric $algo 64M | $p | did not finish in $limit s | | | | | | | | |"; fi
    done
  done
done
