#!/usr/bin/env bash
# Installs the Debian packages collsim builds and tests with, when any is missing.
# Needs root (or sudo) only when something has to be installed.
set -euo pipefail

# libtinyxml2-dev: MSCCL's XML schedules (--msccl-xml, schedule --format msccl-xml).
# libsimgrid-dev: the simgrid engine and its cross-validation tests (optional for the build).
# openmpi-bin, libopenmpi-dev: `collsim run --backend mpi` and its tests (optional for the build).
# pybind11-dev .. python3-nbformat: the Python module and the notebooks that `make test` runs
# (Debian's /usr/bin/python3); python3-pip .. python3-wheel: `pip install .` of the module
# without downloads (pyproject.toml, setup.py); librsvg2-bin, libxml2-utils: render and validate the SVG pictures.
packages=(cmake ninja-build g++ make pkg-config
          libfmt-dev nlohmann-json3-dev libyaml-cpp-dev libcli11-dev libboost-graph-dev catch2 libtinyxml2-dev
          libsimgrid-dev openmpi-bin libopenmpi-dev
          pybind11-dev python3-dev jupyter-nbconvert python3-ipykernel python3-matplotlib python3-pandas
          python3-nbformat python3-pip python3-venv python3-setuptools python3-wheel librsvg2-bin libxml2-utils)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all ${#packages[@]} Debian packages present"
  exit 0
fi

echo "deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
