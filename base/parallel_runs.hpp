// base/parallel_runs.hpp — independent runs on a few threads, within a memory budget: a
// prediction of several algorithms and sizes gives each core one run at a time, and never holds
// more memory at once than the machine has free (two 16,384-rank schedules of 5 GB each do not
// start side by side on a machine with 8 GB).
// Touches: the threads it starts (joined before it returns) and /proc/meminfo.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace collsim {

// The memory free to take now (MemAvailable in /proc/meminfo), in bytes; 0 where it cannot tell.
double available_memory_bytes();

// One thread per core where `jobs` is 0; never more threads than runs.
unsigned parallel_jobs(unsigned jobs, std::size_t runs);

struct ParallelRuns {
  unsigned jobs = 1;                // threads (parallel_jobs)
  std::vector<double> hold_bytes;   // per run, its estimated peak memory (0: little)
  double budget_bytes = 0;          // memory the runs may hold together; 0: no limit
};

// Calls run(i) for every i < hold_bytes.size(), on `jobs` threads, each run starting in index
// order once the memory it holds fits beside those running (a run alone always starts). The
// first exception of the lowest index is rethrown after the runs started have ended; no run of
// a higher index starts after one has failed. With one job: in index order on this thread.
void run_in_parallel(const ParallelRuns& runs, const std::function<void(std::size_t)>& run);

}  // namespace collsim
