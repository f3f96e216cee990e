"""setup.py — build_ext for `pip install .`: the collsim extension is built by the project's
CMake build (target collsim_python, with pybind11 from Debian's pybind11-dev), not by
setuptools, and the built module is copied into the wheel.

Where it builds: $COLLSIM_BUILD_DIR if set, else build/ (the folder `make` uses), configured
(Release, Ninja where found) when it has not been configured yet. An already built tree is
reused: its module is brought up to date and copied.
Extra configure arguments: $CMAKE_ARGS (as the Makefile's).
"""
import glob
import os
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))
BUILD_DIR = os.path.abspath(os.environ.get("COLLSIM_BUILD_DIR", os.path.join(ROOT, "build")))


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = BUILD_DIR
        if not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
            configure = ["cmake", "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
                         f"-DCOLLSIM_PYTHON={sys.executable}"]
            if shutil.which("ninja"):
                configure += ["-G", "Ninja"]
            subprocess.run(configure + shlex.split(os.environ.get("CMAKE_ARGS", "")), check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
        subprocess.run(["cmake", "--build", build_dir, "--target", "collsim_python", "-j", jobs], check=True)
        built = glob.glob(os.path.join(build_dir, "python", "collsim*.so"))
        if len(built) != 1:
            sys.exit(f"collsim: expected one module in {build_dir}/python after the build, found {built or 'none'} "
                     "(pybind11-dev and python3-dev installed? the configure output says why the module is off)")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built[0], target)


# setuptools' own scratch folders inside CMake's (ignored by git), not in the source tree.
os.makedirs(os.path.join(BUILD_DIR, "setuptools"), exist_ok=True)
setup(
    ext_modules=[Extension("collsim", sources=[])],
    packages=[],  # the module is the extension alone; no folder of this repository is a Python package
    py_modules=[],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": os.path.join(BUILD_DIR, "setuptools")},
             "egg_info": {"egg_base": os.path.join(BUILD_DIR, "setuptools")}},
)
