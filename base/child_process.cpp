// base/child_process.cpp — fork, a pipe for the answer, wait4 for the exit status and memory.
#include "base/child_process.hpp"

#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>

#include <fmt/format.h>

#include "base/error.hpp"

namespace collsim {
namespace {

// A test framework's crash handlers would report a crash of the child as the parent's own:
// the child dies the default way instead, and the parent reads the signal.
void restore_default_signal_handlers() {
  for (int sig : {SIGABRT, SIGSEGV, SIGFPE, SIGILL, SIGBUS, SIGTERM, SIGINT})
    std::signal(sig, SIG_DFL);
}

// A child that outlives its parent (killed by a time limit, say) would simulate for nobody.
void die_with_parent(pid_t parent) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(4);  // the parent died before the line above
}

[[noreturn]] void be_the_child(const std::function<void(int)>& work, int fd, std::FILE* log, pid_t parent) {
  die_with_parent(parent);
  restore_default_signal_handlers();
  if (log != nullptr) ::dup2(::fileno(log), STDERR_FILENO);
  int code = 0;
  try {
    work(fd);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    code = 3;
  } catch (...) {
    std::fprintf(stderr, "unknown exception\n");
    code = 3;
  }
  ::close(fd);
  ::_exit(code);  // no exit handlers: they belong to the parent (and SimGrid's would tear down a dead run)
}

std::string read_all(int fd) {
  std::string out;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n > 0) {
      out.append(buffer, std::size_t(n));
    } else if (n == 0 || errno != EINTR) {
      return out;
    }
  }
}

std::string last_line(std::FILE* log) {
  std::rewind(log);
  std::string text;
  char buffer[1 << 16];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, log)) > 0;) text.append(buffer, n);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
  return text.substr(text.find_last_of('\n') + 1);  // npos + 1 == 0: the whole text
}

}  // namespace

std::string ChildOutcome::failure() const {
  std::string what = exited ? fmt::format("exit status {}", exit_code)
                            : fmt::format("killed by signal {} ({})", signal, strsignal(signal));
  return last_log_line.empty() ? what : what + ": " + last_log_line;
}

void write_all(int fd, const void* bytes, std::size_t size) {
  const char* p = static_cast<const char*>(bytes);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw Error(fmt::format("cannot write to the parent process: {}", std::strerror(errno)));
    p += n;
    size -= std::size_t(n);
  }
}

ChildOutcome run_in_child(const std::function<void(int fd)>& work, bool keep_log) {
  std::FILE* log = keep_log ? std::tmpfile() : nullptr;
  if (keep_log && log == nullptr) throw Error(fmt::format("cannot create a temporary file: {}", std::strerror(errno)));
  int fds[2];
  if (::pipe(fds) != 0) throw Error(fmt::format("cannot create a pipe: {}", std::strerror(errno)));
  std::fflush(nullptr);  // what is buffered now must not be written by both processes
  const auto start = std::chrono::steady_clock::now();
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw Error(fmt::format("cannot fork: {}", std::strerror(errno)));
  if (pid == 0) {
    ::close(fds[0]);
    be_the_child(work, fds[1], log, parent);
  }
  ::close(fds[1]);
  ChildOutcome outcome;
  outcome.output = read_all(fds[0]);
  ::close(fds[0]);
  int status = 0;
  rusage usage{};
  while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  outcome.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  outcome.exited = WIFEXITED(status);
  outcome.exit_code = outcome.exited ? WEXITSTATUS(status) : 0;
  outcome.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  outcome.peak_rss_mib = double(usage.ru_maxrss) / 1024.0;  // KiB on Linux
  if (log != nullptr) {
    outcome.last_log_line = last_line(log);
    std::fclose(log);
  }
  return outcome;
}

}  // namespace collsim
