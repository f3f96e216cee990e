// sim/flow_engine.hpp — the contention-aware engine (`--engine flow`): a discrete-event
// simulation of a schedule on a topology where transfers are flows sharing links.
//
// Per transfer of b bytes from rank s to rank d (docs/semantics.md, "The flow engine"):
//   ready    = when its last dependency is done;
//   issued   = max(ready, when the host has issued it: (id + 1) x issue_s, sim/host_issue.hpp);
//   start    = issued + alpha (the route's largest class alpha) + the route's summed latency,
//              the start-up of sim/cost_rule.hpp; until then it holds no bandwidth (SimGrid
//              CM02: latency first, then bytes);
//   draining = from start its bytes drain at its max-min fair share of every link on its
//              route (sim/max_min.hpp, of the capacities the cost rule gives the links),
//              re-solved whenever a flow that shares a link with it (transitively) starts or
//              ends — incrementally, only as far as the change reaches; flows starting or
//              ending at one instant are one batch;
//   arrival  = when its last byte has drained;
//   done     = arrival, or for a reduction max(arrival, d's reducer free) + b * gamma: d's
//              reducer runs one reduction at a time in order of arrival (sim/flow_rules.hpp;
//              local transfers, s == d, are reductions only). Where the topology models the
//              ranks' memory, routes cross both ranks' memory links and a reduction is a flow
//              of 3b bytes on d's, capped at 3/gamma, sharing it max-min with d's transfers
//              (sim/cost_rule.hpp); the shortcuts are off then (a rank's memory link is on
//              all its flows).
// There are no ports: a rank sends and receives any number of messages at once, and only
// links limit them (model a NIC's injection rate as a link). Each (src, dst) pair is one
// in-order channel (sim/flow_rules.hpp): a transfer whose latency is over while an earlier
// one of its pair still drains waits for it (so a pipeline's segments follow each other). So
// where no two transfers cross one link at the same time, the flow engine equals the analytic
// engine with --ports unlimited (tested on `full` for every algorithm, pipelines with one
// segment: a pipeline's segments on one tree edge share its link here, but each get full
// bandwidth there).
// Two events closer than 1e-12 relative are simultaneous. Same inputs give identical results.
#pragma once

#include <string>

#include "collectives/schedule.hpp"
#include "collectives/transfer_stream.hpp"
#include "sim/flow_result.hpp"
#include "topologies/topology.hpp"

namespace collsim {

// Throws Error when the schedule cannot finish (a dependency that never completes).
FlowResult run_flow(const Schedule& schedule, const Topology& topology, double gamma_s_per_byte,
                    const FlowOptions& options = {});

// The same for a schedule too large to hold (collectives/transfer_stream.hpp): time, per-rank
// finish and link usage; no critical path or timeline. It takes the shortcut where no link
// is shared, and otherwise simulates events, keeping only the flows in flight and the
// transfers still waiting for part of their dependencies (options.on_fallback hears why).
FlowResult run_flow(const TransferStream& stream, const Topology& topology, double gamma_s_per_byte,
                    const FlowOptions& options = {});

// "nvl0->sw3": the link's ends by vertex name.
std::string link_name(const Network& network, LinkId link);

}  // namespace collsim
