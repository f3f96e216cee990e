// sim/trace.cpp — Chrome Trace Event JSON, streamed to a file.
#include "sim/trace.hpp"

#include <algorithm>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/error.hpp"
#include "base/units.hpp"
#include "sim/cost_rule.hpp"
#include "sim/host_issue.hpp"

namespace collsim {
namespace {

std::string quoted(const std::string& s) { return nlohmann::json(s).dump(); }
double micros(double seconds) { return seconds * 1e6; }

struct Slice {
  double begin_s, end_s;
  std::string json_without_tid;  // the event, to be completed with its lane's tid
  // A flow event bound to this slice (an arrow from a send to its receive), on the same lane:
  // "ph": "s" at the send's start, or "ph": "f" with "bp": "e" at the receive's start.
  std::string flow_without_tid;
};

// Slices of one rank on lanes where none overlap: each goes on the first lane free at its start.
std::vector<std::size_t> assign_lanes(std::vector<Slice>& slices) {
  std::sort(slices.begin(), slices.end(), [](const Slice& a, const Slice& b) {
    return a.begin_s != b.begin_s ? a.begin_s < b.begin_s : a.end_s < b.end_s;
  });
  std::vector<double> lane_end;
  std::vector<std::size_t> lane(slices.size());
  for (std::size_t i = 0; i < slices.size(); ++i) {
    std::size_t k = 0;
    while (k < lane_end.size() && lane_end[k] > slices[i].begin_s) ++k;
    if (k == lane_end.size()) lane_end.push_back(0);
    lane_end[k] = slices[i].end_s;
    lane[i] = k;
  }
  return lane;
}

// The schedule's times after the runtime's fixed cost: the engines time the schedule from 0
// and the prediction adds the fixed cost (sim/prediction.cpp), which the library pays first.
TransferTimes shifted(TransferTimes t, double offset_s) {
  t.ready_s += offset_s;
  t.start_s += offset_s;
  t.arrival_s += offset_s;
  t.done_s += offset_s;
  return t;
}

std::string_view library_name(CollectiveRuntime library) {
  return library == CollectiveRuntime::nccl ? "NCCL" : "no runtime";
}

Slice runtime_slice(const std::string& name, double begin_s, double end_s, const std::string& what) {
  return {begin_s, end_s,
          fmt::format(R"("ph": "X", "cat": "runtime", "name": {}, "ts": {:.6f}, "dur": {:.6f}, "args": {{"what": {}}})",
                      quoted(name), micros(begin_s), micros(end_s - begin_s), quoted(what)),
          ""};
}

// A rank's runtime before its first transfer: the launch and base latency, then the pipeline's
// flag waits beyond one per step (every rank pays both: the ring's ranks wait on each other).
void add_runtime_slices(const TraceRuntime& runtime, std::vector<Slice>& slices) {
  if (runtime.fixed_s <= 0) return;
  slices.push_back(runtime_slice(fmt::format("launch + base latency ({})", runtime.label), 0, runtime.base_s(),
                                 "the library's kernel launch and base latency, once per collective "
                                 "(NVLS, NVLS-tree and CollNet: their whole latency)"));
  if (runtime.flag_waits_s > 0)
    slices.push_back(runtime_slice(fmt::format("pipeline flag waits ({} waits)", runtime.flag_waits), runtime.base_s(),
                                   runtime.fixed_s,
                                   "the pipeline's slices each wait on their peer's flag; the waits beyond one per "
                                   "step, paid once per collective (each transfer pays its step's: sync_us)"));
}

// A transfer's slices: its send on the sender's track, its receive on the receiver's, an arrow
// between them, its reduction on the receiver's; `step`: the runtime's flag wait per transport.
// `issued`: where the run has a host issue cost (FlowResult::issue_s), when the host issued it;
// its send begins then if that is after its ready time (the rank waits for the host before).
void add_transfer_slices(const Schedule& s, const Topology& topology, TransferId id, const TransferTimes& t,
                         std::optional<double> issued, double gamma, const StepLatency& step, std::size_t flow_id,
                         std::vector<std::vector<Slice>>& per_rank) {
  const Transfer x = s.transfer(id);
  const std::uint64_t bytes = s.transfer_bytes(id);
  if (!x.is_local()) {
    const Transport transport = step.active ? pair_transport(topology, x.src, x.dst) : Transport::unknown;
    // The step latency that took the place of the route's alpha (sim/cost_rule.cpp): the flag
    // wait within ready -> drain start; the drain is drain start -> arrival.
    const std::string sync = transport != Transport::unknown
                                 ? fmt::format(R"(, "sync_us": {:.6f}, "transport": "{}")", micros(step.at(transport)),
                                               to_string(transport))
                                 : "";
    const std::string issued_arg = issued ? fmt::format(R"(, "issued_us": {:.6f})", micros(*issued)) : "";
    const std::string args = fmt::format(
        R"("args": {{"transfer": {}, "step": {}, "bytes": {}, "ready_us": {:.6f}{}, "drain_start_us": {:.6f}, "arrival_us": {:.6f}, "done_us": {:.6f}, "drain_us": {:.6f}{}}})",
        id, x.step, bytes, micros(t.ready_s), issued_arg, micros(t.start_s), micros(t.arrival_s), micros(t.done_s),
        micros(t.arrival_s - t.start_s), sync);
    const std::string name = quoted(fmt::format("{} {} -> {}", to_string(x.op), x.src, x.dst));
    const double begin = std::max(t.ready_s, issued.value_or(t.ready_s));
    per_rank[x.src].push_back({begin, t.arrival_s,
                               fmt::format(R"("ph": "X", "cat": "transfer", "name": {}, "ts": {:.6f}, "dur": {:.6f}, {})",
                                           name, micros(begin), micros(t.arrival_s - begin), args),
                               fmt::format(R"("ph": "s", "cat": "message", "name": {}, "id": {}, "ts": {:.6f})", name,
                                           flow_id, micros(begin))});
    // The receiver's side: its bytes arriving, from the drain's start to the arrival, with
    // the arrow's head (Perfetto and chrome://tracing draw an arrow from sender to receiver).
    per_rank[x.dst].push_back({t.start_s, t.arrival_s,
                               fmt::format(R"("ph": "X", "cat": "receive", "name": {}, "ts": {:.6f}, "dur": {:.6f}, "args": {{"transfer": {}, "bytes": {}}})",
                                           quoted(fmt::format("receive {} <- {}", x.dst, x.src)), micros(t.start_s),
                                           micros(t.arrival_s - t.start_s), id, bytes),
                               fmt::format(R"("ph": "f", "bp": "e", "cat": "message", "name": {}, "id": {}, "ts": {:.6f})",
                                           name, flow_id, micros(t.start_s))});
  }
  if (x.op == Op::reduce && gamma > 0 && !is_in_network_reduction(s.info(), x)) {
    const double begin = t.done_s - double(bytes) * reduction_gamma(topology, gamma, bytes, s.info().segments);
    per_rank[x.dst].push_back({begin, t.done_s,
                               fmt::format(R"("ph": "X", "cat": "reduction", "name": {}, "ts": {:.6f}, "dur": {:.6f}, "args": {{"transfer": {}, "bytes": {}}})",
                                           quoted(fmt::format("reduce from {}", x.src)), micros(begin),
                                           micros(t.done_s - begin), id, bytes)});
  }
}

}  // namespace

ChromeTrace::ChromeTrace(const std::string& path) : file_(path, "trace") {
  file_.write("{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n");
}

void ChromeTrace::close() {
  file_.write("\n]}\n");
  file_.commit();
}

// Every byte goes through here, so a full disk or a closed pipe is one Error, not an abort.
void ChromeTrace::write(std::string_view text) { file_.write(text); }

void ChromeTrace::event(const std::string& json) {
  if (events_ > 0) write(",\n");
  write(json);
  ++events_;
}

TraceRuntime trace_runtime(const PredictionRecord& rec, CollectiveRuntime library) {
  if (library == CollectiveRuntime::none) return {};
  const RuntimePipeline& pipeline = rec.protocol.pipeline;
  TraceRuntime out;
  out.label = fmt::format("{} {}, {}", library_name(library), rec.runs, rec.protocol.name);
  out.fixed_s = rec.runtime_s;
  out.flag_waits_s = pipeline.extra_sync_s;
  out.flag_waits = pipeline.extra_waits();
  out.step = rec.protocol.step;
  return out;
}

void ChromeTrace::add_run(const std::string& name, const Schedule& schedule, const Topology& topology,
                          const FlowResult& result, double gamma, const TraceRuntime& runtime) {
  if (result.timeline.size() != schedule.size())
    throw Error("a trace needs the flow engine's timeline (FlowOptions::timeline)");
  const int pid = ++runs_;
  event(fmt::format(R"({{"ph": "M", "pid": {}, "name": "process_name", "args": {{"name": {}}}}})", pid, quoted(name)));
  event(fmt::format(R"({{"ph": "M", "pid": {}, "name": "process_sort_index", "args": {{"sort_index": {}}}}})", pid, pid));
  add_rank_tracks(pid, schedule, topology, result, gamma, runtime);
  add_link_tracks(pid, topology, result, runtime.fixed_s);
}

void ChromeTrace::add_rank_tracks(int pid, const Schedule& s, const Topology& topology, const FlowResult& result,
                                  double gamma, const TraceRuntime& runtime) {
  const Rank ranks = s.info().endpoints();  // switch reducers get tracks after the ranks'
  std::vector<std::vector<Slice>> per_rank(ranks);
  for (Rank r = 0; r < ranks; ++r)
    if (!s.info().is_reducer(r)) add_runtime_slices(runtime, per_rank[r]);
  for (TransferId id = 0; id < s.size(); ++id) {
    std::optional<double> issued;  // after the runtime's fixed cost, as the schedule's times
    if (result.issue_s > 0) issued = issued_at(result.issue_s, id) + runtime.fixed_s;
    add_transfer_slices(s, topology, id, shifted(result.timeline[id], runtime.fixed_s), issued, gamma, runtime.step,
                        flows_ + id, per_rank);
  }
  // Lane k of rank r is thread r + k * ranks, sorted right after rank r's first lane.
  for (Rank r = 0; r < ranks; ++r) {
    std::vector<Slice>& slices = per_rank[r];
    const std::vector<std::size_t> lane = assign_lanes(slices);
    const std::size_t lanes = slices.empty() ? 1 : *std::max_element(lane.begin(), lane.end()) + 1;
    for (std::size_t k = 0; k < lanes; ++k) {
      const std::size_t tid = r + k * ranks;
      const std::string name = s.info().is_reducer(r) ? reducer_name(s.info(), r)
                                                      : fmt::format("rank {}", r);
      const std::string label = k == 0 ? name : fmt::format("{} #{}", name, k + 1);
      event(fmt::format(R"({{"ph": "M", "pid": {}, "tid": {}, "name": "thread_name", "args": {{"name": {}}}}})", pid,
                        tid, quoted(label)));
      event(fmt::format(R"({{"ph": "M", "pid": {}, "tid": {}, "name": "thread_sort_index", "args": {{"sort_index": {}}}}})",
                        pid, tid, std::size_t(r) * 1024 + k));
    }
    for (std::size_t i = 0; i < slices.size(); ++i) {
      event(fmt::format("{{\"pid\": {}, \"tid\": {}, {}}}", pid, r + lane[i] * ranks, slices[i].json_without_tid));
      if (!slices[i].flow_without_tid.empty())
        event(fmt::format("{{\"pid\": {}, \"tid\": {}, {}}}", pid, r + lane[i] * ranks, slices[i].flow_without_tid));
    }
  }
  flows_ += s.size();  // flow ids are unique over the file's runs
}

void ChromeTrace::add_link_tracks(int pid, const Topology& topology, const FlowResult& result, double offset_s) {
  std::vector<std::string> names(result.links.size());
  std::vector<double> last(result.links.size(), -1);
  for (const UtilizationChange& u : result.utilization) {
    if (result.links[u.link].bytes <= 0 || u.utilization == last[u.link]) continue;
    last[u.link] = u.utilization;
    if (names[u.link].empty()) names[u.link] = quoted("link " + link_name(topology.network, u.link));
    event(fmt::format(R"({{"ph": "C", "pid": {}, "name": {}, "ts": {:.6f}, "args": {{"utilization %": {:.3f}}}}})", pid,
                      names[u.link], micros(offset_s + u.time_s), 100.0 * u.utilization));
  }
}

}  // namespace collsim
