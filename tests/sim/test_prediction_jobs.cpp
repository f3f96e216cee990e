// tests/sim/test_prediction_jobs.cpp — predict's runs side by side (PredictionRequest::jobs)
// answer exactly as one after another, and their callbacks take turns.
#include <catch2/catch.hpp>

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "sim/prediction.hpp"
#include "topologies/cluster_config.hpp"

using namespace collsim;

namespace {

// Every field of every row, as the JSON output prints them.
std::string rows(const std::vector<PredictionRecord>& records) {
  std::string out;
  for (const PredictionRecord& r : records) out += to_json(r).dump() + "\n";
  return out;
}

}  // namespace

TEST_CASE("runs side by side give the rows of runs one after another, on a fabric with switch reducers") {
  // dgx-h100-superpod-su: NVLS and SHARP routes come from the reducer router's shared searches;
  // "nccl" runs several candidates per row, "all" refuses some at some sizes.
  ClusterConfig c = load_preset("dgx-h100-superpod-su");
  c.place(64);  // 8 nodes
  for (const std::vector<std::string>& algorithms :
       {std::vector<std::string>{"all"}, std::vector<std::string>{"nccl", "ring", "two-tree"}}) {
    PredictionRequest r = cluster_request(c);
    r.algorithms = algorithms;
    r.refusals_in_rows = true;
    r.sizes = {4096, 1 << 20, 64 << 20};
    r.protocol.reset();  // auto: each run tries every protocol
    r.jobs = 1;
    const std::string one_by_one = rows(predict(r));
    for (std::uint32_t jobs : {3u, 0u}) {
      INFO(algorithms.front() << ", jobs " << jobs);
      r.jobs = jobs;
      CHECK(rows(predict(r)) == one_by_one);
    }
  }
}

TEST_CASE("streamed runs side by side give the rows of streamed runs one after another") {
  ClusterConfig c = load_preset("dgx-h100-superpod-su");
  c.place(128);
  PredictionRequest r = cluster_request(c);
  r.algorithms = {"ring", "hierarchical-ring", "two-tree"};  // the first two streamed, the last held
  r.sizes = {1 << 20, 256 << 20};
  r.streaming = Streaming::always;
  r.jobs = 1;
  const std::vector<PredictionRecord> one_by_one = predict(r);
  CHECK(one_by_one[0].streamed);
  CHECK(one_by_one[1].streamed);
  r.jobs = 3;
  CHECK(rows(predict(r)) == rows(one_by_one));
}

TEST_CASE("side by side, the progress hears every run once and the callbacks never overlap") {
  const ClusterConfig c = load_preset("dgx-h100");
  PredictionRequest r = cluster_request(c);
  r.algorithms = {"ring", "two-tree", "nccl"};
  r.sizes = {1 << 10, 1 << 20, 16 << 20, 256 << 20};
  r.jobs = 4;
  std::mutex inside;  // held by a callback: a second one at once fails try_lock
  int overlaps = 0;
  auto enter = [&] {
    if (!inside.try_lock()) return ++overlaps, false;
    return true;
  };
  std::vector<std::string> started;
  std::size_t most_done = 0;
  r.on_candidate = [&](std::string_view, const Protocol&) {
    if (enter()) inside.unlock();
  };
  const std::vector<PredictionRecord> records = predict(r, [&](const PredictionStep& step) {
    if (!enter()) return;
    CHECK(step.total == 12);
    CHECK(step.index <= 12);
    most_done = std::max(most_done, step.index);
    if (!step.resumed) started.push_back(std::string(step.algorithm) + " " + std::to_string(step.bytes));
    inside.unlock();
  });
  CHECK(overlaps == 0);
  CHECK(records.size() == 12);
  CHECK(started.size() == 12);  // each run's start once (and resumed before each of its callbacks)
  std::sort(started.begin(), started.end());
  started.erase(std::unique(started.begin(), started.end()), started.end());
  CHECK(started.size() == 12);
  CHECK(most_done >= 1);
}

TEST_CASE("runs reporting through on_flow_run (--trace, --detail) go one after another, in order") {
  const ClusterConfig c = load_preset("dgx-h100");
  PredictionRequest r = cluster_request(c);
  r.algorithms = {"ring", "two-tree"};
  r.sizes = {1 << 20, 16 << 20};
  r.jobs = 4;
  std::vector<std::string> order;
  r.on_flow_run = [&](const PredictionRecord& rec, const Schedule&, const FlowResult&) {
    order.push_back(rec.algorithm + " " + std::to_string(rec.bytes));
  };
  predict(r);
  CHECK(order == std::vector<std::string>{"ring 1048576", "two-tree 1048576", "ring 16777216", "two-tree 16777216"});
}
