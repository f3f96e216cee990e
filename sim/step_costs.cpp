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

}  // namespace

std::vector<StepCost> step_costs(const Schedule& s, const RunCosts& costs) {
  const PairPricing pricing(*costs.topology, costs.gamma_s_per_byte, costs.protocol);
  return pricing.price(s, [&](auto&& link, auto&& gamma, const TransferContext& context) {
    std::vector<StepCost> steps;
    for (TransferId id = 0; id < s.size(); ++id) {
      const std::uint32_t step = s.transfer(id).step;
      if (step >= steps.size()) steps.resize(step + 1);
      StepCost c = transfer_cost(s, id, costs, link, gamma, context);
      StepCost& slowest = steps[step];
      c.transports = slowest.transports;
      if (c.transport != Transport::unknown) c.transports |= std::uint8_t(1u << unsigned(c.transport));
      if (slowest.slowest == kNoTransfer || c.time_s() > slowest.time_s()) slowest = c;
      slowest.transports = c.transports;
    }
    return steps;
  });
}

}  // namespace collsim
