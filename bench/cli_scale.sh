#!/usr/bin/env bash
# bench/cli_scale.sh BUILD_DIR — issue 21's question from the command line: 1 GiB allreduce on
# 16,384 H100s (configs/dgx-h100-2048.yaml: 2,048 DGX H100, 8 rails, 3-level NDR fat-tree),
# flow engine, one process per algorithm:
#   collsim predict --preset dgx-h100-2048 --bytes 1G --algo ALGO --engine flow --format csv [--channels C]
# CHANNELS=C passes --channels C (unset: predict's default, one channel per NIC where the
# algorithm takes channels: 8 for two-tree here; the ring, too large to hold with 8, streams 1;
# hierarchical-ring, 67 M transfers, streams as predict streams every schedule over 1e7 that can).
# under /usr/bin/time. Prints per algorithm the predicted time, the wall seconds and the peak
# RSS, then the totals against the target (<= 300 s and <= 8 GB together). Then the question as
# a user asks it, one command for the three (--algo ring,two-tree,hierarchical-ring): predict
# runs them side by side, one per core (--jobs 0), each starting when its memory fits; its wall
# time and peak RSS, and whether its three times are the separate runs'. A run past LIMIT
# seconds (default 900) is stopped and reported as not finished. Then the stretch: two-tree on
# 131,072 ranks of a 3-level fat-tree (bench/fat-tree-131072.yaml). Prints; asserts nothing:
# docs/performance.md ("16,384 H100s from the CLI") holds the latest figures.
set -u
build=${1:?usage: bench/cli_scale.sh BUILD_DIR}
limit=${LIMIT:-900}
algos=${ALGOS:-ring two-tree hierarchical-ring}
channels=${CHANNELS:-}
channel_args=()
[ -n "$channels" ] && channel_args=(--channels "$channels")
collsim=$build/bin/collsim
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
total_s=0
total_kib=0
max_kib=0
unfinished=0
gb() { awk -v k="$1" 'BEGIN { printf "%.2f", k * 1024 / 1e9 }'; }
# timed_predict ARGS...: one `collsim predict ... --bytes 1G --engine flow --format csv` under
# /usr/bin/time; sets wall (s), kib (peak RSS) and predicted (the time, or why there is none).
timed_predict() {
  COLLSIM_PROGRESS=${COLLSIM_PROGRESS:-0} /usr/bin/time -f '%e %M' -o "$tmp/time" \
    timeout "$limit" "$collsim" predict "$@" --bytes 1G --engine flow --format csv > "$tmp/out" 2> "$tmp/err"
  local rc=$?
  read -r wall kib < <(tail -1 "$tmp/time")
  case $rc in
    0) predicted=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) if ($i == "time_s") col = i }
                            NR == 2 { printf "%.4g s", $col }' "$tmp/out") ;;  # by name: columns come and go
    124) predicted="not finished in ${limit} s" ;;
    *) predicted="failed (exit $rc): $(grep -m1 error "$tmp/err")" ;;
  esac
  return $rc
}
echo "1 GiB allreduce on 16,384 H100s (preset dgx-h100-2048), flow engine, channels ${channels:-default}, one process each (limit ${limit} s):"
printf '  %-18s %12s %10s %12s\n' algorithm predicted "wall s" "peak RSS"
separate=()
for algo in $algos; do
  timed_predict --preset dgx-h100-2048 --algo "$algo" "${channel_args[@]}" || unfinished=1
  separate+=("$predicted")
  total_s=$(awk -v a="$total_s" -v b="$wall" 'BEGIN { print a + b }')
  total_kib=$((total_kib + kib))
  [ "$kib" -gt "$max_kib" ] && max_kib=$kib
  printf '  %-18s %12s %10.1f %9s GB\n' "$algo" "$predicted" "$wall" "$(gb "$kib")"
done
printf '  %-18s %12s %10.1f %9s GB   (the largest peak; the peaks add up to %s GB)\n' total "" "$total_s" "$(gb "$max_kib")" \
  "$(gb "$total_kib")"
echo "  target: <= 300 s and <= 8 GB together$([ "$unfinished" = 1 ] && echo '; some runs did not finish')"

# The same question in one command: the runs side by side, one per core.
one_command=$(echo $algos | tr ' ' ',')
timed_predict --preset dgx-h100-2048 --algo "$one_command" --jobs 0 "${channel_args[@]}"
together=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) if ($i == "time_s") col = i }
                    NR > 1 { printf "%s%.4g s", (NR > 2 ? ", " : ""), $col }' "$tmp/out")
before=$(IFS=,; echo "${separate[*]}" | sed 's/,/, /g')
echo "one command, --algo $one_command --jobs 0 ($(nproc) cores: the runs side by side):"
printf '  %-35s %10.1f %9s GB   (times %s: %s)\n' "$one_command" "$wall" "$(gb "$kib")" "$together" \
  "$([ "$together" = "$before" ] && echo "the separate runs' own" || echo "NOT the separate runs' ($before)")"

# The stretch: two-tree on 131,072 ranks of a 3-level fat-tree (bench/fat-tree-131072.yaml).
stretch=$(dirname "$0")/fat-tree-131072.yaml
timed_predict --config "$stretch" --algo two-tree
echo "stretch: two-tree, 1 GiB on 131,072 ranks of a 3-level fat-tree ($stretch):"
printf '  %-18s %12s %10.1f %9s GB   (target: <= 120 s)\n' two-tree "$predicted" "$wall" "$(gb "$kib")"
