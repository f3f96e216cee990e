#!/usr/bin/env bash
# tests/cli/table_messages.sh COLLSIM — what predict's tables and other outputs say beside
# the times: the analytic column's meaning where channels run through several NICs, the
# algorithm NCCL would run in every output format, --detail titles that name their row.
set -u
export COLLSIM_PROGRESS=0
collsim=$1
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# The analytic column beside the flow engine, on a multi-NIC cluster: said to be no floor.
out=$("$collsim" predict --preset fat-tree-2to1 --algo ring --bytes 1M) || fail "predict fat-tree-2to1"
grep -q "^analytic: one port per rank, so a rank's channels take turns" <<< "$out" ||
  fail "no word on the analytic column with 4 channels: $(head -8 <<< "$out")"
out=$("$collsim" predict --preset fat-tree-2to1 --algo ring --bytes 1M --channels 1) || fail "predict --channels 1"
grep -q "^analytic:" <<< "$out" && fail "the analytic column's note with one channel"
out=$("$collsim" predict --preset fat-tree-2to1 --algo ring --bytes 1M --ports unlimited) || fail "--ports unlimited"
grep -q "^analytic:" <<< "$out" && fail "the analytic column's note with unlimited ports"

# --algo nccl: the choice in the table, CSV, JSON and nccl-tests comments.
args=(predict --preset dgx-h100 --algo nccl --bytes 64K,1G)
"$collsim" "${args[@]}" | grep -Eq '^ +64K +nccl \(ring\) +ll ' || fail "table: no 'nccl (ring)' row"
[ "$("$collsim" "${args[@]}" --format csv | cut -d, -f2,9,18 | tail -n +2 | tr '\n' ' ')" = "nccl,ll,ring nccl,simple,nvls " ] ||
  fail "csv: $("$collsim" "${args[@]}" --format csv)"
"$collsim" "${args[@]}" --format json | grep -q '"runs": "nvls"' || fail "json: no runs"
"$collsim" "${args[@]}" --format nccl-tests | grep -q '^# algorithm per size .*: 65536=nccl (ring, ll) 1073741824=nccl (nvls, simple)$' ||
  fail "nccl-tests: $("$collsim" "${args[@]}" --format nccl-tests | grep '^# algorithm')"

# --detail: one title per row, each naming its row (ring, and nccl's choice: with --protocol simple, NCCL_PROTO=Simple).
for protocol in simple auto; do
  titles=$("$collsim" predict --preset fat-tree-2to1 --algo ring,nccl --bytes 1M --channels 1 --detail --protocol "$protocol" |
    grep -E '^[a-z].*:$')
  [ "$(wc -l <<< "$titles")" = 2 ] || fail "--detail --protocol $protocol: not 2 titles: $titles"
  [ -z "$(sort <<< "$titles" | uniq -d)" ] || fail "--detail --protocol $protocol: a title twice: $titles"
  grep -qE '^nccl \([a-z-]+\) 1M, ' <<< "$titles" || fail "--detail --protocol $protocol: nccl's row not named: $titles"
  [ "$protocol" = simple ] && ! grep -qE '^nccl \([a-z-]+\) 1M, simple:$' <<< "$titles" &&
    fail "--protocol simple with --algo nccl (NCCL_PROTO=Simple): nccl's choice not Simple: $titles"
done

# --detail on an nccl row lists every run it compared, fastest first, the kept one leading (the
# table's row) and the others each with how much slower; JSON carries the same as "candidates".
out=$("$collsim" predict --preset dgx-h100 --algo nccl --bytes 64M --detail) || fail "predict --detail"
line=$(grep '^  candidates, fastest first' <<< "$out")
[ -n "$line" ] || fail "--detail: no candidates line: $(head -20 <<< "$out")"
kept=$(grep -oE '^ +64M +nccl \([a-z-]+\) +[a-z0-9]+' <<< "$out" | awk '{print $3, $4}' | tr -d '()')
grep -q ": ${kept} " <<< "$line" || fail "--detail: the row's choice ($kept) does not lead: $line"
[ "$(grep -o '(+[0-9.]*%)' <<< "$line" | wc -l)" = 6 ] || fail "--detail: not 6 slower candidates: $line"
json=$("$collsim" predict --preset dgx-h100 --algo nccl --bytes 64M --detail --format json) || fail "--detail json"
[ "$(python3 -c 'import json,sys; c=json.load(sys.stdin)[0]["candidates"]; t=[x["time_s"] for x in c]; print(len(c), t == sorted(t))' <<< "$json")" = "7 True" ] ||
  fail "--detail json: candidates not 7 in order"

# One rank moves no data: its bandwidths are "-" (table), empty (CSV), null (JSON), never 0.
one=(predict --ranks 1 --bandwidth 25e9 --alpha 1e-6 --algo ring --bytes 1M)
"$collsim" "${one[@]}" | grep -Eq '^ +1M +ring +0 s +- +- ' || fail "one rank, table: $("$collsim" "${one[@]}")"
"$collsim" "${one[@]}" | grep -q '^collsim predict: allreduce on 1 rank of ' || fail "one rank: 'ranks' in the title"
[ "$("$collsim" "${one[@]}" --format csv | tail -1 | cut -d, -f12,13)" = "," ] ||
  fail "one rank, csv: $("$collsim" "${one[@]}" --format csv)"
"$collsim" "${one[@]}" --format json | grep -q '"busbw_GBps": null' || fail "one rank, json: busbw not null"

[ "$failed" = 0 ] && echo "table messages: ok"
exit "$failed"
