// sim/simgrid_simulation.cpp — a schedule on SimGrid: the shared state (sim/simgrid_run.hpp),
// the platform (sim/simgrid_platform.hpp), one actor per rank (sim/simgrid_rank_actor.hpp), run.
#include "sim/simgrid_simulation.hpp"

#include <string>
#include <vector>

#include <simgrid/s4u.hpp>

#include <fmt/format.h>

#include "sim/simgrid_platform.hpp"
#include "sim/simgrid_rank_actor.hpp"
#include "sim/simgrid_run.hpp"

namespace collsim::simgrid_engine {
namespace {
namespace sg4 = simgrid::s4u;

// SimGrid's command line: quiet unless verbose; small actor stacks (a rank's loop is shallow,
// and 8 MiB each adds up over thousands of ranks).
std::vector<std::string> engine_arguments(bool verbose) {
  std::vector<std::string> args = {"collsim-simgrid", "--cfg=contexts/stack-size:1024"};
  if (!verbose) args.emplace_back("--log=root.thres:critical");
  return args;
}

}  // namespace

Outcome simulate(const Schedule& schedule, const Topology& topology, double gamma_s_per_byte,
                 const SimgridOptions& options) {
  const Protocol& protocol = options.protocol;
  Run run(schedule, topology, gamma_s_per_byte, protocol, options.issue_s);
  std::vector<std::string> args = engine_arguments(options.verbose);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int argc = int(args.size());
  // Never destroyed: the process exits right after the run, and tearing down a deadlocked
  // simulation would only fail.
  auto* engine = new sg4::Engine(&argc, argv.data());
  select_network_model(kTimingPrecision_s);
  // Reductions run at 1/gamma bytes per second: an Exec of `bytes` flops takes bytes * gamma.
  const double host_speed = gamma_s_per_byte > 0 ? 1.0 / gamma_s_per_byte : 1.0;
  const std::vector<std::pair<Rank, Rank>> pairs = run.routed_pairs();
  // Switch reducers are hosts too (ids after the ranks'): they receive and multicast.
  const Rank endpoints = schedule.info().endpoints();
  const std::vector<sg4::Host*> hosts = build_platform(topology, endpoints, host_speed, pairs, protocol);
  run.open_mailboxes();
  bool deadlock = false;
  sg4::Engine::on_deadlock_cb([&deadlock] { deadlock = true; });
  for (Rank r = 0; r < endpoints; ++r)
    sg4::Actor::create(fmt::format("rank{}", r), hosts[r], [&run, r] { run_rank(run, r); });
  engine->run();
  return {run.last_done_s(), run.completed(), deadlock, run.rank_finish_s()};
}

}  // namespace collsim::simgrid_engine
