#!/usr/bin/env bash
# tests/cli/fuzz_loaders.sh COLLSIM CONFIGS_DIR — the loaders through the command line, under
# seeded random damage to the shipped configs and to a real schedule file: every run ends
# with exit 0, or exit 2 and one "collsim: error:" line; never a crash, a hang or a raw byte.
# Bounded (60 configs, 40 schedules) and reproducible: case k uses seed k.
set -u
# Stderr must be the one error line: no progress line from a command that runs a while first.
export COLLSIM_PROGRESS=0
collsim=$1
configs=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$collsim" schedule two-tree --ranks 5 --bytes 4K --segments 2 -o "$tmp/schedule.json"

# The mutations of tests/support/mutate.hpp, in Python, writing case files into $tmp.
/usr/bin/python3 - "$configs" "$tmp" <<'PY'
import glob, os, random, sys
configs, out = sys.argv[1], sys.argv[2]
numbers = ["0", "-1", "1e309", "nan", ".nan", ".inf", "1e-300", "4294967296", "99999999999999999999", "2.5", "0x10"]
def mutate(data, rng):
    for _ in range(rng.randint(1, 3)):
        if not data:
            break
        at = rng.randrange(len(data))
        kind = rng.randrange(6)
        if kind == 0:
            data = data[:at] + bytes([rng.randrange(256)]) + data[at + 1:]
        elif kind == 1:
            data = data[:at]
        elif kind == 2:
            data = data[:at] + data[at + rng.randint(1, 40):]
        elif kind == 3:
            start = data.rfind(b"\n", 0, at) + 1
            end = data.find(b"\n", at)
            line = data[start:] if end < 0 else data[start:end + 1]
            data = data[:start] + line + data[start:]
        elif kind == 4:
            digits = [i for i in range(at, len(data)) if chr(data[i]).isdigit()]
            if digits:
                i = digits[0]
                j = i
                while j < len(data) and chr(data[j]) in "0123456789.e+-":
                    j += 1
                data = data[:i] + rng.choice(numbers).encode() + data[j:]
        else:
            data = data[:at] + bytes([rng.randrange(32)]) + data[at:]
    return data
paths = sorted(glob.glob(os.path.join(configs, "*.yaml")))
for k in range(60):
    rng = random.Random(k)
    src = paths[k % len(paths)]
    open(os.path.join(out, "config%d.yaml" % k), "wb").write(mutate(open(src, "rb").read(), rng))
schedule = open(os.path.join(out, "schedule.json"), "rb").read()
for k in range(40):
    open(os.path.join(out, "schedule%d.json" % k), "wb").write(mutate(schedule, random.Random(1000 + k)))
PY

failed=0
cases=0
run() {
  local err rc lines
  cases=$((cases + 1))
  err=$(timeout 60 "$collsim" "$@" 2>&1 >/dev/null)
  rc=$?
  lines=$(printf '%s\n' "$err" | grep -c .)
  if [ "$rc" -eq 0 ] || { [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && [[ "$err" == "collsim: error: "* ]] &&
                          ! printf '%s' "$err" | LC_ALL=C grep -q '[[:cntrl:]]'; }; then
    return
  fi
  failed=$((failed + 1))
  echo "FAIL: collsim $* -> exit $rc, $lines line(s): $(printf '%s' "$err" | head -c 300 | cat -v)"
}
for f in "$tmp"/config*.yaml; do run topo "$f"; done
for f in "$tmp"/schedule[0-9]*.json; do run check --file "$f"; done
echo "$cases cases, $failed failed"
[ "$failed" -eq 0 ]
