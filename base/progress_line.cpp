// base/progress_line.cpp — see the header.
#include "base/progress_line.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

namespace collsim {
namespace {

constexpr double kQuietSeconds = 1.0;   // nothing before this: most commands end sooner
constexpr double kPipeEverySeconds = 5.0;  // a log gets a line this often, not a flood

double seconds_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// COLLSIM_PROGRESS: 0 never, 1 every update, anything else (or unset) the default.
ProgressLine::Mode mode_from_environment() {
  const char* value = std::getenv("COLLSIM_PROGRESS");
  const std::string v = value ? value : "";
  if (v == "0") return ProgressLine::Mode::never;
  if (v == "1") return ProgressLine::Mode::every_update;
  return ProgressLine::Mode::quiet_first;
}

}  // namespace

std::string format_duration(double seconds) {
  if (seconds < 10) return fmt::format("{:.1f} s", seconds);
  if (seconds < 60) return fmt::format("{:.0f} s", seconds);
  const long whole = std::lround(seconds);
  if (whole < 3600) return fmt::format("{} min {:02} s", whole / 60, whole % 60);
  return fmt::format("{} h {:02} min", whole / 3600, (whole % 3600) / 60);
}

std::string time_left(double elapsed_s, double done, std::size_t total) {
  // What is left, at the pace so far (items differ in cost, so this is a rough guide), once
  // enough is done to have a pace: the first moments of a run (building its schedule before
  // any transfer is done) would put the estimate hours off.
  if (total == 0 || done < kEtaAfterShare * double(total) || double(total) <= done) return "";
  return fmt::format(", about {} left", format_duration(elapsed_s * (double(total) - done) / done));
}

ProgressLine::ProgressLine(std::string command)
    : command_(std::move(command)),
      terminal_(isatty(STDERR_FILENO) == 1),
      mode_(mode_from_environment()),
      start_(Clock::now()),
      last_print_(start_) {}

ProgressLine::~ProgressLine() { clear(); }

void ProgressLine::update(const std::string& now, double done, std::size_t total) {
  if (mode_ == Mode::never) return;
  const Clock::time_point t = Clock::now();
  const double elapsed = seconds_between(start_, t);
  const bool throttled = elapsed < kQuietSeconds || (!terminal_ && drawn_ && seconds_between(last_print_, t) < kPipeEverySeconds);
  if (mode_ == Mode::quiet_first && throttled) return;
  const std::string remaining = time_left(elapsed, done, total);
  const std::string line = fmt::format("collsim {}: {} of {} done, now {}; {} elapsed{}", command_,
                                       static_cast<std::size_t>(done), total, now, format_duration(elapsed), remaining);
  if (terminal_) fmt::print(stderr, "\r\033[K{}", line);
  else fmt::print(stderr, "{}\n", line);
  std::fflush(stderr);
  last_print_ = t;
  drawn_ = true;
}

void ProgressLine::note(const std::string& line) {
  clear();
  fmt::print(stderr, "{}\n", line);
  std::fflush(stderr);
}

void ProgressLine::clear() {
  if (!drawn_ || !terminal_) return;
  std::fputs("\r\033[K", stderr);
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace collsim
