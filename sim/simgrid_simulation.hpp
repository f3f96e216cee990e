// sim/simgrid_simulation.hpp — the part of the simgrid engine that runs inside its child
// process (internal; needs SimGrid): build the platform, start one actor per rank, run.
#pragma once

#include <cstdint>
#include <vector>

#include "collectives/schedule.hpp"
#include "sim/simgrid_engine.hpp"
#include "topologies/topology.hpp"

namespace collsim::simgrid_engine {

struct Outcome {
  double time_s = 0;                  // the latest completion
  std::uint64_t completed = 0;        // transfers done; fewer than the schedule's: it cannot finish
  bool deadlock = false;              // SimGrid reported actors blocked forever
  std::vector<double> rank_finish_s;  // as the flow engine: last arrival as source, last completion as destination
};

// Creates the s4u::Engine, so it can run once per process: call it in a child of its own.
Outcome simulate(const Schedule& schedule, const Topology& topology, double gamma_s_per_byte,
                 const SimgridOptions& options);

}  // namespace collsim::simgrid_engine
