// tests/support/engine_times.hpp — every engine's time for one schedule on one topology, by
// name: analytic, flow, flow without its shortcut, and SimGrid where it is built. The
// cost-rule tests hold the engines to one another, and to sums by hand, with it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sim/analytic_engine.hpp"
#include "sim/flow_engine.hpp"
#ifdef COLLSIM_HAVE_SIMGRID
#include "sim/simgrid_engine.hpp"
#endif

namespace collsim::test {

inline std::vector<std::pair<std::string, double>> engine_times(const Schedule& s, const Topology& t, double gamma) {
  FlowOptions events_only;
  events_only.shortcut = false;
  std::vector<std::pair<std::string, double>> times = {
      {"analytic", run_analytic(s, t, gamma).time_s},
      {"flow", run_flow(s, t, gamma).time_s},
      {"flow without its shortcut", run_flow(s, t, gamma, events_only).time_s},
  };
#ifdef COLLSIM_HAVE_SIMGRID
  times.emplace_back("simgrid", run_simgrid(s, t, gamma).time_s);
#endif
  return times;
}

}  // namespace collsim::test
