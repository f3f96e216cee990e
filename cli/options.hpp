// cli/options.hpp — the options the subcommands share, each declared once here with one
// name, one meaning and one check. A subcommand file declares only the options that are its
// own. Every check answers in collsim's words ("--ranks: expected a whole number in
// 1..16777216, got 'four'"), never in the parser's.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "collectives/algorithm.hpp"
#include "collectives/cost_model.hpp"
#include "topologies/cluster_config.hpp"

namespace collsim::cli {

enum class Format { table, csv, json, nccl_tests };

// --format table|json, and csv where the command prints rows; nccl-tests where it prints
// collective times per size (predict: the nccl-tests column layout).
void add_format_option(CLI::App& app, Format& format, bool with_csv = true, bool with_nccl_tests = false);

// -p,--ranks P: the number of ranks, min..max. The list form (validate) takes "2,4".
CLI::Option* add_ranks_option(CLI::App& app, Rank& ranks, Rank max, const std::string& help = "Number of ranks P",
                              Rank min = 1);
CLI::Option* add_ranks_option(CLI::App& app, std::vector<Rank>& ranks, Rank max, const std::string& help);

// -b,--bytes SIZES: bytes per rank, "4096", "64K", a list "1K,64M" or a range "1K:1G"
// (K/M/G = 2^10/2^20/2^30). Parsed later with parse_size_list / one_size.
CLI::Option* add_bytes_option(CLI::App& app, std::string& bytes, const std::string& help);
// --matrix FILE (alltoall_matrix.hpp), and what it sets in a request: the ranks (checked against
// --ranks where given), the bytes per pair and the data bytes (the largest row). Throws Error
// for another collective than alltoall, a bad file or a matrix of other ranks.
CLI::Option* add_matrix_option(CLI::App& app, std::string& file);
void with_matrix(ScheduleRequest& r, const std::string& file);

// -a,--algo NAMES: algorithm names, comma-separated, or a word from `words` ("all", "auto").
CLI::Option* add_algo_option(CLI::App& app, std::string& algo, const std::string& help);

// -c,--collective NAME (default allreduce).
CLI::Option* add_collective_option(CLI::App& app, std::string& collective);

// -k,--segments and -g,--ranks-per-node, the two schedule parameters.
CLI::Option* add_segments_option(CLI::App& app, std::uint32_t& segments);
CLI::Option* add_ranks_per_node_option(CLI::App& app, Rank& ranks_per_node, Rank max);
// --channels C: NCCL-style channels of ring, tree, two-tree and nccl-tree allreduce. `default_help` says
// what 0 (not given) means for the command.
CLI::Option* add_channels_option(CLI::App& app, std::uint32_t& channels, const std::string& default_help);

// --config FILE / --preset NAME: where a cluster comes from.
struct ClusterSource {
  std::string config, preset;
};
void add_cluster_options(CLI::App& app, ClusterSource& source, const std::string& config_help);
// The cluster the source names (one of the two; throws Error when both are given).
ClusterConfig load_cluster(const ClusterSource& source);

// Checks for numbers given on the command line: finite, in range, no sign on counts.
CLI::Validator positive_number();      // > 0 and finite
CLI::Validator non_negative_number();  // >= 0 and finite
CLI::Validator whole_number(std::uint64_t min, std::uint64_t max);
CLI::Validator physical(const PhysicalRange& range);  // a link number in its physical range
CLI::Validator one_of(std::vector<std::string> words);

// A word of a closed set, turned into its value of T where it is parsed (the command line's
// edge): `choices` pairs each word with its value, in the order --help lists them; the
// default shown is the word of `target`'s value on entry. A word outside the set is refused
// by one_of's check, in collsim's words.
template <class T>
CLI::Option* add_choice_option(CLI::App& app, const std::string& name, T& target,
                               const std::vector<std::pair<std::string, std::type_identity_t<T>>>& choices,
                               const std::string& help) {
  std::vector<std::string> words;
  std::string default_word;
  for (const auto& [word, value] : choices) {
    words.push_back(word);
    if (value == target && default_word.empty()) default_word = word;
  }
  return app
      .add_option_function<std::string>(
          name,
          [&target, choices](const std::string& word) {
            for (const auto& [w, value] : choices)
              if (w == word) target = value;
          },
          help)
      ->check(one_of(words))
      ->default_str(default_word);
}

// The size given to a command that takes one (explain, schedule, check).
std::uint64_t one_size(const std::string& option, const std::string& text);

// The options that describe one schedule: ALGO --ranks --collective --bytes (or --matrix)
// --segments --ranks-per-node --root (explain, schedule, check).
struct ScheduleOptions {
  std::string algorithm;
  std::string collective = "allreduce";
  Rank ranks = 0;
  std::string bytes;
  std::uint32_t segments = 0;
  Rank ranks_per_node = 0;
  std::uint32_t channels = 0;
  Rank root = 0;
  std::string matrix;  // --matrix FILE: alltoall's bytes per pair (all-to-all-v), in place of --bytes
  bool bytes_required = false;  // --bytes or --matrix must be given

  ScheduleRequest request(std::uint64_t default_bytes) const;
};
// `required`: whether ALGO and --ranks must be given (check takes --file instead);
// `bytes_required`: whether --bytes (or --matrix) must be.
void add_schedule_options(CLI::App& app, ScheduleOptions& options, bool bytes_required, bool required = true);

// --config FILE / --preset NAME beside a ring (explain, schedule, run; options only, no FILE
// argument: `shown` ends their help) and given(): on a switchless NVLink mesh the ring's
// channels ride the rings a search over its links found (Topology::mesh_rings), as predict runs
// them: channel c over ring c (cycling), as many channels as rings unless `channels` is given.
// Sets `ranks_per_node` from the cluster where 0. Throws Error where `ranks` is not the
// cluster's, `algorithm` is not ring allreduce, or the cluster has no mesh rings.
void add_mesh_options(CLI::App& app, ClusterSource& source, const std::string& shown);
bool given(const ClusterSource& source);
void ride_mesh_rings(const ClusterConfig& cluster, std::string_view algorithm, Collective collective, Rank ranks,
                     Rank& ranks_per_node, std::uint32_t& channels, std::vector<std::vector<Rank>>& channel_orders);

}  // namespace collsim::cli
