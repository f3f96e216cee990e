// tests/sim/test_lower_bound.cpp — 'x bound' is time over a lower bound, a time no schedule
// beats on that engine: on every preset and every committed calibrated config, no predicted
// time of any algorithm, size or engine (with its ports) is below its bound.
#include <catch2/catch.hpp>

#include <filesystem>

#include <fmt/format.h>

#include "base/units.hpp"
#include "sim/prediction.hpp"
#include "topologies/cluster_config.hpp"

using namespace collsim;

namespace {

// The clusters: every preset, and the calibrated configs validate/results holds (the ones
// readers run predict on: a CPU's size factors bend its links far from one alpha and beta).
std::vector<ClusterConfig> clusters() {
  std::vector<ClusterConfig> out;
  for (const std::string& name : preset_names()) out.push_back(load_preset(name));
  for (const auto& entry : std::filesystem::directory_iterator(COLLSIM_RESULTS_DIR)) {
    const std::filesystem::path yaml = entry.path() / "calibrated.yaml";
    if (std::filesystem::exists(yaml)) out.push_back(load_cluster_config(yaml.string()));
  }
  return out;
}

}  // namespace

TEST_CASE("no predicted time is below its lower bound, on every preset and calibrated config, engine and ports",
          "[bound]") {
  std::size_t calibrated = 0, checked = 0;
  for (ClusterConfig c : clusters()) {
    calibrated += c.name.find("cpu-mpi") != std::string::npos;
    // About 64 ranks at most, in whole nodes (the first ones as placed): the bound's terms are
    // per rank, and every algorithm runs in seconds.
    const Rank per_node = std::max<Rank>(c.topology->endpoints_per_node, 1);
    const Rank keep = std::max<Rank>(per_node, 64 / per_node * per_node);
    if (c.ranks > keep) c.place(keep);
    struct Run {
      EngineKind engine;
      bool one_port;
    };
    for (const Run run : {Run{EngineKind::analytic, true}, Run{EngineKind::analytic, false}, Run{EngineKind::flow, true}}) {
      PredictionRequest r = cluster_request(c);
      r.sizes = parse_size_list("8,4K,1M,16M,64M");
      r.engine = run.engine;
      r.run.one_port = run.one_port;
      for (const PredictionRecord& rec : predict(r)) {
        INFO(fmt::format("{} on {} ranks of {}, {} {}, engine {}{}: time {} s, bound {} s", rec.algorithm, rec.ranks,
                         c.name, rec.protocol.name, format_size(rec.bytes), to_string(rec.engine),
                         run.one_port ? "" : " (unlimited ports)", rec.time_s, rec.lower_bound_s));
        CHECK(rec.lower_bound_s > 0);
        CHECK(rec.lower_bound_s <= rec.time_s * (1 + 1e-9));
        ++checked;
      }
    }
  }
  CHECK(calibrated >= 5);  // the committed CPU calibrations were read
  CHECK(checked > 1000);
}
