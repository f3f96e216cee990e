// execute/execution_plan.cpp — schedules to execute, in element units.
#include "execute/execution_plan.hpp"

#include <fmt/format.h>

#include "base/error.hpp"
#include "collectives/checker.hpp"
#include "execute/reference_data.hpp"

namespace collsim {

std::vector<std::string> expand_algorithms(const ExecutionRequest& request) {
  return expand_algorithm_names(request.algorithms, request.collective, request.ranks, request.ranks_per_node);
}

ScheduleRequest predicted_request(const ExecutionRequest& request, std::uint64_t bytes) {
  ScheduleRequest r;
  r.collective = request.collective;
  r.ranks = request.ranks;
  r.bytes = bytes;
  r.segments = request.segments;
  r.ranks_per_node = request.ranks_per_node;
  r.channels = request.channels;
  r.channel_orders = request.channel_orders;
  return r;
}

namespace {
// Under "all", channels go to the algorithms that take them; a named one gets what was asked.
std::uint32_t channels_for(const ExecutionRequest& request, const std::string& algorithm) {
  const bool every = request.algorithms.size() == 1 && request.algorithms[0] == "all";
  return every && !find_algorithm(algorithm).takes_channels ? 1 : request.channels;
}
}  // namespace

Schedule executed_schedule(const ExecutionRequest& request, const std::string& algorithm, std::uint64_t bytes) {
  if (bytes % kElementBytes != 0)
    throw Error(fmt::format("size {} is not a whole number of 4-byte float elements", bytes));
  ScheduleRequest r = predicted_request(request, bytes / kElementBytes);
  r.channels = channels_for(request, algorithm);
  if (!find_algorithm(algorithm).takes_channels) r.channel_orders.clear();  // "all": they run one, in rank order
  // Pipelining is chosen from the real size, as predict chooses it.
  ScheduleRequest in_bytes = predicted_request(request, bytes);
  in_bytes.channels = r.channels;
  r.segments = segments_for(find_algorithm(algorithm), in_bytes);
  Schedule schedule = generate_schedule(algorithm, r);
  if (schedule.info().reducers > 0)
    throw Error(fmt::format("{} reduces in the switch (NVLink SHARP), which the executors cannot drive from ranks; "
                            "run it with --backend nccl's own NVLS, or pick an algorithm between ranks", algorithm));
  check_schedule(schedule);
  return schedule;
}

}  // namespace collsim
