// sim/cli/options.hpp — options shared by the subcommands, and each subcommand's entry.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "collectives/algorithm.hpp"

namespace collsim::cli {

enum class Format { table, csv, json };

// --format table|csv|json (csv where a command has no table rows falls back to table).
void add_format_option(CLI::App& app, Format& format, bool with_csv = true);

// The options that describe one schedule: ALGO --ranks --collective --bytes --segments
// --ranks-per-node --root.
struct ScheduleOptions {
  std::string algorithm;
  std::string collective = "allreduce";
  Rank ranks = 0;
  std::string bytes;
  std::uint32_t segments = 0;
  Rank ranks_per_node = 0;
  Rank root = 0;

  ScheduleRequest request(std::uint64_t default_bytes) const;
};
// `required`: whether ALGO and --ranks must be given (check takes --file instead).
void add_schedule_options(CLI::App& app, ScheduleOptions& options, bool bytes_required, bool required = true);

void add_predict_command(CLI::App& app);
void add_explain_command(CLI::App& app);
void add_schedule_commands(CLI::App& app);  // schedule, check, algorithms
void add_topo_command(CLI::App& app);

}  // namespace collsim::cli
