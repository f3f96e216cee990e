#!/usr/bin/env bash
# tests/cli/stream.sh COLLSIM — predict runs a ring or a hierarchical ring as a stream (no
# schedule held) on the flow engine: with --stream always it gives the held run's times to the
# printed digits, with no analytic column; a 16,384-rank ring, too large to hold (5.4e8
# transfers), is streamed instead of refused by the size guard, and so is a 16,384-rank
# hierarchical ring, which would hold but large (6.7e7 transfers; the test stops each once the
# stream has started); --stream never holds what fits.
set -u
collsim=$1
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# Same times, held and streamed (CSV: time_s to 9 digits; the streamed row has no analytic_s).
args=(predict --preset fat-tree-2to1 --algo ring --channels 1 --bytes 1M,1G --collective allreduce --format csv)
"$collsim" "${args[@]}" > "$tmp/held" 2> /dev/null || fail "held predict exited $?"
"$collsim" "${args[@]}" --stream always > "$tmp/streamed" 2> "$tmp/err" || fail "streamed predict exited $?"
cut -d, -f1-15,17- "$tmp/held" > "$tmp/held.cut"
cut -d, -f1-15,17- "$tmp/streamed" > "$tmp/streamed.cut"
diff -u "$tmp/held.cut" "$tmp/streamed.cut" > /dev/null || fail "streamed ring differs from held: $(diff "$tmp/held.cut" "$tmp/streamed.cut")"
[ "$(cut -d, -f16 "$tmp/streamed" | grep -c .)" = 1 ] || fail "a streamed row has an analytic time: $(cat "$tmp/streamed")"
[ "$(cut -d, -f16 "$tmp/held" | grep -c .)" = 3 ] || fail "a held row lost its analytic time: $(cat "$tmp/held")"
grep -q 'ring 1G: 0.129 M transfers run as a stream, not held' "$tmp/err" || fail "no note that the run was streamed: $(cat "$tmp/err")"

# The same for the hierarchical ring, 32 nodes of 8 GPUs on rails (in slices at 1G).
args=(predict --preset dgx-h100-superpod-su --algo hierarchical-ring --bytes 1M,1G --engine flow --format csv)
"$collsim" "${args[@]}" --stream never > "$tmp/held" 2> /dev/null || fail "held hierarchical predict exited $?"
"$collsim" "${args[@]}" --stream always > "$tmp/streamed" 2> "$tmp/err" || fail "streamed hierarchical predict exited $?"
cut -d, -f1-15,17- "$tmp/held" > "$tmp/held.cut"
cut -d, -f1-15,17- "$tmp/streamed" > "$tmp/streamed.cut"
diff -u "$tmp/held.cut" "$tmp/streamed.cut" > /dev/null ||
  fail "streamed hierarchical ring differs from held: $(diff "$tmp/held.cut" "$tmp/streamed.cut")"
[ "$(cut -d, -f16 "$tmp/held" | grep -c .)" = 3 ] || fail "a held hierarchical row lost its analytic time: $(cat "$tmp/held")"
grep -q 'hierarchical-ring 1M: .* M transfers run as a stream, not held, as asked' "$tmp/err" ||
  fail "no note that the hierarchical run was streamed: $(cat "$tmp/err")"

# The table says which runs were streamed, in the analytic column.
"$collsim" predict --preset fat-tree-2to1 --algo ring,two-tree --bytes 1M --stream always 2> /dev/null > "$tmp/table" ||
  fail "table predict exited $?"
grep -Eq '^ +1M  ring \* +[0-9.]+ [um]s +\(streamed\) +- ' "$tmp/table" || fail "the streamed row is not marked: $(cat "$tmp/table")"
grep -Eq '^ +two-tree +[0-9.]+ us +[0-9.]+ us +[0-9.]+x ' "$tmp/table" || fail "the held row lost its analytic time"
# The streamed ring ran in one channel where the cluster suggests 4 (two-tree runs 4): the star and
# its footnote say so in the table, not only on stderr; asked for 4 (--channels 4), no star.
grep -q '^\* compared in fewer channels than the cluster suggests (ring 1M in 1 of 4)' "$tmp/table" ||
  fail "no footnote on the ring's channels: $(cat "$tmp/table")"
"$collsim" predict --preset fat-tree-2to1 --algo ring,two-tree --bytes 1M --stream always --channels 4 2> /dev/null > "$tmp/table" ||
  fail "table predict --channels 4 exited $?"
grep -Eq '^ +1M  ring +[0-9.]+ [um]s +\(streamed\)' "$tmp/table" || fail "the ring in 4 channels is marked: $(cat "$tmp/table")"
grep -q 'fewer channels' "$tmp/table" && fail "a footnote where every row ran its channels: $(cat "$tmp/table")"
# --algo nccl and auto choose among candidates, the ring in one channel among them: whatever
# they choose, the row is starred and the footnote names the ring (the JSON lists it too).
for algo in nccl auto; do
  "$collsim" predict --preset fat-tree-2to1 --algo $algo --bytes 1G --stream always 2> /dev/null > "$tmp/table" ||
    fail "$algo predict exited $?"
  grep -Eq '^ +1G  [a-z()-]+( \([a-z-]+\))? \* ' "$tmp/table" || fail "$algo's choice is not starred: $(cat "$tmp/table")"
  grep -q '^\* compared in fewer channels than the cluster suggests (ring 1G in 1 of 4)' "$tmp/table" ||
    fail "no footnote on $algo's ring candidate: $(cat "$tmp/table")"
done
"$collsim" predict --preset fat-tree-2to1 --algo nccl --bytes 1G --stream always --format json 2> /dev/null > "$tmp/json" ||
  fail "nccl predict --format json exited $?"
python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); r = r["records"] if isinstance(r, dict) else r
assert r[0]["short_of_channels"] == ["ring 1G in 1 of 4"], r[0]' "$tmp/json" || fail "the JSON does not list the ring candidate"

# The stderr of `predict --preset dgx-h100-2048 --algo ALGO --bytes 1G` (16,384 ranks) up to its
# note on streaming, which comes before the run: the run is stopped there.
note_of_16k() {
  COLLSIM_PROGRESS=0 "$collsim" predict --preset dgx-h100-2048 --algo "$1" --bytes 1G > /dev/null 2> "$tmp/big" &
  pid=$!
  for _ in $(seq 600); do
    grep -q 'run as a stream' "$tmp/big" && break
    kill -0 "$pid" 2> /dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2> /dev/null; then kill "$pid"; wait "$pid" 2> /dev/null; fi
  pid=
}

# 16,384 ranks: streamed, not refused.
note_of_16k ring
grep -q '^collsim predict: ring 1G: 537 M transfers run as a stream, not held' "$tmp/big" ||
  fail "the 16,384-rank ring was not streamed: $(cat "$tmp/big")"
grep -q 'too large to build' "$tmp/big" && fail "the 16,384-rank ring hit the size guard: $(cat "$tmp/big")"

# The 16,384-rank hierarchical ring would hold, but large: streamed, saying why and what holds it.
note_of_16k hierarchical-ring
grep -q '^collsim predict: hierarchical-ring 1G: 67.3 M transfers run as a stream, not held: held, it would take about 7.4 GB (more than 1e+07 transfers)' "$tmp/big" ||
  fail "the 16,384-rank hierarchical ring was not streamed: $(cat "$tmp/big")"
grep -q -- '--stream never, --detail or --trace hold it' "$tmp/big" || fail "the note does not say what holds it: $(cat "$tmp/big")"

[ "$failed" = 0 ] && echo "stream: ok"
exit "$failed"
