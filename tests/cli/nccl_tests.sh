#!/usr/bin/env bash
# tests/cli/nccl_tests.sh COLLSIM CONFIGS — nccl-tests logs through the command line. The
# "measured" logs are collsim's own predictions (predict --format nccl-tests), never invented
# numbers: validate --measured must find them equal to the predictions they came from, for
# every collective (alltoall included); calibrate --measured must recover a link efficiency changed in the config
# that wrote the log (one node: NVLink; two nodes: InfiniBand); and malformed logs, made here
# by hand or by cutting a written one, must end with exit 2 and one line naming the line.
set -u
export COLLSIM_PROGRESS=0
collsim=$1
configs=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# ---- validate --measured: a log read back equals the prediction that wrote it --------------
"$collsim" predict --preset dgx-h100 --algo ring --bytes 8,64K,1M,16M,256M --format nccl-tests > "$tmp/ring.log" ||
  fail "predict --format nccl-tests"
out=$("$collsim" validate --measured "$tmp/ring.log" --preset dgx-h100 --algo ring -o "$tmp/report")
[ "$out" = "collsim validate: 5 cases, median |error| 0.0%, p90 |error| 0.0% -> $tmp/report" ] || fail "round trip: $out"
for f in results.csv results.md plot.svg busbw.svg machine.md; do [ -s "$tmp/report/$f" ] || fail "report has no $f"; done
# busbw against size, as nccl-tests users read it: measured and predicted lines of ring's 5 sizes
[ "$(grep -c '<polyline class="measured"' "$tmp/report/busbw.svg")" = 1 ] || fail "busbw.svg: no measured line"
[ "$(grep -c '<polyline class="predicted"' "$tmp/report/busbw.svg")" = 1 ] || fail "busbw.svg: no predicted line"
[ "$(grep -c '<circle class="measured"' "$tmp/report/busbw.svg")" = 5 ] || fail "busbw.svg: not one point per size"
grep -q '>busbw (GB/s)<' "$tmp/report/busbw.svg" || fail "busbw.svg: no busbw axis"
# 8 ranks are drawn as open squares: so is the legend's swatch, and no shape is named that is not drawn
legend=$(sed -n '/<g class="legend">/,/<\/g>/p' "$tmp/report/plot.svg")
grep -q '<rect x="541' <<< "$legend" || fail "plot.svg: the legend's swatch is not the open square the points are"
grep -q '<circle' <<< "$legend" && fail "plot.svg: the legend shows a filled circle that no point uses"
# Every case within the printed digits (two decimals of a microsecond, at most 5e-5 relative).
bad=$(awk -F, 'NR > 1 && ($6 > 0.01 || $6 < -0.01)' "$tmp/report/results.csv")
[ -z "$bad" ] || fail "round-trip errors above 0.01%: $bad"
[ "$(grep -c '^ring,8,' "$tmp/report/results.csv")" = 5 ] || fail "results.csv: expected 5 ring rows on 8 ranks"

for collective in allreduce allgather reduce-scatter broadcast reduce alltoall; do
  "$collsim" predict --preset dgx-h100 --collective "$collective" --algo nccl --bytes 1K,1M,64M --format nccl-tests \
    > "$tmp/$collective.log" || fail "predict --collective $collective --format nccl-tests"
  "$collsim" validate --measured "$tmp/$collective.log" --preset dgx-h100 -o "$tmp/$collective" > /dev/null ||
    fail "validate --measured $collective.log"
  [ "$(grep -c . "$tmp/$collective/results.csv")" = 4 ] || fail "$collective: expected 3 cases"
  # Within the printed digits: half of 0.01 us, or 5e-5 of the time.
  bad=$(awk -F, 'NR > 1 {d = $4 - $5; if (d < 0) d = -d; if (d > 5e-9 + 5e-5 * $5) print}' "$tmp/$collective/results.csv")
  [ -z "$bad" ] || fail "$collective: read back beyond the printed digits: $bad"
done

# ---- calibrate --measured: the efficiency the log was predicted with comes back -------------
# within_one_percent FILE CLASS WANTED: the fitted YAML's efficiency of CLASS.
within_one_percent() {
  local got
  got=$(awk -v c="  $2:" '$0 == c {f = 1; next} f && /^  [^ ]/ {f = 0} f && $1 == "efficiency:" {print $2; exit}' "$1")
  awk -v g="${got:-nan}" -v w="$3" 'BEGIN {d = g / w - 1; exit !(d < 0.01 && d > -0.01)}' ||
    fail "$1: $2 efficiency ${got:-missing}, wanted $3 within 1%"
}
sed 's/^  nvlink4:$/  nvlink4:\n    efficiency: 0.7/' "$configs/dgx-h100.yaml" > "$tmp/node-0.7.yaml"
"$collsim" predict --config "$tmp/node-0.7.yaml" --algo ring --bytes 8,64K,1M,16M,256M --format nccl-tests > "$tmp/node.log"
"$collsim" calibrate --measured "$tmp/node.log" --preset dgx-h100 --algo ring -o "$tmp/node-fit.yaml" > "$tmp/out" ||
  fail "calibrate --measured one node: $(cat "$tmp/out")"
within_one_percent "$tmp/node-fit.yaml" nvlink4 0.7
# The flat form has no link classes to fit: refused by its config, in one line, with what to write instead.
printf 'name: f\nranks: 8\nlinks:\n  inter_node: {alpha_s: 1.0e-6, bandwidth_Bps: 1.0e+9}\ngamma_s_per_byte: 0\n' > "$tmp/flat.yaml"
err=$("$collsim" calibrate --measured "$tmp/ring.log" --config "$tmp/flat.yaml" 2>&1 >/dev/null)
[ $? = 2 ] && [[ "$err" == "collsim: error: "*"is a flat network (links: inter_node/intra_node): calibrate --measured fits link classes"* ]] ||
  fail "calibrate --measured on the flat form: $err"
grep -q "nvlink4 efficiency 0.824 -> 0.7" "$tmp/out" || fail "calibrate summary: $(cat "$tmp/out")"
grep -q "^#   line .*measured .*before .*fitted" "$tmp/node-fit.yaml" || fail "fitted YAML lacks the per-size residuals"
"$collsim" predict --config "$tmp/node-fit.yaml" --algo ring --bytes 16M > /dev/null || fail "the fitted YAML does not load"

# Without PXN: with it, a NIC carries one channel and a GPU's NVLink all eight at about the
# same rate (docs/algorithms.md, Channels), so a two-node ring's times cannot tell ib-ndr's
# efficiency from nvlink4's, and the fit lowers whichever binds first.
sed 's/^  rail_optimized: true$/  rail_optimized: true\n  pxn: false/' "$configs/dgx-h100-superpod-su.yaml" > "$tmp/pod.yaml"
sed 's/^  ib-ndr:$/  ib-ndr:\n    efficiency: 0.8/' "$tmp/pod.yaml" > "$tmp/pod-0.8.yaml"
"$collsim" predict --config "$tmp/pod-0.8.yaml" --ranks 16 --algo ring --bytes 8,64K,1M,16M,256M --format nccl-tests \
  > "$tmp/two-nodes.log"
[ "$(grep -c '^#  Rank .* on      node1 ' "$tmp/two-nodes.log")" = 8 ] || fail "two-node log: expected 8 GPU lines on node1"
"$collsim" calibrate --measured "$tmp/two-nodes.log" --config "$tmp/pod.yaml" --algo ring -o "$tmp/pod-fit.yaml" \
  > "$tmp/out" || fail "calibrate --measured two nodes: $(cat "$tmp/out")"
within_one_percent "$tmp/pod-fit.yaml" ib-ndr 0.8
grep -q "^  reliable: true" "$tmp/pod-fit.yaml" || fail "a fit that matches its log is not marked reliable"
# Fitting another algorithm than the one that ran cannot match the log: said on stderr and in
# the YAML, whose loading then warns.
"$collsim" calibrate --measured "$tmp/two-nodes.log" --preset dgx-h100-superpod-su --algo binomial -o "$tmp/wrong.yaml" \
  > /dev/null 2> "$tmp/err" || fail "calibrate --algo binomial on a ring log"
grep -q "^collsim calibrate: warning: the fitted model is still .* off the log" "$tmp/err" || fail "no warning: $(cat "$tmp/err")"
grep -q "^  reliable: false" "$tmp/wrong.yaml" || fail "a fit far off its log is not marked unreliable"
"$collsim" predict --config "$tmp/wrong.yaml" --algo ring --bytes 1M 2>&1 >/dev/null | grep -q "flagged unreliable" ||
  fail "predict does not warn about an unreliable fit"

# ---- malformed logs: exit 2, one line, the file and line --------------------------------------
# expect_error FRAGMENT FILE: validate and calibrate both refuse FILE with FRAGMENT.
expect_error() {
  local fragment=$1 file=$2 command err rc
  for command in validate calibrate; do
    err=$("$collsim" "$command" --measured "$file" --preset dgx-h100 -o "$tmp/unused-$command" 2>&1 >/dev/null)
    rc=$?
    if [ "$rc" != 2 ] || [ "$(printf '%s\n' "$err" | grep -c .)" != 1 ] || [[ "$err" != *"$fragment"* ]]; then
      fail "$command --measured $(basename "$file"): exit $rc: $err (wanted '$fragment')"
    fi
  done
}
: > "$tmp/empty.log"
expect_error "empty.log:1: empty file" "$tmp/empty.log"
head -c 200 "$collsim" > "$tmp/binary.log"
expect_error "binary.log:1: byte 0x7f: binary data" "$tmp/binary.log"
printf '%s\n' '---------------------------------------------------------------------------------------' \
  '                    RDMA_Write BW Test' \
  ' #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]' \
  ' 65536      5000             11502.12            11500.35\t\t   0.184006' > "$tmp/ib_write_bw.log"
expect_error "ib_write_bw.log:4: a line of numbers before any nccl-tests column titles" "$tmp/ib_write_bw.log"
data=$(grep -n '^ *1048576 ' "$tmp/allreduce.log" | cut -d: -f1)
sed "${data}s/ *[^ ]* *[^ ]* *[^ ]* *N\/A\$//" "$tmp/allreduce.log" > "$tmp/cut.log"
expect_error "cut.log:$data: 9 columns, expected 13" "$tmp/cut.log"
sed "${data}s/N\/A\$/N\/A  0/" "$tmp/allreduce.log" > "$tmp/extra.log"
expect_error "extra.log:$data: 14 columns" "$tmp/extra.log"
awk -v n="$data" 'NR == n {$6 = "fast"} {print}' "$tmp/allreduce.log" > "$tmp/word.log"
expect_error "word.log:$data: time 'fast' is not a number" "$tmp/word.log"
sed 's/all_reduce_perf/sendrecv_perf/' "$tmp/allreduce.log" > "$tmp/sendrecv.log"
expect_error "sendrecv.log:1: 'sendrecv_perf' is not a collective collsim models" "$tmp/sendrecv.log"
grep -v '^ *[0-9]' "$tmp/allreduce.log" > "$tmp/nodata.log"
expect_error "no data lines after the column titles" "$tmp/nodata.log"
awk -v n="$data" 'NR == n {$1 = $1 + 2} {print}' "$tmp/allreduce.log" > "$tmp/odd.log"
expect_error "odd.log:$data: size 1048578 is not a whole number of float elements" "$tmp/odd.log"
head -n "$((data - 1))" "$tmp/allreduce.log" > "$tmp/truncated.log"
printf '%s' '     1048576        262144     float     sum      -1    14.2' >> "$tmp/truncated.log"
expect_error "truncated.log:$data: 6 columns, expected 13" "$tmp/truncated.log"

# A log of more ranks than the cluster has GPUs: said, with the log's name.
expect_error "two-nodes.log (16 ranks) on " "$tmp/two-nodes.log"
expect_error "16 ranks do not fit on 8 endpoints" "$tmp/two-nodes.log"

[ "$failed" = 0 ] && echo "nccl-tests logs: all checks passed"
exit "$failed"
