// base/child_process.hpp — run a piece of work in a forked child and collect what it sends
// back, how it ended, how long it took and its peak memory. The simgrid engine needs this
// (SimGrid allows one simulation per process and never frees its global state), and the
// benchmarks use it to measure each engine's memory on its own.
#pragma once

#include <functional>
#include <string>

namespace collsim {

struct ChildOutcome {
  std::string output;        // everything the child wrote to its pipe
  bool exited = false;       // exited normally (rather than killed by a signal)
  int exit_code = 0;         // when exited
  int signal = 0;            // when killed
  double wall_s = 0;         // fork to exit
  double peak_rss_mib = 0;   // the child's peak resident memory (wait4's ru_maxrss)
  std::string last_log_line; // the last non-empty line the child wrote to stderr, when kept

  bool succeeded() const { return exited && exit_code == 0; }
  // "exit status 3: <last log line>" or "killed by signal 6 (Aborted): <last log line>".
  std::string failure() const;
};

// Forks; the child runs work(fd) with fd the write end of a pipe, then exits with 0, or
// with 3 after printing an exception's message to stderr. The child never returns into the
// caller's code and skips exit handlers (it ends with _exit). With keep_log, the child's
// stderr goes to a temporary file whose last line the outcome keeps; otherwise it is the
// parent's. Throws Error when the process cannot be forked.
ChildOutcome run_in_child(const std::function<void(int fd)>& work, bool keep_log);

// Writes all of `bytes` to fd (the child's side of the pipe).
void write_all(int fd, const void* bytes, std::size_t size);

}  // namespace collsim
