// cli/cmd_explain.cpp — `collsim explain ALGO --ranks P`: every rank's chunks after
// every step, in the seeds' notation (seed 002), plus the trees of tree and two-tree (and
// chain's chain); `--svg FILE` also draws the schedule (collectives/draw_svg.hpp); with
// `--preset`/`--config` of a switchless NVLink mesh, the ring's channels on its searched rings
// and the links each crosses; on any other cluster whose config names a runtime (or a calibrated
// host that issues the transfers, host_issue:), where the time goes: the runtime's fixed part (or
// the host's issue and synchronization), then each step's sync and drain (sim/step_costs.hpp), as
// `predict --engine analytic --protocol simple` prices the same run. With `--schedule FILE` the
// user's schedule, proved, in place of a built-in's.
#include <cmath>
#include <iostream>
#include <memory>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/error.hpp"
#include "base/file_io.hpp"
#include "base/units.hpp"
#include "cli/brought_schedule.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "collectives/algorithms/channels.hpp"
#include "collectives/draw_svg.hpp"
#include "collectives/explain_json.hpp"
#include "sim/engine_table.hpp"
#include "sim/flow_engine.hpp"
#include "sim/prediction.hpp"
#include "sim/step_costs.hpp"

namespace collsim::cli {
namespace {

struct ExplainOptions {
  ScheduleOptions schedule;
  // A switchless NVLink mesh whose searched rings the ring's channels ride, or a cluster whose
  // runtime prices each step
  ClusterSource cluster;
  Format format = Format::table;
  std::string svg;  // also draw the schedule into this file
  BroughtSchedule brought;  // --schedule FILE instead of ALGO --ranks P
};

// Enough bytes that every chunk of the algorithm is at least one byte.
std::uint64_t teaching_bytes(const ScheduleRequest& r) {
  return std::uint64_t(r.ranks) * std::max<std::uint32_t>(r.segments, 1) * std::max<std::uint32_t>(r.channels, 1) * 2;
}

// Whether explain rides `cluster`'s searched mesh rings (else it prices the run on it).
bool rides_mesh(const ClusterConfig& cluster) { return !cluster.topology->mesh_rings.empty(); }

// The request explain draws: the options', and with --config/--preset the ring's channels on
// the cluster's searched mesh rings (ride_mesh_rings), or elsewhere the cluster's node size,
// as predict takes it.
ScheduleRequest explained_request(const ExplainOptions& o, const ClusterConfig* cluster) {
  ScheduleRequest r = o.schedule.request(0);
  if (cluster && rides_mesh(*cluster))
    ride_mesh_rings(*cluster, o.schedule.algorithm, r.collective, r.ranks, r.ranks_per_node, r.channels,
                    r.channel_orders);
  else if (cluster && r.ranks_per_node == 0)
    r.ranks_per_node = cluster->cost.ranks_per_node;
  else if (cluster && r.ranks_per_node != cluster->cost.ranks_per_node)
    throw Error(fmt::format("--ranks-per-node {}: {} has {} ranks per node; drop --ranks-per-node", r.ranks_per_node,
                            cluster->name, cluster->cost.ranks_per_node));
  if (o.schedule.bytes.empty() && o.schedule.matrix.empty()) r.bytes = teaching_bytes(r);  // a matrix sets its own
  return r;
}

// The built-in algorithm's schedule at teaching size (on a mesh's rings where `cluster` has
// them), or the brought one as it is.
Schedule explained_schedule(const ExplainOptions& o, const ClusterConfig* cluster) {
  if (o.brought.given()) return *load_brought_schedule(o.brought);
  if (o.schedule.algorithm.empty()) throw Error("algorithm is required: explain ALGO --ranks P, or explain --schedule FILE");
  if (o.schedule.ranks == 0) throw Error("--ranks is required with an algorithm (or give --schedule FILE alone)");
  return generate_schedule(o.schedule.algorithm, explained_request(o, cluster));
}

// A run priced as predict prices it on a cluster whose config names a runtime: the cluster's
// request with its ranks, the analytic engine and Simple (predict's default protocol); the
// runtime's fixed part, each step's slowest message alone, and the analytic engine's time.
struct PricedRun {
  RunCosts costs;
  std::vector<StepCost> steps;  // by step number
  double steps_s = 0;           // their sum
  double schedule_s = 0;        // the analytic engine's time of the schedule, without the fixed part
  std::string predict_command;  // the predict command that prices the same run
  std::string predict_default;  // where predict's own default segments or channels differ: which
  bool library = true;          // a collective library's runtime prices it (else only a calibrated host's issue)
  std::size_t transfers = 0;    // the schedule's, each issued by the host where one issues them
  double host_sync_s = 0;       // the host's synchronization, part of costs.fixed_s

  double total_s() const { return costs.fixed_s + schedule_s; }
  // Whether the steps follow one another, each waiting for the one before, so that they add up
  // to the engine's time (to rounding).
  bool steps_add_up() const { return std::abs(costs.fixed_s + steps_s - total_s()) <= 1e-9 * total_s(); }
};

std::string cluster_option(const ClusterSource& source) {
  return source.preset.empty() ? "--config " + source.config : "--preset " + source.preset;
}

// The predict command line of the same run.
std::string predict_command(const ExplainOptions& o, const ScheduleInfo& info) {
  if (o.brought.given()) return "collsim predict " + cluster_option(o.cluster) + " --schedule FILE --engine analytic --protocol simple";
  return fmt::format("collsim predict {} --ranks {} --algo {}{} {} --engine analytic --protocol simple --segments {} "
                     "--channels {}",
                     cluster_option(o.cluster), info.ranks, info.algorithm,
                     info.collective == Collective::allreduce ? "" : " --collective " + std::string(to_string(info.collective)),
                     o.schedule.matrix.empty() ? fmt::format("--bytes {}", info.bytes) : "--matrix " + o.schedule.matrix,
                     info.segments, info.channels);
}

// Where predict's own defaults for this run differ from explain's (its channels per NIC, an
// NVLS pipeline's segments): " (predict's default here runs 8 channels)"; else "".
std::string predict_default(const PredictionRequest& r, const ScheduleInfo& info, const RunCosts& costs) {
  const AlgorithmEntry& algorithm = find_algorithm(info.algorithm);
  ScheduleRequest by_default;
  by_default.collective = info.collective;
  by_default.ranks = info.ranks;
  by_default.bytes = info.bytes;
  by_default.channels = std::max<std::uint32_t>(channels_for(r, info.algorithm), 1);
  by_default.segments = costs.protocol.pipeline.segments;
  const std::uint32_t segments = segments_for(algorithm, by_default);
  std::string differs;
  if (segments != info.segments) differs += fmt::format("{} segments", segments);
  if (by_default.channels != info.channels)
    differs += fmt::format("{}{} channels", differs.empty() ? "" : ", ", by_default.channels);
  return differs.empty() ? "" : fmt::format(" (predict's default here runs {})", differs);
}

PricedRun price_run(const ExplainOptions& o, const ClusterConfig& cluster, const Schedule& s) {
  PredictionRequest r = cluster_request(cluster);
  r.collective = s.info().collective;
  r.algorithms = {s.info().algorithm};
  PricedRun p;
  p.costs = run_costs(r, s.info().algorithm, simple_protocol(), s.info().bytes);
  p.library = cluster.runtime != CollectiveRuntime::none;
  p.transfers = s.size();
  p.host_sync_s = cluster.host_issue.sync_of(s.info().ranks);
  p.steps = step_costs(s, p.costs);
  for (const StepCost& step : p.steps) p.steps_s += step.time_s();
  FlowResult unused;
  p.schedule_s = find_engine(EngineKind::analytic).run(s, p.costs, EngineRun{}, unused);
  p.predict_command = predict_command(o, s.info());
  if (!o.brought.given()) p.predict_default = predict_default(r, s.info(), p.costs);
  return p;
}

std::string_view transport_name(Transport t) {
  switch (t) {
    case Transport::nvlink: return "NVLink";
    case Transport::pci: return "PCIe";
    case Transport::net: return "network";
    case Transport::unknown: break;
  }
  return "no transport";
}

// Before the steps: the runtime's fixed part as its own segments (or the host's synchronization
// where a calibrated host issues the transfers and no library runs), and which run it is.
void print_runtime_preface(const ScheduleInfo& info, const PricedRun& p) {
  const RuntimePipeline& pipeline = p.costs.protocol.pipeline;
  if (!p.library) {
    fmt::print("host issue (a calibrated host: host_issue): one thread issues the {} transfers in list order, {} each, "
               "none starting before its issue; its synchronization of the {} ranks' streams returns {} after the "
               "GPU's last work (fixed)",
               p.transfers, format_seconds(p.costs.issue_s), info.ranks, format_seconds(p.costs.fixed_s));
  } else if (info.ranks == 1 && p.costs.fixed_s > 0) {  // no algorithm: NCCL's one-rank copy (nccl_one_rank_s)
    fmt::print("runtime (NCCL 2.30, one rank): no algorithm runs; out of place NCCL copies the buffer on the GPU, "
               "one launch call {} + the copy {} = {} once (in place: nothing)",
               format_seconds(kHostKernelLaunchCall_s), format_seconds(p.costs.fixed_s - kHostKernelLaunchCall_s),
               format_seconds(p.costs.fixed_s));
  } else {
    fmt::print("runtime (NCCL 2.30, {}, {} protocol): launch + base latency {} once", info.algorithm,
               p.costs.protocol.name, format_seconds(p.costs.fixed_s - pipeline.extra_sync_s - p.host_sync_s));
    if (pipeline.extra_sync_s > 0)
      fmt::print("; pipeline flag waits {} ({} waits beyond one per step)", format_seconds(pipeline.extra_sync_s),
                 pipeline.extra_waits());
  }
  fmt::print("\ncosts: each step's slowest message alone, contention-free, in the run of `{}`{}\n\n",
             p.predict_command, p.predict_default);
}

// A step's cost: "sync 3.4 us (step latency, NVLink) + 8192 bytes at 41.2 GB/s (199 ns) + reduce 7.3 ns = 3.61 us".
void print_step_cost(const StepCost& c, const StepLatency& latency) {
  std::string parts;
  auto add = [&](const std::string& part) { parts += (parts.empty() ? "" : " + ") + part; };
  if (c.rate_Bps > 0) {
    if (latency.active && c.transport != Transport::unknown && c.sync_s == 0) {
      add(fmt::format("no sync over {} (the fixed part holds the algorithm's latency)", transport_name(c.transport)));
    } else if (latency.active && c.transport != Transport::unknown) {
      add(fmt::format("sync {} (step latency, {})", format_seconds(c.sync_s), transport_name(c.transport)));
      if (c.startup_s - c.sync_s > 1e-12 * c.startup_s)
        add(fmt::format("hop latencies {}", format_seconds(c.startup_s - c.sync_s)));
    } else {
      add(fmt::format("start-up {}", format_seconds(c.startup_s)));
    }
    add(fmt::format("{} bytes at {} ({})", c.bytes, format_rate(c.rate_Bps), format_seconds(c.drain_s)));
  }
  if (c.reduce_s > 0) add(fmt::format("reduce {}", format_seconds(c.reduce_s)));
  if (c.issue_wait_s > 0)
    parts = fmt::format("wait for the host's issue {}{}", format_seconds(c.issue_wait_s), parts.empty() ? "" : " + " + parts);
  std::string others;  // the transports the step's other messages cross
  for (Transport t : {Transport::nvlink, Transport::pci, Transport::net})
    if (t != c.transport && (c.transports & (1u << unsigned(t))))
      others += fmt::format("{}{}", others.empty() ? "" : ", ", transport_name(t));
  fmt::print("  cost: {} = {}{}\n", parts.empty() ? "nothing" : parts, format_seconds(c.time_s()),
             others.empty() ? "" : fmt::format(" (its slowest message; others cross {})", others));
}

void print_total(const PricedRun& p) {
  if (p.steps_add_up())
    fmt::print("\ntotal (contention-free): {} = fixed {} + sum of steps {}\n", format_seconds(p.total_s()),
               format_seconds(p.costs.fixed_s), format_seconds(p.steps_s));
  else
    fmt::print("\ntotal (contention-free): {} = fixed {} + the schedule {}, not fixed + sum of steps ({}): "
               "steps overlap, or a rank's messages of one step queue at its port\n",
               format_seconds(p.total_s()), format_seconds(p.costs.fixed_s), format_seconds(p.schedule_s),
               format_seconds(p.costs.fixed_s + p.steps_s));
}

// --format json: the same, in seconds, beside the explanation.
nlohmann::json priced_json(const ScheduleInfo& info, const PricedRun& p) {
  nlohmann::json steps = nlohmann::json::array();
  for (std::size_t k = 0; k < p.steps.size(); ++k) {
    const StepCost& c = p.steps[k];
    if (c.slowest == kNoTransfer) continue;
    steps.push_back({{"step", k}, {"transfer", c.slowest}, {"bytes", c.bytes}, {"transport", to_string(c.transport)},
                     {"sync_s", c.sync_s}, {"startup_s", c.startup_s}, {"drain_s", c.drain_s}, {"reduce_s", c.reduce_s},
                     {"issue_wait_s", c.issue_wait_s}, {"time_s", c.time_s()}});
  }
  const RuntimePipeline& pipeline = p.costs.protocol.pipeline;
  return {{"protocol", p.costs.protocol.name}, {"segments", info.segments}, {"channels", info.channels},
          {"fixed_s", p.costs.fixed_s}, {"issue_per_transfer_s", p.costs.issue_s},
          {"flag_waits_s", pipeline.extra_sync_s}, {"flag_waits", pipeline.extra_waits()}, {"steps", steps},
          {"sum_of_steps_s", p.steps_s}, {"total_s", p.total_s()}, {"steps_add_up", p.steps_add_up()}};
}

std::string join(const std::vector<Rank>& v) {
  std::string s;
  for (Rank r : v) s += (s.empty() ? "" : " ") + std::to_string(r);
  return s.empty() ? "none" : s;
}

void print_state(const ScheduleInfo& info, const std::vector<std::vector<std::string>>& state) {
  std::size_t width = 2;
  for (const auto& row : state)
    for (const auto& cell : row) width = std::max(width, cell.size());
  // "switch 0" and "SHARP switch" are wider than "gpu 0"
  const std::size_t label = info.reducers > 0 ? (info.is_fabric_reducer(info.fabric_reducer()) ? 13 : 10) : 7;
  for (std::size_t r = 0; r < state.size(); ++r) {
    fmt::print("  {:<{}}", endpoint_name(info, Rank(r)), label);
    std::string row;
    for (const auto& cell : state[r]) row += fmt::format(" {:<{}}", cell, width);
    while (!row.empty() && row.back() == ' ') row.pop_back();
    fmt::print("{}\n", row);
  }
}

// What rank r does in a step, in list order (the order it issues its operations).
std::string rank_activity(const Schedule& s, const Explanation& x, const ExplainedStep& step, Rank r) {
  std::string line;
  auto add = [&](const std::string& part) { line += (line.empty() ? "" : ", ") + part; };
  for (TransferId id : step.transfers) {
    const Transfer t = s.transfer(id);
    if (t.is_local() && t.dst == r)
      add(fmt::format("{} {} into {}", t.op == Op::reduce ? "reduces" : "copies", describe_chunk(s, x, t.src_chunk),
                      describe_chunk(s, x, t.dst_chunk)));
    else if (!t.is_local() && t.src == r)
      add(fmt::format("sends {} to {}", describe_chunk(s, x, t.src_chunk), endpoint_name(s.info(), t.dst)));
    else if (!t.is_local() && t.dst == r)
      add(fmt::format("receives {} from {}{}", describe_chunk(s, x, t.dst_chunk), endpoint_name(s.info(), t.src),
                      t.op == Op::reduce ? " and reduces it" : ""));
  }
  return line;
}

void print_trees(const Schedule& s) {
  const std::vector<algorithms::BinaryTree> trees = teaching_trees(s);
  for (std::size_t i = 0; i < trees.size(); ++i) {
    const std::string name = teaching_tree_name(trees[i], i, trees.size());
    fmt::print("{} (root {}, height {}):\n{}", name, trees[i].root, trees[i].height(), trees[i].draw());
    fmt::print("interior in {}: {}\n\n", name, join(interior_ranks(trees[i])));
  }
  if (trees.size() == 2) {
    std::vector<Rank> both;
    for (Rank r = 0; r < trees[0].size(); ++r)
      if (trees[0].interior(r) && trees[1].interior(r)) both.push_back(r);
    fmt::print("interior in both trees: {}{}\n\n", join(both),
               both.empty() ? " (every rank is a leaf in at least one tree)" : "");
  }
}

// Where a ring channel crosses from node to node: it leaves each node from the last GPU of its
// order there and enters the next at the first. On a rail-optimized cluster with PXN
// (docs/algorithms.md, Channels) the last hands its data over NVLink to the GPU of the
// first's index, whose NIC sends it: the channel stays on that rail.
std::string ring_crossing(const ScheduleInfo& info, const std::vector<Rank>& order) {
  const Rank g = info.ranks_per_node;
  if (info.algorithm != "ring" || g < 2 || info.ranks <= g) return "";
  return fmt::format("; leaves each node from its GPU {}, enters the next at GPU {} (with PXN: GPU {} hands over "
                     "NVLink to GPU {}, rail {} throughout)",
                     order[g - 1] % g, order[0] % g, order[g - 1] % g, order[0] % g, order[0] % g);
}

// On a mesh, the links a ring channel crosses, hop by hop: "; over gpu0->gpu1 (nvlink3 x4), ...".
std::string ring_links(const ScheduleInfo& info, const std::vector<Rank>& order, const Topology* topology) {
  if (!topology || info.channel_orders.empty()) return "";
  std::string out;
  std::vector<LinkId> route;
  for (std::size_t i = 0; i < order.size(); ++i) {
    route.clear();
    topology->route(order[i], order[(i + 1) % order.size()], 0, route);
    for (LinkId l : route) {
      const Link& link = topology->network.link(l);
      const LinkClass& k = topology->network.link_class(link.link_class);
      out += fmt::format("{}{} ({} x{:g})", out.empty() ? "; over " : ", ", link_name(topology->network, l), k.name,
                         link.bandwidth_Bps / k.bandwidth_Bps);
    }
  }
  return out;
}

// Channels: which part of the buffer each runs on, and its rank order.
void print_channels(const Schedule& s, const Explanation& x, const Topology* topology) {
  if (x.channel_orders.empty()) return;
  const ScheduleInfo& info = s.info();
  const std::string orders = info.channel_orders.empty()
                                 ? "every node's ranks rotated, so each channel crosses nodes through another GPU/NIC"
                                 : "rings a search over the NVLink mesh found, one unit of every link they cross, so "
                                   "that together they cross every link";
  fmt::print("{} channels: the buffer is cut into {} parts, each run by its own {} instance over the ranks in the "
             "channel's order ({}){}:\n",
             x.channel_orders.size(), x.channel_orders.size(), info.algorithm, orders,
             teaching_trees(s).empty() ? "" : "; the trees below number positions in that order");
  for (std::size_t c = 0; c < x.channel_orders.size(); ++c) {
    const ByteRange part = algorithms::channel_data(info.bytes, std::uint32_t(x.channel_orders.size()), std::uint32_t(c));
    fmt::print("  channel {}: bytes {}..{}, ranks {}{}{}\n", c, part.offset, part.end(), join(x.channel_orders[c]),
               ring_crossing(info, x.channel_orders[c]), ring_links(info, x.channel_orders[c], topology));
  }
  fmt::print("\n");
}

void print_text(const Schedule& s, const Explanation& x, const Topology* topology, const PricedRun* priced) {
  const ScheduleInfo& info = s.info();
  fmt::print("{} {} on {} ranks, {} bytes: the buffer is cut into {} chunks {}..{}; a0 is rank 0's chunk a,\n"
             "a reduction appends what it adds (a1a0 = a1 + a0), '-' is a chunk that holds nothing yet.\n\n",
             info.algorithm, to_string(info.collective), info.ranks, info.bytes, x.element_names.size(),
             x.element_names.empty() ? "" : x.element_names.front(), x.element_names.empty() ? "" : x.element_names.back());
  if (x.slices > 1)
    fmt::print("Pipelined: each ring step sends its chunk as {0} slices, one per step below; a slice goes on to\n"
               "the next rank as soon as it has arrived and been reduced, so slice k+1 travels while slice k is\n"
               "reduced. The {0} slices of a ring chunk are {0} letters in a row.\n\n",
               x.slices);
  if (priced) print_runtime_preface(info, *priced);
  print_channels(s, x, topology);
  print_trees(s);
  fmt::print("initial state\n");
  print_state(info, x.initial);
  for (const ExplainedStep& step : x.steps) {
    const std::string label = step.phase + (step.phase.empty() || step.slice.empty() ? "" : "; ") + step.slice;
    fmt::print("\nstep {}{}\n", step.step, label.empty() ? "" : " (" + label + ")");
    for (Rank r = 0; r < info.endpoints(); ++r)
      if (std::string line = rank_activity(s, x, step, r); !line.empty())
        fmt::print("  {} {}\n", endpoint_name(info, r), line);
    if (priced && step.step < priced->steps.size()) print_step_cost(priced->steps[step.step], priced->costs.protocol.step);
    fmt::print("state after step {}\n", step.step);
    print_state(info, step.state);
  }
  if (priced) print_total(*priced);
}

void print_json(const Schedule& s, const Explanation& x, const PricedRun* priced) {
  nlohmann::json j = explanation_json(s, x);
  if (priced) j["costs"] = priced_json(s.info(), *priced);
  std::cout << j.dump(2) << '\n';
}

// --config/--preset: a mesh's rings, or a cluster's runtime costs.
void add_cluster_options(CLI::App& app, ClusterSource& source) {
  const std::string help =
      "A cluster: on a switchless NVLink mesh (hgx-a100-4gpu, dgx1-v100, or nodes of one: dgx1-v100-16) the ring's "
      "channels ride the rings a search over its links finds, each shown with the links it crosses; on any other "
      "cluster whose config names a runtime (runtime: nccl, every GPU preset) where the time goes: the runtime's fixed "
      "part (launch and base latency, pipeline flag waits), then each step's sync and bytes, as predict --engine "
      "analytic --protocol simple prices the same run, and their total; on a calibrated GPU's (host_issue:) the host's "
      "issue per transfer and each step's wait for it";
  app.add_option("--config", source.config, help);
  app.add_option("--preset", source.preset, help + " (a preset: collsim topo --list)");
}

// --svg FILE: the time-space diagram (and trees) of collectives/draw_svg.hpp.
void write_svg(const Schedule& s, const std::string& path) { write_text_file(path, schedule_svg(s), "SVG"); }

}  // namespace

void add_explain_command(CLI::App& app) {
  auto options = std::make_shared<ExplainOptions>();
  CLI::App* cmd = app.add_subcommand("explain", "Show every rank's chunks after each step (seeds' notation)");
  add_schedule_options(*cmd, options->schedule, false, false);  // ALGO --ranks P unless --schedule
  add_format_option(*cmd, options->format, false);
  cmd->add_option("--svg", options->svg, "Also draw the schedule (ranks x steps, and the trees of tree/two-tree) as SVG");
  add_brought_schedule_options(*cmd, options->brought, "explain instead of ALGO, at its own ranks and size",
                               {"algorithm", "--ranks", "--collective", "--segments", "--ranks-per-node", "--channels",
                                "--root"});
  add_cluster_options(*cmd, options->cluster);
  cmd->callback([options] {
    std::optional<ClusterConfig> cluster;
    if (given(options->cluster)) cluster = load_cluster(options->cluster);
    const bool priced = cluster && !rides_mesh(*cluster);
    if (priced && cluster->runtime == CollectiveRuntime::none && !cluster->host_issue.any())
      throw Error(fmt::format("{}: {} names no runtime, no host that issues its transfers, and its ranks sit on no "
                              "switchless NVLink mesh with rings to ride; explain shows runtime costs only where the "
                              "cluster names one (runtime: nccl) or a calibration measured its host (host_issue:): drop "
                              "--config/--preset",
                              cluster_option(options->cluster), cluster->name));
    const Topology* topology = cluster && !priced ? cluster->topology.get() : nullptr;
    const Schedule s = explained_schedule(*options, cluster ? &*cluster : nullptr);
    std::optional<PricedRun> run;
    if (priced) {
      cluster->place(s.info().ranks);
      run = price_run(*options, *cluster, s);
    }
    if (!options->svg.empty()) write_svg(s, options->svg);
    Explanation x;
    try {
      x = explain_schedule(s);
    } catch (const Error& e) {  // the drawing goes further than the text (64 ranks against 32)
      if (options->svg.empty()) throw;
      std::cerr << fmt::format("collsim explain: drew {}; no text explanation: {}\n", options->svg, e.what());
      return;
    }
    const PricedRun* costs = run ? &*run : nullptr;
    if (options->format == Format::json) print_json(s, x, costs);
    else print_text(s, x, topology, costs);
  });
}

}  // namespace collsim::cli
