// sim/engine_table.hpp — the engines `predict --engine` may name, one table entry each: its
// name, the model it applies in words, what it needs of the cluster, and how it costs one
// schedule. Only the engines this build has are listed (simgrid needs SimGrid). Adding an
// engine: its own files and one entry in engine_table.cpp.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sim/prediction.hpp"

namespace collsim {

struct EngineEntry {
  std::string_view name;
  std::string_view help;
  // The model in words, for the header of a prediction ("flows share links max-min fairly...").
  std::string (*model)(const PredictionRequest& request);
  bool contention = false;          // shares links: needs a topology, reports analytic_s beside
  bool needs_single_route = false;  // one route per rank pair (no ECMP or Valiant)
  std::string_view ratio_label;     // the column of time over the analytic engine's, if contention
  bool flow_details = false;        // fills a FlowResult (timeline, links, critical path): --trace, --detail
  // The schedule's time; a flow run also fills `flow` (for --trace and --detail).
  double (*run)(const PredictionRequest& request, const Schedule& schedule, FlowResult& flow);
  // The same for a schedule told as a stream (collectives/transfer_stream.hpp), for engines
  // that can run one without holding it (flow); null for the others. `flow` gets the time,
  // rank finish and link usage, no critical path or timeline.
  double (*run_stream)(const PredictionRequest& request, const TransferStream& stream, FlowResult& flow) = nullptr;
};

const std::vector<EngineEntry>& engine_table();
const EngineEntry& find_engine(std::string_view name);  // throws Error listing this build's engines
// The engine fits the cluster (a topology to share, one route per pair); throws Error.
void check_engine_fits(const EngineEntry& engine, const PredictionRequest& request);

}  // namespace collsim
