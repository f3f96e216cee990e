// sim/flow_result.hpp — what a flow-engine run gives back (sim/flow_engine.hpp): its options,
// the time, per-rank finish, per-link usage, the critical path and, on request, a timeline.
// Plain values: the event simulation, its shortcut (sim/flow_shortcut.hpp) and the reports
// (sim/flow_report.hpp, sim/trace.hpp) share them without knowing each other.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "collectives/schedule.hpp"
#include "sim/protocol.hpp"
#include "topologies/network.hpp"

namespace collsim {

// For a held schedule and a streamed one alike (sim/flow_engine.hpp); a stream keeps no
// per-transfer times, so it has no timeline or critical path whatever these say.
struct FlowOptions {
  // The run's protocol (sim/protocol.hpp), applied by the cost rule to every link.
  Protocol protocol;
  // The host's time to issue one transfer, in list order (RunCosts::issue_s): a transfer's
  // start-up is counted from max(ready, issued) (sim/host_issue.hpp). Its ready time stays
  // the dependencies' (the critical path hands over there): a wait for the host lies between
  // ready and start, before alpha and latency (sim/flow_report.hpp counts it apart).
  double issue_s = 0;
  // Keep every transfer's times and every change of a link's utilization (for --trace).
  bool timeline = false;
  // Keep every transfer's record for the critical path (FlowResult::critical_path and
  // critical_links; --detail). false: the event simulation keeps only ready times, 32 bytes a
  // transfer less, and reports no critical path (the one-pass shortcut keeps its records).
  bool critical_path = true;
  // Where no link can carry two rank pairs' flows, compute the same times in one pass
  // without events (sim/flow_shortcut.hpp). false: always simulate events (for tests).
  bool shortcut = true;
  // Hears (transfers timed, of all) every kProgressEvery transfers of a held schedule, every
  // kStreamProgressEvery of a stream (and as the one-pass shortcut begins one), for a progress
  // line; the count starts again at 0 when a shortcut gives up for the event simulation.
  std::function<void(std::uint64_t done, std::uint64_t total)> progress;
  // Hears in words why a run turns to simulating events: the partial shortcut gave up, or (a
  // stream) why the one-pass shortcut cannot time it. The run then takes longer.
  std::function<void(const std::string& why)> on_fallback;
};
inline constexpr std::uint64_t kProgressEvery = std::uint64_t(1) << 16;
// A stream runs to hundreds of millions of transfers (537 M: a ring on 16,384 ranks), so it
// tells its progress more sparsely.
inline constexpr std::uint64_t kStreamProgressEvery = std::uint64_t(1) << 24;

struct LinkUsage {
  double bytes = 0;             // carried over the whole run
  double busy_s = 0;            // time with at least one flow draining through it
  double peak_utilization = 0;  // highest (sum of its flows' rates) / capacity, 0..1
};

// Why a transfer on the critical path could not finish earlier: what its predecessor on the
// path is to it. dependency: became ready when that one was done; channel: drained when
// that one, earlier on the same (src, dst) pair, arrived; reducer: reduced when that one's
// reduction on the same rank ended.
enum class Waited : std::uint8_t { nothing, dependency, channel, reducer };

struct TransferTimes {
  double ready_s = 0, start_s = 0, arrival_s = 0, done_s = 0;  // start: its bytes begin to drain
};

struct CriticalTransfer {
  TransferId id = 0;
  TransferTimes times;
  double ideal_drain_s = 0;  // bytes / the route's bottleneck bandwidth: the drain alone
  Waited waited = Waited::nothing;  // on the previous entry of the path
};

struct CriticalLink {
  LinkId link = 0;
  double drain_s = 0;             // time critical transfers spent draining across it
  std::uint32_t transfers = 0;    // critical transfers crossing it
};

struct UtilizationChange {
  double time_s = 0;
  LinkId link = 0;
  double utilization = 0;  // from this time on, 0..1
};

struct FlowResult {
  double time_s = 0;
  Protocol protocol;  // the run's: what its links offered (FlowOptions::protocol)
  double issue_s = 0;  // the run's host issue of each transfer (FlowOptions::issue_s)
  std::vector<double> rank_finish_s;   // last completion on each rank (as source or destination)
  std::vector<LinkUsage> links;        // per directed link of the network
  // The chain of transfers that set time_s, first to last: each waited for the one before
  // it (its last dependency, or the reduction ahead of it on its rank).
  std::vector<CriticalTransfer> critical_path;
  std::vector<CriticalLink> critical_links;  // links the critical path drains across, most time first
  std::size_t rate_solves = 0;               // progressive fillings of the flows a change re-rates
  // (0 with events = 0: the run took the shortcut, sim/flow_shortcut.hpp)
  std::size_t events = 0;
  // Transfers timed on exclusive channels, without max-min (the partial shortcut,
  // sim/flow_channels.hpp); 0 where the run fell back to events for every flow.
  std::size_t exclusive_transfers = 0;
  // With FlowOptions::timeline: per transfer, and the links' utilization steps in time order.
  std::vector<TransferTimes> timeline;
  std::vector<UtilizationChange> utilization;
};

}  // namespace collsim
