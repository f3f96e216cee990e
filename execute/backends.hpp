// execute/backends.hpp — the backends `run`, `calibrate` and `validate` may name, one table
// entry each: the worker binary that executes it (next to collsim), whether one process
// drives every rank or mpirun starts one per rank, whether it calibrates, and why its worker
// may be missing from this build. Adding a backend: its folder (executor, worker) and one
// entry in backends.cpp.
#pragma once

#include <string_view>
#include <vector>

namespace collsim {

struct BackendEntry {
  std::string_view name;
  std::string_view help;
  std::string_view worker;           // binary next to collsim
  bool one_process = false;          // one process on this node drives every rank (no mpirun, no --hostfile)
  bool calibrates = false;           // `collsim calibrate` measures it
  // Runs in-network schedules, each switch reducer emulated by one more process running its
  // rank program (execution_plan.hpp); the one-process GPU backends do not.
  bool emulates_switches = false;
  std::string_view missing_because;  // what this build lacks when the worker is not there
};

const std::vector<BackendEntry>& backend_table();
const BackendEntry& find_backend(std::string_view name);  // throws Error naming the backends

}  // namespace collsim
