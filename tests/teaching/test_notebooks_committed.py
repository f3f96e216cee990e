#!/usr/bin/env python3
"""tests/teaching/test_notebooks_committed.py NOTEBOOKS_DIR — the committed notebooks are the
ones notebooks/make_notebooks.py writes (same cells, same sources, in order) and are committed
executed: every code cell ran (an execution count), printed or drew something where it is meant
to, and none stopped on an error. `make notebooks` rewrites and executes them."""
import importlib.util
import json
import sys
from pathlib import Path


def generator(folder):
    spec = importlib.util.spec_from_file_location("make_notebooks", folder / "make_notebooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.NOTEBOOKS


def problems_of(path, cells):
    committed = json.loads(path.read_text())["cells"]
    if len(committed) != len(cells):
        return [f"{len(committed)} cells where make_notebooks.py has {len(cells)}"]
    problems = []
    for i, (got, want) in enumerate(zip(committed, cells)):
        if "".join(got["source"]) != want["source"].strip("\n") or got["cell_type"] != want["cell_type"]:
            problems.append(f"cell {i} differs from make_notebooks.py")
        if got["cell_type"] != "code":
            continue
        if got.get("execution_count") is None:
            problems.append(f"cell {i} was not executed")
        if any(o.get("output_type") == "error" for o in got.get("outputs", [])):
            problems.append(f"cell {i} stopped on an error")
    if not any(c.get("outputs") for c in committed if c["cell_type"] == "code"):
        problems.append("no code cell has an output")
    return problems


def main():
    folder = Path(sys.argv[1])
    failed = 0
    for name, cells in generator(folder).items():
        problems = problems_of(folder / name, cells)
        for p in problems:
            print(f"FAIL {name}: {p}")
        failed += bool(problems)
        if not problems:
            print(f"ok   {name}")
    if failed:
        print("run `make notebooks` and commit the notebooks")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
