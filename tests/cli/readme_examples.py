#!/usr/bin/env python3
"""tests/cli/readme_examples.py BIN_DIR README — every example in the README runs and prints
what the README says it prints.

A fenced block whose lines start with "$ " is an example: each "$ command" runs in bash (in a
scratch folder, with BIN_DIR first on PATH, so "collsim" is the one just built), and its
output (stdout and stderr) must match the lines that follow it, up to the next "$ " line:
  - a line "..." stands for any number of lines, "..." inside a line for any characters;
  - trailing blanks do not count.
An HTML comment on the line before a block changes how it is checked:
  <!-- readme: mask times -->     durations ("3.98 s", "12.3 us") match any duration;
  <!-- readme: mask numbers -->   every number matches any number (real executions);
  <!-- readme: illustration: WHY -->  not run (it needs what a test machine lacks: WHY).
Prose that quotes the tool's figures is checked too: the comment
  <!-- readme: prose times (not: 400 ms) -->
on the line before a paragraph says that every duration in that paragraph (up to the next
blank line) is printed, to the paragraph's precision, by an example of the same section run
before it ("5.5 ms" is 5.52 ms rounded; "5.3 ms" matches no 3.36 ms); the durations listed
after "not:" are not the tool's (a paper's estimate, say) and are left alone.
The test prints what it ran and fails on the first difference of each example.
After an intended change, README_UPDATE=1 writes each failing example's actual output into the
README, except where its expected lines hold a "..." (those are edited by hand).
"""
import os
import re
import subprocess
import sys
import tempfile

TIME = r"[0-9][0-9.e+-]* ?(?:ns|us|ms|s)\b"
NUMBER = r"[0-9][0-9.e+-]*"


def blocks(lines):
    """(marker, [lines]) for every fenced block that holds an example."""
    out, i = [], 0
    while i < len(lines):
        if lines[i].startswith("```"):
            marker = lines[i - 1].strip() if i > 0 else ""
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            body = lines[i + 1:j]
            if any(l.startswith("$ ") for l in body):
                out.append((marker, body, i + 1))
            i = j + 1
        else:
            i += 1
    return out


def examples(body):
    """[(command, expected lines, index in body of the first expected line)] of a block; a
    command may continue with a trailing backslash."""
    out = []
    for k, line in enumerate(body):
        if line.startswith("$ "):
            out.append([line[2:], [], k + 1])
        elif out and out[-1][0].endswith("\\") and not out[-1][1]:
            out[-1][0] = out[-1][0][:-1] + " " + line.strip()
            out[-1][2] = k + 1
        elif out:
            out[-1][1].append(line)
    return out


def mask(text, how):
    """Machine-dependent numbers replaced, and the column padding they change collapsed."""
    if how == "times":
        return re.sub(" +", " ", re.sub(TIME, "<time>", text))
    if how == "numbers":
        return re.sub(" +", " ", re.sub(NUMBER, "<n>", re.sub(TIME, "<n>", text)))
    return text


def line_pattern(expected):
    return re.compile("^" + ".*".join(re.escape(part) for part in expected.rstrip().split("...")) + "$")


def matches(expected, actual):
    """Whether actual lines match expected lines ('...' lines are wildcards)."""
    memo = {}

    def go(i, j):
        if (i, j) in memo:
            return memo[i, j]
        if i == len(expected):
            result = j == len(actual)
        elif expected[i].strip() == "...":
            result = any(go(i + 1, k) for k in range(j, len(actual) + 1))
        else:
            result = j < len(actual) and bool(line_pattern(expected[i]).match(actual[j].rstrip())) and go(i + 1, j + 1)
        memo[i, j] = result
        return result

    return go(0, 0)


def first_difference(expected, actual):
    for k, line in enumerate(expected):
        if line.strip() == "...":
            return f"  (lines after a '...' differ)\n  expected: {expected[k + 1:k + 3]}"
        if k >= len(actual) or not line_pattern(line).match(actual[k].rstrip()):
            got = actual[k] if k < len(actual) else "<end of output>"
            return f"  line {k + 1}\n  expected: {line!r}\n  actual:   {got!r}"
    return f"  actual has {len(actual) - len(expected)} more lines: {actual[len(expected):len(expected) + 2]}"


PROSE_TIME = r"([0-9][0-9.]*) ?(ns|us|ms|s)\b"


def prose_paragraphs(lines):
    """(line number, marker, paragraph text) for every paragraph marked as quoting the tool."""
    out = []
    for i, line in enumerate(lines):
        if re.match(r"<!-- readme: prose times", line.strip()):
            j = i + 1
            while j < len(lines) and lines[j].strip():
                j += 1
            out.append((i + 1, line.strip(), " ".join(lines[i + 1:j])))
    return out


def section_of(lines, line_no):
    """The number of the heading line (outside fenced blocks) a line (1-based) falls under."""
    heading, fenced = 0, False
    for k, line in enumerate(lines[:line_no]):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            heading = k + 1
    return heading


def rounds_to(prose, printed):
    """Whether a printed figure, rounded to the digits of the prose figure, is the prose figure."""
    decimals = len(prose.split(".")[1]) if "." in prose else 0
    return f"{float(printed):.{decimals}f}" == f"{float(prose):.{decimals}f}"


def check_prose(marker, text, printed):
    """The durations of a marked paragraph that no example of its section printed."""
    excluded = re.search(r"\(not: ([^)]*)\)", marker)
    excluded = {t.strip() for t in excluded.group(1).split(",")} if excluded else set()
    quoted = [(m.group(1), m.group(2)) for m in re.finditer(PROSE_TIME, text)
              if f"{m.group(1)} {m.group(2)}" not in excluded]
    seen = [(m.group(1), m.group(2)) for out in printed for m in re.finditer(PROSE_TIME, out)]
    missing = [f"{v} {u}" for v, u in quoted if not any(u == pu and rounds_to(v, pv) for pv, pu in seen)]
    return quoted, missing


def main():
    bin_dir, readme = sys.argv[1], sys.argv[2]
    lines = open(readme, encoding="utf-8").read().split("\n")
    # COLLSIM_PROGRESS=0: long examples would add progress lines to the stderr compared here.
    env = dict(os.environ, PATH=os.path.abspath(bin_dir) + os.pathsep + os.environ["PATH"], LC_ALL="C",
               COLLSIM_PROGRESS="0")
    ran = illustrations = failed = updated = 0
    printed = {}  # section heading line -> outputs of its examples, in order
    with tempfile.TemporaryDirectory() as scratch:
        updating = os.environ.get("README_UPDATE") == "1"
        rewrites = []  # (start, count, lines), applied at the end from the bottom up
        for marker, body, line_no in blocks(lines):
            how = re.match(r"<!-- readme: (mask times|mask numbers|illustration)", marker)
            how = how.group(1) if how else ""
            if how == "illustration":
                illustrations += 1
                print(f"README line {line_no}: illustration, not run: {marker}")
                continue
            for command, expected, first in examples(body):
                ran += 1
                result = subprocess.run(["bash", "-c", command], cwd=scratch, env=env,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
                printed.setdefault(section_of(lines, line_no), []).append((line_no, result.stdout.decode("utf-8", "replace")))
                actual = result.stdout.decode("utf-8", "replace").rstrip("\n").split("\n")
                if actual == [""]:
                    actual = []
                while expected and not expected[-1].strip():
                    expected = expected[:-1]
                masked = how.replace("mask ", "")
                exp = [mask(l, masked) for l in expected]
                act = [mask(l, masked) for l in actual]
                wants_error = any(l.startswith("collsim: error:") for l in expected)
                ok = matches(exp, act) and (result.returncode != 0) == wants_error
                print(f"README line {line_no}: {'ok  ' if ok else 'FAIL'} $ {command}")
                if not ok:
                    failed += 1
                    print(f"  exit status {result.returncode}")
                    print(first_difference(exp, act))
                    if updating and not any("..." in l for l in expected):
                        rewrites.append((line_no + first, len(expected), actual))  # body[0] is lines[line_no]
    prose = 0
    for line_no, marker, text in prose_paragraphs(lines):
        prose += 1
        before = [out for at, out in printed.get(section_of(lines, line_no), []) if at < line_no]
        quoted, missing = check_prose(marker, text, before)
        ok = quoted and not missing
        print(f"README line {line_no}: {'ok  ' if ok else 'FAIL'} prose quotes {', '.join(v + ' ' + u for v, u in quoted)}")
        if not ok:
            failed += 1
            print(f"  {'no duration in the paragraph' if not quoted else 'printed by no example above it in its section: ' + ', '.join(missing)}")
    for start, count, actual in sorted(rewrites, reverse=True):
        lines[start:start + count] = actual
        updated += 1
    if updated:
        open(readme, "w", encoding="utf-8").write("\n".join(lines))
        print(f"README_UPDATE: {updated} examples rewritten in {readme}")
    print(f"{ran} examples run, {prose} prose paragraphs checked, {failed} failed, {illustrations} blocks marked as illustrations")
    return 1 if failed or ran == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
