// sim/step_costs.hpp — a priced run step by step, for `collsim explain` on a cluster whose
// config names a runtime (docs/semantics.md, "The runtime"): each step's slowest transfer alone,
// as the analytic engine prices it (the same PairPricing: the runtime's step latency in place
// of the classes' alpha, plus the route's hop latencies; the bytes at the route's bottleneck,
// the runtime's rate caps included; a reduction at its rank's pace). Where a schedule's steps
// follow one another, each waiting for the one before (a ring in one channel, one segment), the
// runtime's fixed cost plus the steps is the analytic engine's time; where a rank's messages
// queue at its port or steps overlap (channels, pipelined slices, trees), it is not. With the
// host's issue (RunCosts::issue_s), a step starts no earlier than its last transfer's issue.
// Touches nothing but its arguments.
#pragma once

#include <cstdint>
#include <vector>

#include "collectives/schedule.hpp"
#include "sim/run_costs.hpp"
#include "topologies/network.hpp"

namespace collsim {

struct StepCost {
  TransferId slowest = kNoTransfer;          // the step's transfer that takes longest alone; none: an empty step
  std::uint64_t bytes = 0;                   // its bytes
  Transport transport = Transport::unknown;  // what its message crosses (unknown: a local reduction, or no cable says)
  std::uint8_t transports = 0;               // a bit (1 << Transport) for each one the step's messages cross
  double sync_s = 0;     // its message's step latency (the runtime's, by transport; 0 without one)
  double startup_s = 0;  // its message's whole start-up: sync_s and the route's hop latencies (or the classes' alpha)
  double rate_Bps = 0;   // what its bytes drain at alone (infinite: nothing limits them; 0: no message)
  double drain_s = 0;    // bytes / rate_Bps
  double reduce_s = 0;   // its reduction on the receiver (0: a copy, or a switch's reduction)
  // Its wait for the host to issue its last transfer, beyond the end of the steps before it
  // (RunCosts::issue_s; 0 without an issue cost).
  double issue_wait_s = 0;

  double time_s() const { return issue_wait_s + startup_s + drain_s + reduce_s; }
};

// Indexed by step number (Transfer::step), every step up to the last.
std::vector<StepCost> step_costs(const Schedule& schedule, const RunCosts& costs);

}  // namespace collsim
