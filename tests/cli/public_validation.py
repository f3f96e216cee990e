#!/usr/bin/env python3
"""tests/cli/public_validation.py REPO — the published nccl-tests figures and the script that
turns them into docs/validation-public.md.

1. validate/public/nccl_tests_published.csv parses: every row has an https source, a positive
   measurement, a time and busbw that agree where both are given, a log under validate/public/
   that holds its figure, and the rows cover every system type the script lists (single and
   multi node; NVSwitch, PCIe, InfiniBand, RoCE, EFA, TCPXO), whole sweeps included (at least
   150 points, each size class on several types).
2. scripts/public_validation.py refuses a malformed CSV with exit 2 and one line naming the row.
3. With a stand-in collsim that answers every prediction with 1 ms (and records each call), the
   script writes each row's error as 1 ms / measured - 1, lists the rows whose preset it lacks as
   skipped, predicts each system's sizes in one call (per algorithm a source forced with NCCL_ALGO,
   which it asks by name with --protocol auto; --algo nccl elsewhere), writes the size-class summary and one SVG
   per system, and --check exits 0 on what it wrote and 1 once the page or a plot differs; the
   table names each row's collective, and the summary counts each collective apart when more
   than one is published.
4. Nothing the model is built from reads the published figures: no file of the catalog, the
   presets, the model or the command line (topologies/, configs/, sim/, collectives/, cli/,
   base/, CMakeLists.txt) names validate/public or its CSV, and the presets that a row compares
   against carry no figure of that row (its time or busbw as a number in the YAML).
The real predictions are not checked here: they change as the model does, and the lead
regenerates the page after merging.
"""
import csv
import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(sys.argv[1]).resolve()
SCRIPT = REPO / "scripts" / "public_validation.py"
DATA = REPO / "validate" / "public" / "nccl_tests_published.csv"
STAND_IN_PRESETS = ["dgx-a100", "dgx-h100", "pcie3-2080ti-2"]
STAND_IN = """#!/usr/bin/env python3
import sys
args = sys.argv[1:]
if args[:2] == ["topo", "--list"]:
    print("\\n".join(%r))
elif args[:1] == ["predict"]:
    sizes = args[args.index("--bytes") + 1].split(",")
    p = args[args.index("--ranks") + 1]
    with open(__file__ + ".calls", "a") as log:
        log.write(" ".join(args) + "\\n")
    print("collective,algorithm,ranks,bytes,engine,placement,segments,protocol,transfers,time_s,"
          "algbw_GBps,busbw_GBps,lower_bound_s,closed_form_s,analytic_s,winner,runs")
    for b in sizes:
        print(f"allreduce,nccl,{p},{b},flow,linear,1,simple,1,0.001,1,1,0.001,,0.001,1,ring")
else:
    sys.exit("stand-in collsim: unexpected " + " ".join(args))
""" % STAND_IN_PRESETS

failures = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        failures.append(what)


def load_script():
    spec = importlib.util.spec_from_file_location("public_validation", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True)


def measured_us(row):
    """The row's time as printed, or from its busbw: bytes / (busbw / factor), in us, with
    nccl-tests' factor: 2(P-1)/P for allreduce, (P-1)/P for allgather and reduce-scatter, else 1."""
    if row["measured_time_us"]:
        return float(row["measured_time_us"])
    p = int(row["nodes"]) * int(row["gpus_per_node"])
    factor = {"allreduce": 2 * (p - 1) / p, "allgather": (p - 1) / p, "reduce-scatter": (p - 1) / p}
    algbw = float(row["measured_busbw_GBps"]) * 1e9 / factor.get(row["collective"], 1.0)
    return int(row["bytes"]) / algbw * 1e6


def test_data(pv):
    rows = pv.read_rows(DATA)  # raises on any malformed row
    check(len(rows) >= 8, f"at least 8 published points ({len(rows)})")
    check(all(r["source_url"].startswith("https://") for r in rows), "every row has an https source")
    check(all(measured_us(r) > 0 for r in rows), "every row has a positive measurement")
    kinds = {r["system_type"] for r in rows}
    check(kinds == set(pv.SYSTEM_TYPES), f"rows cover every system type the script lists ({sorted(kinds)})")
    check(len(rows) >= 150, f"at least 150 published points ({len(rows)})")
    for label, _ in pv.SIZE_CLASSES:
        types = {r["system_type"] for r in rows if pv.size_class(r) == label}
        check(len(types) >= 2, f"size class {label} has points on several system types ({sorted(types)})")
    check(all((DATA.parent / r["log"]).is_file() for r in rows), "every row's log is in validate/public/")
    return rows


def test_malformed(tmp):
    header, *lines = DATA.read_text().splitlines()
    first = next(csv.DictReader([header, lines[0]]))
    cases = {
        "no source": dict(first, source_url=""),
        "negative busbw": dict(first, measured_busbw_GBps="-1", measured_time_us=""),
        "time and busbw disagree": dict(first, measured_busbw_GBps="500"),
        "unknown system type": dict(first, system_type="carrier pigeon"),
        "no log": dict(first, log=""),
        "unknown NCCL_ALGO": dict(first, nccl_algo="Butterfly"),
        "more GPUs per thread than a node has": dict(first, gpus_per_thread="64"),
    }
    for name, row in cases.items():
        path = tmp / "bad.csv"
        with path.open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=header.split(","))
            writer.writeheader()
            writer.writerow(row)
        done = run("/bin/false", "--csv", path, "--out", tmp / "bad.md")
        message = done.stderr.strip().splitlines()
        check(done.returncode == 2 and len(message) == 1 and "row 2" in message[0],
              f"{name}: exit 2 with one line naming row 2 ({done.returncode}: {message})")


def test_log_figure(tmp):
    """A row whose figure no line of its log holds is refused (the CSV sits beside the real logs)."""
    header, *lines = DATA.read_text().splitlines()
    first = next(csv.DictReader([header, lines[0]]))
    path = DATA.parent / "bad-public-validation-test.csv"
    try:
        with path.open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=header.split(","))
            writer.writeheader()
            time_us = float(first["measured_time_us"]) * 1.001
            writer.writerow(dict(first, measured_time_us=f"{time_us:.4f}"))
        done = run("/bin/false", "--csv", path, "--out", tmp / "bad.md")
    finally:
        path.unlink()
    message = done.stderr.strip().splitlines()
    check(done.returncode == 2 and len(message) == 1 and "row 2" in message[0] and first["log"] in message[0],
          f"a figure that its log does not hold: exit 2 naming row 2 and the log ({done.returncode}: {message})")


def test_report(pv, rows, tmp):
    collsim = tmp / "collsim"
    collsim.write_text(STAND_IN)
    collsim.chmod(0o755)
    out = tmp / "validation-public.md"
    done = run(collsim, "--out", out)
    check(done.returncode == 0, f"the script runs on the stand-in collsim ({done.stderr.strip()})")
    text = out.read_text() if out.exists() else ""
    for row in rows:
        if row["preset"] in STAND_IN_PRESETS:
            error = pv.percent(1000.0 / measured_us(row) - 1)
            line = next((l for l in text.splitlines() if l.startswith(f"| {row['id']} |")), "")
            check(f"| {error} |" in line, f"{row['id']}: error {error} in its table row")
            check(f"| {row['collective']} " in line, f"{row['id']}: its collective in its table row")
        else:
            check(f"- {row['id']} (" in text, f"{row['id']}: listed as skipped (no preset {row['preset']})")
    predicted = [r for r in rows if r["preset"] in STAND_IN_PRESETS]
    collectives = {r["collective"] for r in predicted}
    for collective in sorted(collectives) if len(collectives) > 1 else []:
        count = sum(r["collective"] == collective for r in predicted)
        check(f"| {collective} | {count} |" in text, f"summary: {count} {collective} point(s)")
    calls = Path(str(collsim) + ".calls").read_text().splitlines()
    curves = {(r["preset"], pv.ranks(r), r["collective"], r["nccl_algo"], r["gpus_per_thread"])
              for r in rows if r["preset"] in STAND_IN_PRESETS}
    check(len(calls) == len(curves),
          f"one predict call per system, rank count, collective and forced algorithm ({len(calls)} for {len(curves)})")
    forced = [r for r in rows if r["preset"] in STAND_IN_PRESETS and r["nccl_algo"]]
    for r in forced[:1]:  # a row whose source forced NCCL_ALGO is predicted with that algorithm
        name = pv.NCCL_ALGOS[r["nccl_algo"]]
        check(any(f"--algo {name} --protocol auto" in c and f"--ranks {pv.ranks(r)}" in c for c in calls),
              f"{r['id']}: predicted with --algo {name} (the source's NCCL_ALGO={r['nccl_algo']})")
    check(all("--algo nccl" in c or "--protocol auto" in c for c in calls), "every other call asks --algo nccl")
    threaded = [r for r in rows if r["preset"] in STAND_IN_PRESETS and int(r["gpus_per_thread"]) > 1]
    for r in threaded[:1]:  # a source that drove several GPUs from one thread (nccl-tests -g) says so
        check(any(f"--gpus-per-thread {r['gpus_per_thread']}" in c and f"--ranks {pv.ranks(r)}" in c for c in calls),
              f"{r['id']}: predicted with --gpus-per-thread {r['gpus_per_thread']} (nccl-tests -g)")
    check(not threaded or any("--gpus-per-thread" not in c for c in calls), "a thread per GPU asks nothing more")
    for label, _ in pv.SIZE_CLASSES:
        check(f"| {label} | " in text, f"summary: a line for size class {label}")
    curves = {(Path(r["log"]).stem, int(r["nodes"]), r["collective"]) for r in predicted}
    curve_rows = [l for l in text.split("### By curve and size class", 1)[-1].splitlines()
                  if any(l.startswith(f"| {stem}, {nodes} node") and l.split(" |")[0].endswith(c)
                         for stem, nodes, c in curves)]
    check("### By curve and size class" in text and len(curve_rows) == len(curves),
          f"by curve: one row per published sweep ({len(curve_rows)} for {len(curves)})")
    svgs = sorted((tmp / "img" / "public").glob("*.svg"))
    check(len(svgs) >= 3 and all(s.read_text().startswith("<svg") for s in svgs),
          f"one SVG per system with enough points ({len(svgs)})")
    check(all(f"img/public/{s.name}" in text for s in svgs), "the page shows every plot")
    with_before = pv.svg_plot("t", "s", [("allreduce", [(8, 0.001, 0.002, 0.004), (1024, 0.1, 0.2, 0.4)])])
    without = pv.svg_plot("t", "s", [("allreduce", [(8, 0.001, 0.002, None), (1024, 0.1, 0.2, None)])])
    check(with_before.count("stroke-dasharray") == 2 and "before runtime" in with_before,
          "a plot draws the prediction before the runtime model dashed, with its legend entry")
    check("stroke-dasharray" not in without and "before runtime" not in without,
          "no dashed line where the rows have no earlier prediction")
    check(run(collsim, "--out", out, "--check").returncode == 0, "--check: 0 on the file just written")
    svgs[0].write_text(svgs[0].read_text().replace("busbw", "bandwidth"))
    check(run(collsim, "--out", out, "--check").returncode == 1, "--check: 1 once a plot differs")
    run(collsim, "--out", out)
    out.write_text(text.replace("| all |", "| every |"))
    check(run(collsim, "--out", out, "--check").returncode == 1, "--check: 1 once the file differs")


MODEL_FOLDERS = ["topologies", "configs", "sim", "collectives", "cli", "base"]


def test_no_feedback(rows):
    """The published figures are compared against, never read by the model (docs/design.md)."""
    sources = [REPO / "CMakeLists.txt"]
    for folder in MODEL_FOLDERS:
        sources += [f for f in (REPO / folder).rglob("*") if f.is_file()]
    def code_of(f):  # comments may cite the published figures ("no number here comes from them")
        marker = "//" if f.suffix in (".cpp", ".hpp", ".cu") else "#"
        return "\n".join(line.split(marker, 1)[0] for line in f.read_text(errors="replace").splitlines())

    readers = [str(f.relative_to(REPO)) for f in sources
               if "validate/public" in code_of(f) or "nccl_tests_published" in code_of(f)]
    check(not readers, f"no model, preset or CLI file names validate/public outside a comment ({', '.join(readers) or 'none'})")
    for preset in sorted({r["preset"] for r in rows}):
        yaml = REPO / "configs" / f"{preset}.yaml"
        if not yaml.is_file():
            continue
        numbers = set()
        for line in yaml.read_text().splitlines():
            body = line.split("#", 1)[0]  # a figure quoted in a source comment is a citation, not a parameter
            if body.strip().startswith(("name:", "description:")):  # prose ("PCIe 3.0"), not a parameter
                continue
            for token in body.replace(",", " ").replace(":", " ").replace("[", " ").replace("]", " ").split():
                try:
                    numbers.add(float(token))
                except ValueError:
                    pass
        figures = {float(r[k]) for r in rows if r["preset"] == preset
                   for k in ("measured_time_us", "measured_busbw_GBps") if r[k] and float(r[k]) > 1}
        shared = sorted(numbers & figures)
        check(not shared, f"{preset}.yaml holds none of its published rows' figures as a parameter ({shared or 'none'})")


def main():
    pv = load_script()
    rows = test_data(pv)
    test_no_feedback(rows)
    with tempfile.TemporaryDirectory() as tmp:
        test_malformed(Path(tmp))
        test_log_figure(Path(tmp))
        test_report(pv, rows, Path(tmp))
    print(f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
