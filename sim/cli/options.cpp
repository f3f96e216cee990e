// sim/cli/options.cpp — shared option definitions.
#include "sim/cli/options.hpp"

#include "collectives/units.hpp"

namespace collsim::cli {

void add_format_option(CLI::App& app, Format& format, bool with_csv) {
  std::map<std::string, Format> names{{"table", Format::table}, {"json", Format::json}};
  if (with_csv) names.emplace("csv", Format::csv);
  app.add_option("--format", format, "Output format: table, json" + std::string(with_csv ? " or csv" : ""))
      ->transform(CLI::CheckedTransformer(names, CLI::ignore_case))
      ->default_str("table");
}

void add_schedule_options(CLI::App& app, ScheduleOptions& o, bool bytes_required, bool required) {
  app.add_option("algorithm", o.algorithm, "Algorithm (collsim algorithms lists them)")->required(required);
  app.add_option("-p,--ranks", o.ranks, "Number of ranks P")->required(required)->check(CLI::Range(Rank(1), Rank(1) << 24));
  app.add_option("-c,--collective", o.collective, "allreduce, reduce-scatter, allgather, broadcast or reduce")
      ->capture_default_str();
  auto* bytes = app.add_option("-b,--bytes", o.bytes, "Bytes per rank (K/M/G = 2^10/2^20/2^30)");
  if (bytes_required) bytes->required();
  app.add_option("-k,--segments", o.segments, "Pipeline segments (tree, two-tree; default: ~1 MiB each, 1..64)")
      ->check(CLI::Range(std::uint32_t(1), std::uint32_t(1) << 20));
  app.add_option("-g,--ranks-per-node", o.ranks_per_node, "Ranks per node (hierarchical-ring)")
      ->check(CLI::Range(Rank(1), Rank(1) << 24));
  app.add_option("--root", o.root, "Root rank of broadcast and reduce")->capture_default_str();
}

ScheduleRequest ScheduleOptions::request(std::uint64_t default_bytes) const {
  ScheduleRequest r;
  r.collective = parse_collective(collective);
  r.ranks = ranks;
  r.bytes = bytes.empty() ? default_bytes : parse_size(bytes);
  r.segments = segments;
  r.ranks_per_node = ranks_per_node;
  r.root = root;
  return r;
}

}  // namespace collsim::cli
