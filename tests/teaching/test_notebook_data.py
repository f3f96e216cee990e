"""tests/teaching/test_notebook_data.py NOTEBOOKS_DIR — a notebook finds its data from any
folder: notebook 04, copied to a scratch folder and executed there (the kernel's working
directory is that folder, and COLLSIM_ROOT is unset), still reads the committed
validate/results/*/results.csv through _collsim.ROOT."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

notebooks = os.path.abspath(sys.argv[1])
root = os.path.dirname(notebooks)
with tempfile.TemporaryDirectory() as tmp:
    copy = os.path.join(tmp, "04-validation.ipynb")
    shutil.copy(os.path.join(notebooks, "04-validation.ipynb"), copy)
    env = {k: v for k, v in os.environ.items() if k != "COLLSIM_ROOT"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in [env.get("PYTHONPATH", ""), notebooks] if p)
    subprocess.run([sys.executable, "-m", "nbconvert", "--to", "notebook", "--execute", "--inplace",
                    "--ExecutePreprocessor.timeout=300", copy], check=True, cwd=tmp, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    text = "".join("".join(o.get("text", "")) for c in json.load(open(copy))["cells"] for o in c.get("outputs", []))
    platforms = {d for d in os.listdir(os.path.join(root, "validate", "results"))
                 if os.path.isfile(os.path.join(root, "validate", "results", d, "results.csv"))}
    found = re.search(r"(\d+) measurements from (\d+) platform", text)
    assert found, f"notebook 04 run from {tmp} found no results: {text[:500]}"
    assert int(found.group(2)) == len(platforms), (found.group(0), sorted(platforms))
    print(f"ok: notebook 04 run from {tmp}: {found.group(0)}")
print("1 passed")
