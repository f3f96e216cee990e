// sim/flow_report.hpp — what a flow-engine run tells beyond its time, for `predict --detail`:
// where the critical path spent its time, the links it drained across, the busiest links,
// and when ranks finished. As a JSON object, or as a few lines of text.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "collectives/schedule.hpp"
#include "sim/flow_engine.hpp"
#include "topologies/topology.hpp"

namespace collsim {

// The critical path's time split by what it was doing; the parts sum to the run's time.
struct CriticalBreakdown {
  double issue_s = 0;      // waits for the host to issue a transfer after it was ready (FlowResult::issue_s)
  double latency_s = 0;    // alpha + route latency (and waits behind a pair's earlier drain)
  double drain_s = 0;      // bytes draining
  double ideal_drain_s = 0;  // what draining would take at the routes' bottleneck bandwidth
  double reduction_s = 0;  // reductions, and waits for a rank's reduction unit
  std::size_t transfers = 0;
};
CriticalBreakdown critical_breakdown(const FlowResult& result);

nlohmann::json flow_detail_json(const Schedule& schedule, const Topology& topology, const FlowResult& result);
// `rows`: how many critical transfers, critical links and busiest links to list.
std::string flow_detail_text(const Schedule& schedule, const Topology& topology, const FlowResult& result,
                             std::size_t rows = 6);

}  // namespace collsim
