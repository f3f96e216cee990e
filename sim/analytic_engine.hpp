// sim/analytic_engine.hpp — the contention-free engine (`--engine analytic`): the time of a
// schedule's dependency DAG under the alpha-beta-gamma model, one pass over the transfers.
//
// Per transfer of b bytes from s to d (docs/semantics.md):
//   ready   = the latest completion among its dependencies;
//   start   = ready, not before the host has issued it (issue_s: sim/host_issue.hpp), and, in
//             the one-port model (default), not before s's send port and d's
//             receive port are free: each rank sends one message and receives one message at
//             a time, ports granted in list order (the model of Thakur et al.'s formulas and
//             of the lower bound);
//   arrival = start + alpha + b * beta of the link between s and d (ports free again): the
//             flat model's link class, or on a topology the route's, as sim/cost_rule.hpp
//             costs a message alone (start-up, then the bottleneck bandwidth; no contention);
//   done    = arrival, or for a reduction arrival + b * gamma, run on d's reduction unit,
//             which works one reduction at a time. Where the topology models the ranks'
//             memory, a route crosses both ranks' memory links and a reduction takes
//             b * max(gamma, 3 / memory bandwidth) (sim/cost_rule.hpp; no contention here).
// A local transfer (s == d) is a reduction of staged data on d: b * gamma, no alpha.
// With one_port = false the ports are unlimited and the time is the DAG's plain critical path.
#pragma once

#include <vector>

#include "collectives/cost_model.hpp"
#include "collectives/schedule.hpp"
#include "sim/protocol.hpp"
#include "topologies/topology.hpp"

namespace collsim {

struct AnalyticOptions {
  bool one_port = true;
  Protocol protocol;  // the run's (sim/protocol.hpp); Simple: the links as their classes say
  double issue_s = 0;  // the host's time to issue one transfer, in list order (RunCosts::issue_s)
};

struct AnalyticResult {
  double time_s = 0;
  std::vector<double> rank_finish_s;       // last completion on each rank (as source or destination)
  // First to last transfer of the chain that sets time_s; it begins where a transfer waited
  // for nothing, or only for the host's issue of it (AnalyticOptions::issue_s).
  std::vector<TransferId> critical_path;
};

// Flat model: cost.link(s, d) per message, cost.gamma_s_per_byte per reduced byte.
AnalyticResult run_analytic(const Schedule& schedule, const CostModel& cost, const AnalyticOptions& options = {});

// A topology: each message priced as sim/pair_pricing.hpp chooses for it once: a built fabric's
// by its route between the ranks' endpoints (flow 0's route), a flat network's by its classes,
// as above.
AnalyticResult run_analytic(const Schedule& schedule, const Topology& topology, double gamma_s_per_byte,
                            const AnalyticOptions& options = {});

}  // namespace collsim
