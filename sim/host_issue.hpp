// sim/host_issue.hpp — when a host thread that issues a schedule's transfers one by one has
// issued transfer `id`: the one rule the engines share (RunCosts::issue_s, sim/run_costs.hpp).
// Touches nothing.
#pragma once

#include "collectives/schedule.hpp"

namespace collsim {

// One host thread issues the transfers in list order (ids 0, 1, 2, ...), each taking issue_s
// of its time (the cuda backend's: one thread enqueues every wait, copy or kernel and event of
// P virtual ranks; execute/cuda/cuda_executor.cpp), so transfer `id` is issued at
// (id + 1) x issue_s. It cannot start before then, however early its dependencies are done:
// an engine counts its start-up (alpha, latency; for a local reduction, its wait for the
// reducer) from max(ready, issued). 0: no issue cost, every transfer issued at time 0.
inline double issued_at(double issue_s, TransferId id) { return issue_s * (double(id) + 1); }

}  // namespace collsim
