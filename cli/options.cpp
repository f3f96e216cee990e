// cli/options.cpp — the shared option declarations and their checks.
#include "cli/options.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.hpp"
#include "base/units.hpp"
#include "collectives/alltoall_matrix.hpp"
#include "collectives/collective_spec.hpp"

namespace collsim::cli {
namespace {

std::optional<double> finite_number(const std::string& text) {
  double x = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(x)) return std::nullopt;
  return x;
}

// Why `text` is not a finite number above (or at) zero, or "" when it is one.
std::string number_problem(const std::string& text, bool zero_ok) {
  const char* expected = zero_ok ? "a finite number >= 0" : "a finite number > 0";
  const std::optional<double> x = finite_number(text);
  if (!x) return fmt::format("expected {}, got '{}'", expected, text);
  if (*x < 0 || (!zero_ok && *x == 0)) return fmt::format("expected {}, got {}", expected, text);
  return "";
}

}  // namespace

CLI::Validator positive_number() {
  return CLI::Validator([](std::string& s) { return number_problem(s, false); }, "NUMBER>0");
}

CLI::Validator non_negative_number() {
  return CLI::Validator([](std::string& s) { return number_problem(s, true); }, "NUMBER>=0");
}

CLI::Validator whole_number(std::uint64_t min, std::uint64_t max) {
  return CLI::Validator(
      [min, max](std::string& s) -> std::string {
        std::uint64_t x = 0;
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
        if (s.empty() || ec != std::errc() || end != s.data() + s.size() || x < min || x > max)
          return fmt::format("expected a whole number in {}..{}, got '{}'", min, max, s);
        return "";
      },
      fmt::format("{}..{}", min, max));
}

CLI::Validator physical(const PhysicalRange& range) {
  return CLI::Validator(
      [range](std::string& s) -> std::string {
        const std::optional<double> x = finite_number(s);
        if (!x) return fmt::format("expected {} in {:g}..{:g}, got '{}'", range.quantity, range.min, range.max, s);
        return range_problem(range, *x);
      },
      fmt::format("{} in {:g}..{:g}", range.quantity, range.min, range.max));
}

CLI::Validator one_of(std::vector<std::string> words) {
  const std::string expected = fmt::format("{}", fmt::join(words, ", "));
  return CLI::Validator(
      [words, expected](std::string& s) -> std::string {
        if (std::find(words.begin(), words.end(), s) != words.end()) return "";
        return fmt::format("expected one of {}, got '{}'", expected, s);
      },
      fmt::format("{}", fmt::join(words, "|")));
}

void add_format_option(CLI::App& app, Format& format, bool with_csv, bool with_nccl_tests) {
  std::vector<std::string> words{"table"};
  if (with_csv) words.push_back("csv");
  words.push_back("json");
  if (with_nccl_tests) words.push_back("nccl-tests");
  const std::string expected =
      fmt::format("{} or {}", fmt::join(words.begin(), words.end() - 1, ", "), words.back());  // "table, csv or json"
  auto check = CLI::Validator(
      [words, expected](std::string& s) -> std::string {
        if (std::find(words.begin(), words.end(), s) != words.end()) return "";
        return fmt::format("expected {}, got '{}'", expected, s);
      },
      fmt::format("{}", fmt::join(words, "|")));
  app.add_option_function<std::string>(
         "--format",
         [&format](const std::string& s) {
           format = s == "json" ? Format::json : s == "csv" ? Format::csv : s == "nccl-tests" ? Format::nccl_tests : Format::table;
         },
         "Output format: " + expected +
             (with_nccl_tests ? " (nccl-tests: the column layout of NVIDIA's nccl-tests, one line per size, to diff "
                                "with a measured log)"
                              : ""))
      ->check(check)
      ->default_str("table");
}

CLI::Option* add_ranks_option(CLI::App& app, Rank& ranks, Rank max, const std::string& help, Rank min) {
  return app.add_option("-p,--ranks", ranks, help)->check(whole_number(min, max));
}

CLI::Option* add_ranks_option(CLI::App& app, std::vector<Rank>& ranks, Rank max, const std::string& help) {
  return app.add_option("-p,--ranks", ranks, help)->delimiter(',')->check(whole_number(1, max));
}

CLI::Option* add_bytes_option(CLI::App& app, std::string& bytes, const std::string& help) {
  auto sizes = CLI::Validator(
      [](std::string& s) -> std::string {
        try {
          parse_size_list(s);
        } catch (const Error& e) {
          return e.what();
        }
        return "";
      },
      "SIZES");
  return app.add_option("-b,--bytes", bytes, help + " (K/M/G = 2^10/2^20/2^30)")->check(sizes);
}

CLI::Option* add_algo_option(CLI::App& app, std::string& algo, const std::string& help) {
  return app.add_option("-a,--algo", algo, help);
}

CLI::Option* add_collective_option(CLI::App& app, std::string& collective) {
  return app.add_option("-c,--collective", collective, collective_names())
      ->capture_default_str();
}

CLI::Option* add_segments_option(CLI::App& app, std::uint32_t& segments) {
  return app.add_option("-k,--segments", segments, "Pipeline segments: slices of each ring step, segments of a tree's buffer (default: ~1 MiB each, 1..64; "
                        "predict with a runtime that names its GPUs: nvls and nvls-tree one per loop of NCCL's NVLS channels)")
      ->check(whole_number(1, 1u << 20));
}

CLI::Option* add_ranks_per_node_option(CLI::App& app, Rank& ranks_per_node, Rank max) {
  return app.add_option("-g,--ranks-per-node", ranks_per_node, "Ranks per node (hierarchical-ring; the channels' rank orders)")
      ->check(whole_number(1, max));
}

CLI::Option* add_channels_option(CLI::App& app, std::uint32_t& channels, const std::string& default_help) {
  return app
      .add_option("--channels", channels,
                  fmt::format("Channels of ring, tree, two-tree and nccl-tree allreduce, ring allgather and reduce-scatter, and chain "
                              "and tree broadcast and reduce (each channel from the root): "
                              "the buffer (allgather, reduce-scatter: every rank's block) cut in C parts, each run by its "
                              "own instance, whose rank order is rotated within every node (--ranks-per-node) so it "
                              "crosses nodes through a different GPU and NIC, as NCCL's channels (default: {}; 1..{})",
                              default_help, kMaxChannels))
      ->check(whole_number(1, kMaxChannels));
}

void add_cluster_options(CLI::App& app, ClusterSource& source, const std::string& config_help) {
  // The file as the command's argument or after --config: every command that takes a cluster
  // file takes both (collsim topo FILE, collsim predict --config FILE).
  auto set = [&source](const std::string& file) {
    if (!source.config.empty() && source.config != file)
      throw Error(fmt::format("two cluster files, '{}' and '{}': give one (FILE or --config FILE)", source.config, file));
    source.config = file;
  };
  app.add_option_function<std::string>("file", set, config_help + "; the same as --config FILE");
  app.add_option_function<std::string>("--config", set, config_help);
  app.add_option("--preset", source.preset, "A cluster compiled in from configs/ (collsim topo --list)");
}

ClusterConfig load_cluster(const ClusterSource& source) {
  if (!source.config.empty() && !source.preset.empty()) throw Error("give --config or --preset, not both");
  return source.config.empty() ? load_preset(source.preset) : load_cluster_config(source.config);
}

std::uint64_t one_size(const std::string& option, const std::string& text) {
  const std::vector<std::uint64_t> sizes = parse_size_list(text);
  if (sizes.size() != 1) throw Error(fmt::format("{} takes one size here, got '{}'", option, text));
  return sizes[0];
}

void add_schedule_options(CLI::App& app, ScheduleOptions& o, bool bytes_required, bool required) {
  app.add_option("algorithm", o.algorithm, "Algorithm (collsim algorithms lists them)")->required(required);
  add_ranks_option(app, o.ranks, kMaxRanks)->required(required);
  add_collective_option(app, o.collective);
  CLI::Option* bytes = add_bytes_option(app, o.bytes, "Bytes per rank");
  CLI::Option* matrix = add_matrix_option(app, o.matrix);
  bytes->excludes(matrix);
  o.bytes_required = bytes_required;
  add_segments_option(app, o.segments);
  add_ranks_per_node_option(app, o.ranks_per_node, kMaxRanks);
  add_channels_option(app, o.channels, "1");
  app.add_option("--root", o.root, "Root rank of broadcast and reduce")->capture_default_str()->check(whole_number(0, kMaxRanks));
}

ScheduleRequest ScheduleOptions::request(std::uint64_t default_bytes) const {
  ScheduleRequest r;
  r.collective = parse_collective(collective);
  r.ranks = ranks;
  if (bytes_required && bytes.empty() && matrix.empty())
    throw Error("--bytes is required (or --matrix FILE, an all-to-all-v's bytes per pair)");
  r.bytes = bytes.empty() ? default_bytes : one_size("--bytes", bytes);
  r.segments = segments;
  r.ranks_per_node = ranks_per_node;
  r.channels = channels;
  r.root = root;
  if (!matrix.empty()) with_matrix(r, matrix);
  return r;
}

CLI::Option* add_matrix_option(CLI::App& app, std::string& file) {
  return app.add_option("--matrix", file,
                        "All-to-all-v: a CSV file of P rows x P columns, the bytes rank row sends to rank column (# "
                        "comments, an optional header); with --collective alltoall, in place of --bytes");
}

void with_matrix(ScheduleRequest& r, const std::string& file) {
  if (r.collective != Collective::alltoall)
    throw Error(fmt::format("--matrix gives alltoall's bytes per pair, not {}'s; add --collective alltoall",
                            to_string(r.collective)));
  AlltoallMatrix m = read_alltoall_matrix(file);
  if (r.ranks != 0 && r.ranks != m.ranks)
    throw Error(fmt::format("{}: a matrix for {} ranks, but {} ranks run here (--ranks, or the cluster's); give --ranks "
                            "{} or a {} x {} matrix",
                            file, m.ranks, r.ranks, m.ranks, r.ranks, r.ranks));
  r.ranks = m.ranks;
  r.bytes = largest_row_bytes(m.pair_bytes, m.ranks);
  r.pair_bytes = std::move(m.pair_bytes);
}

void add_mesh_options(CLI::App& app, ClusterSource& source, const std::string& shown) {
  const std::string help = "A switchless NVLink mesh's cluster (hgx-a100-4gpu, dgx1-v100, or nodes of one: "
                           "dgx1-v100-16): the ring's channels ride the rings a search over its links finds, " + shown;
  app.add_option("--config", source.config, help);
  app.add_option("--preset", source.preset, help + " (a preset: collsim topo --list)");
}

bool given(const ClusterSource& source) { return !source.config.empty() || !source.preset.empty(); }

void ride_mesh_rings(const ClusterConfig& cluster, std::string_view algorithm, Collective collective, Rank ranks,
                     Rank& ranks_per_node, std::uint32_t& channels, std::vector<std::vector<Rank>>& channel_orders) {
  const std::vector<std::vector<Rank>>& rings = cluster.topology->mesh_rings;
  if (rings.empty())
    throw Error(fmt::format("--config: {}'s ranks do not sit on a switchless NVLink mesh (one node, or whole nodes "
                            "alike), so there are no searched rings to ride; drop --config/--preset (collsim predict "
                            "takes the cluster)",
                            cluster.name));
  if (algorithm != "ring" || collective != Collective::allreduce)
    throw Error(fmt::format("--config: only ring allreduce rides {}'s searched rings, not {} {}; drop --config/--preset",
                            cluster.name, algorithm, to_string(collective)));
  if (ranks != cluster.ranks)
    throw Error(fmt::format("--config: {}'s rings are over its {} ranks: give --ranks {}", cluster.name, cluster.ranks,
                            cluster.ranks));
  if (ranks_per_node == 0) ranks_per_node = cluster.cost.ranks_per_node;
  if (channels == 0) channels = std::uint32_t(rings.size());
  channel_orders.clear();
  for (std::uint32_t c = 0; c < channels; ++c) channel_orders.push_back(rings[c % rings.size()]);
}

}  // namespace collsim::cli
