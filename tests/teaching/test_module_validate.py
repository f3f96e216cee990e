"""tests/teaching/test_module_validate.py — the Python module's validate() runs the same
library pipeline as `collsim validate --backend mpi` (validate/validation_run.hpp): a report
folder with the five files, and rows that are its results.csv's, each verified and timed."""
import csv
import os
import sys
import tempfile

import collsim

with tempfile.TemporaryDirectory() as out:
    got = collsim.validate("mpi", ranks=[2], algorithms="ring,recursive-doubling", sizes="4K,64K", iterations=2,
                           warmup=1, out=out)
    assert got["folder"] == out, got["folder"]
    for name in ["calibrated.yaml", "results.csv", "results.md", "plot.svg", "machine.md"]:
        assert os.path.getsize(os.path.join(out, name)) > 0, name
    with open(os.path.join(out, "results.csv")) as f:
        written = list(csv.DictReader(f))
    assert [(r["algorithm"], int(r["bytes"])) for r in written] == \
        [(r["algorithm"], r["bytes"]) for r in got["rows"]], (written, got["rows"])
    for row, line in zip(got["rows"], written):
        assert row["ranks"] == 2 and row["measured_s"] > 0 and row["predicted_s"] > 0, row
        assert abs(row["measured_s"] - float(line["measured_median_s"])) <= 1e-6 * row["measured_s"], (row, line)
try:
    collsim.validate("mpi", ranks=[2], algorithms="warp")
    sys.exit("an unknown algorithm was accepted")
except collsim.Error as e:
    assert "warp" in str(e), e
print("ok: validate() wrote", len(got["rows"]), "rows")
