// sim/run_costs.hpp — one priced run: everything an engine needs to turn a schedule into time,
// bound once from the cluster and the request (docs/design.md, "One priced run"), and how the
// engine is to run it. Engines take these two values and nothing of the request that made
// them (sim/prediction.hpp), so a new engine, a new caller (the Python module, a sweep) or a
// new cost term touches this file and the engines, not the command line.
//   RunCosts:  what the links, reductions and protocol cost (the cost rule's inputs);
//   EngineRun: what the engine is asked to keep or report (ports of the analytic model, the
//              flow engine's records and progress, SimGrid's log).
#pragma once

#include <functional>
#include <string>

#include "collectives/cost_model.hpp"
#include "sim/flow_result.hpp"
#include "sim/host_issue.hpp"
#include "sim/protocol.hpp"
#include "topologies/topology.hpp"

namespace collsim {

struct RunCosts {
  // The network the ranks are placed on (a built fabric, or a flat network's generated one:
  // topologies/flat_network.hpp), costed by sim/cost_rule.hpp.
  const Topology* topology = nullptr;
  double gamma_s_per_byte = 0;  // the reduction unit's seconds per byte (the cluster's)
  // The run's wire protocol, on every link alike, with its runtime's step latency
  // (sim/runtime.hpp) where the cluster has a runtime.
  Protocol protocol = simple_protocol();
  // The runtime's fixed cost of the collective (sim/runtime.hpp): paid once, before its first
  // transfer; the engines time the schedule and the prediction adds it.
  double fixed_s = 0;
  // The host's issue of the schedule: one host thread issues the transfers in list order, each
  // taking issue_s of its time, so transfer `id` is issued at (id + 1) x issue_s and cannot
  // start (its alpha, latency or start-up counted from then) before that, even when its
  // dependencies are done earlier (sim/host_issue.hpp). Every engine honours it alike.
  // 0: no issue cost (every cluster today).
  double issue_s = 0;

  double issued_s(TransferId id) const { return issued_at(issue_s, id); }
};

struct EngineRun {
  bool one_port = true;  // analytic: one send and one receive per rank at a time (else unlimited)
  // flow: what to record and whom to tell of progress (its protocol is RunCosts::protocol).
  FlowOptions flow;
  // flow, streamed: progress in words ("37% of 536854528 transfers").
  std::function<void(const std::string&)> stream_progress;
  bool verbose = false;  // simgrid: let SimGrid log to stderr
};

}  // namespace collsim
