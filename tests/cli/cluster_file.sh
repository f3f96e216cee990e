#!/usr/bin/env bash
# tests/cli/cluster_file.sh COLLSIM CONFIGS — every command that takes a cluster file takes it
# as its argument and after --config alike (topo FILE, predict --config FILE, and the other way).
set -u
export COLLSIM_PROGRESS=0
collsim=$1
config=$2/fat-tree-2to1.yaml
failed=0
fail() { echo "FAIL: $*"; failed=1; }

for cmd in "topo" "predict --algo ring --bytes 1M"; do
  # shellcheck disable=SC2086
  a=$("$collsim" $cmd "$config") || fail "collsim $cmd FILE exited $?"
  # shellcheck disable=SC2086
  b=$("$collsim" $cmd --config "$config") || fail "collsim $cmd --config FILE exited $?"
  [ -n "$a" ] && [ "$a" = "$b" ] || fail "collsim $cmd: FILE and --config FILE differ"
done
# the same file twice is one file
"$collsim" topo "$config" --config "$config" > /dev/null || fail "the same file as FILE and --config"
[ "$failed" = 0 ] && echo "cluster file: ok"
exit "$failed"
