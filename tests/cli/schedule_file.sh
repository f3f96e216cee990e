#!/usr/bin/env bash
# tests/cli/schedule_file.sh COLLSIM — `predict --schedule FILE` runs a schedule the user brings:
# a schedule written by `collsim schedule` and read back gives the built-in algorithm's times to
# the printed digits (every column but the closed form, which a file has not), on a flat network
# (analytic engine) and on a preset (flow engine, with its analytic column); `explain --schedule`
# prints what `explain ALGO` prints at the same size; a schedule the checker refuses, one for
# another rank count, and --schedule beside --algo exit 2 with one line.
set -u
collsim=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# CSV without column 15 (closed_form_s): the rest must be the same, byte for byte.
same_as_builtin() {  # ALGO RANKS BYTES CLUSTER_ARGS...
  local algo=$1 ranks=$2 bytes=$3; shift 3
  "$collsim" schedule "$algo" --ranks "$ranks" --bytes "$bytes" -o "$tmp/$algo.json" || { fail "schedule $algo exited $?"; return; }
  "$collsim" predict "$@" --schedule "$tmp/$algo.json" --format csv 2> "$tmp/err" | cut -d, -f1-14,16- > "$tmp/file.csv"
  "$collsim" predict "$@" --algo "$algo" --bytes "$bytes" --format csv 2> /dev/null | cut -d, -f1-14,16- > "$tmp/builtin.csv"
  [ "$(wc -l < "$tmp/file.csv")" = 2 ] || fail "$algo $*: --schedule printed $(cat "$tmp/file.csv") $(cat "$tmp/err")"
  diff -u "$tmp/builtin.csv" "$tmp/file.csv" > /dev/null ||
    fail "$algo $*: --schedule differs from --algo: $(diff "$tmp/builtin.csv" "$tmp/file.csv")"
}
for algo in ring two-tree rabenseifner recursive-doubling; do
  same_as_builtin "$algo" 8 1M --ranks 8 --bandwidth 25e9 --alpha 2e-6 --gamma 1e-10
done
for algo in ring two-tree; do
  same_as_builtin "$algo" 8 16M --preset dgx-h100 --engine flow
done

# explain: the same text and JSON as the built-in at the file's size
for algo in ring two-tree rabenseifner pairwise; do
  collective=allreduce; [ "$algo" = pairwise ] && collective=alltoall
  "$collsim" schedule "$algo" --collective "$collective" --ranks 4 --bytes 1K -o "$tmp/x.json"
  for format in table json; do
    "$collsim" explain "$algo" --collective "$collective" --ranks 4 --bytes 1K --format "$format" > "$tmp/builtin.txt"
    "$collsim" explain --schedule "$tmp/x.json" --format "$format" > "$tmp/file.txt" 2> "$tmp/err" ||
      fail "explain --schedule ($algo, $format) exited $?: $(cat "$tmp/err")"
    cmp -s "$tmp/builtin.txt" "$tmp/file.txt" || fail "explain --schedule ($algo, $format) differs from explain $algo"
  done
done

expect_error() {  # FRAGMENT ARGS...: exit 2, one line, naming the problem
  local fragment=$1; shift
  "$collsim" "$@" > /dev/null 2> "$tmp/err"
  local rc=$?
  [ "$rc" = 2 ] || fail "$* exited $rc, not 2"
  [ "$(wc -l < "$tmp/err")" = 1 ] || fail "$*: not one line: $(cat "$tmp/err")"
  grep -qF -- "$fragment" "$tmp/err" || fail "$*: '$fragment' not in: $(cat "$tmp/err")"
}
"$collsim" schedule ring --ranks 4 --bytes 1K -o "$tmp/r4.json"
sed 's/"deps":\[3\]/"deps":[]/' "$tmp/r4.json" > "$tmp/broken.json"  # transfer 4 forgets transfer 3
expect_error "is not a correct allreduce: transfer 4" predict --ranks 4 --bandwidth 1e9 --schedule "$tmp/broken.json"
expect_error "the schedule is for 4 ranks and the cluster has 8: give --ranks 4" \
  predict --ranks 8 --bandwidth 1e9 --schedule "$tmp/r4.json"
expect_error "--algo excludes --schedule" predict --ranks 4 --bandwidth 1e9 --schedule "$tmp/r4.json" --algo ring
expect_error "cannot read schedule" predict --ranks 4 --bandwidth 1e9 --schedule "$tmp/missing.json"
expect_error "is not a correct allreduce: transfer 4" explain --schedule "$tmp/broken.json"
expect_error "--ranks excludes --schedule" explain --schedule "$tmp/r4.json" --ranks 4
expect_error "algorithm is required: explain ALGO --ranks P, or explain --schedule FILE" explain
[ "$failed" = 0 ] && echo "ok: predict --schedule"
exit "$failed"
