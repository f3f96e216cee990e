// execute/execution_plan.cpp — schedules to execute, in element units.
#include "execute/execution_plan.hpp"

#include <fmt/format.h>

#include "base/error.hpp"
#include "collectives/checker.hpp"
#include "execute/reference_data.hpp"

namespace collsim {

std::vector<std::string> expand_algorithms(const ExecutionRequest& request) {
  if (request.schedule) return {request.schedule->info().algorithm};
  return expand_algorithm_names(request.algorithms, request.collective, request.ranks, request.ranks_per_node,
                                request.switches_reduce);
}

ScheduleRequest predicted_request(const ExecutionRequest& request, std::uint64_t bytes) {
  ScheduleRequest r;
  r.collective = request.collective;
  r.ranks = request.ranks;
  r.bytes = bytes;
  r.segments = request.segments;
  r.ranks_per_node = request.ranks_per_node;
  r.channels = request.channels;
  r.channel_orders = request.channel_orders;
  return r;
}

Schedule in_elements(const Schedule& schedule) {
  ScheduleInfo info = schedule.info();
  if (info.bytes % kElementBytes != 0 || info.scratch_bytes % kElementBytes != 0)
    throw Error(fmt::format("the schedule's {} data and {} scratch bytes are not whole 4-byte floats, which the "
                            "executors run: write it at a size that is a multiple of 4 bytes",
                            info.bytes, info.scratch_bytes));
  info.bytes /= kElementBytes;
  info.scratch_bytes /= kElementBytes;
  for (std::uint64_t& pair : info.pair_bytes) {
    if (pair % kElementBytes != 0)
      throw Error(fmt::format("the all-to-all-v's size {} is not whole 4-byte floats, which the executors run: write "
                              "every size in its matrix as a multiple of 4 bytes",
                              pair));
    pair /= kElementBytes;
  }
  Schedule elements(info);
  for (std::size_t c = 0; c < schedule.chunks().size(); ++c) {
    const ByteRange chunk = schedule.chunks()[c];
    if (chunk.offset % kElementBytes != 0 || chunk.bytes % kElementBytes != 0)
      throw Error(fmt::format("the schedule's chunk {} (bytes [{}, {})) is not whole 4-byte floats, which the executors "
                              "run: write the schedule at a size that divides into floats (e.g. --bytes a multiple of "
                              "4 x ranks x segments x channels)",
                              c, chunk.offset, chunk.end()));
    elements.add_chunk({chunk.offset / kElementBytes, chunk.bytes / kElementBytes});
  }
  for (const Phase& phase : schedule.phases()) elements.add_phase(phase);
  elements.reserve(schedule.size(), schedule.dependency_count());
  for (TransferId id = 0; id < schedule.size(); ++id) {
    const Transfer t = schedule.transfer(id);
    elements.append(t.src, t.src_chunk, t.dst, t.dst_chunk, t.op, t.step, t.deps);
  }
  return elements;
}

void bring_schedule(ExecutionRequest& request, std::shared_ptr<const Schedule> schedule) {
  const ScheduleInfo& info = schedule->info();
  if (request.ranks != 0 && request.ranks != info.ranks)
    throw Error(fmt::format("the schedule is for {} ranks, not {}: give --ranks {} or leave --ranks out", info.ranks,
                            request.ranks, info.ranks));
  request.collective = info.collective;
  request.ranks = info.ranks;
  request.algorithms = {info.algorithm};
  request.sizes = {info.bytes};
  request.schedule = std::move(schedule);
}

namespace {
// Under "all", channels go to the algorithms that take them; a named one gets what was asked.
std::uint32_t channels_for(const ExecutionRequest& request, const std::string& algorithm) {
  const bool every = request.algorithms.size() == 1 && request.algorithms[0] == "all";
  return every && !find_algorithm(algorithm).takes_channels ? 1 : request.channels;
}

// A brought schedule's switch reducers follow schedule.hpp's layout: one per node its ranks
// fill, then the fabric's where it has one. Each is a process of the run, so a count off the
// layout is refused rather than started as idle processes or misnamed switches.
void check_reducer_layout(const ScheduleInfo& info) {
  const Rank nodes = info.nodes();
  if (info.reducers == 0 || info.reducers == nodes || info.reducers == nodes + 1) return;
  throw Error(fmt::format("the schedule names {} switch reducers, but its {} ranks ({}) have {} node switch{} and one "
                          "fabric switch: write \"reducers\": {} (node switches) or {} (and the fabric's), as "
                          "`collsim schedule` writes it",
                          info.reducers, info.ranks,
                          info.ranks_per_node > 0 ? fmt::format("{} to a node", info.ranks_per_node) : "one node",
                          nodes, nodes == 1 ? "" : "es", nodes, nodes + 1));
}

// A brought schedule as the executors run it: in elements, proved again (a worker reads it
// from the job's JSON); its switch reducers, where it has them, emulated as extra processes.
Schedule executed_brought(const Schedule& brought) {
  Schedule schedule = in_elements(brought);
  check_reducer_layout(schedule.info());
  check_schedule(schedule);
  return schedule;
}

// A generated in-network algorithm runs where the request's cluster says its switches
// reduce, as predict runs it there (a brought schedule names its own switches), and one
// that runs inside one node's switch only on ranks that fit one node.
void require_reducing_switches(const ExecutionRequest& request, const AlgorithmEntry& algorithm) {
  if (algorithm.within_one_node && !algorithm.runs_on(request.ranks, request.ranks_per_node))
    throw Error(fmt::format("{} reduces inside one node's switch, and {} ranks are more than a node's {} "
                            "(--ranks-per-node, or the cluster's GPUs per node): across nodes use nvls-tree",
                            algorithm.name, request.ranks, request.ranks_per_node));
  if (algorithm.has_switches(request.switches_reduce, request.ranks_per_node)) return;
  const bool fabric = algorithm.in_network == InNetwork::fabric;
  throw Error(fmt::format("{} reduces in {}, and the run's cluster has no such switch: give --preset or --config of a "
                          "cluster whose {} (e.g. --preset {}); each of its switches then runs as one more process",
                          algorithm.name,
                          fabric ? "the fabric's switches (InfiniBand SHARP)" : "the node's switch (NVLink SHARP)",
                          fabric ? "fabric and node switches reduce" : "node switches reduce",
                          fabric ? "dgx-h100-superpod-su" : "dgx-h100"));
}
}  // namespace

Schedule executed_schedule(const ExecutionRequest& request, const std::string& algorithm, std::uint64_t bytes) {
  if (request.schedule) return executed_brought(*request.schedule);
  if (bytes % kElementBytes != 0)
    throw Error(fmt::format("size {} is not a whole number of 4-byte float elements", bytes));
  require_reducing_switches(request, find_algorithm(algorithm));
  ScheduleRequest r = predicted_request(request, bytes / kElementBytes);
  r.channels = channels_for(request, algorithm);
  if (!find_algorithm(algorithm).takes_channels) r.channel_orders.clear();  // "all": they run one, in rank order
  // Pipelining is chosen from the real size, as predict chooses it.
  ScheduleRequest in_bytes = predicted_request(request, bytes);
  in_bytes.channels = r.channels;
  r.segments = segments_for(find_algorithm(algorithm), in_bytes);
  Schedule schedule = generate_schedule(algorithm, r);
  check_schedule(schedule);
  return schedule;
}

}  // namespace collsim
