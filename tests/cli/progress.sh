#!/usr/bin/env bash
# tests/cli/progress.sh COLLSIM — predict tells how far along it is on stderr ("collsim
# predict: K of N done, now ALGO SIZE; T elapsed, about T left"), never on stdout, whose table
# stays intact. COLLSIM_PROGRESS=1 prints every step at once, so this does not depend on how
# fast the machine is; =0 prints nothing; by default a quick run prints nothing extra.
set -u
collsim=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# Every step: 12 runs one after another (--jobs 1), each announced with the count done before it.
long=(predict --preset fat-tree-2to1 --algo ring,two-tree,tree --bytes 64K,256K,1M,4M)
COLLSIM_PROGRESS=1 "$collsim" "${long[@]}" --jobs 1 > "$tmp/out" 2> "$tmp/err" || fail "predict exited $?"
[ "$(grep -c '^collsim predict: [0-9]* of 12 done, now ' "$tmp/err")" = 12 ] ||
  fail "not one progress line per run: $(head -c 300 "$tmp/err")"
grep -Eq '^collsim predict: 4 of 12 done, now two-tree 256K; [0-9.]+ s elapsed, about [0-9.]+ s left$' "$tmp/err" ||
  fail "the fifth line is not as documented: $(sed -n 5p "$tmp/err")"
grep -q 'done, now' "$tmp/out" && fail "progress leaked into stdout"
grep -q '^winner per size: 64K=' "$tmp/out" || fail "the table is not intact: $(tail -2 "$tmp/out")"

# Side by side (--jobs 3): each run announced once as it starts, with the count done so far,
# and the same table.
COLLSIM_PROGRESS=1 "$collsim" "${long[@]}" --jobs 3 > "$tmp/out3" 2> "$tmp/err3" || fail "predict --jobs 3 exited $?"
cmp -s "$tmp/out" "$tmp/out3" || fail "--jobs 3 printed another table: $(diff "$tmp/out" "$tmp/out3" | head -5)"
starts=$(grep -Eo '^collsim predict: [0-9]+ of 12 done, now [a-z-]+ [0-9]+[KM];' "$tmp/err3" | sed 's/.*now //' | sort)
[ "$(echo "$starts" | wc -l)" = 12 ] && [ "$(echo "$starts" | sort -u | wc -l)" = 12 ] ||
  fail "--jobs 3: not one start line per run: $(head -c 300 "$tmp/err3")"

# Inside one flow run: 129,024 transfers (ring, 64 ranks, 16 slices a step) report at 65,536.
COLLSIM_PROGRESS=1 "$collsim" predict --preset fat-tree-2to1 --algo ring --bytes 1G > /dev/null 2> "$tmp/err" ||
  fail "one-run predict exited $?"
grep -Eq '^collsim predict: 0 of 1 done, now ring 1G \(51% of 0.129 M transfers\); [0-9.]+ s elapsed, about [0-9.]+ s left$' "$tmp/err" ||
  fail "no progress inside the run: $(cat "$tmp/err")"

# --algo nccl runs several candidates in one step: each is named, with its protocol.
COLLSIM_PROGRESS=1 "$collsim" predict --preset dgx-h100 --algo nccl --bytes 1M > /dev/null 2> "$tmp/err" ||
  fail "nccl predict exited $?"
for candidate in "ring, ll" "ring, simple" "nccl-tree, ll128" "nvls, simple"; do
  grep -Eq "^collsim predict: 0 of 1 done, now nccl 1M: $candidate; [0-9.]+ s elapsed" "$tmp/err" ||
    fail "the candidate '$candidate' of --algo nccl is not named: $(head -c 400 "$tmp/err")"
done

# Silenced: COLLSIM_PROGRESS=0.
COLLSIM_PROGRESS=0 "$collsim" "${long[@]}" > /dev/null 2> "$tmp/err" ||
  fail "silenced predict exited $?"
[ -s "$tmp/err" ] && fail "COLLSIM_PROGRESS=0 still printed: $(head -c 300 "$tmp/err")"

# Quick: nothing on stderr.
"$collsim" predict --ranks 8 --bandwidth 1e10 --alpha 1e-6 --algo ring --bytes 1K > "$tmp/out" 2> "$tmp/err" || fail "quick predict exited $?"
[ -s "$tmp/err" ] && fail "a quick predict printed on stderr: $(cat "$tmp/err")"

[ "$failed" = 0 ] && echo "progress: ok"
exit "$failed"
