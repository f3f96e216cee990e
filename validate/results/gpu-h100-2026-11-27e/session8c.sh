#!/usr/bin/env bash
# Session 8's second device call (issue 35): the prepared script with the host's issue in the
# model, then validate once more (how much the figure moves between two validations).
set -u
out=$1
here=$(cd "$(dirname "$0")" && pwd)
"$here/gpu-validate.sh" --budget 230 "$out/v"
w=$(mktemp -d)
s=$(date +%s.%N)
timeout -k 5 150 "$here/run.sh" collsim validate --backend cuda --ranks 2,4,8 --bytes 4K,16K,64K,256K,1M,4M,16M -o "$w/validate2" > "$w/validate2.log" 2>&1
echo "validate2 rc=$? $(awk -v a=$s -v b=$(date +%s.%N) 'BEGIN{print b-a}') s" | tee "$w/summary2.txt"
tar -czf "$out/extra.tar.gz" -C "$w" .
grep -h "median" "$w/validate2.log" | tail -3
