// tests/support/flow_prediction.hpp — `predict` on a loaded cluster with the flow engine, for
// the tests that ask which algorithm a cluster's switches make `--algo nccl` run.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sim/prediction.hpp"
#include "topologies/cluster_config.hpp"

namespace collsim::test {

inline std::vector<PredictionRecord> flow_prediction(const ClusterConfig& c, std::vector<std::string> algorithms,
                                                     std::vector<std::uint64_t> sizes) {
  PredictionRequest r;
  r.algorithms = std::move(algorithms);
  r.sizes = std::move(sizes);
  r.ranks = c.ranks;
  r.cost = c.cost;
  r.topology = c.topology;
  r.collnet_enabled = c.collnet_enabled;
  r.tuner = c.tuner;
  r.engine = EngineKind::flow;
  return predict(r);
}

}  // namespace collsim::test
