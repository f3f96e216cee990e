// base/line_worker.hpp — a child program that answers lines: collsim writes one line to its
// stdin, it writes one line back on its stdout (the sweep's workers, and the MPI relay that
// stands for several of them). The child runs in its own process group (so Ctrl-C ends it
// and whatever it started: base/interrupt.hpp) and dies with collsim. Reading never blocks:
// the caller polls fd() and takes whole lines with read_lines().
// Touches: the child process it starts, the two pipes to it, and SIGPIPE (ignored, so that
// writing to a worker that died fails instead of ending collsim).
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "base/interrupt.hpp"

namespace collsim {

class LineWorker {
 public:
  // Starts `command` (argv[0] looked up on PATH). `death_signal` is what the child gets if
  // collsim dies: SIGKILL for a worker, SIGTERM for mpirun (which then ends its ranks).
  // Throws Error when it cannot fork.
  LineWorker(const std::vector<std::string>& command, int death_signal);
  LineWorker(const LineWorker&) = delete;
  LineWorker& operator=(const LineWorker&) = delete;
  ~LineWorker();  // ends the child's group (SIGKILL) and waits for it

  // Writes `line` and a line break; false when the child no longer reads (it died).
  bool send(const std::string& line);
  // The descriptor to poll for reading.
  int fd() const { return from_child_; }
  // The whole lines the child has written since the last call (without their breaks). Sets
  // ended() once the child closed its output (it exited or died).
  std::vector<std::string> read_lines();
  bool ended() const { return ended_; }
  // Closes the child's stdin (it ends once it has answered) and waits for it: "exit status
  // N" or "killed by signal N (NAME)", or "" for a clean exit.
  std::string finish();
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int to_child_ = -1, from_child_ = -1;
  bool ended_ = false;
  std::string partial_;  // a line not yet ended by its break
  std::unique_ptr<EndOnInterrupt> end_on_interrupt_;
};

}  // namespace collsim
