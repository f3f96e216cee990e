// sim/simgrid_engine.hpp — the SimGrid cross-check engine (`--engine simgrid`): the same
// schedule on the same topology, simulated by SimGrid 3.32's CM02 network model instead of
// our own flow engine, so the two can be compared to the last digits (docs/semantics.md,
// "The SimGrid engine").
//
// The platform is built from our network: one host per rank, one SimGrid link per directed
// link (its bandwidth, latency 0), our route installed explicitly for every rank pair. One
// actor per rank runs its part of the schedule: it pays each transfer's alpha + route
// latency as a timed wait, keeps one in-order channel per (src, dst) pair, sends through
// mailboxes, and runs its reductions as executions on its host, one at a time. SimGrid
// shares the links max-min fairly; everything else is the flow engine's rules.
//
// SimGrid allows one simulation per process and keeps global state, so every run happens in
// a forked child that sends its result back through a pipe. Available only when collsim is
// built with SimGrid (COLLSIM_HAVE_SIMGRID; available_engines() lists "simgrid" then).
#pragma once

#include <cstddef>
#include <vector>

#include "collectives/schedule.hpp"
#include "sim/protocol.hpp"
#include "topologies/topology.hpp"

namespace collsim {

struct SimgridOptions {
  Protocol protocol;  // the run's (sim/protocol.hpp), applied by the cost rule to the platform's links
  double issue_s = 0;  // the host's time to issue one transfer, in list order (RunCosts::issue_s)
  bool verbose = false;  // let SimGrid log to stderr (otherwise its log is kept for error messages)
};

struct SimgridResult {
  double time_s = 0;                  // the latest completion
  std::vector<double> rank_finish_s;  // last completion on each rank (as source or destination)
  std::size_t transfers = 0;
  double wall_s = 0;                  // fork to exit of the simulating child
  double peak_rss_mib = 0;            // the child's peak resident memory
};

// Throws Error when routing gives more than one route per rank pair (ECMP, Valiant), when the
// schedule cannot finish (a dependency that never completes), or when SimGrid fails.
SimgridResult run_simgrid(const Schedule& schedule, const Topology& topology, double gamma_s_per_byte,
                          const SimgridOptions& options = {});

}  // namespace collsim
