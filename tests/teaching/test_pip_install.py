"""tests/teaching/test_pip_install.py ROOT BUILD_DIR COLLSIM_BIN — `pip install .` installs the
collsim module into a fresh virtual environment (Debian's python3 and pip, no network: the
extension is the one this build tree compiled, brought up to date by setup.py's CMake step),
and the installed module answers as the command line does, with the command line's defaults:

  python3 -c "import collsim; print(collsim.predict(collsim.preset('dgx-h100'), 'ring', ['1G']))"
  collsim predict --preset dgx-h100 --algo ring --bytes 1G --format json
"""
import ast
import json
import os
import subprocess
import sys
import tempfile

ROOT, BUILD_DIR, COLLSIM_BIN = sys.argv[1:4]
EXAMPLE = "import collsim; print(collsim.predict(collsim.preset('dgx-h100'), 'ring', ['1G']))"


def run(*args, **kwargs):
    result = subprocess.run(list(args), capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        sys.exit(f"FAIL: {' '.join(args)} exited {result.returncode}\n{result.stdout}\n{result.stderr}")
    return result.stdout


def main():
    before = sorted(os.listdir(ROOT))
    # The module as installed, not the build tree's or the notebooks' (ctest's PYTHONPATH).
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    with tempfile.TemporaryDirectory() as tmp:
        venv = os.path.join(tmp, "venv")
        run(sys.executable, "-m", "venv", "--system-site-packages", venv, env=env)
        python = os.path.join(venv, "bin", "python3")
        run(python, "-m", "pip", "install", "--no-build-isolation", "--no-index", "--no-deps", "--quiet", ROOT,
            env=dict(env, COLLSIM_BUILD_DIR=BUILD_DIR, PIP_DISABLE_PIP_VERSION_CHECK="1"), cwd=tmp)
        where = run(python, "-c", "import collsim; print(collsim.__file__)", env=env, cwd=tmp).strip()
        assert where.startswith(os.path.realpath(venv)) or where.startswith(venv), f"collsim imported from {where}"
        printed = run(python, "-c", EXAMPLE, env=env, cwd=tmp)
        mine = ast.literal_eval(printed.strip())
        theirs = json.loads(run(COLLSIM_BIN, "predict", "--preset", "dgx-h100", "--algo", "ring", "--bytes", "1G",
                                "--format", "json", env=dict(env, COLLSIM_PROGRESS="0")))
        assert mine == theirs, f"module:\n{mine}\ncommand line:\n{theirs}"
        assert mine[0]["engine"] == "flow", mine  # the command line's default on a topology, not analytic
        print(f"ok: pip install . into {venv}; collsim.predict(dgx-h100, ring, 1G) = {mine[0]['time_s']} s, "
              f"engine {mine[0]['engine']}, as the command line")
    after = sorted(os.listdir(ROOT))
    assert before == after, f"pip install . left files in the source tree: {set(after) - set(before)}"
    print("1 passed")


if __name__ == "__main__":
    main()
