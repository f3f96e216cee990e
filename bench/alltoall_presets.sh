#!/usr/bin/env bash
# bench/alltoall_presets.sh BUILD_DIR [SIZE] [PRESET...] — issue 36's "predict --algo all
# --collective alltoall works on every preset": for each preset (default: every one in
# configs/), `collsim predict --preset P --collective alltoall --algo all --bytes SIZE`
# (default 1M) on the preset's default engine, under /usr/bin/time -v. Prints per preset the
# exit status, wall seconds and peak RSS against the target (300 s, 8 GB), and per algorithm
# its time or its refusal (the CSV's time_s and refused). Prints; asserts nothing:
# docs/performance.md holds the latest figures; tests/cli/alltoall_presets.sh is the CI loop.
set -u
build=${1:?usage: bench/alltoall_presets.sh BUILD_DIR [SIZE] [PRESET...]}
size=${2:-1M}
shift $(( $# > 1 ? 2 : 1 ))
here=$(cd "$(dirname "$0")/.." && pwd)
presets=${*:-$(ls "$here"/configs/*.yaml | xargs -n1 basename | sed 's/\.yaml$//')}
collsim=$build/bin/collsim
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "alltoall --algo all --bytes $size; load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
for p in $presets; do
  /usr/bin/time -v -o "$tmp/time" "$collsim" predict --preset "$p" --collective alltoall --algo all --bytes "$size" \
    --format csv > "$tmp/out" 2> "$tmp/err"
  rc=$?
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { print $2 }' "$tmp/time")
  kib=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$tmp/time")
  printf '%-26s exit %s  wall %8s  max RSS %5.2f GB  ' "$p" "$rc" "$wall" "$(awk -v k="$kib" 'BEGIN { print k * 1024 / 1e9 }')"
  [ "$rc" = 0 ] || { echo; grep -m1 error "$tmp/err"; continue; }
  # The refused column is the last, quoted, and may hold commas: the rows are read by the
  # first fields only, and a refusal shown by its start.
  awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
           { if ($col["time_s"] == "") printf " %s refused;", $col["algorithm"]
             else printf " %s %.3g s (%d transfers);", $col["algorithm"], $col["time_s"], $col["transfers"] }
           END { print "" }' "$tmp/out"
done
