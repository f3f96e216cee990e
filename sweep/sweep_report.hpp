// sweep/sweep_report.hpp — what people look at after a sweep, written into DIR beside
// results.csv: winners.svg (a heatmap: which algorithm is fastest, by message size across
// and cluster point down), scaling.svg (bus bandwidth at the largest size against the GPUs,
// a line per algorithm and cluster variant) and summary.md (the counts, the winner table,
// the points that were refused or failed).
// Touches: those three files (each written atomically).
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "sweep/sweep_file.hpp"
#include "sweep/sweep_results.hpp"

namespace collsim {

inline constexpr const char* kWinnersFile = "winners.svg";
inline constexpr const char* kScalingFile = "scaling.svg";
inline constexpr const char* kSummaryFile = "summary.md";

std::string winners_svg(const Sweep& sweep, const std::map<std::size_t, SweepRow>& rows);
std::string scaling_svg(const Sweep& sweep, const std::map<std::size_t, SweepRow>& rows);
std::string summary_markdown(const Sweep& sweep, const std::map<std::size_t, SweepRow>& rows);
void write_sweep_report(const Sweep& sweep, const std::map<std::size_t, SweepRow>& rows,
                        const std::filesystem::path& folder);

}  // namespace collsim
