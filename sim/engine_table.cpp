// sim/engine_table.cpp — the table of engines: each entry adapts its engine to one priced run.
#include "sim/engine_table.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.hpp"
#include "sim/analytic_engine.hpp"
#include "sim/flow_engine.hpp"
#include "sim/simgrid_engine.hpp"
#include "topologies/flat_network.hpp"

namespace collsim {
namespace {

double run_analytic_engine(const Schedule& schedule, const RunCosts& costs, const EngineRun& run, FlowResult&) {
  const AnalyticOptions options{.one_port = run.one_port, .protocol = costs.protocol, .issue_s = costs.issue_s};
  return run_analytic(schedule, *costs.topology, costs.gamma_s_per_byte, options).time_s;
}

double run_flow_engine(const Schedule& schedule, const RunCosts& costs, const EngineRun& run, FlowResult& flow) {
  FlowOptions options = run.flow;
  options.protocol = costs.protocol;
  options.issue_s = costs.issue_s;
  flow = run_flow(schedule, *costs.topology, costs.gamma_s_per_byte, options);
  return flow.time_s;
}

double run_flow_engine_streamed(const TransferStream& stream, const RunCosts& costs, const EngineRun& run,
                                FlowResult& flow) {
  FlowOptions options = run.flow;  // its progress and fallbacks in words, on the stream's line
  options.protocol = costs.protocol;
  options.issue_s = costs.issue_s;
  options.progress = {};
  if (run.stream_progress) {
    options.progress = [&run](std::uint64_t done, std::uint64_t total) {
      run.stream_progress(fmt::format("{:.0f}% of {} transfers", 100.0 * double(done) / double(total), total));
    };
    options.on_fallback = run.stream_progress;
  }
  flow = run_flow(stream, *costs.topology, costs.gamma_s_per_byte, options);
  return flow.time_s;
}

#ifdef COLLSIM_HAVE_SIMGRID
double run_simgrid_engine(const Schedule& schedule, const RunCosts& costs, const EngineRun& run, FlowResult&) {
  const SimgridOptions options{.protocol = costs.protocol, .issue_s = costs.issue_s, .verbose = run.verbose};
  return run_simgrid(schedule, *costs.topology, costs.gamma_s_per_byte, options).time_s;
}
#endif

std::string analytic_model(const EngineRun& run) {
  return run.one_port ? "one-port, contention-free" : "unlimited ports, contention-free";
}
std::string flow_model(const EngineRun&) {
  return "flows share links max-min fairly; no ports, one in-order channel per rank pair";
}
std::string simgrid_model(const EngineRun&) {
  return "SimGrid CM02 shares links max-min fairly; no ports, one in-order channel per rank pair";
}

}  // namespace

const std::vector<EngineEntry>& engine_table() {
  static const std::vector<EngineEntry> table{
      {.kind = EngineKind::analytic,
       .name = "analytic",
       .help = "the contention-free critical path, equal to the closed forms on a flat network",
       .model = analytic_model,
       .run = run_analytic_engine},
      {.kind = EngineKind::flow,
       .name = "flow",
       .help = "links shared max-min fairly by the flows that cross them, on a topology",
       .model = flow_model,
       .contention = true,
       .ratio_label = "flow/an.",
       .flow_details = true,
       .run = run_flow_engine,
       .run_stream = run_flow_engine_streamed},
#ifdef COLLSIM_HAVE_SIMGRID
      {.kind = EngineKind::simgrid,
       .name = "simgrid",
       .help = "the same on SimGrid 3.32's CM02 model, to cross-check flow, with one route per rank pair",
       .model = simgrid_model,
       .contention = true,
       .needs_single_route = true,
       .ratio_label = "sg/an.",
       .run = run_simgrid_engine},
#endif
  };
  (void)simgrid_model;  // named above only where SimGrid is built
  return table;
}

std::vector<std::string> available_engines() {
  std::vector<std::string> names;
  for (const EngineEntry& e : engine_table()) names.emplace_back(e.name);
  return names;
}

const EngineEntry& find_engine(std::string_view name) {
  for (const EngineEntry& e : engine_table())
    if (e.name == name) return e;
  throw Error(fmt::format("engine '{}' is not available in this build (available: {})", name,
                          fmt::join(available_engines(), ", ")));
}

std::string_view to_string(EngineKind kind) {
  switch (kind) {
    case EngineKind::analytic: return "analytic";
    case EngineKind::flow: return "flow";
    case EngineKind::simgrid: return "simgrid";
  }
  return "?";
}

const EngineEntry& find_engine(EngineKind kind) { return find_engine(to_string(kind)); }

void check_engine_fits(const EngineEntry& e, const RunCosts& costs) {
  const Topology& t = *costs.topology;
  if (e.contention)  // a flat network above kMaxFlatGraphRanks is its classes alone (topologies/flat_network.hpp)
    require_graph(t, fmt::format("engine '{}' shares links, and a flat network of {} ranks has none built (above {}): "
                                 "use --engine analytic, or a config with a topology",
                                 e.name, t.ranks(), kMaxFlatGraphRanks));
  if (e.needs_single_route && t.routing != RoutingMode::minimal && t.routing != RoutingMode::shortest_path)
    throw Error(fmt::format("engine '{}' needs one route per rank pair (routing minimal or shortest-path), not {}", e.name,
                            to_string(t.routing)));
}

}  // namespace collsim
