#!/usr/bin/env bash
# tests/cli/msccl_xml.sh COLLSIM — MSCCL's XML at the command line: `schedule --format
# msccl-xml` writes collsim's ring for 4 ranks, and `predict --msccl-xml` of it predicts what
# `predict --algo ring` predicts (every column but the closed form), as do alltoall, allgather
# and reduce-scatter and a pipelined ring on dgx-h100; a 2-GPU allreduce written
# by hand predicts, explains and checks; malformed files exit 2 with one line naming FILE:LINE.
set -u
collsim=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

flat=(--ranks 4 --bandwidth 25e9 --alpha 2e-6 --gamma 1e-10)
for algo in ring rabenseifner two-tree; do
  "$collsim" schedule "$algo" --ranks 4 --bytes 1M --format msccl-xml -o "$tmp/$algo.xml" || fail "schedule $algo --format msccl-xml exited $?"
  grep -q "<algo name=\"$algo\"" "$tmp/$algo.xml" || fail "$algo.xml has no <algo>: $(head -c 300 "$tmp/$algo.xml")"
  "$collsim" predict "${flat[@]}" --msccl-xml "$tmp/$algo.xml" --bytes 1M --format csv 2> "$tmp/err" | cut -d, -f1-14,16- > "$tmp/xml.csv"
  "$collsim" predict "${flat[@]}" --algo "$algo" --bytes 1M --format csv 2> /dev/null | cut -d, -f1-14,16- > "$tmp/builtin.csv"
  [ "$(wc -l < "$tmp/xml.csv")" = 2 ] || fail "$algo: --msccl-xml printed $(cat "$tmp/xml.csv") $(cat "$tmp/err")"
  [ "$algo" = ring ] && { diff -u "$tmp/builtin.csv" "$tmp/xml.csv" > /dev/null || fail "ring: --msccl-xml differs from --algo ring: $(diff "$tmp/builtin.csv" "$tmp/xml.csv")"; }
done
# the other collectives MSCCL names without a root: the same times as the built-in
for pair in pairwise:alltoall bruck:alltoall ring:allgather ring:reduce-scatter; do
  algo=${pair%%:*} coll=${pair#*:}
  "$collsim" schedule "$algo" --collective "$coll" --ranks 4 --bytes 1M --format msccl-xml -o "$tmp/$algo-$coll.xml" ||
    fail "schedule $algo --collective $coll --format msccl-xml exited $?"
  "$collsim" predict "${flat[@]}" --msccl-xml "$tmp/$algo-$coll.xml" --bytes 1M --format csv 2>&1 | cut -d, -f1-14,16- > "$tmp/xml.csv"
  "$collsim" predict "${flat[@]}" --algo "$algo" --collective "$coll" --bytes 1M --format csv 2>&1 | cut -d, -f1-14,16- > "$tmp/builtin.csv"
  grep -q "^$coll,$algo," "$tmp/xml.csv" || fail "$algo $coll: --msccl-xml printed $(cat "$tmp/xml.csv")"
  diff -u "$tmp/builtin.csv" "$tmp/xml.csv" > /dev/null || fail "$algo $coll: --msccl-xml differs: $(diff "$tmp/builtin.csv" "$tmp/xml.csv")"
done
# the flow and analytic engines on a preset, ring unpipelined (1M) and pipelined (16M, 2
# segments, which collsim_segments carries and each on its own channel): the same times
for size in 1M 16M; do
  "$collsim" schedule ring --ranks 8 --bytes "$size" --format msccl-xml -o "$tmp/ring8.xml"
  for engine in flow analytic; do
    "$collsim" predict --preset dgx-h100 --engine "$engine" --msccl-xml "$tmp/ring8.xml" --bytes "$size" --format csv 2>/dev/null | cut -d, -f1-14,16- > "$tmp/xml.csv"
    "$collsim" predict --preset dgx-h100 --engine "$engine" --algo ring --bytes "$size" --format csv 2>/dev/null | cut -d, -f1-14,16- > "$tmp/builtin.csv"
    diff -u "$tmp/builtin.csv" "$tmp/xml.csv" > /dev/null || fail "dgx-h100 ring $size $engine: --msccl-xml differs: $(diff "$tmp/builtin.csv" "$tmp/xml.csv")"
  done
done
grep -q 'collsim_segments="2"' "$tmp/ring8.xml" || fail "ring at 16M: no collsim_segments=\"2\" in the XML"

# by hand: 2 GPUs, each reduces the half the other sends, then sends its reduced half back
cat > "$tmp/halves.xml" <<'XML'
<algo name="halves" proto="Simple" nchannels="1" nchunksperloop="2" ngpus="2" coll="allreduce" inplace="1">
  <gpu id="0" i_chunks="2" o_chunks="2" s_chunks="0">
    <tb id="0" send="1" recv="1" chan="0">
      <step s="0" type="s" srcbuf="i" srcoff="1" dstbuf="i" dstoff="1" cnt="1" depid="-1" deps="-1" hasdep="0"/>
      <step s="1" type="rrc" srcbuf="i" srcoff="0" dstbuf="i" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
      <step s="2" type="s" srcbuf="i" srcoff="0" dstbuf="i" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
      <step s="3" type="r" srcbuf="i" srcoff="1" dstbuf="i" dstoff="1" cnt="1" depid="-1" deps="-1" hasdep="0"/>
    </tb>
  </gpu>
  <gpu id="1" i_chunks="2" o_chunks="2" s_chunks="0">
    <tb id="0" send="0" recv="0" chan="0">
      <step s="0" type="s" srcbuf="i" srcoff="0" dstbuf="i" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
      <step s="1" type="rrc" srcbuf="i" srcoff="1" dstbuf="i" dstoff="1" cnt="1" depid="-1" deps="-1" hasdep="0"/>
      <step s="2" type="s" srcbuf="i" srcoff="1" dstbuf="i" dstoff="1" cnt="1" depid="-1" deps="-1" hasdep="0"/>
      <step s="3" type="r" srcbuf="i" srcoff="0" dstbuf="i" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
    </tb>
  </gpu>
</algo>
XML
"$collsim" predict --ranks 2 --bandwidth 25e9 --alpha 2e-6 --msccl-xml "$tmp/halves.xml" --bytes 1M --format csv > "$tmp/out" 2> "$tmp/err" ||
  fail "predict --msccl-xml halves.xml exited $?: $(cat "$tmp/err")"
grep -q "^allreduce,halves," "$tmp/out" || grep -q ",halves," "$tmp/out" || fail "halves not predicted: $(cat "$tmp/out")"
"$collsim" explain --msccl-xml "$tmp/halves.xml" --bytes 8 > "$tmp/out" 2> "$tmp/err" || fail "explain --msccl-xml exited $?: $(cat "$tmp/err")"
grep -q "halves allreduce on 2 ranks, 8 bytes" "$tmp/out" || fail "explain --msccl-xml: $(head -3 "$tmp/out")"

expect_error() {  # FRAGMENT ARGS...: exit 2, one line, naming the problem
  local fragment=$1; shift
  "$collsim" "$@" > /dev/null 2> "$tmp/err"
  local rc=$?
  [ "$rc" = 2 ] || fail "$* exited $rc, not 2"
  [ "$(wc -l < "$tmp/err")" = 1 ] || fail "$*: not one line: $(cat "$tmp/err")"
  grep -qF -- "$fragment" "$tmp/err" || fail "$*: '$fragment' not in: $(cat "$tmp/err")"
}
p2=(predict --ranks 2 --bandwidth 1e9)
head -c 700 "$tmp/halves.xml" > "$tmp/cut.xml"
expect_error "cut.xml:" "${p2[@]}" --msccl-xml "$tmp/cut.xml" --bytes 8
sed '5s/type="rrc"/type="xyz"/' "$tmp/halves.xml" > "$tmp/type.xml"
expect_error "type.xml:5: step type 'xyz'" "${p2[@]}" --msccl-xml "$tmp/type.xml" --bytes 8
sed '12s/cnt="1"/cnt="-4"/' "$tmp/halves.xml" > "$tmp/cnt.xml"
expect_error "cnt.xml:12: <step> 'cnt' must be a whole number" "${p2[@]}" --msccl-xml "$tmp/cnt.xml" --bytes 8
sed '12s/type="s"/type="r"/' "$tmp/halves.xml" > "$tmp/deadlock.xml"
expect_error "deadlock" "${p2[@]}" --msccl-xml "$tmp/deadlock.xml" --bytes 8
sed '7s/type="r"/type="rrc"/' "$tmp/halves.xml" > "$tmp/twice.xml"  # reduces gpu 1's half into gpu 0's twice
expect_error "MSCCL XML '$tmp/twice.xml' is not a correct allreduce" "${p2[@]}" --msccl-xml "$tmp/twice.xml" --bytes 8
expect_error "--msccl-xml needs --bytes N" "${p2[@]}" --msccl-xml "$tmp/halves.xml"
expect_error "give --bytes a multiple of 2" "${p2[@]}" --msccl-xml "$tmp/halves.xml" --bytes 7
expect_error "--schedule excludes --msccl-xml" "${p2[@]}" --msccl-xml "$tmp/halves.xml" --schedule "$tmp/x.json"
expect_error "MSCCL's XML names no root" schedule chain --collective broadcast --ranks 4 --bytes 1K --format msccl-xml
expect_error "give --bytes a multiple of 4" schedule ring --collective allgather --ranks 4 --bytes 1026 --format msccl-xml
[ "$failed" = 0 ] && echo "ok: MSCCL XML"
exit "$failed"
