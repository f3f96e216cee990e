// sim/trace.hpp — a flow-engine run as a Chrome Trace Event file (JSON), for Perfetto
// (https://ui.perfetto.dev) or chrome://tracing. Written as it goes: one process per run
// ("ring 1 MiB"), in it
//   a track per rank: where the cluster has a runtime (sim/runtime.hpp), its costs before the
//     first transfer as slices of their own, "launch + base latency (NCCL ring, simple)" from
//     0 and "pipeline flag waits (N waits)" after it (where the pipeline has any), the
//     schedule's times following them, so the last slice ends at the predicted time;
//     a slice per transfer it sends, from ready to arrival (alpha or the runtime's flag wait,
//     latency and drain; args give the times, and with a runtime "sync_us", the flag wait
//     its transport pays; where the run has a host issue cost, RunCosts::issue_s, from when
//     the host issued it if that is later, "issued_us" in its args), a slice per transfer it receives, from the drain's start to the
//     arrival, with a flow event (an arrow) from the send to the receive, and a slice per
//     reduction it runs;
//     transfers of one rank that overlap go on extra lanes ("rank 3 #2");
//   a counter track per busy link: its utilization (sum of flow rates / capacity) over time.
// Times are microseconds, as the format wants. The file appears only on close(): a run that
// fails or is interrupted before leaves the old file as it was (base/atomic_file.hpp).
#pragma once

#include <string>
#include <string_view>

#include "base/atomic_file.hpp"
#include "collectives/schedule.hpp"
#include "sim/flow_engine.hpp"
#include "sim/prediction.hpp"
#include "topologies/cluster_config.hpp"
#include "topologies/topology.hpp"

namespace collsim {

// What a run's collective library costs that no link explains (sim/runtime.hpp), as the trace
// shows it. None (the default): a run that pays the links alone.
struct TraceRuntime {
  std::string label;             // whose costs: "NCCL ring, simple"
  double fixed_s = 0;            // before the first transfer: launch and base latency, then the flag waits
  double flag_waits_s = 0;       // of fixed_s, the pipeline's flag waits beyond one per step
  std::uint64_t flag_waits = 0;  // how many of them, on one rank's chain
  StepLatency step;              // the flag wait each transfer pays, by the transport it crosses

  double base_s() const { return fixed_s - flag_waits_s; }
};

// The runtime of the run `rec` describes (its record's fixed cost and priced protocol), under
// `library`; none where the cluster has none.
TraceRuntime trace_runtime(const PredictionRecord& rec, CollectiveRuntime library);

class ChromeTrace {
 public:
  explicit ChromeTrace(const std::string& path);  // throws Error if the file cannot be written
  ChromeTrace(const ChromeTrace&) = delete;
  ChromeTrace& operator=(const ChromeTrace&) = delete;

  // `result` must come from run_flow with FlowOptions::timeline; `runtime`: the run's library
  // (trace_runtime), whose fixed cost comes first, the schedule's times after it.
  void add_run(const std::string& name, const Schedule& schedule, const Topology& topology, const FlowResult& result,
               double gamma_s_per_byte, const TraceRuntime& runtime = {});
  void close();  // writes the end of the file and puts it in place; throws Error on a write error
  std::size_t events() const { return events_; }

 private:
  void write(std::string_view text);
  void event(const std::string& json);
  void add_rank_tracks(int pid, const Schedule& schedule, const Topology& topology, const FlowResult& result,
                       double gamma, const TraceRuntime& runtime);
  void add_link_tracks(int pid, const Topology& topology, const FlowResult& result, double offset_s);

  AtomicFile file_;
  std::size_t events_ = 0;
  int runs_ = 0;
  std::size_t flows_ = 0;  // flow ids given so far (one per transfer between ranks)
};

}  // namespace collsim
