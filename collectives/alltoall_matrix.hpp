// collectives/alltoall_matrix.hpp — the all-to-all-v matrix file (`--matrix FILE`): CSV, P
// rows of P whole numbers, the bytes rank `row` sends to rank `column`. `#` starts a comment
// (to the end of the line), blank lines are skipped, and the first row may be a header (any
// field not a number, e.g. "to0,to1,..."). Every fault names the file and line.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/schedule.hpp"

namespace collsim {

struct AlltoallMatrix {
  Rank ranks = 0;
  std::vector<std::uint64_t> pair_bytes;  // row-major, ScheduleInfo::pair_bytes
};

// `where` names the text in messages (the file's path).
AlltoallMatrix parse_alltoall_matrix(std::string_view text, std::string_view where);
AlltoallMatrix read_alltoall_matrix(const std::filesystem::path& path);

}  // namespace collsim
