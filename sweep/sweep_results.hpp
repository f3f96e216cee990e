// sweep/sweep_results.hpp — a sweep's results table, DIR/results.csv: one row per point in
// the file's order, each with the point's hash, its axes' labels, the request, what ran
// (for nccl the algorithm and protocol it chose) and the time, or the reason it has none.
// Written whole and atomically (base/atomic_file.hpp) every time rows arrive, so a sweep
// killed at any moment leaves a complete table of the rows it had, which --resume reads.
// Touches: DIR/results.csv.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sweep/sweep_file.hpp"

namespace collsim {

enum class RowStatus : std::uint8_t {
  ok,       // priced
  refused,  // the config reader or the prediction refused the point (its values are wrong)
  failed,   // its worker died twice on it
};
std::string_view to_string(RowStatus status);

struct SweepRow {
  std::size_t index = 0;
  std::uint64_t hash = 0;
  RowStatus status = RowStatus::ok;
  std::uint32_t ranks = 0;
  std::string runs, protocol;  // what ran: the algorithm (nccl's choice) and wire protocol
  std::uint32_t channels = 0;
  double time_s = 0, algbw_GBps = 0, busbw_GBps = 0;
  std::string error;  // refused or failed: why, one line
};

// The table's CSV text: a header, then the rows present, in point order.
std::string results_csv(const Sweep& sweep, const std::map<std::size_t, SweepRow>& rows);
// Rows of an earlier run of this sweep that still hold: the same key and hash, priced or
// refused (a failed point runs again). Throws Error on a file that is not a results table.
std::map<std::size_t, SweepRow> read_results(const Sweep& sweep, const std::filesystem::path& csv);

}  // namespace collsim
