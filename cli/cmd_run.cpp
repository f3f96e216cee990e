// cli/cmd_run.cpp — `collsim run`: execute schedules for real on a backend, verify
// every result, and print min / median / max time with nccl-tests algbw and busbw. With
// `--schedule FILE` the user's schedule, proved, in place of the built-in algorithms. With
// `--config/--preset` a cluster whose switches reduce: its in-network algorithms run, each
// switch emulated by one more process (a note line says so), and, on a switchless NVLink
// mesh, the ring rides its searched rings.
#include <algorithm>
#include <iostream>
#include <memory>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.hpp"
#include "base/units.hpp"
#include "cli/brought_schedule.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "validate/execution_runs.hpp"

namespace collsim::cli {
namespace {

struct RunOptions {
  std::string backend, algo = "all", bytes = "4K,64K,1M", collective = "allreduce";
  Rank ranks = 0, ranks_per_node = 0;
  std::uint32_t channels = 0;
  std::uint32_t segments = 0, iterations = 10, warmup = 2;
  ClusterSource cluster;  // switches that reduce; a switchless NVLink mesh whose searched rings the ring's channels ride
  LaunchOptions launch;  // --timeout default 60 s
  bool no_reference = false;
  Format format = Format::table;
  BroughtSchedule brought;  // --schedule FILE: the one case, at its own ranks and size
};

// The most switch reducers one case emulated (0: none did).
Rank emulated_switches(const std::vector<Measurement>& ms) {
  Rank most = 0;
  for (const Measurement& m : ms) most = std::max(most, m.emulated_switches);
  return most;
}

// "note: ..." where a case reduced in switches: they ran as processes, and their time is not
// in the table (the ranks' is).
std::string emulation_note(const ExecutionJob& job, const std::vector<Measurement>& ms) {
  std::vector<std::string> names;
  for (const Measurement& m : ms)
    if (m.emulated_switches > 0 && std::find(names.begin(), names.end(), m.algorithm) == names.end())
      names.push_back(m.algorithm);
  if (names.empty()) return "";
  const Rank most = emulated_switches(ms);
  const bool alike = std::all_of(ms.begin(), ms.end(), [&](const Measurement& m) {
    return m.emulated_switches == 0 || m.emulated_switches == most;
  });
  return fmt::format("note: {} reduce{} in switches, each emulated by one more process ({}{} beside the {} ranks); "
                     "times are the ranks' alone, and a host process is not a switch: validate takes none of them\n",
                     fmt::join(names, ", "), names.size() == 1 ? "s" : "", alike ? "" : "up to ", most, job.request.ranks);
}

void print_table(const ExecutionJob& job, const std::vector<Measurement>& ms) {
  fmt::print("collsim run: {} on {} rank{}, backend {}, {} timed iterations after {} warm-up; every result verified\n{}{}\n",
             to_string(job.request.collective), job.request.ranks, job.request.ranks == 1 ? "" : "s", job.backend, job.iterations, job.warmup,
             job.request.channels > 1 ? fmt::format("channels: {} (ring, tree, two-tree, nccl-tree)\n", job.request.channels) : "",
             emulation_note(job, ms));
  // The GPU backends time the host's issue too: its median beside the whole.
  const bool issued = std::ranges::any_of(ms, [](const Measurement& m) { return !m.issue_s.empty(); });
  if (issued)
    fmt::print("host issue: the median time the host took to enqueue one execution, of the median above (the rest is "
               "the GPU's work left after it and the wait for the streams)\n");
  fmt::print("{:>10}  {:<19} {:>10} {:>11} {:>10} {:>11} {:>11}{}\n", "size", "algorithm", "min", "median", "max",
             "algbw GB/s", "busbw GB/s", issued ? fmt::format(" {:>11}", "host issue") : "");
  std::uint64_t previous = ~0ull;
  for (const Measurement& m : ms) {
    if (m.bytes != previous && previous != ~0ull) fmt::print("\n");
    // On one rank no data crosses a link: the copy has an algbw, the bus none.
    fmt::print("{:>10}  {:<19} {:>10} {:>11} {:>10} {:>11.3f} {:>11}{}\n", m.bytes != previous ? format_size(m.bytes) : "",
               m.algorithm, format_seconds(m.min_s()), format_seconds(m.median_s()), format_seconds(m.max_s()),
               m.algbw_GBps(), format_GBps_cell(m.busbw_GBps(), m.ranks > 1),
               issued ? fmt::format(" {:>11}", m.issue_s.empty() ? "-" : format_seconds(m.issue_median_s())) : "");
    previous = m.bytes;
  }
}

void print_csv(const std::vector<Measurement>& ms) {
  // issue_median_s: the host's time to enqueue one execution (GPU backends); empty where not timed.
  fmt::print("collective,algorithm,backend,ranks,bytes,segments,transfers,iterations,min_s,median_s,max_s,algbw_GBps,"
             "busbw_GBps,verified,issue_median_s\n");
  for (const Measurement& m : ms)
    fmt::print("{},{},{},{},{},{},{},{},{:.9g},{:.9g},{:.9g},{:.6g},{:.6g},{},{}\n", to_string(m.collective), m.algorithm,
               m.backend, m.ranks, m.bytes, m.segments, m.transfers, m.times_s.size(), m.min_s(), m.median_s(), m.max_s(),
               m.algbw_GBps(), m.busbw_GBps(), m.verified ? 1 : 0,
               m.issue_s.empty() ? "" : fmt::format("{:.9g}", m.issue_median_s()));
}

// One line on stderr for the case whose median is furthest above its minimum, where that is
// more than kUnsteadySpread: a time that moves that much between iterations measured a busy or
// oversubscribed machine, not the schedule.
constexpr double kUnsteadySpread = 5;
void spread_warning(const std::vector<Measurement>& ms) {
  const Measurement* worst = nullptr;
  for (const Measurement& m : ms)
    if (m.min_s() > 0 && (!worst || m.median_s() / m.min_s() > worst->median_s() / worst->min_s())) worst = &m;
  if (!worst || worst->median_s() < kUnsteadySpread * worst->min_s()) return;
  fmt::print(stderr,
             "collsim run: warning: {} {}: median {} is {:.1f}x the fastest iteration ({}): the machine was busy or "
             "oversubscribed, these times are not steady\n",
             worst->algorithm, format_size(worst->bytes), format_seconds(worst->median_s()),
             worst->median_s() / worst->min_s(), format_seconds(worst->min_s()));
}

// --config/--preset: which of the cluster's switches reduce (its in-network algorithms then
// run, emulated), its GPUs per node where --ranks-per-node is not given, and on a switchless
// NVLink mesh the searched rings the ring rides (then the one algorithm named must be ring).
void use_cluster(const ClusterConfig& cluster, ExecutionRequest& request) {
  const Topology& topology = *cluster.topology;
  request.switches_reduce = {!topology.node_reducers.empty(), topology.fabric_reducer.has_value()};
  if (topology.mesh_rings.empty()) {
    if (request.ranks_per_node == 0) request.ranks_per_node = cluster.cost.ranks_per_node;
    return;
  }
  if (request.algorithms.size() != 1)
    throw Error("--config/--preset: name one algorithm (--algo ring) to ride the mesh's rings");
  ride_mesh_rings(cluster, request.algorithms[0], request.collective, request.ranks, request.ranks_per_node,
                  request.channels, request.channel_orders);
}

void run(const RunOptions& o) {
  ExecutionJob job;
  job.backend = o.backend;
  job.request.collective = parse_collective(o.collective);
  job.request.algorithms = parse_name_list(o.algo, "algorithm");
  job.request.sizes = parse_size_list(o.bytes);
  job.request.ranks = o.ranks;
  job.request.segments = o.segments;
  job.request.ranks_per_node = o.ranks_per_node;
  job.request.channels = o.channels;
  if (given(o.cluster)) use_cluster(load_cluster(o.cluster), job.request);
  job.iterations = o.iterations;
  job.warmup = o.warmup;
  job.reference = !o.no_reference;
  if (o.brought.given()) bring_schedule(job.request, load_brought_schedule(o.brought));
  else if (o.ranks == 0) throw Error("--ranks is required (or --schedule FILE, which has its own)");
  const std::vector<Measurement> ms = execute(job, o.launch);
  // Said of the times, so after a run that gave some (a failed run's one line stays its error).
  // More MPI processes than cores on this one machine (the ranks, and the processes that
  // emulate switches): Open MPI is told to oversubscribe (the launcher), and the processes
  // take turns on the cores, which the times then include.
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const Rank ranks = job.request.ranks, switches = emulated_switches(ms);
  if ((o.backend == "mpi" || o.backend == "mpi+cuda") && o.launch.hostfile.empty() && ranks + switches > cores)
    fmt::print(stderr,
               "collsim run: warning: {} on the {} cores of this machine: ranks take turns on a core, so the times "
               "include waiting for one (give --ranks {} or fewer, or a --hostfile)\n",
               switches > 0 ? fmt::format("{} processes ({} ranks and {} emulated switch{})", ranks + switches, ranks, switches,
                                          switches == 1 ? "" : "es")
                            : fmt::format("{} ranks", ranks),
               cores, cores > switches ? cores - switches : 1);
  spread_warning(ms);
  // The table says it under its title; CSV and JSON keep their columns, so stderr says it.
  if (const std::string note = emulation_note(job, ms); !note.empty() && o.format != Format::table)
    fmt::print(stderr, "collsim run: {}", note);
  switch (o.format) {
    case Format::table: print_table(job, ms); break;
    case Format::csv: print_csv(ms); break;
    case Format::json: {
      nlohmann::json out = nlohmann::json::array();
      for (const Measurement& m : ms) out.push_back(to_json(m));
      std::cout << out.dump(2) << '\n';
      break;
    }
    case Format::nccl_tests: break;  // not one of run's --format words
  }
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto options = std::make_shared<RunOptions>();
  RunOptions& o = *options;
  CLI::App* cmd = app.add_subcommand("run", "Execute schedules for real (MPI ranks, CUDA, NCCL), verify and time them");
  add_backend_option(*cmd, o.backend, false);
  add_algo_option(*cmd, o.algo, "Algorithm names (comma-separated) or 'all'")->capture_default_str();
  add_bytes_option(*cmd, o.bytes, "Sizes per rank, multiples of 4 (float32), e.g. 4K,1M or 4K:16M")->capture_default_str();
  add_ranks_option(*cmd, o.ranks, kMaxExecutedRanks);  // required unless --schedule
  add_collective_option(*cmd, o.collective);
  add_segments_option(*cmd, o.segments);
  add_ranks_per_node_option(*cmd, o.ranks_per_node, kMaxExecutedRanks);
  add_channels_option(*cmd, o.channels, "1");
  const std::string cluster_help =
      "A cluster whose switches may reduce: where its NVSwitches (NVLink SHARP) or fabric (InfiniBand SHARP) reduce, "
      "nvls, nvls-tree and collnet run (and 'all' lists them), each switch emulated by one more process whose time is "
      "not counted; its GPUs per node are --ranks-per-node unless given. On a switchless NVLink mesh (hgx-a100-4gpu, "
      "dgx1-v100) the ring's channels ride the rings a search over its links finds";
  cmd->add_option("--config", o.cluster.config, cluster_help);
  cmd->add_option("--preset", o.cluster.preset, cluster_help + " (a preset: collsim topo --list)");
  cmd->add_option("--iters", o.iterations, "Timed iterations")->capture_default_str()->check(whole_number(1, 100000));
  cmd->add_option("--warmup", o.warmup, "Warm-up iterations (verified, not timed)")
      ->capture_default_str()
      ->check(whole_number(0, 100000));
  add_launch_options(*cmd, o.launch);
  cmd->add_flag("--no-reference", o.no_reference, "Do not time the library's own collective (MPI_Allreduce, ncclAllReduce)");
  add_format_option(*cmd, o.format);
  add_brought_schedule_options(*cmd, o.brought, "execute instead of --algo, at its own collective, ranks and size",
                               {"--algo", "--collective", "--segments", "--ranks-per-node", "--channels"});
  cmd->callback([options] { run(*options); });
}

}  // namespace collsim::cli
