// sim/simgrid_engine.cpp — run_simgrid: check the inputs, simulate in a forked child
// (sim/simgrid_simulation.cpp), read its result back, and turn every way it can fail (a
// crash, an error exit, a deadlock, transfers left over) into one Error line.
#include "sim/simgrid_engine.hpp"

#include <cstring>

#include <fmt/format.h>

#include "base/child_process.hpp"
#include "base/error.hpp"
#include "sim/simgrid_simulation.hpp"

namespace collsim {
namespace {

using simgrid_engine::Outcome;

// Routes are installed once per rank pair: ECMP and Valiant route every transfer afresh.
void check_inputs(const Schedule& schedule, const Topology& topology) {
  if (topology.routing != RoutingMode::minimal && topology.routing != RoutingMode::shortest_path)
    throw Error(fmt::format("engine 'simgrid' needs one route per rank pair (routing minimal or shortest-path), not {}",
                            to_string(topology.routing)));
  if (topology.ranks() < schedule.info().ranks)
    throw Error(fmt::format("the schedule has {} ranks but the topology places {}", schedule.info().ranks,
                            topology.ranks()));
  topology.check_reducers(schedule);
}

// The child's answer on the pipe: this header, then one finish time per rank.
struct Header {
  double time_s;
  std::uint64_t completed;
  std::uint32_t deadlock;
  std::uint32_t ranks;
};

void send_outcome(int fd, const Outcome& outcome) {
  const Header header{outcome.time_s, outcome.completed, outcome.deadlock ? 1u : 0u,
                      std::uint32_t(outcome.rank_finish_s.size())};
  write_all(fd, &header, sizeof header);
  write_all(fd, outcome.rank_finish_s.data(), outcome.rank_finish_s.size() * sizeof(double));
}

Outcome receive_outcome(const std::string& bytes, Rank ranks) {
  Header header{};
  if (bytes.size() != sizeof header + ranks * sizeof(double))
    throw Error(fmt::format("simgrid: simulation failed: the simulating process sent {} bytes, not {}", bytes.size(),
                            sizeof header + ranks * sizeof(double)));
  std::memcpy(&header, bytes.data(), sizeof header);
  Outcome outcome;
  outcome.time_s = header.time_s;
  outcome.completed = header.completed;
  outcome.deadlock = header.deadlock != 0;
  outcome.rank_finish_s.resize(ranks);
  std::memcpy(outcome.rank_finish_s.data(), bytes.data() + sizeof header, ranks * sizeof(double));
  return outcome;
}

}  // namespace

SimgridResult run_simgrid(const Schedule& schedule, const Topology& topology, double gamma_s_per_byte,
                          const SimgridOptions& options) {
  check_inputs(schedule, topology);
  const ChildOutcome child = run_in_child(
      [&](int fd) { send_outcome(fd, simgrid_engine::simulate(schedule, topology, gamma_s_per_byte, options)); },
      !options.verbose);
  if (!child.succeeded()) throw Error("simgrid: simulation failed: " + child.failure());
  const Outcome outcome = receive_outcome(child.output, schedule.info().ranks);
  if (outcome.completed < schedule.size())  // SimGrid saw a deadlock: every actor blocked for good
    throw Error(fmt::format("simgrid: schedule cannot finish: {} of {} transfers never completed",
                            schedule.size() - outcome.completed, schedule.size()));
  SimgridResult result;
  result.time_s = outcome.time_s;
  result.rank_finish_s = outcome.rank_finish_s;
  result.transfers = schedule.size();
  result.wall_s = child.wall_s;
  result.peak_rss_mib = child.peak_rss_mib;
  return result;
}

}  // namespace collsim
