#!/usr/bin/env python3
"""tests/cli/docs_links.py ROOT — the repository is self-contained: no file points outside it
(to the folder of design notes kept beside a developer's clone, which a user's clone has not),
every repository path that a Markdown file
names in backquotes exists, and every seed the code cites ("seed 000" .. "seed 004") has its
section in docs/background.md.
Prints each problem; exits 1 if there is any."""
import os
import re
import sys

ROOT = sys.argv[1]
# The sibling folder of developers' notes, spelled in parts so that this file names no path
# outside the repository itself.
NOTES = "sha" + "red"
OUTSIDE = re.compile(r"\.\./" + NOTES + r"|" + NOTES + r"/(?:DESIGN|STYLE)\.md")
SKIP_DIRS = {".git", "build", "gpu-bundle", ".ipynb_checkpoints", "__pycache__"}
TOP = ("base", "bench", "cli", "cmake", "collectives", "configs", "docs", "execute", "notebooks", "python",
       "scripts", "sim", "tests", "topologies", "validate")
TEXT = (".md", ".cpp", ".hpp", ".py", ".sh", ".yaml", ".txt", ".cmake", ".toml", ".ipynb")


def files():
    for folder, dirs, names in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.startswith("build-")]
        for name in names:
            if name.endswith(TEXT) or name in ("Makefile", "CMakeLists.txt"):
                yield os.path.join(folder, name)


def main():
    problems = []
    seeds_cited = set()
    for path in files():
        rel = os.path.relpath(path, ROOT)
        if rel == os.path.join("tests", "cli", "docs_links.py"):
            continue
        text = open(path, encoding="utf-8", errors="replace").read()
        if OUTSIDE.search(text):
            problems.append(f"{rel}: points outside the repository (to the developers' notes beside the clone)")
        # "seed 000", "seeds 000, 002 and 003", "seed004-fdr-ib" (a placement's "seed 7" is not one)
        for group in re.findall(r"\bseeds? ?(\d{3}(?:(?:, | and |, and )\d{3})*)\b", text, re.I):
            seeds_cited |= {int(n) for n in re.findall(r"\d{3}", group)}
        if rel.endswith(".md"):
            for name in re.findall(r"`([^`\s]+)`", text):
                name = name.rstrip(".,:;)")
                first = name.split("/")[0]
                if first not in TOP or "/" not in name or re.search(r"[<>*{}$]|NAME|\.\.\.", name):
                    continue
                target = name.split(":")[0].split("#")[0]
                if not os.path.exists(os.path.join(ROOT, target)):
                    problems.append(f"{rel}: names `{name}`, which the repository does not have")
    background = open(os.path.join(ROOT, "docs", "background.md"), encoding="utf-8").read()
    for n in sorted(seeds_cited):
        if not re.search(rf"^## seed {n:03d}:", background, re.M):
            problems.append(f"docs/background.md: no section '## seed {n:03d}:' for the seed the code cites")
    for p in problems:
        print("FAIL:", p)
    print(f"{len(problems)} problems; seeds cited: {sorted(seeds_cited)}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
