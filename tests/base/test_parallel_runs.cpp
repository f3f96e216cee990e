// tests/base/test_parallel_runs.cpp — runs side by side: each once, within the memory budget,
// really at once where the budget allows, and the lowest failure reported.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "base/parallel_runs.hpp"

using namespace collsim;

namespace {

ParallelRuns runs_of(unsigned jobs, std::vector<double> hold, double budget = 0) {
  ParallelRuns r;
  r.jobs = jobs;
  r.hold_bytes = std::move(hold);
  r.budget_bytes = budget;
  return r;
}

}  // namespace

TEST_CASE("every run runs once, on one thread or several") {
  for (unsigned jobs : {1u, 2u, 4u}) {
    INFO("jobs " << jobs);
    std::vector<std::atomic<int>> calls(37);
    run_in_parallel(runs_of(jobs, std::vector<double>(calls.size(), 0.0)), [&](std::size_t i) { ++calls[i]; });
    for (const std::atomic<int>& c : calls) CHECK(c.load() == 1);
  }
}

TEST_CASE("one job runs in index order on the caller's thread") {
  std::vector<std::size_t> order;
  const std::thread::id caller = std::this_thread::get_id();
  run_in_parallel(runs_of(1, {0, 0, 0, 0}), [&](std::size_t i) {
    CHECK(std::this_thread::get_id() == caller);
    order.push_back(i);
  });
  CHECK(order == std::vector<std::size_t>{0, 1, 2, 3});
}

TEST_CASE("runs whose memory fits together run at once") {
  // Each run waits (up to 20 s) until both have started: with two jobs and room for both, both
  // start; run one after another, the first would see only itself.
  std::atomic<int> started{0};
  std::atomic<int> saw_both{0};
  run_in_parallel(runs_of(2, {1, 1}, 2), [&](std::size_t) {
    ++started;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (started.load() < 2 && std::chrono::steady_clock::now() < until) std::this_thread::yield();
    if (started.load() == 2) ++saw_both;
  });
  CHECK(saw_both.load() == 2);
}

TEST_CASE("runs never hold more than the budget together, though a run larger than it runs alone") {
  std::mutex m;
  double held = 0, most = 0;
  const std::vector<double> hold{3, 3, 3, 9, 1, 2, 3, 3};
  run_in_parallel(runs_of(4, hold, 6), [&](std::size_t i) {
    {
      const std::lock_guard lock(m);
      held += hold[i];
      most = std::max(most, held);
      if (hold[i] > 6) CHECK(held == hold[i]);  // alone
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const std::lock_guard lock(m);
    held -= hold[i];
  });
  CHECK(most <= 9);
  CHECK(held == 0);
}

TEST_CASE("the failure of the lowest index is rethrown, and one job stops at the first") {
  for (unsigned jobs : {1u, 3u}) {
    INFO("jobs " << jobs);
    std::atomic<int> ran{0};
    auto run = [&](std::size_t i) {
      ++ran;
      if (i == 2 || i == 4) throw std::runtime_error("run " + std::to_string(i) + " failed");
      std::this_thread::sleep_for(std::chrono::milliseconds(2));  // the failure is known long before the end
    };
    CHECK_THROWS_WITH(run_in_parallel(runs_of(jobs, std::vector<double>(40, 0.0)), run), "run 2 failed");
    if (jobs == 1) CHECK(ran.load() == 3);
    CHECK(ran.load() < 40);  // none taken once a failure is known (the others' runs then in flight: a few)
  }
}

TEST_CASE("jobs: 0 is one per core, never more than the runs") {
  CHECK(parallel_jobs(0, 1000) == std::max(1u, std::thread::hardware_concurrency()));
  CHECK(parallel_jobs(8, 3) == 3);
  CHECK(parallel_jobs(2, 0) == 1);
  CHECK(available_memory_bytes() > 0);  // Linux: /proc/meminfo
}
