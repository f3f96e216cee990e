#!/usr/bin/env bash
# tests/teaching/svg_wellformed.sh COLLSIM [PYTHON] — `collsim explain --svg` writes SVG that
# an XML parser accepts (xmllint when installed, and Python's xml.etree), with one row per
# rank and one transfer shape per transfer of `collsim schedule`.
set -euo pipefail
collsim=$1
python=${2:-python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
check() {  # name, then the schedule arguments
  local name=$1; shift
  "$collsim" explain "$@" --svg "$tmp/$name.svg" > /dev/null 2> "$tmp/$name.err"
  "$collsim" schedule "$@" > "$tmp/$name.json"
  if command -v xmllint > /dev/null; then xmllint --noout "$tmp/$name.svg" || { echo "FAIL: xmllint $name"; failed=1; }; fi
  "$python" - "$tmp/$name.svg" "$tmp/$name.json" <<'PY' || { echo "FAIL: $name"; failed=1; }
import json, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
schedule = json.load(open(sys.argv[2]))
classes = [e.get("class", "").split() for e in root.iter()]
transfers = sum(1 for c in classes if "transfer" in c)
rows = sum(1 for c in classes if "rank-row" in c)
assert root.tag == "{http://www.w3.org/2000/svg}svg", root.tag
assert transfers == len(schedule["transfers"]), (transfers, len(schedule["transfers"]))
assert rows == schedule["ranks"], (rows, schedule["ranks"])
print(f"ok: {sys.argv[1].rsplit('/', 1)[-1]}: {rows} rows, {transfers} transfers")
PY
}
check ring-4 ring --bytes 1K --ranks 4
check tree-8 tree --bytes 1K --ranks 8 --segments 2
check two-tree-8 two-tree --bytes 1K --ranks 8 --segments 1
check rabenseifner-6 rabenseifner --bytes 1K --ranks 6
check hierarchical-ring-8 hierarchical-ring --bytes 1K --ranks 8 --ranks-per-node 4
check binomial-reduce-5 binomial --bytes 1K --ranks 5 --collective reduce
check ring-40 ring --bytes 1K --ranks 40  # drawn although the text explanation stops at 32 ranks
exit $failed
