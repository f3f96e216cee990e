// validate/execution_plan.cpp — schedules to execute, in element units.
#include "validate/execution_plan.hpp"

#include <fmt/format.h>

#include "collectives/checker.hpp"
#include "collectives/error.hpp"
#include "validate/reference_data.hpp"

namespace collsim {

std::vector<std::string> expand_algorithms(const ExecutionRequest& request) {
  const bool every = request.algorithms.size() == 1 && request.algorithms[0] == "all";
  std::vector<std::string> names;
  if (!every) {
    for (const std::string& name : request.algorithms) {
      if (!find_algorithm(name).supports(request.collective))
        throw Error(fmt::format("algorithm '{}' does not implement {}", name, to_string(request.collective)));
      names.push_back(name);
    }
    return names;
  }
  for (std::string_view name : algorithms_for(request.collective))
    if (name != "hierarchical-ring" || request.ranks_per_node > 0) names.emplace_back(name);
  return names;
}

ScheduleRequest predicted_request(const ExecutionRequest& request, std::uint64_t bytes) {
  ScheduleRequest r;
  r.collective = request.collective;
  r.ranks = request.ranks;
  r.bytes = bytes;
  r.segments = request.segments;
  r.ranks_per_node = request.ranks_per_node;
  return r;
}

Schedule executed_schedule(const ExecutionRequest& request, const std::string& algorithm, std::uint64_t bytes) {
  if (bytes % kElementBytes != 0)
    throw Error(fmt::format("size {} is not a whole number of 4-byte float elements", bytes));
  ScheduleRequest r = predicted_request(request, bytes / kElementBytes);
  // Pipelining is chosen from the real size, as predict chooses it.
  if (r.segments == 0 && find_algorithm(algorithm).pipelined) r.segments = default_segments(bytes);
  Schedule schedule = generate_schedule(algorithm, r);
  check_schedule(schedule);
  return schedule;
}

std::vector<std::string> split_names(const std::string& text) {
  std::vector<std::string> names;
  for (std::size_t pos = 0; pos <= text.size();) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    if (comma > pos) names.push_back(text.substr(pos, comma - pos));
    pos = comma + 1;
  }
  return names;
}

}  // namespace collsim
