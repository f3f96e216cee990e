# The two commands of the README: `make run` and `make test`. Both install what is missing
# (Debian packages, as root), configure and build Release first.
BUILD_DIR ?= build
# Extra configure arguments, e.g. CMAKE_ARGS=-DCOLLSIM_REQUIRE=mpi,simgrid (what CI passes).
CMAKE_ARGS ?=
JOBS      ?= $(shell nproc)
COLLSIM   := $(BUILD_DIR)/bin/collsim
# Debian's Python: the one the build's module and the notebooks' packages (set-up) are for.
PYTHON    ?= /usr/bin/python3

.PHONY: all deps configure build run test bench notebooks clean

all: build

deps:
	@bash scripts/install-deps.sh

$(BUILD_DIR)/build.ninja: CMakeLists.txt
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)

configure: deps $(BUILD_DIR)/build.ninja

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

# The main job: every allreduce algorithm on the embedded default cluster (seed 000's 40 GPUs).
# It builds the collsim program alone (no tests, benchmarks or workers), so a first answer
# comes in minutes; `make build` or `make test` build the rest.
run: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target collsim
	$(COLLSIM) predict --algo all

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

bench: build
	$(BUILD_DIR)/bin/bench_schedule_build 1024
	$(BUILD_DIR)/bin/bench_schedule_build 4096
	$(BUILD_DIR)/bin/bench_topology fat-tree
	$(BUILD_DIR)/bin/bench_topology fat-tree ecmp
	$(BUILD_DIR)/bin/bench_topology dragonfly
	$(BUILD_DIR)/bin/bench_topology dragonfly valiant
	bash bench/flow_report.sh $(BUILD_DIR)
	bash bench/cli_scale.sh $(BUILD_DIR)
	@if [ -x $(BUILD_DIR)/bin/bench_simgrid ]; then bash bench/simgrid_report.sh $(BUILD_DIR); else echo "bench_simgrid: skipped (collsim was built without SimGrid)"; fi

# The teaching notebooks, regenerated from notebooks/make_notebooks.py and executed in place, so
# that the committed files show their figures and tables (commit them after a change that moves
# a number they print).
notebooks: build
	$(PYTHON) notebooks/make_notebooks.py
	for nb in notebooks/*.ipynb; do \
	  PYTHONPATH=$(BUILD_DIR)/python COLLSIM_BIN=$(COLLSIM) $(PYTHON) -m nbconvert --to notebook --execute \
	    --inplace --ExecutePreprocessor.timeout=300 "$$nb" || exit 2; \
	done

clean:
	rm -rf $(BUILD_DIR)
