// cli/cmd_explain.cpp — `collsim explain ALGO --ranks P`: every rank's chunks after
// every step, in the seeds' notation (seed 002), plus the trees of tree and two-tree (and
// chain's chain); `--svg FILE` also draws the schedule (collectives/draw_svg.hpp); with
// `--preset`/`--config` of a switchless NVLink mesh, the ring's channels on its searched rings
// and the links each crosses. With `--schedule FILE` the user's schedule, proved, in place of
// a built-in's.
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
#include "sim/flow_engine.hpp"

namespace collsim::cli {
namespace {

struct ExplainOptions {
  ScheduleOptions schedule;
  ClusterSource cluster;  // a switchless NVLink mesh whose searched rings the ring's channels ride
  Format format = Format::table;
  std::string svg;  // also draw the schedule into this file
  BroughtSchedule brought;  // --schedule FILE instead of ALGO --ranks P
};

// Enough bytes that every chunk of the algorithm is at least one byte.
std::uint64_t teaching_bytes(const ScheduleRequest& r) {
  return std::uint64_t(r.ranks) * std::max<std::uint32_t>(r.segments, 1) * std::max<std::uint32_t>(r.channels, 1) * 2;
}

// The request explain draws: the options', and with --config/--preset the ring's channels on
// the cluster's searched mesh rings (ride_mesh_rings).
ScheduleRequest explained_request(const ExplainOptions& o, const ClusterConfig* cluster) {
  ScheduleRequest r = o.schedule.request(0);
  if (cluster)
    ride_mesh_rings(*cluster, o.schedule.algorithm, r.collective, r.ranks, r.ranks_per_node, r.channels,
                    r.channel_orders);
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

void print_text(const Schedule& s, const Explanation& x, const Topology* topology) {
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
    fmt::print("state after step {}\n", step.step);
    print_state(info, step.state);
  }
}

void print_json(const Schedule& s, const Explanation& x) { std::cout << explanation_json(s, x).dump(2) << '\n'; }

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
  add_mesh_options(*cmd, options->cluster, "each shown with the links it crosses");
  cmd->callback([options] {
    std::optional<ClusterConfig> cluster;
    if (given(options->cluster)) cluster = load_cluster(options->cluster);
    const Topology* topology = cluster ? cluster->topology.get() : nullptr;
    const Schedule s = explained_schedule(*options, cluster ? &*cluster : nullptr);
    if (!options->svg.empty()) write_svg(s, options->svg);
    Explanation x;
    try {
      x = explain_schedule(s);
    } catch (const Error& e) {  // the drawing goes further than the text (64 ranks against 32)
      if (options->svg.empty()) throw;
      std::cerr << fmt::format("collsim explain: drew {}; no text explanation: {}\n", options->svg, e.what());
      return;
    }
    if (options->format == Format::json) print_json(s, x);
    else print_text(s, x, topology);
  });
}

}  // namespace collsim::cli
