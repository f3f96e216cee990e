// sim/step_costs.cpp — each step's slowest transfer, priced as the analytic engine prices it.
#include "sim/step_costs.hpp"

#include <algorithm>

#include "sim/cost_rule.hpp"
#include "sim/pair_pricing.hpp"

namespace collsim {
namespace {

// One transfer alone: `link` and `gamma` are the analytic engine's (PairPricing::price).
template <class LinkOf, class GammaOf>
StepCost transfer_cost(const Schedule& s, TransferId id, const RunCosts& costs, LinkOf& link, GammaOf& gamma,
                       const TransferContext& context) {
  const Transfer t = s.transfer(id);
  StepCost c;
  c.slowest = id;
  c.bytes = s.transfer_bytes(id);
  if (!t.is_local()) {
    const LinkCost route = link(t.src, t.dst, c.bytes, context.exchange_half(id));
    c.transport = pair_transport(*costs.topology, t.src, t.dst);
    const StepLatency& step = costs.protocol.step;
    c.sync_s = step.active && c.transport != Transport::unknown ? step.at(c.transport) : 0;
    c.startup_s = route.alpha_s;
    c.rate_Bps = route.beta_s_per_byte > 0 ? 1 / route.beta_s_per_byte : kNoBottleneck_Bps;
    c.drain_s = double(c.bytes) * route.beta_s_per_byte;
  }
  if (t.op == Op::reduce && !is_in_network_reduction(s.info(), t))
    c.reduce_s = double(c.bytes) * gamma(t.dst, c.bytes, context.reduction_into_sent(id));
  return c;
}

// The host's issue (RunCosts::issue_s): the steps, one after another, each no earlier than
// the host has issued its last transfer (its highest id); what a step waits beyond the end of
// the steps before it is its issue_wait_s. Where each step waits for the one before (a ring in
// one channel) this is the analytic engine's time both where the host keeps up with the
// steps (no waits past the first step's) and where the steps keep up with the host (each step
// waits for its issue, and the run ends a step's cost after the last transfer's issue).
void wait_for_issue(std::vector<StepCost>& steps, const std::vector<TransferId>& last_id, const RunCosts& costs) {
  double clock = 0;
  for (std::size_t step = 0; step < steps.size(); ++step) {
    if (last_id[step] != kNoTransfer)
      steps[step].issue_wait_s = std::max(0.0, costs.issued_s(last_id[step]) - clock);
    clock += steps[step].time_s();
  }
}

}  // namespace

std::vector<StepCost> step_costs(const Schedule& s, const RunCosts& costs) {
  const PairPricing pricing(*costs.topology, costs.gamma_s_per_byte, costs.protocol);
  std::vector<TransferId> last_id;  // per step
  std::vector<StepCost> steps = pricing.price(s, [&](auto&& link, auto&& gamma, const TransferContext& context) {
    std::vector<StepCost> by_step;
    for (TransferId id = 0; id < s.size(); ++id) {
      const std::uint32_t step = s.transfer(id).step;
      if (step >= by_step.size()) {
        by_step.resize(step + 1);
        last_id.resize(step + 1, kNoTransfer);
      }
      last_id[step] = id;
      StepCost c = transfer_cost(s, id, costs, link, gamma, context);
      StepCost& slowest = by_step[step];
      c.transports = slowest.transports;
      if (c.transport != Transport::unknown) c.transports |= std::uint8_t(1u << unsigned(c.transport));
      if (slowest.slowest == kNoTransfer || c.time_s() > slowest.time_s()) slowest = c;
      slowest.transports = c.transports;
    }
    return by_step;
  });
  if (costs.issue_s > 0) wait_for_issue(steps, last_id, costs);
  return steps;
}

}  // namespace collsim
