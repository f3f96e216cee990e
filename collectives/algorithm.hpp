// collectives/algorithm.hpp — the registry of collective algorithms: one {name, factory}
// table that the command line, the engines, the tests and the docs all enumerate. Each
// generator is a pure function (request) -> Schedule living in algorithms/<name>.cpp.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "collectives/schedule.hpp"

namespace collsim {

struct ScheduleRequest {
  Collective collective = Collective::allreduce;
  Rank ranks = 1;
  std::uint64_t bytes = 0;
  std::uint32_t segments = 0;        // 0: the algorithm's default (see default_segments)
  std::uint32_t ranks_per_node = 0;  // hierarchical-ring; 0: not given
  Rank root = 0;                     // broadcast, reduce
};

using Generator = Schedule (*)(const ScheduleRequest&);

struct AlgorithmEntry {
  std::string_view name;
  std::string_view summary;
  std::vector<Collective> collectives;
  bool pipelined;  // takes a segment count
  Generator generate;

  bool supports(Collective c) const;
};

const std::vector<AlgorithmEntry>& algorithm_table();
const AlgorithmEntry& find_algorithm(std::string_view name);  // throws Error listing valid names
std::vector<std::string_view> algorithms_for(Collective collective);

// Segments used when the request leaves them at 0: about 1 MiB per segment, 1 to 64.
std::uint32_t default_segments(std::uint64_t bytes);

// Validates the request (P >= 1, collective supported, parameters consistent) and generates.
Schedule generate_schedule(std::string_view algorithm, const ScheduleRequest& request);

}  // namespace collsim
