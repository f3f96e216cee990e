// sim/prediction.cpp — generate, cost, compare.
#include "sim/prediction.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "collectives/algorithm.hpp"
#include "collectives/closed_forms.hpp"
#include "collectives/error.hpp"
#include "collectives/units.hpp"
#include "sim/cost_rule.hpp"
#include "sim/engine_table.hpp"

namespace collsim {
namespace {

ScheduleRequest schedule_request(const PredictionRequest& r, const AlgorithmEntry& algorithm, std::uint64_t bytes) {
  ScheduleRequest sr;
  sr.collective = r.collective;
  sr.ranks = r.ranks;
  sr.bytes = bytes;
  sr.segments = algorithm.pipelined ? r.segments : 0;
  sr.ranks_per_node = r.cost.ranks_per_node;
  return sr;
}

// Named algorithms must fit (generate_schedule says why not); "all" and "auto" leave out,
// with a note, those too large to build at some size.
std::vector<std::string> expand_algorithms(const PredictionRequest& r) {
  std::vector<std::string> names = expand_algorithm_names(r.algorithms, r.collective, r.ranks, r.cost.ranks_per_node);
  const bool every = r.algorithms.size() == 1 && (r.algorithms[0] == "all" || r.algorithms[0] == "auto");
  if (!every) return names;
  std::erase_if(names, [&](const std::string& name) {
    const AlgorithmEntry& a = find_algorithm(name);
    for (std::uint64_t bytes : r.sizes)
      try {
        check_schedule_fits(a, schedule_request(r, a, bytes));
      } catch (const Error& e) {
        if (r.on_note) r.on_note(fmt::format("left out {}: {}", name, e.what()));
        return true;
      }
    return false;
  });
  return names;
}

// `flat`: the model of the closed forms and the lower bound (on a topology, the rule's stand-in).
PredictionRecord predict_one(const PredictionRequest& r, const CostModel& flat, const std::string& algorithm,
                             std::uint64_t bytes) {
  const Schedule schedule = generate_schedule(algorithm, schedule_request(r, find_algorithm(algorithm), bytes));

  PredictionRecord rec;
  rec.collective = r.collective;
  rec.algorithm = algorithm;
  rec.ranks = r.ranks;
  rec.bytes = bytes;
  rec.engine = r.engine;
  rec.placement = r.topology ? describe(r.topology->placement) : "linear";
  rec.segments = schedule.info().segments;
  rec.transfers = schedule.size();
  const EngineEntry& engine = find_engine(r.engine);
  FlowResult flow;
  rec.time_s = engine.run(r, schedule, flow);
  if (engine.contention) rec.analytic_s = find_engine("analytic").run(r, schedule, flow);
  rec.algbw_GBps = rec.time_s > 0 ? to_GBps(double(bytes) / rec.time_s) : 0;
  rec.busbw_GBps = rec.algbw_GBps * bus_bandwidth_factor(r.collective, r.ranks);
  rec.lower_bound_s = lower_bound_time(r.collective, r.ranks, bytes, flat);
  if (!engine.contention && r.analytic.one_port)
    rec.closed_form_s = closed_form_time(algorithm, r.collective, r.ranks, bytes, flat, rec.segments);
  if (r.on_flow_run && engine.flow_details) r.on_flow_run(rec, schedule, flow);
  return rec;
}

}  // namespace

std::vector<std::string> available_engines() {
  std::vector<std::string> names;
  for (const EngineEntry& e : engine_table()) names.emplace_back(e.name);
  return names;
}

std::vector<PredictionRecord> predict(const PredictionRequest& r, const std::function<void(const PredictionStep&)>& progress) {
  check_engine_fits(find_engine(r.engine), r);
  const std::vector<std::string> names = expand_algorithms(r);
  if (names.empty()) throw Error(fmt::format("no algorithm implements {} on {} ranks", to_string(r.collective), r.ranks));
  const bool only_winners = r.algorithms.size() == 1 && r.algorithms[0] == "auto";
  const CostModel flat = r.topology ? equivalent_cost_model(*r.topology, r.cost.gamma_s_per_byte) : r.cost;

  std::vector<PredictionRecord> records;
  std::size_t started = 0;
  for (std::uint64_t bytes : r.sizes) {
    const std::size_t first = records.size();
    for (const std::string& a : names) {
      if (progress) progress({a, bytes, started, r.sizes.size() * names.size()});
      ++started;
      records.push_back(predict_one(r, flat, a, bytes));
    }
    auto best = std::min_element(records.begin() + first, records.end(),
                                 [](const PredictionRecord& x, const PredictionRecord& y) { return x.time_s < y.time_s; });
    best->winner = true;
    if (only_winners) {
      PredictionRecord keep = *best;
      records.resize(first);
      records.push_back(keep);
    }
  }
  return records;
}

nlohmann::json to_json(const PredictionRecord& r) {
  nlohmann::json j = {{"collective", to_string(r.collective)},
                      {"algorithm", r.algorithm},
                      {"ranks", r.ranks},
                      {"bytes", r.bytes},
                      {"engine", r.engine},
                      {"placement", r.placement},
                      {"segments", r.segments},
                      {"transfers", r.transfers},
                      {"time_s", r.time_s},
                      {"algbw_GBps", r.algbw_GBps},
                      {"busbw_GBps", r.busbw_GBps},
                      {"lower_bound_s", r.lower_bound_s},
                      {"winner", r.winner}};
  j["closed_form_s"] = r.closed_form_s ? nlohmann::json(*r.closed_form_s) : nlohmann::json(nullptr);
  if (r.analytic_s) j["analytic_s"] = *r.analytic_s;
  return j;
}

}  // namespace collsim
