// execute/execution_plan.hpp — which schedules an execution runs: algorithm names ("all"
// expanded as predict does), sizes in bytes, and the element-unit schedule each executor
// consumes (one schedule byte per float element, see reference_data.hpp). Pure.
//
// In-network schedules (switch reducers, collectives/schedule.hpp) run by emulation: each
// reducer is one more process (or loopback rank) running its rank program, so a schedule of
// P ranks and R reducers starts P + R processes (executed_processes). They run only where
// the request's cluster says those switches reduce (`run --config/--preset`), as predict
// runs them, and only on the backends that emulate them (backends.hpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "collectives/algorithm.hpp"

namespace collsim {

struct ExecutionRequest {
  Collective collective = Collective::allreduce;
  std::vector<std::string> algorithms;  // names, or the single name "all"
  std::vector<std::uint64_t> sizes;     // bytes per rank, multiples of 4
  Rank ranks = 1;
  std::uint32_t segments = 0;           // 0: each algorithm's default for the size in bytes
  Rank ranks_per_node = 0;              // hierarchical-ring; channels' rank orders
  std::uint32_t channels = 0;           // ring, tree, two-tree allreduce (others run one under "all"); 0: one
  // A schedule the user brought (`run --schedule FILE`), in bytes and proved: the one case,
  // in place of `algorithms` and `sizes` (which name it and its size), executed in float
  // elements (in_elements below).
  std::shared_ptr<const Schedule> schedule;
  // One rank order per channel (a switchless NVLink mesh's rings, ScheduleRequest::channel_orders)
  // for the algorithms that take channels; empty: every node's ranks rotated.
  std::vector<std::vector<Rank>> channel_orders;
  // Which switches of the run's cluster reduce (`run --config/--preset`; none without one):
  // in-network algorithms run only there, emulated, and "all" lists them only there.
  SwitchesReduce switches_reduce;
};

// `schedule` (in bytes) as the executors run it: one float element per 4 bytes, the same
// transfers on the same parts of the buffer. Throws Error naming the first chunk that is not
// whole floats.
Schedule in_elements(const Schedule& schedule);

// The request's one brought schedule: its collective, rank count, name and size. Throws Error
// when `ranks` (nonzero: the command line's) is not the schedule's.
void bring_schedule(ExecutionRequest& request, std::shared_ptr<const Schedule> schedule);

// "all" becomes every algorithm of the collective that runs on these ranks (hierarchical-ring
// only with ranks_per_node); names are checked. Throws Error.
std::vector<std::string> expand_algorithms(const ExecutionRequest& request);

// The schedule to execute for `algorithm` at `bytes`, proved by the checker (a brought
// schedule: it, in elements). Throws Error when bytes is not a whole number of float
// elements, when an in-network algorithm's switches do not reduce in the request's cluster,
// or when a brought schedule's reducer count is not its layout's (a switch per node its
// ranks fill, and the fabric's after them).
Schedule executed_schedule(const ExecutionRequest& request, const std::string& algorithm, std::uint64_t bytes);

// The processes an execution of `schedule` starts: its ranks, then one per switch reducer.
inline Rank executed_processes(const Schedule& schedule) { return schedule.info().endpoints(); }

// The request in bytes the predictions use for the same schedule.
ScheduleRequest predicted_request(const ExecutionRequest& request, std::uint64_t bytes);

}  // namespace collsim
