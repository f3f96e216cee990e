// sim/engine_table.cpp — the table of engines.
#include "sim/engine_table.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.hpp"

namespace collsim {
namespace {

// The analytic engine, on the topology's routes when there is one (sim/cost_rule.hpp).
double run_analytic_engine(const PredictionRequest& r, const Schedule& schedule, FlowResult&) {
  if (!r.topology) return run_analytic(schedule, r.cost, r.analytic).time_s;
  return run_analytic(schedule, *r.topology, r.cost.gamma_s_per_byte, r.analytic).time_s;
}

double run_flow_engine(const PredictionRequest& r, const Schedule& schedule, FlowResult& flow) {
  flow = run_flow(schedule, *r.topology, r.cost.gamma_s_per_byte, r.flow);
  return flow.time_s;
}

double run_flow_engine_streamed(const PredictionRequest& r, const TransferStream& stream, FlowResult& flow) {
  FlowOptions options = r.flow;  // its progress and fallbacks in words, on the stream's line
  options.progress = {};
  if (r.on_stream_progress) {
    options.progress = [&r](std::uint64_t done, std::uint64_t total) {
      r.on_stream_progress(fmt::format("{:.0f}% of {} transfers", 100.0 * double(done) / double(total), total));
    };
    options.on_fallback = r.on_stream_progress;
  }
  flow = run_flow(stream, *r.topology, r.cost.gamma_s_per_byte, options);
  return flow.time_s;
}

#ifdef COLLSIM_HAVE_SIMGRID
double run_simgrid_engine(const PredictionRequest& r, const Schedule& schedule, FlowResult&) {
  return run_simgrid(schedule, *r.topology, r.cost.gamma_s_per_byte, r.simgrid).time_s;
}
#endif

std::string analytic_model(const PredictionRequest& r) {
  return r.analytic.one_port ? "one-port, contention-free" : "unlimited ports, contention-free";
}
std::string flow_model(const PredictionRequest&) {
  return "flows share links max-min fairly; no ports, one in-order channel per rank pair";
}
std::string simgrid_model(const PredictionRequest&) {
  return "SimGrid CM02 shares links max-min fairly; no ports, one in-order channel per rank pair";
}

}  // namespace

const std::vector<EngineEntry>& engine_table() {
  static const std::vector<EngineEntry> table{
      {.name = "analytic",
       .help = "the contention-free critical path, equal to the closed forms on a flat network",
       .model = analytic_model,
       .run = run_analytic_engine},
      {.name = "flow",
       .help = "links shared max-min fairly by the flows that cross them, on a topology",
       .model = flow_model,
       .contention = true,
       .ratio_label = "flow/an.",
       .flow_details = true,
       .run = run_flow_engine,
       .run_stream = run_flow_engine_streamed},
#ifdef COLLSIM_HAVE_SIMGRID
      {.name = "simgrid",
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

const EngineEntry& find_engine(std::string_view name) {
  std::vector<std::string_view> names;
  for (const EngineEntry& e : engine_table()) {
    if (e.name == name) return e;
    names.push_back(e.name);
  }
  throw Error(fmt::format("engine '{}' is not available in this build (available: {})", name, fmt::join(names, ", ")));
}

void check_engine_fits(const EngineEntry& e, const PredictionRequest& r) {
  if (e.contention && !r.topology)
    throw Error(fmt::format("engine '{}' needs a cluster with a topology (a flat network has no links to share)", e.name));
  if (e.needs_single_route && r.topology->routing != RoutingMode::minimal && r.topology->routing != RoutingMode::shortest_path)
    throw Error(fmt::format("engine '{}' needs one route per rank pair (routing minimal or shortest-path), not {}", e.name,
                            to_string(r.topology->routing)));
}

}  // namespace collsim
