#!/usr/bin/env python3
"""scripts/public_validation.py COLLSIM [--csv FILE] [--out FILE] [--check]

The public validation table: published nccl-tests figures, whole size sweeps of all_reduce_perf and
a few of its siblings (validate/public/nccl_tests_published.csv, every row with its source and the
log its line was copied into, validate/public/logs/) against what collsim predicts for the same
system from its catalog-only preset with `--algo nccl`. Writes docs/validation-public.md and one
busbw-vs-size plot per system (docs/img/public/*.svg, beside --out); --check exits 1 when a file on
disk differs from what it would write (the page is regenerated after predictions change, not
patched by hand).

Error is on time: predicted / measured - 1 (positive: collsim is slower than the machine).
A row whose preset collsim does not have is listed as skipped, with why. The sizes of one system,
collective and rank count are predicted in one `collsim predict --bytes a,b,c` call.
Exit codes: 0 written (or up to date), 1 --check found a difference, 2 bad input.
"""
import argparse
import csv
import io
import math
import re
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CSV = REPO / "validate" / "public" / "nccl_tests_published.csv"
DEFAULT_OUT = REPO / "docs" / "validation-public.md"
# collsim's predictions of the same rows before the runtime model (issue 33): id, predicted_us.
# Written once by --save-before from the build before it; read to show before and after.
DEFAULT_BEFORE = REPO / "validate" / "public" / "predicted_before_runtime.csv"
COLUMNS = ["id", "system", "system_type", "preset", "nodes", "gpus_per_node", "collective", "bytes",
           "measured_time_us", "measured_busbw_GBps", "placement", "nccl_version", "nccl_algo", "gpus_per_thread",
           "source_url", "note", "log"]
# NCCL_ALGO where the source forced one (its command line or page says so), as collsim names the
# algorithm; empty: NCCL chose, and so does `--algo nccl`. NCCL still picks the protocol, and so
# does `--protocol auto`.
# gpus_per_thread: the GPUs one host thread drove (nccl-tests -g, the log's `nGpus`): collsim's
# `predict --gpus-per-thread` prices the kernel launch calls of that one thread for each collective.
NCCL_ALGOS = {"Ring": "ring", "Tree": "nccl-tree", "NVLS": "nvls", "NVLSTree": "nvls-tree", "CollNetDirect": "collnet"}
# Every system type the CSV has a row of, in the order the page lists them ("NVLink mesh": a single
# node whose GPUs are joined by NVLink links pair to pair, no NVSwitch, DGX-1 style; "one GPU": a
# communicator of one rank, where NCCL copies the buffer and no link is crossed).
SYSTEM_TYPES = ["single-node NVSwitch", "single-node NVLink mesh", "single-node PCIe", "multi-node InfiniBand",
                "multi-node RoCE", "multi-node EFA", "multi-node GPUDirect-TCPXO", "one GPU"]
# Size classes: where NCCL's per-call and per-step costs dominate, the ramp, and the bandwidth regime.
MIB = 2**20
SIZE_CLASSES = [("<= 1 MiB", lambda b: b <= MIB), ("1-128 MiB", lambda b: MIB < b <= 128 * MIB),
                (">= 256 MiB", lambda b: b > 128 * MIB)]
PLACEMENTS = {"oop": "out-of-place", "ip": "in-place"}
# nccl-tests' bus bandwidth factor per collective (docs/design.md section 3).
BUS_FACTORS = {
    "allreduce": lambda p: 2 * (p - 1) / p,
    "allgather": lambda p: (p - 1) / p,
    "reduce-scatter": lambda p: (p - 1) / p,
    "broadcast": lambda p: 1.0,
    "reduce": lambda p: 1.0,
    "alltoall": lambda p: (p - 1) / p,
}
# a row giving both time and busbw must agree with itself: nccl-tests rounds busbw to 2 decimals
# (so 0.005 GB/s either way, 0.00 for the smallest sizes) and time to 4 significant digits
SELF_CONSISTENCY = 0.01
BUSBW_ROUNDING = 0.005


class BadInput(Exception):
    """A problem with the CSV or the command line: one line, exit code 2."""


def ranks(row):
    return int(row["nodes"]) * int(row["gpus_per_node"])


def bus_factor(row):
    return BUS_FACTORS[row["collective"]](ranks(row))


def busbw_from_time(row, time_us):
    return int(row["bytes"]) / (time_us * 1e3) * bus_factor(row)


def time_from_busbw(row, busbw):
    return int(row["bytes"]) / (busbw / bus_factor(row)) / 1e3


def measured_time_us(row):
    """The measured time; from busbw when the source gives only bandwidth (vendor tables)."""
    if row["measured_time_us"]:
        return float(row["measured_time_us"])
    return time_from_busbw(row, float(row["measured_busbw_GBps"]))


def check_row(number, row, base=None):
    """Raise BadInput naming the row and the field when the row cannot be used; with base (the
    CSV's folder), the row's log must be there and hold the figure the row gives."""
    where = f"row {number} ({row.get('id') or 'no id'})"
    for field in ("id", "system", "preset", "source_url", "log"):
        if not row[field]:
            raise BadInput(f"{where}: empty {field}; every row needs one")
    if row["system_type"] not in SYSTEM_TYPES:
        raise BadInput(f"{where}: system_type '{row['system_type']}' is not one of {', '.join(SYSTEM_TYPES)}")
    if row["collective"] not in BUS_FACTORS:
        raise BadInput(f"{where}: collective '{row['collective']}' is not one of {', '.join(BUS_FACTORS)}")
    if row["nccl_algo"] and row["nccl_algo"] not in NCCL_ALGOS:
        raise BadInput(f"{where}: nccl_algo '{row['nccl_algo']}' is not one of {', '.join(NCCL_ALGOS)} "
                       "(NCCL_ALGO as the source set it; empty where NCCL chose)")
    if not row["gpus_per_thread"].isdigit() or not 1 <= int(row["gpus_per_thread"]) <= int(row["gpus_per_node"] or 0):
        raise BadInput(f"{where}: gpus_per_thread '{row['gpus_per_thread']}' must be a whole number from 1 to "
                       "gpus_per_node (nccl-tests -g, the log's nGpus)")
    if row["placement"] not in PLACEMENTS:
        raise BadInput(f"{where}: placement '{row['placement']}' must be oop or ip")
    if not row["source_url"].startswith("https://"):
        raise BadInput(f"{where}: source_url must be an https:// address")
    try:
        whole = [int(row[f]) for f in ("nodes", "gpus_per_node", "bytes")]
        time_us = float(row["measured_time_us"]) if row["measured_time_us"] else None
        busbw = float(row["measured_busbw_GBps"]) if row["measured_busbw_GBps"] else None
    except ValueError as e:
        raise BadInput(f"{where}: {e}; nodes, gpus_per_node and bytes are integers, the measurements numbers")
    if min(whole) <= 0:
        raise BadInput(f"{where}: nodes, gpus_per_node and bytes must be positive")
    if time_us is None and busbw is None:
        raise BadInput(f"{where}: neither measured_time_us nor measured_busbw_GBps; give what the source prints")
    if (time_us is not None and time_us <= 0) or (busbw is not None and busbw < 0) or \
            (time_us is None and busbw == 0):
        raise BadInput(f"{where}: measurements must be positive (busbw may print 0.00 beside a time)")
    if time_us is not None and busbw is not None:
        implied = busbw_from_time(row, time_us)
        if abs(implied - busbw) > BUSBW_ROUNDING + SELF_CONSISTENCY * busbw:
            raise BadInput(f"{where}: time {time_us} us implies busbw {implied:.2f} GB/s, not {busbw}; "
                           "check the copied line")
    if base is not None:
        check_log(where, row, Path(base) / row["log"])


def check_log(where, row, path):
    """The row's log exists and one of its lines (not a # comment) holds the row's figure as printed:
    its time, or its busbw where the source prints no time (a Markdown table's ** around it aside)."""
    try:
        lines = path.read_text().splitlines()
    except OSError as e:
        raise BadInput(f"{where}: cannot read its log {row['log']}: {e.strerror}")
    figure = row["measured_time_us"] or row["measured_busbw_GBps"]
    if not any(figure in re.split(r"[\s|,*]+", line) for line in lines if not line.startswith("#")):
        raise BadInput(f"{where}: no line of {row['log']} gives {figure}; copy the line there")


def read_rows(path):
    try:
        text = Path(path).read_text()
    except OSError as e:
        raise BadInput(f"cannot read {path}: {e.strerror}")
    reader = csv.DictReader(io.StringIO(text))
    if reader.fieldnames != COLUMNS:
        raise BadInput(f"{path}: columns must be {','.join(COLUMNS)}")
    rows = list(reader)
    if not rows:
        raise BadInput(f"{path}: no data rows")
    seen = set()
    for number, row in enumerate(rows, start=2):
        check_row(number, row, Path(path).parent)
        if row["id"] in seen:
            raise BadInput(f"row {number}: id '{row['id']}' appears twice")
        seen.add(row["id"])
    return rows


def run_collsim(collsim, args):
    try:
        done = subprocess.run([collsim, *args], capture_output=True, text=True)
    except OSError as e:
        raise BadInput(f"cannot run {collsim}: {e.strerror}; pass the built binary, e.g. build/bin/collsim")
    if done.returncode != 0:
        message = done.stderr.strip().splitlines()[-1:] or ["(no message)"]
        raise BadInput(f"collsim {' '.join(args)} failed: {message[0]}")
    return done.stdout


def presets(collsim):
    return set(run_collsim(collsim, ["topo", "--list"]).split())


def curve_key(row):
    return (row["preset"], ranks(row), row["collective"], row["nccl_algo"], int(row["gpus_per_thread"]))


def algorithm_args(nccl_algo, collective):
    """`--algo nccl`, or the algorithm the source forced with NCCL's protocol choice (NCCL's Ring
    of a rooted collective is collsim's chain)."""
    if not nccl_algo:
        return ["--algo", "nccl"]
    name = NCCL_ALGOS[nccl_algo]
    if name == "ring" and collective in ("broadcast", "reduce"):
        name = "chain"
    return ["--algo", name, "--protocol", "auto"]


def predict_curve(collsim, preset, nranks, collective, nccl_algo, gpus_per_thread, sizes):
    """collsim's predictions for one system, rank count, collective, forced algorithm and GPUs per
    launching thread at several sizes, in one call: {bytes: the CSV line of `predict --algo nccl` (or
    the forced one) as a dict}."""
    threads = ["--gpus-per-thread", str(gpus_per_thread)] if gpus_per_thread > 1 else []
    out = run_collsim(collsim, ["predict", "--preset", preset, "--ranks", str(nranks),
                                "--collective", collective, *algorithm_args(nccl_algo, collective), *threads,
                                "--bytes", ",".join(str(b) for b in sizes), "--format", "csv"])
    lines = {int(line["bytes"]): line for line in csv.DictReader(io.StringIO(out))}
    missing = [b for b in sizes if b not in lines]
    if missing:
        raise BadInput(f"{preset}, {nranks} ranks, {collective}: collsim gave no prediction for {missing[0]} bytes")
    return lines


def evaluate(collsim, rows):
    """(points, skipped): every row predicted, or skipped with the reason."""
    known = presets(collsim)
    curves = {}
    for row in rows:
        if row["preset"] in known:
            curves.setdefault(curve_key(row), set()).add(int(row["bytes"]))
    predictions = {key: predict_curve(collsim, *key, sorted(sizes)) for key, sizes in curves.items()}
    points, skipped = [], []
    for row in rows:
        if row["preset"] not in known:
            skipped.append((row, f"preset '{row['preset']}' is not in this collsim (`collsim topo --list`)"))
            continue
        prediction = predictions[curve_key(row)][int(row["bytes"])]
        measured = measured_time_us(row)
        predicted = float(prediction["time_s"]) * 1e6
        points.append({"row": row, "measured_us": measured, "predicted_us": predicted,
                       "error": predicted / measured - 1,
                       "runs": prediction.get("runs") or prediction.get("algorithm", ""),
                       "protocol": prediction.get("protocol", "")})
    return points, skipped


def size_text(n):
    for unit, scale in (("G", 2**30), ("M", 2**20), ("K", 2**10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale}{unit}"
    return str(n)


def time_text(us):
    if us >= 1e3:
        return f"{us / 1e3:.3g} ms"
    return f"{us:.3g} us"


def percent(x):
    return f"{x * 100:+.1f}%"


def size_class(row):
    return next(label for label, test in SIZE_CLASSES if test(int(row["bytes"])))


def stats_line(label, points):
    """| label | count | median |error| | worst |error| (id) | share too fast | median measured/predicted |"""
    errors = [abs(p["error"]) for p in points]
    worst = max(points, key=lambda p: abs(p["error"]))
    fast = sum(p["error"] < 0 for p in points) / len(points)
    ratio = statistics.median(p["measured_us"] / p["predicted_us"] for p in points)
    return (f"| {label} | {len(points)} | {statistics.median(errors) * 100:.1f}% | "
            f"{max(errors) * 100:.1f}% ({worst['row']['id']}) | {fast * 100:.0f}% | {ratio:.2f}x |")


def table(points):
    out = ["| id | system | ranks | collective, size | measured busbw (time) | predicted busbw (time) | error | collsim ran | NCCL | source |",
           "|---|---|---:|---:|---:|---:|---:|---|---|---|"]
    for p in points:
        row = p["row"]
        measured = busbw_from_time(row, p["measured_us"])
        predicted = busbw_from_time(row, p["predicted_us"])
        out.append(f"| {row['id']} | {row['system']} | {ranks(row)} | {row['collective']} {size_text(int(row['bytes']))} "
                   f"({PLACEMENTS[row['placement']]}) | {measured:.1f} GB/s ({time_text(p['measured_us'])}) | "
                   f"{predicted:.1f} GB/s ({time_text(p['predicted_us'])}) | {percent(p['error'])} | "
                   f"{p['runs']}, {p['protocol']} | {row['nccl_version']} | [source]({row['source_url']}) |")
    return out


STATS_HEAD = ["| points | count | median \\|error\\| | worst \\|error\\| (id) | collsim too fast | "
              "median measured / predicted time |",
              "|---|---:|---:|---|---:|---:|"]


def summary(points):
    """All points, by size class, by system type, then (where more than one is published) by collective."""
    out = ["### By size class", ""] + STATS_HEAD + [stats_line("all", points)]
    for label, _ in SIZE_CLASSES:
        group = [p for p in points if size_class(p["row"]) == label]
        if group:
            out.append(stats_line(label, group))
    out += ["", "### By system type", ""] + STATS_HEAD
    for kind in SYSTEM_TYPES:
        group = [p for p in points if p["row"]["system_type"] == kind]
        if group:
            out.append(stats_line(kind, group))
    out += ["", "### By system type and size class", "",
            "Median \\|error\\| (share of points where collsim is too fast, count).", "",
            "| system type | " + " | ".join(label for label, _ in SIZE_CLASSES) + " |",
            "|---|" + "---:|" * len(SIZE_CLASSES)]
    for kind in SYSTEM_TYPES:
        line = class_cells(kind, [p for p in points if p["row"]["system_type"] == kind])
        if line:
            out.append(line)
    collectives = [c for c in BUS_FACTORS if any(p["row"]["collective"] == c for p in points)]
    if len(collectives) > 1:
        out += ["", "### By collective", ""] + STATS_HEAD
        for collective in collectives:
            out.append(stats_line(collective, [p for p in points if p["row"]["collective"] == collective]))
    out += ["", "### By curve and size class", "",
            "One published sweep (a log, its node count and collective) a row: which curves make up each "
            "class's share. Median \\|error\\| (share of points where collsim is too fast, count).", "",
            "| curve | " + " | ".join(label for label, _ in SIZE_CLASSES) + " |",
            "|---|" + "---:|" * len(SIZE_CLASSES)]
    curves = {}
    for p in points:
        curves.setdefault(plot_key(p["row"]) + (p["row"]["collective"],), []).append(p)
    for (stem, nodes, collective), group in sorted(curves.items()):
        out.append(class_cells(f"{stem}, {nodes} node{'s' if nodes > 1 else ''}, {collective}", group))
    return out


def class_cells(label, group):
    """A table row: per size class, the median |error| of `group`'s points there, the share too
    fast and the count ("-" where it has none); None when it has none at all."""
    cells = []
    for size, _ in SIZE_CLASSES:
        part = [p for p in group if size_class(p["row"]) == size]
        if not part:
            cells.append("-")
            continue
        median = statistics.median(abs(p["error"]) for p in part)
        fast = sum(p["error"] < 0 for p in part) / len(part)
        cells.append(f"{median * 100:.1f}% ({fast * 100:.0f}% fast, {len(part)})")
    return f"| {label} | " + " | ".join(cells) + " |" if group else None


def read_before(path):
    """{id: predicted_us} of the build before the runtime model, or {} without the file."""
    if not Path(path).exists():
        return {}
    with open(path, newline="") as f:
        return {r["id"]: float(r["predicted_us"]) for r in csv.DictReader(line for line in f if not line.startswith("#"))}


def write_before(path, points):
    with open(path, "w", newline="") as f:
        f.write("# collsim's predictions of validate/public/nccl_tests_published.csv before the runtime model "
                "(runtime: nccl), for docs/validation-public.md's before-and-after table\n")
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["id", "predicted_us"])
        for p in points:
            w.writerow([p["row"]["id"], f"{p['predicted_us']:.6g}"])


BEFORE_HEAD = ["| points | count | median \\|error\\| before -> after | too fast before -> after |", "|---|---|---|---|"]


def before_after(points, before):
    """Per size class and system type: the median |error| and share too fast, before -> after."""
    if not before:
        return []
    def line(label, group):
        group = [p for p in group if p["row"]["id"] in before]
        if not group:
            return None
        then = [before[p["row"]["id"]] / p["measured_us"] - 1 for p in group]
        now = [p["error"] for p in group]
        med = lambda xs: statistics.median(abs(x) for x in xs) * 100
        fast = lambda xs: sum(x < 0 for x in xs) / len(xs) * 100
        return (f"| {label} | {len(group)} | {med(then):.0f}% -> {med(now):.0f}% | "
                f"{fast(then):.0f}% -> {fast(now):.0f}% |")
    out = ["### Before and after the runtime model", "",
           "The same rows predicted by the build before `runtime: nccl` (`validate/public/"
           "predicted_before_runtime.csv`) and by this one.", ""] + BEFORE_HEAD
    for label, _ in SIZE_CLASSES:
        out.append(line(label, [p for p in points if size_class(p["row"]) == label]))
    for kind in SYSTEM_TYPES:
        out.append(line(kind, [p for p in points if p["row"]["system_type"] == kind]))
    out.append(line("all", points))
    return [x for x in out if x is not None] + [""]


def before_summary(points):
    """The page's opening figures: per size class, how far off and which way."""
    parts = []
    for label, _ in SIZE_CLASSES:
        group = [p for p in points if size_class(p["row"]) == label]
        if not group:
            continue
        median = statistics.median(abs(p["error"]) for p in group)
        fast = sum(p["error"] < 0 for p in group) / len(group)
        ratio = statistics.median(p["measured_us"] / p["predicted_us"] for p in group)
        parts.append(f"{label}: median |error| {median * 100:.0f}%, collsim too fast on {fast * 100:.0f}% "
                     f"of {len(group)} points (median measured/predicted time {ratio:.2f}x)")
    kinds = sorted({p["row"]["system_type"] for p in points}, key=SYSTEM_TYPES.index)
    return (f"**As of this build** ({len(points)} published points on {len(kinds)} system types, "
            f"{len({p['row']['source_url'] for p in points})} sources): " + "; ".join(parts) + ". "
            "Predictions use each preset's `runtime: nccl` (NCCL's base latency per collective, per-step "
            "latencies by protocol and transport, and a ring's flag waits per slice and loop of its pipeline, "
            "sim/runtime.hpp); what the runtime model changed is in "
            "\"Before and after the runtime model\" below.")


def skipped_list(skipped):
    if not skipped:
        return ["None: every row has its preset."]
    return [f"- {row['id']} ({row['system_type']}, {row['system']}): {why}. {row['note']}"
            for row, why in skipped]


def limits(points):
    """The largest errors: which system, size and schedule they are (the causes follow)."""
    worst = sorted(points, key=lambda p: -abs(p["error"]))[:3]
    return [f"- {p['row']['id']}: {percent(p['error'])}, {p['row']['system_type']}, {p['row']['collective']} "
            f"{size_text(int(p['row']['bytes']))}, collsim ran {p['runs']} ({p['protocol']})"
            for p in worst]


INTRO_TITLE = "# Public validation: collsim against published nccl-tests figures"

INTRO = """Every point below is an nccl-tests figure someone published (a vendor page, a cloud's
tutorial or benchmark repository, a GitHub issue or README), whole size sweeps of
`all_reduce_perf` where the source has one and, where the same page gives them, `broadcast_perf`,
`reduce_perf`, `all_gather_perf` and `alltoall_perf` (one page has it), next to what `collsim predict --algo nccl` says for the same
collective, size and rank count on the preset that describes that system (where the source forced
NCCL's algorithm, `NCCL_ALGO`, the CSV's `nccl_algo` says which, and collsim runs that algorithm
with its protocol chosen, `--protocol auto`: the Azure H200 page ran NVLS at every size). The presets and the link
catalog come from datasheets and point-to-point microbenchmarks only (`configs/README.md`); no
number in them was fitted to an allreduce measurement, these included. The error is on time,
predicted / measured - 1: negative means collsim is faster than the machine was ("too fast").

The data is `validate/public/nccl_tests_published.csv`, one row per published line; each row names
its source (a permalink where it is on GitHub) and the file under `validate/public/logs/` that holds
the lines copied verbatim from it, with the source, the date it was seen, the system, NCCL's version
and which column was used. This page and its plots (`docs/img/public/`) are written by
`python3 scripts/public_validation.py build/bin/collsim` and are not edited by hand (`--check` tells
whether they are up to date with the build). A row whose time the source does not print (vendor
tables and summaries give bus bandwidth only) has its time derived from busbw with nccl-tests'
factor (2(P-1)/P for allreduce, (P-1)/P for allgather and alltoall, 1 for broadcast and reduce); where busbw
is printed with two decimals below 1 GB/s, that time carries the rounding (up to 12%). "collsim
ran" is the algorithm and protocol `--algo nccl` chose (`runs` and `protocol` in its CSV), or the
forced one. Size
classes: up to 1 MiB, above 1 MiB up to 128 MiB, and 256 MiB and more.
"""

LIMITS_INTRO = """## What limits the worst points

The three largest errors:
"""

KNOWN_LIMITS = """What is known to cause the errors, in the model rather than in the data:

- **The worst points are the TCPXO pair's at 2-64 MiB** ("What the A3 Mega run let NCCL choose"
  below). Of the others, the worst, dgx-h100-32 (allreduce of 32 bytes, -78%), is the source's,
  not the model's: it measured 68.1 us
  where the same sweep measured 13.0 us at 16 bytes and 14.9 us at 64, one line of NVIDIA's
  sample output, a glitch of that run, that no latency model can meet.
- **How a source ran its test.** The Azure pages ran `all_reduce_perf -g 8` and the RTX 2080 Ti
  page `-g 2` (the logs' `nGpus`): one process and one thread drive all the GPUs, launching their
  kernels one after another for every collective, where NVIDIA's DGX H100 sample and the cloud
  clusters ran one GPU per process (`nGpus 1`). The CSV's `gpus_per_thread` says which, and
  collsim predicts those rows with `--gpus-per-thread G`: the last GPU starts (G - 1) kernel
  launch calls later, 3.72 us each (the median of collsim-gpu-microbench's
  `empty_kernel_launch_call` over seven runs on an H100's host, 3.28-4.55 us; measured, not fitted
  to these rows). That took the Azure A100 rows from a median 31% fast to 3% fast and the 2080 Ti
  pair's allreduce and allgather from 29-32% fast to 22-26% fast (broadcast 11% -> 4%), and the
  class up to 1 MiB from 23.8% to 14.3%. The Azure H200 rows, NVLS forced (`nccl_algo` NVLS), went
  the other way, from 8% fast to 49% slow: NCCL's 25 us NVLS latency (tuning.cc) plus 7 launches
  is 51 us where the page measured a 30 us floor, so either NVLS's own latency is well under
  NCCL's constant on that machine or NCCL's grouped launch overlaps it; neither is measured.
  nccl-tests' own loop favours the second: it launches its 20 timed iterations back to back
  without a synchronization between them and times them together (NVIDIA/nccl-tests
  src/common.cu, `BenchTime`, default `-z 0`), so one iteration's launches overlap the last
  one's GPU work and an iteration takes the larger of the two, the host's G launches or the
  GPU's collective, not their sum. Tried with the one launch cost measured (3.72 us, an H100's
  host): the Azure H200 rows come to within -10..0% (8 x 3.72 = 29.8 us against the 30 us
  floor), but the Azure A100 rows go to 26-34% fast and the 2080 Ti pair's small sizes to 11-35%
  fast (the class up to 1 MiB from 14.3% to 23.8%): their floors (42-45 us for 8 GPUs, 11.8 us
  for 2) would need 5.3 and 5.9 us a GPU on their hosts, which nothing measured gives (the A100
  page's host is an AMD EPYC 7V12, the H200 page's an Intel Xeon Platinum 8480C, by the pages'
  System Specifications; the 3.72 us was measured on an Intel Xeon). So the
  sum stays, and the H200 rows' floor is named here, not modelled. The published curves say
  which form holds from 2 MiB: there the Azure H200 rows (8 GPUs on one thread, NVLS forced)
  took 0.97-0.99 of the times of NVIDIA's DGX H100 sample (a process per GPU, NCCL choosing; the
  same NVLink 4 and NVSwitch), where the sum would have them 26 us longer (+62% at 2 MiB): the
  launches hid behind the GPUs' work. The H200 rows' +5..+55% from 2 to 128 MiB are that sum's
  26 us; with the larger of the two they would be 8% fast to 4% slow, and the class from 1 to 128
  MiB 84% too fast, not 78% (87% with every row of one thread so priced). What would settle the
  small sizes is NCCL's own host time per GPU of a grouped launch, which the lent machines, one
  GPU each, cannot measure with their NCCL 2.28 (it refuses two ranks on one GPU, "Duplicate GPU
  detected", src/init.cc; NCCL 2.30 allows them).
- **Small and middle sizes: NCCL's runtime, now modelled in part.** Each GPU preset names
  `runtime: nccl` (docs/semantics.md, "The runtime"): a collective pays NCCL 2.30's base latency
  once and every step its per-step latency by protocol and transport (tuning.cc). That took the
  median |error| up to 1 MiB from 70% to 32%; NCCL's own tree (`nccl-tree`: a chain in each node,
  a double binary tree across nodes) in `--algo nccl` in place of the flat two-tree took it to
  27% (on one node an 8-GPU chain is slower than the ring there, so NCCL's choice at small sizes
  is now the ring with LL). With the GPUs named in each preset's `runtime:` map, a ring or tree
  also moves no faster than NCCL's rate caps (LL's whole rate, LL128's and the tree's per channel,
  on the channels NCCL starts at the size) and at NCCL's share of the links per protocol and
  algorithm (tuning.cc), which slowed LL at 256 KiB-2 MiB on one node and moved the EFA and TCPXO
  rows off LL between nodes (median up to 1 MiB 27.3% -> 26.9%, >= 256 MiB 21.7% -> 17.7% with
  NVLS's channels, below). NCCL's ring pipeline (its chunks from the connection buffers, loops of
  ranks x chunk, two slices per Simple chunk step, a flag wait each) and its ring plateau across
  nodes (tuning.cc, 1.4x) are modelled too: they moved the medians little (all 25.7% -> 23.7%,
  up to 1 MiB 26.9% -> 26.6%, 1-128 MiB 33.1% -> 32.5%, >= 256 MiB 17.7% -> 17.3%), because
  collsim's rings already paid one step latency per 1 MiB segment and the extra waits come to tens
  of microseconds where the mid-size points are hundreds slower (8 A100s at 16-128 MiB: 130-390 us
  beyond collsim's ring; 8 H100s on NVLS at 16-256 MiB: 40-220 us). What is still missing: the
  Simple ring's per-channel rate (one thread block's copy rate) and NCCL's own channel count from
  its topology search; the tree's and chain's pipelines. The tree's was tried and not kept: NCCL's
  chunk by protocol (calcCollChunking: Simple 512 KiB, LL 32 KiB, LL128 576,000 bytes halved by
  size, 15,360 on 2 nodes of 8 from 1 to 16 MiB), one segment per loop on the channels NCCL starts
  by size (at most 64). The LL128 tree of the XE9680 pair ran 5-22% faster at 1-8 MiB (more,
  smaller segments fill the tree sooner: its 1-128 MiB median 19.9% -> 27.3%, the OKE pods'
  23.7% -> 31.1%), the Simple trees barely moved (the TCPXO pair's 64.2% -> 63.3%), the class
  1-128 MiB 17.4% -> 18.3% and 78% -> 79% too fast; and a Simple two-tree on one node of 8 H100s
  at 16 MiB ran as one segment, 2.5x slower (316 against 128 us), since on 64 channels each
  channel's part is one chunk. Two facts it lacks: NCCL's own channel count (16-32 where the
  search runs, not 64, so 2-4x the loops) and that LL and LL128 forward each line as it arrives,
  so their chunk is not their pipeline's grain. NVLS's pipeline is modelled: NCCL's
  NVLS channels (16 on Hopper), its chunks by size (16-128 KiB, calcCollChunking) and its loops of
  one chunk per head, run as one segment each, so the fill and drain of few loops show at mid
  sizes (8 H100s: 2 loops at 8 MiB, 64 at 1 GiB). It took the single-node NVSwitch rows at
  1-128 MiB from 27.9% to 16.7% (8 MiB: -30% -> -17%; 64 MiB: -26% -> -11%), EFA's 1-128 MiB
  from 56.2% to 53.4%, all 1-128 MiB from 32.5% to 31.8%; nothing got worse.
  Together they put the half-way size of the bandwidth ramp near 16-32 MiB on these nodes where
  collsim has it near 4-8 MiB.
- **The cloud transports (EFA, GPUDirect-TCPXO).** The presets `aws-p5-efa` and
  `gcp-a3mega-tcpxo` take their NICs' rates from AWS's and Google's instance pages (and EFA's
  efficiency from a published two-node libfabric measurement), but their per-message start-up
  and per-hop latency are labelled assumptions (the catalog's RoCE figures): no point-to-point
  latency of either transport was found. With `runtime: nccl` their steps pay NCCL's network
  step latency (2.7 / 4.0 / 14 us by protocol), which NCCL's table gives for InfiniBand, plus
  what the transport's NCCL plugin reports as its latency, as NCCL's own model adds it
  (tuning.cc: `interLat += graphs[a]->latencyInter`, once more for Simple's flush). NCCL's
  InfiniBand and the TCPXO plugin report 0; AWS's aws-ofi-nccl reports 75 us on p5
  (`src/platform-aws.cpp`, the p5/p5e platform's `.latency`, "Empirical testing on P5 had shown
  that NCCL's internal tuner choices work better with this value"), which `aws-p5-efa` now gives
  (`runtime: net_latency_s`): a p5 step across nodes costs 79 us with LL128 and 164 us with
  Simple. Before it the preset took the 20 us (23 with Simple) that the same plugin's region
  tuner models a p5 step with (`src/tuner/nccl_ofi_model.cpp`, net_lat): that left the EFA rows at
  1-128 MiB 37.2% off, all too fast (aws-p5-4n-64m and -8n-128m -50%, on the ring with LL128,
  whose chain crosses the network 2 x nodes times); with NCCL's own sum they are 15.1% off, 67%
  too fast (the ring rows within -9..+4%, the trees' -21..+25%), EFA at >= 256 MiB went from 13.1%
  to 12.2% (53% too fast), and the 1-128 MiB class from 31.5% to 17.2%. Neither AWS figure is
  a point-to-point measurement (none was found for EFA); 75 us is the one NCCL's runtime is
  given on p5, and which of the two to take was decided after seeing both against these rows:
  said here so it is weighed as such. The second 75 us of a Simple step is NCCL's model's
  ("the flush extra latency"), which collsim keeps, though on Hopper NCCL does no such flush by
  default (src/graph/paths.cc, `ncclTopoNeedFlush`): the p5 rows with Simple or NVLS-tree at
  2-8 GiB, -2.7..+5.8% before, are -0.2..+12.8% now.
- **What the A3 Mega run let NCCL choose (TCPXO).** Its image pulls Google's TCPXO NCCL
  installer v1.0.3 and its README runs `all_reduce_perf` after sourcing the installer's
  `nccl-env-profile.sh` (create-a3mega, `startup_script.sh`, README "Basic NCCL Test"); Google's
  release notes give that profile as `NCCL_ALGO=Ring,Tree`, `NCCL_PROTO=Simple`,
  `NCCL_NVLS_ENABLE=0`, `NCCL_BUFFSIZE=8388608` (container-engine-accelerators,
  `gpudirect-tcpxo/README.md`, Jun 27, 2024; NCCL 2.21.5). The preset now says so (`runtime:
  algo, proto, nvls_enable, buffsize`) and `--algo nccl` chooses among what those leave, where it
  had run NVLS-tree and LL: NCCL's tree with Simple at every size. The TCPXO rows went from a
  median 78.6% (all too fast) to 32.9%: up to 1 MiB from -74..-82% to -24..-49% (the floor is
  94 us against 123 us measured), 1-128 MiB from -50..-81% to -33..-79%, and at 256 MiB and more
  from -6..-36% to -9..+41%. Two things are left. The mid sizes (2-64 MiB, -53..-79%) ramp far
  later than the tree does: the same profile loads Google's tuner plugin (`libnccl-tuner.so`
  with `a3plus_tuner_config.textproto`, not published), which may choose fewer channels there,
  and a TCPXO step's own cost is still NCCL's InfiniBand figure. And at 512 MiB and more
  collsim's tree is too slow (+11..+41%): on 2 nodes of 8 GPUs on 8 channels it keeps each NIC
  about 70% busy, where the measured 338 GB/s at 8 GiB means about 93% (NCCL's tree across 2
  nodes moves each byte over the network once each way, so 8 x 200G bounds it at 366); the
  critical path runs through the chains' NVLink hops and each GPU's one reducer (every channel's
  reductions in one queue, where NCCL reduces each channel in its own thread block), so the
  two saturated resources, NVLink and the NICs, do not overlap as NCCL's pipeline of 8 steps
  per connection lets them.
- **An allgather across A3 Mega nodes, and the channels it needs (TCPXO, GKE).** A GKE report
  (MG-Cafe/TCPXO-Enabled-A3-Mega-H100-Benchmarks, installer v1.0.15, NCCL 2.28.7) gives
  `all_gather_perf` on 2 nodes of 8 H100 at 13 sizes from 64 KiB to 8 GiB, run by Google's demo
  script, which sources the installer's profile (`NCCL_PROTO=Simple,LL128`, Google's buffers and
  tuner; preset `gcp-a3mega-tcpxo-v1015`). Until this build collsim refused channels for an
  allgather and ran its ring on one, so through one of a node's eight NICs: 8 GiB in 331 ms
  where the run took 42.6 ms (+675%; from 16 MiB +233..+675%). NCCL's channel c moves part c of
  every rank's block, and a ring allgather or reduce-scatter now runs so (docs/algorithms.md,
  "Channels"); the 13 points are -2.7..-8.6% from 256 MiB (the 8 NICs' 200G with the
  catalog's RoCE efficiency, 0.975, against 188.8 GB/s measured at 8 GiB), -9.7% and -17.8% at
  128 and 64 MiB, and -51..-66% up to 16 MiB: the floor is 110-156 us measured against 48-62 us
  (NCCL's ring with LL128, its steps across the nodes at NCCL's InfiniBand
  latency), the same TCPXO floor as the allreduce rows' above, with the tuner's choices unknown.
  The same report's single-node allreduce (`all_reduce_perf -g 8`, 7 sizes, no environment
  given: NCCL's defaults, preset `dgx-h100`) is -0.7..+5.8% from 16 MiB and +19% and +41% at
  64 KiB and 1 MiB, where collsim adds the launching thread's 7 launch calls (26 us) to the
  collective ("How a source ran its test"); at 16 and 128 MiB that sum makes the two rows slow
  (+1.2%, +3.7%), where the larger of the two would make them fast (about -19% and -1%).
- **Who chose the algorithm (EFA).** The p5 runs loaded aws-ofi-nccl's tuner plugin
  (`NCCL_TUNER_PLUGIN` in the job; v1.16.3 in its Dockerfile), whose region tuner, and not NCCL's
  model, picks the algorithm and protocol of an allreduce on 3 or more p5 nodes: polygons in the
  plane of (bytes, ranks) in `src/tuner/nccl_ofi_regions.cpp`. The runs' busbw steps fall where its
  regions change protocol (4 nodes: 280 GB/s at 1 GiB on the ring with LL128, 348 at 2 GiB with
  Simple; 8 nodes between 2 and 4 GiB; 16 nodes NVLS-tree at 4 GiB and the ring with Simple at
  8). The preset says so (`runtime: tuner: aws-ofi-nccl-p5`, sim/tuner_plugin.hpp) and
  `--algo nccl` runs the plugin's choice there: NCCL's tree with LL128 up to 32-320 MiB by ranks,
  where collsim's fastest ran the ring (aws-p5-16n-128m -59% -> -36%, aws-p5-32n-256m -57% ->
  -35%, aws-p5-16n-4g -11% -> -2%). EFA's 1-128 MiB median went from 52.3% to 44.9% and its
  >= 256 MiB from 14.7% to 13.2%. The plugin also sets NCCL's buffers on p5 (NCCL_BUFFSIZE 8 MiB,
  NVLS and NVLS-tree chunks of 512 KiB: platform-aws.cpp; the job sets NCCL_BUFFSIZE too), which
  the preset now gives (`runtime: buffsize, nvls_chunksize, nvlstree_max_chunksize`): fewer,
  larger loops, so the 2-node NVLS-tree rows at 512 MiB-2 GiB went from 8.4-0.8% fast to within
  -3.6..+0.7% and aws-p5-32n-512m from -46.7% to -43.0%. What is left there is the protocol's rate, not the choice: the
  runs' ring with LL128 levels off at 270-280 GB/s on 4-32 nodes, 0.78 of their ring with Simple
  (347-357), where collsim's LL128 ring gives 340 (NCCL's model's 0.92 of Simple), and their tree
  with LL128 at 16-32 nodes moves 0.6-0.7 of what collsim's does; no published EFA figure says
  why (LL128 over EFA needs the provider's in-order 128-byte writes, platform-aws.cpp). The 8
  A100s on NVSwitch look the same without a network: their curve levels off at 167-174 GB/s at
  64-128 MiB and steps up to 214-232 GB/s from 256 MiB (read as LL128, then Simple: the page does
  not say which ran) against collsim's LL128 ring at 205-212, so LL128's real rate, about
  0.75-0.8 of Simple's, would be the largest
  single cause left in the 1-128 MiB class (azure-nda100v4-16m -35%, -32m -30%) besides the
  TCPXO, EFA and PCIe rows; no published figure of LL128's own throughput was found to set it.
- **Multi-node rows.** collsim now runs one channel per NIC (issue 19), as NCCL's rings and
  trees do, which brought these rows from about +400% to about +20%. On the two A100 nodes
  over RoCE (no NVLS on A100; the ring is bound by the 16 x 100 GbE ports, the catalog's
  measured 97.5% of them) collsim was within 2% with the ring; NCCL's tree, which collsim now
  finds faster there, leaves it 7.8% fast (oci-a100-2n-10g). On two H100 or H200 nodes the measured busbw
  (446-472 GB/s) passes what a ring can reach through the NICs (8 x 400G: 388 GB/s, which is
  what collsim's ring predicts), so NCCL crosses the network with each byte once, in NVLSTree
  or CollNet. The multi-node presets now mark their NVSwitches (and the SuperPOD's Quantum-2
  fabric, SHARP) as reducing, and `--algo nccl` runs `nvls-tree` there as NCCL does (`collnet`
  where the runtime enables it): these rows went from 15-22% slow (the ring) to 22-26% fast, bound, as on one node, by
  the NVLS phases inside each node. NCCL's model bounds NVLS-tree by its own per-channel rate
  (`perChMaxNVLSTreeBws`, 57.7 GB/s per head on 2 Hopper nodes, tuning.cc), which collsim now
  applies to each head's messages across the network: the RoCE and EFA rows on 2 H100 nodes
  went from 17-24% fast to between 2% fast and 6% slow at 1 GiB and more (oci-h100-2n-1g +0.8%,
  aws-p5-2n-8g +6.4%). The H200 rows over InfiniBand ran `collnet` on the preset's SHARP fabric
  (17-21% fast), but NCCL 2.30 starts CollNet only with NCCL_COLLNET_ENABLE=1 (init.cc), which
  the source does not set, so `--algo nccl` now leaves it out unless the preset's runtime says
  `collnet_enable: true`: these rows run NVLS-tree, 0.3-5.8% slow (with NCCL's 20.6 GB/s a
  link, below). TCPXO's 2 nodes are bound by their 200G NICs, below the cap.
- **NVLS (H100 and H200 nodes).** NCCL's default allreduce there is NVLink SHARP: the NVSwitch
  reduces and multicasts, so busbw passes what any GPU-to-GPU schedule reaches (about 480 GB/s
  measured against the ring's 370 GB/s). collsim's `nvls` runs NCCL's data path (a reduce-scatter
  through the switch, each GPU sending N and getting N/G, then the owners' write-backs
  multicast: N/G up, N down), which moves N/G more each way than an ideal switch. The switch's
  throughput in the presets is NCCL's model of it: `nvlsEfficiency` 0.85 (tuning.cc) on 15 of
  its 16 NVLS channels on Hopper (transport/nvls.cc) of the GPUs' NVLink, taken at NCCL's own
  rate a link (`SM90_NVLINK_BW` 20.6 GB/s, src/graph/topo.h; the presets used the datasheet's
  25 GB/s before), 2.36 TB/s on 8 GPUs; the same rate is now every NVLink's under `runtime:
  nccl` (docs/semantics.md, "NCCL's rate on NVLink"). That took these rows from 11-18% fast to
  between 1% fast and 7% slow at 256 MiB and more (dgx-h100-256m -17.4% -> -1.2%, dgx-h100-16g
  -11.3% -> +7.1%). What is left open: in NCCL's formula the (nChannels - 1) / nChannels counts
  the NVLS graph's channels, its heads (8 on these nodes: search.cc), not the 16 NVLS channels,
  and its per-head rates come from the graph search, which collsim does not reproduce; with 7/8
  in place of 15/16 these rows would be about 7% slower still. The mid sizes (2-32 MiB) stay
  8-18% fast.
- **One GPU: NCCL's copy.** On a communicator of one rank NCCL runs none of its algorithms; out
  of place it copies the send buffer to the receive buffer with cudaMemcpyAsync (src/enqueue.cc,
  src/device/onerank.cu), in place it does nothing (the page's in-place column: 0.18-0.19 us).
  collsim prices the copy as one launch call on the host (3.72 us, measured on an H100's host)
  and the bytes at the GPU's device-to-device copy rate (the preset's `device_copy_Bps`: the
  page's own bandwidthTest, 518.9 GB/s counting each byte read and written, so 259.45 GB/s).
  Up to 64 KiB collsim is 5-14% fast: the page's floor is 4.0-4.3 us, a cudaMemcpyAsync call
  and NCCL's own call, which collsim counts as a kernel launch call alone. From 256 KiB to
  2 MiB it is 14-28% slow: nccl-tests launches its iterations back to back, so the host's call
  for the next copy runs while the GPU copies and is hidden from about that size, where collsim
  adds the two (the same sum as the launching thread's, above). From 4 MiB it is 3-9% slow, at
  1 GiB +3.1%: bandwidthTest's copy of 32 MB ran at 259.45 GB/s, the page's 1 GiB reduce at
  267.4.
- **Both directions through host memory (the PCIe pair).** The two RTX 2080 Ti have no P2P,
  so NCCL moves every message through pinned host memory, up the PCIe switch's link to the
  CPU and back down; the preset makes that link the one resource all messages share. One way
  (broadcast, reduce) collsim is within 8% of the page's figures. With both directions at once
  (allreduce and allgather on 2 ranks) NCCL gets 4.0 GB/s each way where the model splits the
  link's 12 GB/s into 6.0, so collsim is about 33% fast. The same page's `alltoall_perf` (in
  this table since collsim gained all-to-all: a send and a receive between the two GPUs, both
  ways at once) levels off at 4.6 GB/s each way, and collsim is 23-32% fast from 256 KiB: the
  same two-way limit, in another of NCCL's kernels. What takes the rest (the receiving
  GPU's loads from host memory, NCCL's SHM chunks and flags, the CPU's root complex and memory
  under traffic both ways) has no point-to-point figure on the page; a bandwidthTest run on
  both GPUs at once would give one. Another PCIe Gen3 x16 pair through SHM shows the same split
  (NVIDIA/nccl issue #384, NCCL 2.4.8 on one channel: allreduce 3.9 GB/s, allgather 3.17,
  broadcast 10.31), and NCCL's maintainer answers there that some components, in particular
  some CPUs, do not handle bidirectional traffic well: a property of the host, not of NCCL,
  with no figure for this one. The page's peer-copy figures (p2pBandwidthLatencyTest with
  P2P disabled: 5.71 GB/s one way, 6.10 both ways together) are not in the preset: they time
  cudaMemcpyPeer's staging through a driver buffer, which NCCL does not use; taken instead,
  they make collsim about 31% slow on allreduce and 94% slow on broadcast. Examined and not
  taken either: NCCL's own discount for GPU traffic through an Intel CPU's root complex
  (src/graph/search.cc, `followPath`: "P2P inefficiency through Intel CPU RC", every PCIe link
  of such a path charged 6/5 of its rate, `INTEL_P2P_OVERHEAD` in topo.h), which NCCL applies to
  this pair's path (paths.cc sends traffic without P2P through the CPU). As a link efficiency of
  0.76 / 1.2 it takes allreduce to 5.0 GB/s (20% fast) and allgather to 5.0 (35% fast), but
  broadcast and reduce to 10.0 (11% slow), where the one-way runs, which cross the same path,
  put it within 8% of the link's 12 GB/s without it; the page names no CPU (its `nvidia-smi topo`
  CPU affinity, 24-47 and 72-95 on NUMA node 1, says two sockets of 24 cores, not whose). It is a
  factor of NCCL's graph search, and what the one-way runs measure does not carry it. Modelled:
  NCCL leaves LL128 off between GPUs that meet over PCIe (tuning.cc: LL128 only where its graph's
  path between a node's GPUs is NVLink), so `--algo nccl` here chooses between LL and Simple:
  allgather at 128 and 256 KiB went from LL128's -15.8% and -24.1% to -13.0% (LL) and -21.7%
  (Simple); no other point ran LL128.
- **Who chooses, seen on a whole InfiniBand curve (2 Dell XE9680, 16 H100, NCCL 2.26.2).** From 2 to
  64 MiB `--algo nccl` runs its fastest candidate, NCCL's tree with LL128 and then the ring with
  LL128, and is 17-38% fast; NVLS-tree, which NCCL runs across nodes (a maintainer's reply in the
  same thread: "NVLS being used with single-node runs, NVLSTree with multi-node"), collsim prices
  at 85, 103, 139, 173, 263 and 459 us from 2 to 64 MiB (`--algo nvls-tree`), -7..+12% of the
  measured times. NCCL picks by its own cost model (tuning.cc, `ncclTopoGetAlgoTime`: its
  latencies plus the size over the bandwidth its graph search gives each algorithm and protocol),
  not by which runs fastest, so keeping the fastest of collsim's candidates is too fast wherever
  collsim's ranking and NCCL's model's differ (unless collsim's ring with LL128 across nodes is
  itself too fast there: no published 2-node curve of that ring says which). Emulating NCCL's
  choice needs the per-channel bandwidths of NCCL's graph search for each algorithm (collsim
  searches only the ring's, on NVLink meshes); not done here. Up to 1 MiB: 16-128 B within 3%, 512 B-1 MiB 9-41% fast on
  NCCL's tree with LL; two out-of-place times (8 B: 68.5 us, 256 B: 94.4 us, against 24.7 and
  25.9 in place) are the run's, not the model's.
- **2 A100 nodes on RoCE as Kubernetes pods (OCI's OKE guide).** Every point from 8 B to 512 MiB
  is 17-44% fast: the floor is 36.5-39 us where collsim gives 26.4 us (NCCL's tree with LL), and
  the curve levels off at 156-165 GB/s at 128-512 MiB before it steps to 219-238 GB/s from 1 GiB
  (collsim: 6-14% slow there, on NCCL's tree with Simple). The pods reach the NICs through SR-IOV
  virtual functions, which the preset (bare-metal ports) does not model, and the log names
  neither its NCCL nor what it chose; the same shape's bare-metal run in OCI's tutorial
  (oci-a100-2n-10g) is 7.8% fast. Nothing measured says what the pods' extra 10 us is.
- **The NVLink mesh's floor (8 V100 in a DGX-1's cube-mesh).** Every point up to 1 MiB is 11-23%
  fast: collsim's floor is 41 us (NCCL 2.30's ring base latency with LL, 14 steps at its NVLink
  LL latency, and 7 kernel launch calls at the 3.72 us an H100's host measured, for the one thread
  that drove the 8 GPUs) where the post measured 48.5 us. The post (2019) names neither its NCCL
  (2.4 was current then, with its own latencies) nor its host, whose launch call was not measured;
  nothing is changed for it. From 2 MiB the curve is within -20..+12% (the ring with LL128, then
  Simple, on the 6 rings the search finds over the mesh's NVLinks). NCCL 2.4 had no LL128 (it came
  with 2.5): without it (`--algo ring --protocol ll` or `simple`, the faster) collsim gives 158,
  245, 362 and 606 us at 4-32 MiB, 7-20% slower than measured, where LL128 gives -14..+7%.
- **NVLink efficiency (the large A100 rows).** NCCL's ring on A100 reaches about 230 of NVLink
  3's 300 GB/s. The catalog's 86.5% comes from peer copies (p2pBandwidthLatencyTest), which
  NCCL's kernels, moving and reducing with flags in the same pass, do not reach; under `runtime:
  nccl` an NVLink now carries NCCL's own rate for its GPU (`SM80_NVLINK_BW` 20 GB/s a link,
  src/graph/topo.h: 240 GB/s on an A100), which took the 8 x A100 rows at 256 MiB and more from
  10-15% fast to 2-8% fast (aws-p4dn-1n-1g -10.3% -> -3.1%).
- **The ring's step latencies from 16 MiB (the middle A100 rows).** From 16 MiB on 8 GPUs a
  ring step is more than one of collsim's 1 MiB segments (collectives/algorithm.cpp,
  `default_segments`), and each segment's start-up, NCCL's step latency, overlaps the drain of
  the one before on the pair's channel, so the chain's 14 step latencies leave the critical path
  (`predict --detail`: 26.6 us of latency on it at 8 MiB, 1.9 us at 16 MiB), where NCCL's model
  adds them at every size. That is the jump of the predicted curve between 8 and 16 MiB (busbw
  100 -> 168 GB/s; measured 90 -> 109) and most of the azure-nda100v4 rows' -35..-19% at 16-128
  MiB. With `--segments 1` those rows come to -15%, -12%, +1% and -1%, but the rows at 256 MiB
  and more go from -7..-2% to +16..+20%, because one segment also stops the reduction of one
  slice overlapping the transfer of the next, which NCCL's kernels fuse in one pass. Neither is
  taken: with LL128's flags in every 128-byte line a rank forwards each line as it lands, so in a
  ring whose every rank sends at once a step's latency hides behind the step before whenever the
  step drains for longer than that latency (9.5 us against 1.9 at 16 MiB), as the segments
  price it; what else slows these sizes on that machine is not known here.
"""


COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]
PLOT_MIN_POINTS = 3


def plot_key(row):
    """The system a plot shows: the log's name, with the node count where one log has several."""
    return (Path(row["log"]).stem, int(row["nodes"]))


def plot_names(points):
    """{plot key: file stem}: one plot per system with at least PLOT_MIN_POINTS points."""
    counts = {}
    for p in points:
        counts[plot_key(p["row"])] = counts.get(plot_key(p["row"]), 0) + 1
    names = {}
    for (stem, nodes), count in counts.items():
        if count < PLOT_MIN_POINTS:
            continue
        several = len({n for (s, n) in counts if s == stem}) > 1
        names[(stem, nodes)] = f"{stem}-{nodes}n" if several else stem
    return names


def size_label(n):
    for unit, scale in (("G", 2**30), ("M", 2**20), ("K", 2**10)):
        if n >= scale:
            return f"{n / scale:g}{unit}"
    return f"{n}"


def svg_plot(title, subtitle, series):
    """A plain SVG: busbw (log) against size (log), each series' measured points as dots, its
    predicted curve as a line and, where known, the prediction before the runtime model as a dashed
    line. series: [(label, [(bytes, measured busbw, predicted busbw, busbw before or None)])]."""
    width, height, left, right, top, bottom = 790, 460, 70, 220, 70, 50
    sizes = [b for _, pts in series for b, *_ in pts]
    values = [v for _, pts in series for _, *vs in pts for v in vs if v is not None and v > 0]
    x0, x1 = math.floor(math.log2(min(sizes))), math.ceil(math.log2(max(sizes)))
    x1 = max(x1, x0 + 1)
    y0, y1 = math.floor(math.log10(min(values) * 0.9)), math.ceil(math.log10(max(values) / 0.9))
    y1 = max(y1, y0 + 1)
    plot_w, plot_h = width - left - right, height - top - bottom

    def x(b):
        return left + (math.log2(b) - x0) / (x1 - x0) * plot_w

    def y(v):
        return top + (y1 - math.log10(v)) / (y1 - y0) * plot_h

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{left}" y="20" font-size="13" font-weight="bold">{escape(title)}</text>']
    for i, part in enumerate(subtitle.split("; ")):
        out.append(f'<text x="{left}" y="{37 + 14 * i}" fill="#555">{escape(part)}</text>')
    # decades, and 2x and 5x between them where the plot spans few decades
    marks = [m * 10.0 ** e for e in range(y0, y1 + 1) for m in ((1, 2, 5) if y1 - y0 <= 2 else (1,))]
    for v in (v for v in marks if v <= 10.0 ** y1):
        yy = y(v)
        out.append(f'<line x1="{left}" y1="{yy:.1f}" x2="{left + plot_w}" y2="{yy:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 6}" y="{yy + 4:.1f}" text-anchor="end">{v:g}</text>')
    step = 3 if x1 - x0 <= 24 else 5
    for e in range(x0, x1 + 1):
        if e != x1 and ((e - x0) % step or x1 - e < 2):  # no label crowding the last
            continue
        xx = x(2 ** e)
        out.append(f'<line x1="{xx:.1f}" y1="{top}" x2="{xx:.1f}" y2="{top + plot_h}" stroke="#eee"/>')
        out.append(f'<text x="{xx:.1f}" y="{top + plot_h + 16}" text-anchor="middle">{size_label(2 ** e)}</text>')
    out.append(f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#333"/>')
    out.append(f'<text x="{left + plot_w / 2:.1f}" y="{height - 10}" text-anchor="middle">size (bytes)</text>')
    out.append(f'<text transform="translate(16 {top + plot_h / 2:.1f}) rotate(-90)" text-anchor="middle">'
               'busbw (GB/s)</text>')
    for i, (label, pts) in enumerate(series):
        color = COLORS[i % len(COLORS)]
        line = " ".join(f"{x(b):.1f},{y(q):.1f}" for b, _, q, _ in pts if q > 0)
        out.append(f'<polyline points="{line}" fill="none" stroke="{color}" stroke-width="1.5"/>')
        earlier = " ".join(f"{x(b):.1f},{y(w):.1f}" for b, _, _, w in pts if w is not None and w > 0)
        if earlier:
            out.append(f'<polyline points="{earlier}" fill="none" stroke="{color}" stroke-width="1" '
                       f'stroke-dasharray="4 3"/>')
        for b, m, _, _ in pts:
            if m > 0:
                out.append(f'<circle cx="{x(b):.1f}" cy="{y(m):.1f}" r="3" fill="{color}"/>')
        ly = top + 10 + 50 * i
        lx = left + plot_w + 12
        out.append(f'<circle cx="{lx + 6}" cy="{ly}" r="3" fill="{color}"/>')
        out.append(f'<text x="{lx + 16}" y="{ly + 4}">{escape(label)} measured</text>')
        out.append(f'<line x1="{lx}" y1="{ly + 16}" x2="{lx + 12}" y2="{ly + 16}" stroke="{color}" stroke-width="1.5"/>')
        out.append(f'<text x="{lx + 16}" y="{ly + 20}">{escape(label)} collsim</text>')
        if earlier:
            out.append(f'<line x1="{lx}" y1="{ly + 32}" x2="{lx + 12}" y2="{ly + 32}" stroke="{color}" '
                       'stroke-width="1" stroke-dasharray="4 3"/>')
            out.append(f'<text x="{lx + 16}" y="{ly + 36}">{escape(label)} before runtime</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def escape(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def plots(points, before=None):
    """{file stem: (svg text, caption)}: one per system, a series per collective; with before
    ({id: predicted us} before the runtime model), its curve too where it has the rows."""
    before = before or {}
    names = plot_names(points)
    out = {}
    for key, name in sorted(names.items()):
        group = [p for p in points if plot_key(p["row"]) == key]
        first = group[0]["row"]
        series = []
        for collective in BUS_FACTORS:
            pts = sorted(((int(p["row"]["bytes"]), busbw_from_time(p["row"], p["measured_us"]),
                           busbw_from_time(p["row"], p["predicted_us"]),
                           busbw_from_time(p["row"], before[p["row"]["id"]]) if p["row"]["id"] in before else None)
                          for p in group if p["row"]["collective"] == collective), key=lambda t: t[0])
            if pts:
                series.append((collective, pts))
        dashed = "; dashed: before the runtime model" if any(w is not None for _, pts in series for *_, w in pts) else ""
        subtitle = (f"{first['system_type']}, {ranks(first)} ranks, preset {first['preset']}, "
                    f"{PLACEMENTS[first['placement']]}; dots: published (validate/public/{first['log']}), "
                    f"lines: collsim predict --algo nccl{dashed}")
        caption = f"{first['system']} ({first['system_type']}, {ranks(first)} ranks; preset `{first['preset']}`)"
        out[name] = (svg_plot(first["system"], subtitle, series), caption)
    return out


def plot_section(figures, img_rel):
    lines = ["Measured busbw (dots) and collsim's prediction (line) against size, one plot per system "
             f"with at least {PLOT_MIN_POINTS} points, and (dashed) what the build before the runtime model "
             "predicted for the same rows (`validate/public/predicted_before_runtime.csv`, where it has "
             "them); both axes are logarithmic. busbw is nccl-tests' "
             "(the time converted with the collective's factor), so a dot below its line is a point "
             "where collsim is too fast.", ""]
    for name, (_, caption) in figures.items():
        lines += [f"- {caption}: ![{name}]({img_rel}/{name}.svg)"]
    return lines


NOT_FOUND = """## What has no public whole curve here

- **An NVLink mesh at 256 MiB and more, and its other collectives**: the one whole curve of a
  switchless mesh here (8 V100 in a DGX-1's hybrid cube-mesh) stops at 128 MiB and is allreduce
  only; no 4-GPU board with NVLink between every pair (the A100 and H100 HGX 4-GPU boards) was
  found with a sweep.
- **Whole curves on RoCE clusters, and on InfiniBand beyond 2 nodes**: the one InfiniBand whole
  curve here is 2 nodes (NVIDIA/nccl-tests issue 309); the same thread's 4- and 8-node runs are a
  VMware set-up with its own topology file and a cluster the thread does not describe, and the
  RoCE logs found start at 1 GiB (OCI) or give one size.
- **GPUDirect-TCPX (A3 High)**, reduce-scatter, and multi-node sweeps of the other collectives but
  one allgather (2 A3 Mega nodes, above): none found with a source that names the system.
"""


def render(points, skipped, img_rel="img/public", before=None):
    lines = [INTRO_TITLE, "", before_summary(points), "", INTRO, "## Errors", ""] + before_after(points, before or {})
    lines += summary(points)
    lines += ["", "## Curves", ""] + plot_section(plots(points, before), img_rel)
    lines += ["", "## The points", ""] + table(points)
    lines += ["", "## Rows not predicted", ""] + skipped_list(skipped)
    if points:
        lines += ["", LIMITS_INTRO] + limits(points) + ["", KNOWN_LIMITS.rstrip()]
    lines += ["", NOT_FOUND.rstrip()]
    return "\n".join(lines) + "\n"


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[1],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("collsim", help="the collsim binary, e.g. build/bin/collsim")
    parser.add_argument("--csv", default=str(DEFAULT_CSV),
                        help="published figures (default: validate/public/nccl_tests_published.csv)")
    parser.add_argument("--out", default=str(DEFAULT_OUT),
                        help="markdown to write (default: docs/validation-public.md)")
    parser.add_argument("--before", default=str(DEFAULT_BEFORE),
                        help="predictions before the runtime model (default: validate/public/predicted_before_runtime.csv)")
    parser.add_argument("--save-before", action="store_true",
                        help="write this build's predictions as --before's file instead of the page")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if --out differs from what would be written")
    args = parser.parse_args(argv)
    try:
        rows = read_rows(args.csv)
        points, skipped = evaluate(args.collsim, rows)
        if not points:
            raise BadInput("no row could be predicted: none of their presets is in this collsim")
    except BadInput as e:
        print(f"public_validation: {e}", file=sys.stderr)
        return 2
    if args.save_before:
        write_before(args.before, points)
        print(f"wrote {len(points)} predictions to {args.before}")
        return 0
    out = Path(args.out)
    img_dir = out.parent / "img" / "public"
    text = render(points, skipped, "img/public", read_before(args.before))
    figures = {img_dir / f"{name}.svg": svg for name, (svg, _) in plots(points, read_before(args.before)).items()}
    if args.check:
        stale = [path for path, body in [(out, text)] + list(figures.items())
                 if not path.exists() or path.read_text() != body]
        stale += sorted(set(img_dir.glob("*.svg")) - set(figures)) if img_dir.exists() else []
        if stale:
            print(f"public_validation: {stale[0]} is not what this build writes; run without --check", file=sys.stderr)
            return 1
        return 0
    out.write_text(text)
    img_dir.mkdir(parents=True, exist_ok=True)
    for old in set(img_dir.glob("*.svg")) - set(figures):
        old.unlink()
    for path, body in figures.items():
        path.write_text(body)
    errors = [abs(p["error"]) for p in points]
    print(f"{len(points)} points, {len(skipped)} skipped: median |error| "
          f"{statistics.median(errors) * 100:.1f}%, worst {max(errors) * 100:.1f}%; wrote {out} "
          f"and {len(figures)} plots in {img_dir}")
    for row, why in skipped:
        print(f"skipped {row['id']}: {why}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
