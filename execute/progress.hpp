// execute/progress.hpp — how a worker rank shows it is alive, and how the launcher tells a
// slow run from a hung one. Each rank that can reach the launcher's temporary folder (every
// rank on this node; others with a shared TMPDIR) keeps a file there, progress.<rank>,
// holding how many times it has moved forward and where it is ("ring 64M iteration 3 of 12").
// The launcher ends a run only when no rank has moved for --timeout seconds, and then names
// the rank that is furthest behind. Touches only files in that folder.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "collectives/schedule.hpp"

namespace collsim {

class ProgressBeacon {
 public:
  ProgressBeacon() = default;  // beats go nowhere
  ProgressBeacon(const std::filesystem::path& folder, Rank rank);

  // A step forward. The first is written at once, the others at most twice a second (the
  // latest `where` then), so beating every iteration costs next to nothing; never inside a
  // timed region.
  void beat(const std::string& where);

 private:
  void write();

  std::filesystem::path file_;
  std::uint64_t beats_ = 0;
  std::string where_;
  std::chrono::steady_clock::time_point written_{};
};

struct RankProgress {
  Rank rank = 0;
  std::uint64_t beats = 0;
  std::string where;
};

// Every rank's latest progress in `folder`, by rank (ranks that never wrote are absent).
std::vector<RankProgress> read_progress(const std::filesystem::path& folder);

// The stalled rank in words, for the timeout message: the rank furthest behind (one that
// never reported, among `ranks`, first), and where the others got to.
std::string describe_stall(const std::vector<RankProgress>& progress, Rank ranks);

}  // namespace collsim
