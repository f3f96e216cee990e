// cli/predict_options.hpp — what `collsim predict` was asked (its command line, parsed by
// cli/cmd_predict.cpp), shared with the header it prints (cli/predict_header.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cli/brought_schedule.hpp"
#include "cli/options.hpp"
#include "sim/engine_table.hpp"
#include "sim/prediction.hpp"
#include "sim/protocol.hpp"
#include "topologies/placement.hpp"

namespace collsim::cli {

struct PredictOptions {
  ClusterSource cluster;
  std::optional<Placement::Kind> placement;  // none: the cluster's
  std::string collective = "allreduce", algo = "all", bytes;
  std::optional<EngineKind> engine;  // none (auto): default_engine
  bool one_port = true;
  Rank ranks = 0, ranks_per_node = 0;
  double alpha = -1, beta = -1, bandwidth = -1, gamma = -1;
  std::uint32_t segments = 0, channels = 0;
  std::uint64_t placement_seed = 1;
  std::string trace;
  BroughtSchedule schedule;  // --schedule FILE: the user's schedule instead of --algo/--bytes
  std::string matrix;        // --matrix FILE: alltoall's bytes per pair, instead of --bytes
  Streaming stream = Streaming::when_large;
  std::optional<Protocol> protocol = simple_protocol();  // none: auto
  bool protocol_given = false;  // --protocol on the command line: NCCL_PROTO for --algo nccl
  std::uint32_t gpus_per_thread = 1;  // nccl-tests -g
  std::uint32_t jobs = 0;             // runs at once; 0: one per core
  bool detail = false;
  bool verbose = false;
  Format format = Format::table;
};

}  // namespace collsim::cli
