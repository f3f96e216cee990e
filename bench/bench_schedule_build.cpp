// bench/bench_schedule_build.cpp — how long building and checking a schedule takes, and
// how much memory it needs: `bench_schedule_build P [ALGO] [BYTES]` (default ring, 1 GiB).
// Prints one line per stage with wall time and the process's peak resident memory (VmHWM),
// so run one P per process; a progress line on stderr past the first second. This is a
// benchmark, not a test: targets live in the README.
#include <algorithm>
#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/progress_line.hpp"
#include "base/units.hpp"
#include "bench/bench_util.hpp"
#include "collectives/algorithm.hpp"
#include "collectives/checker.hpp"

namespace {

double peak_rss_gib() { return collsim::bench::peak_rss_mib() / 1024.0; }
using collsim::bench::seconds;

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc < 2) throw collsim::Error("usage: bench_schedule_build P [ALGO] [BYTES]");
    collsim::ScheduleRequest r;
    r.ranks = static_cast<collsim::Rank>(std::stoul(argv[1]));
    const std::string algo = argc > 2 ? argv[2] : "ring";
    r.bytes = argc > 3 ? collsim::parse_size(argv[3]) : (1ull << 30);
    collsim::Schedule s;
    // Two items on stderr after the first second: the build, then the check (by transfers).
    collsim::ProgressLine line("bench_schedule_build");
    line.update("building " + algo, 0, 2);
    const double build_s = seconds([&] { s = collsim::generate_schedule(algo, r); });
    const double build_peak = peak_rss_gib();
    line.clear();
    fmt::print("{} allreduce P={} N={}: {} transfers, {} dependencies, schedule {:.2f} GiB\n", algo, r.ranks,
               collsim::format_size(r.bytes), s.size(), s.dependency_count(), s.memory_bytes() / double(1ull << 30));
    fmt::print("  build  {:8.2f} s   peak RSS {:.2f} GiB\n", build_s, build_peak);
    collsim::CheckReport report;
    collsim::CheckOptions options;
    options.progress = [&](std::string_view part, std::uint64_t done, std::uint64_t total) {
      const double share = total > 0 ? double(done) / double(total) : 0;
      line.update(fmt::format("checking {} ({:.0f}% of {} transfers)", part, 100 * share, total),
                  1 + std::min(0.99, share), 2);  // the postcondition comes after every transfer: not yet "2 of 2 done"
    };
    const double check_s = seconds([&] { report = collsim::check_schedule(s, options); });
    line.clear();
    fmt::print("  check  {:8.2f} s   peak RSS {:.2f} GiB   ({}, {} elements)\n", check_s, peak_rss_gib(),
               report.exact ? "exact sets" : "signatures", report.elements);
    std::fflush(stdout);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_schedule_build: %s\n", e.what());
    return 2;
  }
}
