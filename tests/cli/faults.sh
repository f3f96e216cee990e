#!/usr/bin/env bash
# tests/cli/faults.sh COLLSIM — nothing is lost on a failed write: on a full file system and a
# read-only one (a small tmpfs, so this needs root; skipped with ctest's skip code otherwise),
# every output (schedule JSON, SVG, Chrome trace, fitted YAML, a validate report folder) that
# cannot be written ends with exit 2 and one line naming the file and the reason, leaves the
# good file or folder that was there unchanged, and leaves no temporary file behind.
set -u
export COLLSIM_PROGRESS=0
collsim=$1
tmp=$(mktemp -d)
small=$tmp/small
mkdir -p "$small"
if [ "$(id -u)" != 0 ] || ! mount -t tmpfs -o size=256k tmpfs "$small" 2>/dev/null; then
  rmdir "$small"; rm -rf "$tmp"
  echo "SKIPPED: needs root to mount a small tmpfs"
  exit 77
fi
trap 'umount "$small"; rm -rf "$tmp"' EXIT
failed=0
cases=0
fail() { echo "FAIL: $*"; failed=1; }

# refused FRAGMENT FILE ARGS...: exit 2, one error line with FRAGMENT, FILE (file or folder)
# unchanged, nothing but the known outputs in the small file system.
refused() {
  local fragment=$1 file=$2
  shift 2
  cases=$((cases + 1))
  local before after err rc
  before=$(cd "$(dirname "$file")" && find "$(basename "$file")" -type f -exec md5sum {} + | sort)
  err=$("$collsim" "$@" 2>&1 >/dev/null)
  rc=$?
  after=$(cd "$(dirname "$file")" && find "$(basename "$file")" -type f -exec md5sum {} + | sort)
  [ "$rc" = 2 ] || fail "collsim $*: exit $rc (wanted 2): $err"
  [ "$(printf '%s\n' "$err" | grep -c .)" = 1 ] && [[ "$err" == "collsim: error: "*"$fragment"* ]] ||
    fail "collsim $*: wanted one line with '$fragment', got: $err"
  [ "$before" = "$after" ] || fail "collsim $*: $file changed"
  local stray
  stray=$(find "$small" -name '.*collsim-*')
  [ -z "$stray" ] || fail "collsim $*: temporary files left: $stray"
}

# Good outputs first, while there is room.
"$collsim" schedule ring --ranks 4 --bytes 1K -o "$small/ring.json" || fail "schedule to the tmpfs"
"$collsim" explain ring --ranks 4 --bytes 1K --svg "$small/ring.svg" > /dev/null || fail "explain --svg to the tmpfs"
printf '{"traceEvents": []}\n' > "$small/trace.json"
"$collsim" predict --preset dgx-h100 --algo ring --bytes 64K,1M --format nccl-tests > "$tmp/ring.log" || fail "predict"
"$collsim" validate --measured "$tmp/ring.log" --preset dgx-h100 --algo ring -o "$small/report" > /dev/null ||
  fail "validate --measured to the tmpfs"
"$collsim" calibrate --measured "$tmp/ring.log" --preset dgx-h100 --algo ring -o "$small/fit.yaml" > /dev/null 2>&1 ||
  fail "calibrate --measured to the tmpfs"
# Then fill what is left.
dd if=/dev/zero of="$small/filler" bs=4k 2>/dev/null
[ "$(df --output=avail "$small" | tail -1 | tr -d ' ')" = 0 ] || fail "the tmpfs is not full"

refused "cannot write schedule '$small/ring.json': No space left" "$small/ring.json" \
  schedule ring --ranks 64 --bytes 1M -o "$small/ring.json"
refused "cannot write SVG '$small/ring.svg': No space left" "$small/ring.svg" \
  explain ring --ranks 64 --bytes 1M --svg "$small/ring.svg"
refused "cannot write trace '$small/trace.json': No space left" "$small/trace.json" \
  predict --preset fat-tree-2to1 --algo ring --bytes 1M --trace "$small/trace.json"
refused "No space left" "$small/report" validate --measured "$tmp/ring.log" --preset dgx-h100 --algo ring -o "$small/report"
refused "No space left" "$small/fit.yaml" calibrate --measured "$tmp/ring.log" --preset dgx-h100 --algo ring -o "$small/fit.yaml"

# Read-only: the same outputs refused, the files kept.
rm -f "$small/filler"
mount -o remount,ro "$small" || fail "remount read-only"
refused "Read-only file system" "$small/ring.json" schedule ring --ranks 4 --bytes 1K -o "$small/ring.json"
refused "Read-only file system" "$small/trace.json" \
  predict --preset fat-tree-2to1 --algo ring --bytes 1K --trace "$small/trace.json"
refused "Read-only file system" "$small/report" validate --measured "$tmp/ring.log" --preset dgx-h100 --algo ring -o "$small/report"
mount -o remount,rw "$small"

# A run refused after one algorithm ran leaves the trace that was there (on a roomy disk: the
# ring's events would fill the tmpfs first).
printf '{"traceEvents": []}\n' > "$tmp/trace.json"
refused "nvls" "$tmp/trace.json" predict --preset fat-tree-2to1 --algo ring,nvls --bytes 1K --trace "$tmp/trace.json"
[ -z "$(find "$tmp" -maxdepth 1 -name '.*collsim-*')" ] || fail "a temporary trace was left beside trace.json"

echo "$cases fault cases, $([ $failed = 0 ] && echo all held || echo some failed)"
[ "$failed" = 0 ]
