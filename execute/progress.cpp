// execute/progress.cpp — progress files of worker ranks.
#include "execute/progress.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>

#include <fmt/format.h>

namespace collsim {
namespace fs = std::filesystem;

namespace {

constexpr auto kWriteInterval = std::chrono::milliseconds(500);
constexpr std::string_view kPrefix = "progress.";

}  // namespace

ProgressBeacon::ProgressBeacon(const fs::path& folder, Rank rank)
    : file_(folder.empty() ? fs::path() : folder / fmt::format("{}{}", kPrefix, rank)) {}

// At most one write per interval, whatever `where` says: it names the iteration, so it
// changes at every beat, and a file written and renamed per iteration put the worker's
// filesystem work (and its disk's interrupts) between the timed iterations.
void ProgressBeacon::beat(const std::string& where) {
  if (file_.empty()) return;
  ++beats_;
  where_ = where;
  const auto now = std::chrono::steady_clock::now();
  if (beats_ > 1 && now - written_ < kWriteInterval) return;
  written_ = now;
  write();
}

// Written to a side file and renamed, so the launcher never reads half a line. A rank on
// another node without the folder simply cannot write: its progress stays unknown.
void ProgressBeacon::write() {
  const fs::path side = file_.string() + ".new";
  std::FILE* f = std::fopen(side.c_str(), "w");
  if (!f) return;
  std::fprintf(f, "%llu\t%s\n", static_cast<unsigned long long>(beats_), where_.c_str());
  if (std::fclose(f) == 0) std::rename(side.c_str(), file_.c_str());
}

std::vector<RankProgress> read_progress(const fs::path& folder) {
  std::vector<RankProgress> out;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(folder, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(kPrefix, 0) != 0 || name.find(".new") != std::string::npos) continue;
    RankProgress p;
    p.rank = Rank(std::strtoul(name.c_str() + kPrefix.size(), nullptr, 10));
    std::ifstream file(e.path());
    std::string beats;
    if (!std::getline(file, beats, '\t') || !std::getline(file, p.where)) continue;
    p.beats = std::strtoull(beats.c_str(), nullptr, 10);
    out.push_back(p);
  }
  std::sort(out.begin(), out.end(), [](const RankProgress& a, const RankProgress& b) { return a.rank < b.rank; });
  return out;
}

std::string describe_stall(const std::vector<RankProgress>& progress, Rank ranks) {
  if (progress.empty()) return "no rank reported any progress";
  for (Rank r = 0, i = 0; r < ranks; ++r, ++i) {
    if (i < progress.size() && progress[i].rank == r) continue;
    return fmt::format("rank {} never reported progress (rank {} reached {})", r, progress.front().rank,
                       progress.front().where);
  }
  const auto behind = std::min_element(progress.begin(), progress.end(),
                                       [](const RankProgress& a, const RankProgress& b) { return a.beats < b.beats; });
  const auto ahead = std::max_element(progress.begin(), progress.end(),
                                      [](const RankProgress& a, const RankProgress& b) { return a.beats < b.beats; });
  if (behind->beats == ahead->beats) return fmt::format("every rank stopped at {}", behind->where);
  return fmt::format("rank {} stopped answering at {} (rank {} reached {})", behind->rank, behind->where, ahead->rank,
                     ahead->where);
}

}  // namespace collsim
