// bench/bench_util.hpp — what every benchmark measures: wall time of a step and the
// process's peak resident memory (VmHWM, so run one case per process).
#pragma once

#include <chrono>
#include <fstream>
#include <string>

namespace collsim::bench {

inline double peak_rss_mib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;  // kB -> MiB
  return -1;
}

template <class F>
double seconds(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace collsim::bench
