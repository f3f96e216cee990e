// base/interrupt.hpp — what collsim does on Ctrl-C (SIGINT) or SIGTERM: it ends the process
// groups it started (SIGTERM, a bounded wait, then SIGKILL), removes the temporary files and
// folders it made, prints "collsim: error: interrupted by SIGINT ..." and exits with 2. A run
// cut short therefore leaves no process and no temporary file behind, and never a partial
// output (outputs are written to a temporary file and renamed, base/atomic_file.hpp).
// Everything the handler does is async-signal-safe: the registry is a fixed table of slots
// filled before they are published, and folders are removed with raw system calls.
// Touches: signal dispositions of SIGINT and SIGTERM, the registered processes and paths.
#pragma once

#include <sys/types.h>

#include <string>

namespace collsim {

// Installs the handler (cli/main.cpp calls it once, first thing).
void install_interrupt_handler();

// While alive, the handler removes `path` (a file, or a folder of files) if collsim is interrupted.
class RemoveOnInterrupt {
 public:
  explicit RemoveOnInterrupt(const std::string& path);
  RemoveOnInterrupt(const RemoveOnInterrupt&) = delete;
  RemoveOnInterrupt& operator=(const RemoveOnInterrupt&) = delete;
  ~RemoveOnInterrupt();

 private:
  int slot_;  // -1: the table was full (the path is then only removed by its owner)
};

// While alive, the handler ends process group `group` (a child that called setpgid(0, 0))
// if collsim is interrupted: SIGTERM, up to kInterruptGrace_s for the group's leader to end,
// then SIGKILL to whatever remains of the group.
class EndOnInterrupt {
 public:
  explicit EndOnInterrupt(pid_t group);
  EndOnInterrupt(const EndOnInterrupt&) = delete;
  EndOnInterrupt& operator=(const EndOnInterrupt&) = delete;
  ~EndOnInterrupt();

 private:
  int slot_;
};

inline constexpr double kInterruptGrace_s = 3.0;

// Makes collsim the parent of every orphan among its descendants (Linux's child subreaper),
// so that the ranks an ended mpirun leaves behind can be waited for: the handler, after ending
// the groups, waits (up to kInterruptGrace_s) until collsim has no child left.
void adopt_orphans();

// Collects the exit of every finished child (orphans adopted after an mpirun ended), so none
// stays a zombie; never waits.
void reap_finished_children();

// The calling process gets `signal_number` when its parent dies, however it dies (Linux's
// parent-death signal, kept across exec; nothing elsewhere). For a child of collsim between
// fork and exec (SIGTERM: mpirun then ends its ranks), and for a worker (SIGKILL).
void die_with_parent(int signal_number);

}  // namespace collsim
