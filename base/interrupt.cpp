// base/interrupt.cpp — the SIGINT/SIGTERM handler and its registry (see the header). Only
// async-signal-safe calls run in the handler: kill, waitpid, nanosleep, open, getdents64,
// unlinkat, write, _exit.
#include "base/interrupt.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <atomic>
#include <climits>
#include <cstring>
#include <ctime>

namespace collsim {
namespace {

enum SlotState : int { kFree = 0, kFilling = 1, kPublished = 2 };

struct PathSlot {
  std::atomic<int> state{kFree};
  char path[PATH_MAX];
};
struct GroupSlot {
  std::atomic<int> state{kFree};
  pid_t group = 0;
};

PathSlot g_paths[64];
GroupSlot g_groups[16];

template <typename Slot>
int claim(Slot* slots, int count) {
  for (int i = 0; i < count; ++i) {
    int expected = kFree;
    if (slots[i].state.compare_exchange_strong(expected, kFilling)) return i;
  }
  return -1;
}

void write_stderr(const char* text) {
  const ssize_t ignored = write(STDERR_FILENO, text, std::strlen(text));
  (void)ignored;
}

void sleep_ms(long ms) {
  timespec t{0, ms * 1000000L};
  nanosleep(&t, nullptr);
}

// Removes `name` in folder `dir`: a file, or a folder whose entries are removed first
// (depth-bounded; collsim's temporary folders are flat).
void remove_at(int dir, const char* name, int depth) {
  if (unlinkat(dir, name, 0) == 0 || depth == 0) return;
  const int fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  alignas(8) char buffer[4096];
  for (;;) {
    const long n = syscall(SYS_getdents64, fd, buffer, sizeof buffer);
    if (n <= 0) break;
    for (long at = 0; at < n;) {
      struct Entry { ino64_t ino; off64_t off; unsigned short reclen; unsigned char type; char name[1]; };
      const auto* e = reinterpret_cast<const Entry*>(buffer + at);
      at += e->reclen;
      if (std::strcmp(e->name, ".") == 0 || std::strcmp(e->name, "..") == 0) continue;
      remove_at(fd, e->name, depth - 1);
    }
  }
  close(fd);
  unlinkat(dir, name, AT_REMOVEDIR);
}

// Ends every registered group: SIGTERM, a bounded wait for each leader, SIGKILL to the rest.
void end_groups() {
  bool any = false;
  for (GroupSlot& g : g_groups)
    if (g.state.load() == kPublished) kill(-g.group, SIGTERM), any = true;
  if (!any) return;
  const long steps = long(kInterruptGrace_s * 100);
  for (long step = 0; step < steps; ++step) {
    bool alive = false;
    for (GroupSlot& g : g_groups)
      if (g.state.load() == kPublished && waitpid(g.group, nullptr, WNOHANG) == 0) alive = true;
    if (!alive) break;
    sleep_ms(10);
  }
  for (GroupSlot& g : g_groups)
    if (g.state.load() == kPublished) kill(-g.group, SIGKILL), waitpid(g.group, nullptr, WNOHANG);
}

// Waits, up to the grace time, until no child is left (the adopted ranks die with their mpirun).
void wait_for_children() {
  const long steps = long(kInterruptGrace_s * 100);
  for (long step = 0; step < steps; ++step) {
    const pid_t pid = waitpid(-1, nullptr, WNOHANG);
    if (pid < 0) return;  // ECHILD: none left
    if (pid == 0) sleep_ms(10);
  }
}

extern "C" void on_interrupt(int signal_number) {
  end_groups();
  wait_for_children();
  for (PathSlot& p : g_paths)
    if (p.state.load() == kPublished) remove_at(AT_FDCWD, p.path, 4);
  write_stderr(signal_number == SIGINT ? "collsim: error: interrupted by SIGINT"
                                       : "collsim: error: interrupted by SIGTERM");
  write_stderr(": ended the processes it started and removed its temporary files; nothing was written\n");
  _exit(2);
}

}  // namespace

void install_interrupt_handler() {
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  sigaddset(&action.sa_mask, SIGINT);  // a second Ctrl-C waits for the first one's cleanup
  sigaddset(&action.sa_mask, SIGTERM);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

RemoveOnInterrupt::RemoveOnInterrupt(const std::string& path) : slot_(-1) {
  if (path.size() >= PATH_MAX) return;
  slot_ = claim(g_paths, int(std::size(g_paths)));
  if (slot_ < 0) return;
  std::memcpy(g_paths[slot_].path, path.c_str(), path.size() + 1);
  g_paths[slot_].state.store(kPublished);
}

RemoveOnInterrupt::~RemoveOnInterrupt() {
  if (slot_ >= 0) g_paths[slot_].state.store(kFree);
}

EndOnInterrupt::EndOnInterrupt(pid_t group) : slot_(claim(g_groups, int(std::size(g_groups)))) {
  if (slot_ < 0) return;
  g_groups[slot_].group = group;
  g_groups[slot_].state.store(kPublished);
}

EndOnInterrupt::~EndOnInterrupt() {
  if (slot_ >= 0) g_groups[slot_].state.store(kFree);
}

void adopt_orphans() {
#ifdef __linux__
  prctl(PR_SET_CHILD_SUBREAPER, 1);
#endif
}

void reap_finished_children() {
  while (waitpid(-1, nullptr, WNOHANG) > 0) {
  }
}

void die_with_parent(int signal_number) {
#ifdef __linux__
  prctl(PR_SET_PDEATHSIG, signal_number);
#else
  (void)signal_number;
#endif
}

}  // namespace collsim
