// sim/trace.hpp — a flow-engine run as a Chrome Trace Event file (JSON), for Perfetto
// (https://ui.perfetto.dev) or chrome://tracing. Written as it goes: one process per run
// ("ring 1 MiB"), in it
//   a track per rank: a slice per transfer it sends, from ready to arrival (alpha, latency
//     and drain; args give the times), a slice per transfer it receives, from the drain's
//     start to the arrival, with a flow event (an arrow) from the send to the receive, and a
//     slice per reduction it runs;
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
#include "topologies/topology.hpp"

namespace collsim {

class ChromeTrace {
 public:
  explicit ChromeTrace(const std::string& path);  // throws Error if the file cannot be written
  ChromeTrace(const ChromeTrace&) = delete;
  ChromeTrace& operator=(const ChromeTrace&) = delete;

  // `result` must come from run_flow with FlowOptions::timeline.
  void add_run(const std::string& name, const Schedule& schedule, const Topology& topology, const FlowResult& result,
               double gamma_s_per_byte);
  void close();  // writes the end of the file and puts it in place; throws Error on a write error
  std::size_t events() const { return events_; }

 private:
  void write(std::string_view text);
  void event(const std::string& json);
  void add_rank_tracks(int pid, const Schedule& schedule, const Topology& topology, const FlowResult& result,
                       double gamma);
  void add_link_tracks(int pid, const Topology& topology, const FlowResult& result);

  AtomicFile file_;
  std::size_t events_ = 0;
  int runs_ = 0;
  std::size_t flows_ = 0;  // flow ids given so far (one per transfer between ranks)
};

}  // namespace collsim
