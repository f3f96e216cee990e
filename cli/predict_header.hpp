// cli/predict_header.hpp — the lines `collsim predict` prints before its table: the cluster,
// engine and network it prices on, the runtime that drives the links, the protocol, and what
// `--algo nccl` chooses among (the algorithms, protocols, tuner plugin and NCCL environment).
#pragma once

#include "cli/predict_options.hpp"
#include "sim/prediction.hpp"
#include "topologies/cluster_config.hpp"

namespace collsim::cli {

void print_predict_header(const PredictOptions& o, const ClusterConfig& c, const PredictionRequest& r);

}  // namespace collsim::cli
