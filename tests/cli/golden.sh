#!/usr/bin/env bash
# tests/cli/golden.sh COLLSIM GOLDEN_DIR — command outputs that must not drift: each
# GOLDEN_DIR/<name>.cmd holds the arguments, <name>.out the expected stdout.
# Regenerate after an intended change: UPDATE=1 bash tests/cli/golden.sh build/bin/collsim tests/cli/golden
set -u
collsim=$1
dir=$2
passed=0
failed=0
for cmd in "$dir"/*.cmd; do
  name=$(basename "$cmd" .cmd)
  # shellcheck disable=SC2046
  actual=$("$collsim" $(cat "$cmd"))
  if [ "${UPDATE:-0}" = 1 ]; then printf '%s\n' "$actual" > "$dir/$name.out"; fi
  if diff -u "$dir/$name.out" <(printf '%s\n' "$actual") > /dev/null; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: collsim $(cat "$cmd") differs from $name.out:"
    diff -u "$dir/$name.out" <(printf '%s\n' "$actual") | head -20
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
