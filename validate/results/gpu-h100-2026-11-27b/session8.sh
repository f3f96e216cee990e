#!/usr/bin/env bash
# Session 8's device call (issue 35): the prepared script, then the cuda backend's runs on
# more sizes (the per-transfer model's measurements), packed into OUT.
set -u
out=$1
here=$(cd "$(dirname "$0")" && pwd)
"$here/gpu-validate.sh" --budget 200 "$out/v"
w=$(mktemp -d); mkdir -p "$w/runs"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,clocks.max.sm,power.draw,temperature.gpu --format=csv > "$w/runs/clocks-before.csv" 2>&1
( while sleep 0.5; do nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,utilization.gpu --format=csv,noheader; done ) > "$w/runs/clocks-during.csv" 2>&1 &
mon=$!
for p in 2 4 8; do
  s=$(date +%s.%N)
  timeout -k 5 60 "$here/run.sh" collsim run --backend cuda --ranks $p --algo all --bytes 4K,16K,64K,256K,1M,4M,16M --iters 5 --warmup 2 --format csv > "$w/runs/run-p$p.csv" 2> "$w/runs/run-p$p.log"
  echo "run-p$p rc=$? $(awk -v a=$s -v b=$(date +%s.%N) 'BEGIN{print b-a}') s" >> "$w/runs/summary.txt"
done
kill $mon 2>/dev/null
timeout 60 "$here/run.sh" collsim-gpu-microbench --repeats 20 --max-bytes 64M > "$w/runs/microbench2.csv" 2> "$w/runs/microbench2.log"; echo "microbench2 rc=$?" >> "$w/runs/summary.txt"
tar -czf "$out/extra.tar.gz" -C "$w" runs
cat "$w/runs/summary.txt"
