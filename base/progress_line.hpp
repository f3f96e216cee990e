// base/progress_line.hpp — "how far along" for long commands and benchmarks, on stderr
// only (stdout stays the table, CSV or JSON a user pipes on). Silent for the first second, so quick commands print
// nothing extra; then one line rewritten in place on a terminal, or a line every few seconds
// into a pipe or file. Each line: what runs now, done / total, elapsed and, once 5% is done,
// estimated remaining.
// COLLSIM_PROGRESS=0 in the environment silences it (scripts that compare stderr);
// COLLSIM_PROGRESS=1 prints every update at once (tests, logs that want each step).
// Touches stderr and the clock, nothing else. It lives in the lowest folder (beside units and
// error) so that both the collsim program (cli/) and the benchmarks (bench/, which must not
// link cli/) can use it; the libraries themselves never print: they take callbacks.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace collsim {

class ProgressLine {
 public:
  enum class Mode { quiet_first, never, every_update };  // COLLSIM_PROGRESS unset, 0, 1
  explicit ProgressLine(std::string command);
  ~ProgressLine();  // clears a terminal line it drew
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // `done` of `total` items finished (a fraction: part of the current one); `now` names it.
  void update(const std::string& now, double done, std::size_t total);
  // A line that stays ("collsim validate: calibrating on 2 ranks"), printed whatever the mode,
  // below a terminal line it clears first (the next update draws it again).
  void note(const std::string& line);
  // Erases a terminal line it drew (before a program prints on stdout to the same terminal).
  void clear();

 private:
  using Clock = std::chrono::steady_clock;
  std::string command_;
  bool terminal_;
  Mode mode_;
  Clock::time_point start_, last_print_;
  bool drawn_ = false;
};

// ", about 12 s left" after `elapsed_s` with `done` of `total` items finished, at the pace so
// far; "" until kEtaAfterShare of the work is done (a pace measured on less is mostly the
// run's warm-up: its schedule being built) or when nothing is left.
inline constexpr double kEtaAfterShare = 0.05;
std::string time_left(double elapsed_s, double done, std::size_t total);

// "12 s", "3 min 05 s": a duration for people.
std::string format_duration(double seconds);

}  // namespace collsim
