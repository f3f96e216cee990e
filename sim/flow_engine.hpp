// sim/flow_engine.hpp — the contention-aware engine (`--engine flow`): a discrete-event
// simulation of a schedule on a topology where transfers are flows sharing links.
//
// Per transfer of b bytes from rank s to rank d (docs/semantics.md, "The flow engine"):
//   ready    = when its last dependency is done;
//   start    = ready + alpha (the route's largest class alpha) + the route's summed latency;
//              until then it holds no bandwidth (SimGrid CM02: latency first, then bytes);
//   draining = from start its bytes drain at its max-min fair share of every link on its
//              route (sim/max_min.hpp), re-solved whenever a flow that shares a link with it
//              (transitively) starts or ends; flows starting or ending at one instant are one
//              batch;
//   arrival  = when its last byte has drained;
//   done     = arrival, or for a reduction arrival + b * gamma on d's reduction unit, which
//              runs one reduction at a time (local transfers, s == d, are reductions only).
// There are no ports: a rank sends and receives any number of messages at once, and only
// links limit them (model a NIC's injection rate as a link). So where no two transfers
// cross one link at the same time, the flow engine equals the analytic engine with --ports
// unlimited (tested on `full` for every algorithm, pipelines with one segment: a pipeline's
// segments on one tree edge share its link here, but each get full bandwidth there).
// Two events closer than 1e-12 relative are simultaneous. Same inputs give identical results.
#pragma once

#include <vector>

#include "collectives/schedule.hpp"
#include "topologies/topology.hpp"

namespace collsim {

struct FlowResult {
  double time_s = 0;
  std::vector<double> rank_finish_s;  // last completion on each rank (as source or destination)
  std::vector<double> link_bytes;     // bytes carried by each directed link of the network
  std::size_t rate_solves = 0;        // max-min re-solves (one per batch and component)
};

// Throws Error when the schedule cannot finish (a dependency that never completes).
FlowResult run_flow(const Schedule& schedule, const Topology& topology, double gamma_s_per_byte);

}  // namespace collsim
