"""notebooks/_collsim.py — what the notebooks call: the `collsim` Python module when it is
importable (built into build/python/, found through PYTHONPATH), otherwise the `collsim`
command line with `--format json` (COLLSIM_BIN, else build/bin/collsim, else PATH). Both
paths return the same data: dicts as `collsim explain --format json`, and pandas DataFrames
whose columns are those of `collsim predict --format json` and `collsim schedule`.
Set COLLSIM_BACKEND=cli to force the command line (the test suite does, once).
"""
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pandas as pd

# The repository this file sits in (notebooks/..), or COLLSIM_ROOT: where the notebooks find
# their data (validate/results/), whatever folder they run from.
ROOT = Path(os.environ.get("COLLSIM_ROOT") or Path(__file__).resolve().parent.parent)

_module = None
if os.environ.get("COLLSIM_BACKEND", "module") != "cli":
    try:
        import collsim as _module
    except ImportError:
        _module = None
BACKEND = "module" if _module is not None else "cli"


def _binary():
    candidates = [os.environ.get("COLLSIM_BIN"),
                  str(Path(__file__).resolve().parent.parent / "build" / "bin" / "collsim"),
                  shutil.which("collsim")]
    for c in candidates:
        if c and Path(c).is_file():
            return c
    raise RuntimeError("neither the collsim module nor the collsim binary was found "
                       "(build it: make build; or set PYTHONPATH / COLLSIM_BIN)")


def _cli(*args):
    done = subprocess.run([_binary(), *map(str, args)], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip() or f"collsim {' '.join(map(str, args))} failed")
    return done.stdout


def _sizes_text(sizes):
    if isinstance(sizes, (int, str)):
        return str(sizes)
    return ",".join(str(s) for s in sizes)


def _schedule_args(algorithm, ranks, bytes, collective, segments, ranks_per_node):
    args = [algorithm, "--ranks", ranks, "--collective", collective]
    if bytes is not None:
        args += ["--bytes", bytes]
    if segments:
        args += ["--segments", segments]
    if ranks_per_node:
        args += ["--ranks-per-node", ranks_per_node]
    return args


def explain(algorithm, ranks, bytes=None, collective="allreduce", segments=0):
    """Every rank's chunks after every step, and the trees of tree algorithms (a dict)."""
    if _module:
        return _module.schedule(algorithm, ranks, bytes, collective, segments).explain()
    return json.loads(_cli("explain", *_schedule_args(algorithm, ranks, bytes, collective, segments, 0),
                           "--format", "json"))


def transfers(algorithm, ranks, bytes=None, collective="allreduce", segments=0, ranks_per_node=0):
    """The schedule's transfers, one row each: id, src, dst, op, step, bytes, phase."""
    if _module:
        s = _module.schedule(algorithm, ranks, bytes, collective, segments, ranks_per_node)
        return pd.DataFrame(s.transfers())
    s = json.loads(_cli("schedule", *_schedule_args(algorithm, ranks, bytes, collective, segments, ranks_per_node)))
    chunk_bytes = [c["bytes"] for c in s["chunks"]]
    phase_of = {}
    for p in s["phases"]:
        for step in range(p["first_step"], p["first_step"] + p["steps"]):
            phase_of.setdefault(step, p["name"])
    rows = [{"id": i, "src": t["src"], "dst": t["dst"], "op": t["op"], "step": t["step"],
             "bytes": chunk_bytes[t["dst_chunk"]], "phase": phase_of.get(t["step"], ""),
             "src_chunk": t["src_chunk"], "dst_chunk": t["dst_chunk"], "deps": len(t["deps"])}
            for i, t in enumerate(s["transfers"])]
    return pd.DataFrame(rows)


def svg(algorithm, ranks, bytes=None, collective="allreduce", segments=0):
    """The time-space diagram (and trees) as SVG text, as `collsim explain --svg`."""
    if _module:
        return _module.schedule(algorithm, ranks, bytes, collective, segments).svg()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "schedule.svg"
        _cli("explain", *_schedule_args(algorithm, ranks, bytes, collective, segments, 0), "--svg", path)
        return path.read_text()


def _module_cluster(preset, config_yaml, flat, ranks, placement, placement_seed):
    if flat is not None:
        return _module.flat_cluster(**flat)
    if config_yaml is not None:
        return _module.config_from_yaml(config_yaml, ranks, placement, placement_seed)
    if preset is not None:
        return _module.preset(preset, ranks, placement, placement_seed)
    return _module.default_cluster() if not ranks else _module.preset("baidu-40gpu", ranks)


def _cli_cluster_args(preset, config_path, flat, ranks, placement, placement_seed):
    if flat is not None:
        names = {"ranks": "--ranks", "bandwidth": "--bandwidth", "alpha": "--alpha", "gamma": "--gamma",
                 "ranks_per_node": "--ranks-per-node"}
        return [a for key, value in flat.items() if value for a in (names[key], value)]
    args = ["--config", config_path] if config_path else (["--preset", preset] if preset else [])
    if ranks:
        args += ["--ranks", ranks]
    if placement:
        args += ["--placement", placement, "--placement-seed", placement_seed]
    return args


def predict(algorithms="all", sizes=None, *, preset=None, config_yaml=None, flat=None, ranks=0, placement="",
            placement_seed=1, engine="analytic", collective="allreduce", segments=0, trace=None):
    """Predicted time per algorithm and size, one row each (columns of `collsim predict --format json`).
    The cluster: a preset name, YAML text, or flat=dict(ranks, bandwidth, alpha, gamma, ranks_per_node);
    none of them: seed 000's 40 GPUs."""
    algos = algorithms if isinstance(algorithms, str) else ",".join(algorithms)
    if _module:
        cluster = _module_cluster(preset, config_yaml, flat, ranks, placement, placement_seed)
        records = _module.predict(cluster, algos, sizes, collective=collective, engine=engine, segments=segments,
                                  trace=trace or "")
        return pd.DataFrame(records)
    with tempfile.TemporaryDirectory() as tmp:
        config_path = None
        if config_yaml is not None:
            config_path = Path(tmp) / "cluster.yaml"
            config_path.write_text(config_yaml)
        args = ["predict", *_cli_cluster_args(preset, config_path, flat, ranks, placement, placement_seed),
                "--algo", algos, "--engine", engine, "--collective", collective, "--format", "json"]
        if sizes is not None:
            args += ["--bytes", _sizes_text(sizes)]
        if segments:
            args += ["--segments", segments]
        if trace:
            args += ["--trace", trace]
        return pd.DataFrame(json.loads(_cli(*args)))


def predict_detail(algorithm, size, *, preset=None, config_yaml=None, collective="allreduce"):
    """One flow-engine run with what `collsim predict --detail --format json` adds: the record as predict's,
    with a "detail" dict (critical_path, critical_links, links, rank_finish_s). Through the command line
    whichever backend is loaded: the module does not return the detail."""
    with tempfile.TemporaryDirectory() as tmp:
        config_path = None
        if config_yaml is not None:
            config_path = Path(tmp) / "cluster.yaml"
            config_path.write_text(config_yaml)
        args = ["predict", *_cli_cluster_args(preset, config_path, None, 0, "", 1), "--algo", algorithm,
                "--bytes", size, "--engine", "flow", "--collective", collective, "--detail", "--format", "json"]
        return json.loads(_cli(*args))[0]


def sweep(file, out, workers=0):
    """Every point of a sweep file (configs/sweeps/README.md) priced on `workers` local processes (0: one per
    core), as `collsim sweep FILE -o OUT`: results.csv as a DataFrame. Refused points are rows with their status
    and error, not exceptions."""
    if _module:
        return _module.sweep(str(file), str(out), workers=workers)
    args = [_binary(), "sweep", str(file), "-o", str(out)] + (["--workers", str(workers)] if workers else [])
    done = subprocess.run(args, capture_output=True, text=True)
    results = Path(out) / "results.csv"
    if done.returncode not in (0, 2) or not results.is_file():  # 2 with a table: some points refused
        raise RuntimeError(done.stderr.strip())
    return pd.read_csv(results, dtype={"hash": str})
