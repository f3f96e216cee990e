// sim/engine_table.hpp — the engines `predict --engine` may name, one table entry each: its
// kind and name, the model it applies in words, what it needs of the cluster, and how it costs
// one schedule of one priced run (sim/run_costs.hpp). Only the engines this build has are
// listed (simgrid needs SimGrid). Adding an engine: its own files, a kind, and one entry in
// engine_table.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/schedule.hpp"
#include "collectives/transfer_stream.hpp"
#include "sim/flow_result.hpp"
#include "sim/run_costs.hpp"

namespace collsim {

enum class EngineKind : std::uint8_t { analytic, flow, simgrid };

struct EngineEntry {
  EngineKind kind = EngineKind::analytic;
  std::string_view name;
  std::string_view help;
  // The model in words, for the header of a prediction ("flows share links max-min fairly...").
  std::string (*model)(const EngineRun& run);
  bool contention = false;          // shares links: needs a topology, reports analytic_s beside
  bool needs_single_route = false;  // one route per rank pair (no ECMP or Valiant)
  std::string_view ratio_label;     // the column of time over the analytic engine's, if contention
  bool flow_details = false;        // fills a FlowResult (timeline, links, critical path): --trace, --detail
  // The schedule's time; a flow run also fills `flow` (for --trace and --detail).
  double (*run)(const Schedule& schedule, const RunCosts& costs, const EngineRun& run, FlowResult& flow);
  // The same for a schedule told as a stream (collectives/transfer_stream.hpp), for engines
  // that can run one without holding it (flow); null for the others. `flow` gets the time,
  // rank finish and link usage, no critical path or timeline.
  double (*run_stream)(const TransferStream& stream, const RunCosts& costs, const EngineRun& run,
                       FlowResult& flow) = nullptr;
};

const std::vector<EngineEntry>& engine_table();
const EngineEntry& find_engine(EngineKind kind);       // throws Error when this build lacks it
const EngineEntry& find_engine(std::string_view name);  // throws Error listing this build's engines
std::string_view to_string(EngineKind kind);
// analytic, flow, and simgrid where collsim was built with SimGrid.
std::vector<std::string> available_engines();
// Throws Error, saying why and what to use, where the engine cannot serve these costs' cluster:
// an engine that shares links needs them built (a flat network above 2^21 ranks has none);
// SimGrid needs one route per rank pair.
void check_engine_fits(const EngineEntry& engine, const RunCosts& costs);

}  // namespace collsim
