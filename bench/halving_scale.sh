#!/usr/bin/env bash
# bench/halving_scale.sh BUILD_DIR [RANKS...] — issue 36's chunk ranges from the command line:
#   collsim predict --ranks P --bandwidth 25e9 --alpha 1e-6 --algo rabenseifner,recursive-doubling --bytes 1G
# under /usr/bin/time -v, one process per P (default 8192 16384 65536). Prints per P the wall
# seconds and peak RSS against the target (65,536 ranks: <= 30 s and <= 4 GB), and each
# algorithm's time on the analytic engine (a flat network's) beside its closed form (the CSV's
# time_s and closed_form_s) and
# their relative difference. Then `collsim check` of both at the largest P (the proof on each
# rank's pieces). Prints; asserts nothing: docs/performance.md holds the latest figures.
set -u
build=${1:?usage: bench/halving_scale.sh BUILD_DIR [RANKS...]}
shift
sizes=${*:-8192 16384 65536}
collsim=$build/bin/collsim
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
for p in $sizes; do
  /usr/bin/time -v -o "$tmp/time" "$collsim" predict --ranks "$p" --bandwidth 25e9 --alpha 1e-6 \
    --algo rabenseifner,recursive-doubling --bytes 1G --format csv > "$tmp/out" 2> "$tmp/err"
  rc=$?
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { print $2 }' "$tmp/time")
  kib=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$tmp/time")
  printf 'P=%-6s exit %s  wall %s  max RSS %.2f GB\n' "$p" "$rc" "$wall" "$(awk -v k="$kib" 'BEGIN { print k * 1024 / 1e9 }')"
  [ "$rc" = 0 ] || { grep -m1 error "$tmp/err"; continue; }
  awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
           { a = $col["time_s"]; c = $col["closed_form_s"]
             printf "  %-20s analytic %.9g s  closed form %.9g s  relative difference %.1e\n",
                    $col["algorithm"], a, c, (a > c ? a - c : c - a) / c }' "$tmp/out"
done
largest=$(echo "$sizes" | tr ' ' '\n' | sort -n | tail -1)
for algo in rabenseifner recursive-doubling; do
  /usr/bin/time -f '%e %M' -o "$tmp/time" "$collsim" check "$algo" --ranks "$largest" --bytes 1G > "$tmp/out" 2>&1
  read -r wall kib < "$tmp/time"
  printf 'check %s P=%s: %s s, %.2f GB: %s\n' "$algo" "$largest" "$wall" "$(awk -v k="$kib" 'BEGIN { print k * 1024 / 1e9 }')" \
    "$(tail -1 "$tmp/out" | cut -c1-60)"
done
