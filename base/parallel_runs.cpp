// base/parallel_runs.cpp — a queue of run indices behind one lock: threads take the next index
// when its memory fits, and the lowest failure wins.
#include "base/parallel_runs.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>

#include "base/file_io.hpp"

namespace collsim {

double available_memory_bytes() {
  return std::atof(system_file_field("/proc/meminfo", "MemAvailable", ':').c_str()) * 1024;  // "N kB"; "unknown": 0
}

unsigned parallel_jobs(unsigned jobs, std::size_t runs) {
  const unsigned wanted = jobs > 0 ? jobs : std::max(1u, std::thread::hardware_concurrency());
  return unsigned(std::min<std::size_t>(wanted, std::max<std::size_t>(runs, 1)));
}

namespace {

// The shared state of the threads: the next run, the memory held by those running, and the
// first failure by index.
class RunQueue {
 public:
  explicit RunQueue(const ParallelRuns& runs) : runs_(runs) {}

  // The next run to start, once it fits beside those running; false when none is left.
  bool take(std::size_t& index) {
    std::unique_lock lock(mutex_);
    fits_.wait(lock, [&] { return done_taking() || running_ == 0 || fits(next_); });
    if (done_taking()) return false;
    index = next_++;
    held_ += runs_.hold_bytes[index];
    ++running_;
    return true;
  }

  void finish(std::size_t index, std::exception_ptr failure) {
    {
      const std::lock_guard lock(mutex_);
      held_ -= runs_.hold_bytes[index];
      --running_;
      if (failure && index < failed_index_) {
        failed_index_ = index;
        failure_ = failure;
      }
    }
    fits_.notify_all();
  }

  void rethrow() const {
    if (failure_) std::rethrow_exception(failure_);
  }

 private:
  bool done_taking() const { return next_ >= runs_.hold_bytes.size() || failure_; }
  bool fits(std::size_t index) const {
    return runs_.budget_bytes <= 0 || held_ + runs_.hold_bytes[index] <= runs_.budget_bytes;
  }

  const ParallelRuns& runs_;
  std::mutex mutex_;
  std::condition_variable fits_;
  std::size_t next_ = 0, running_ = 0;
  double held_ = 0;
  std::size_t failed_index_ = ~std::size_t(0);
  std::exception_ptr failure_;
};

}  // namespace

void run_in_parallel(const ParallelRuns& runs, const std::function<void(std::size_t)>& run) {
  const std::size_t count = runs.hold_bytes.size();
  if (runs.jobs <= 1 || count <= 1) {
    for (std::size_t i = 0; i < count; ++i) run(i);
    return;
  }
  RunQueue queue(runs);
  auto work = [&] {
    for (std::size_t i = 0; queue.take(i);) {
      std::exception_ptr failure;
      try {
        run(i);
      } catch (...) {
        failure = std::current_exception();
      }
      queue.finish(i, failure);
    }
  };
  std::vector<std::thread> threads;
  for (unsigned j = 0; j < std::min<std::size_t>(runs.jobs, count); ++j) threads.emplace_back(work);
  for (std::thread& t : threads) t.join();
  queue.rethrow();
}

}  // namespace collsim
