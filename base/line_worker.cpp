// base/line_worker.cpp — a child program that answers lines (line_worker.hpp).
#include "base/line_worker.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "base/error.hpp"

namespace collsim {
namespace {

// Child side, between fork and exec: its own group, dies with collsim, pipes as stdin/stdout.
[[noreturn]] void exec_child(const std::vector<std::string>& command, int death_signal, int in, int out) {
  setpgid(0, 0);
  die_with_parent(death_signal);
  dup2(in, STDIN_FILENO);
  dup2(out, STDOUT_FILENO);
  std::vector<char*> argv;
  for (const std::string& a : command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  execvp(argv[0], argv.data());
  std::fprintf(stderr, "collsim: error: cannot start %s: %s\n", argv[0], std::strerror(errno));
  _exit(127);
}

std::string describe_status(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status) == 0 ? "" : fmt::format("exit status {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return fmt::format("killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  return "ended";
}

}  // namespace

LineWorker::LineWorker(const std::vector<std::string>& command, int death_signal) {
  int down[2], up[2];  // collsim -> child, child -> collsim
  if (pipe2(down, O_CLOEXEC) != 0) throw Error("cannot create a pipe to a worker: " + std::string(std::strerror(errno)));
  if (pipe2(up, O_CLOEXEC) != 0) {
    close(down[0]), close(down[1]);
    throw Error("cannot create a pipe from a worker: " + std::string(std::strerror(errno)));
  }
  signal(SIGPIPE, SIG_IGN);  // a worker that died makes send() return false, not end collsim
  std::fflush(nullptr);
  pid_ = fork();
  if (pid_ < 0) {
    for (int fd : {down[0], down[1], up[0], up[1]}) close(fd);
    throw Error("cannot start a worker process: " + std::string(std::strerror(errno)));
  }
  if (pid_ == 0) exec_child(command, death_signal, down[0], up[1]);
  setpgid(pid_, pid_);  // also here, so the group exists before anything signals it
  end_on_interrupt_ = std::make_unique<EndOnInterrupt>(pid_);
  close(down[0]), close(up[1]);
  to_child_ = down[1], from_child_ = up[0];
  fcntl(from_child_, F_SETFL, fcntl(from_child_, F_GETFL) | O_NONBLOCK);
}

LineWorker::~LineWorker() {
  if (pid_ > 0) {
    kill(-pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (to_child_ >= 0) close(to_child_);
  if (from_child_ >= 0) close(from_child_);
}

bool LineWorker::send(const std::string& line) {
  const std::string text = line + '\n';
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = write(to_child_, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    written += std::size_t(n);
  }
  return true;
}

std::vector<std::string> LineWorker::read_lines() {
  std::vector<std::string> lines;
  char buffer[65536];
  for (;;) {
    const ssize_t n = read(from_child_, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;  // EAGAIN: nothing more for now
    if (n == 0) {
      ended_ = true;
      break;
    }
    partial_.append(buffer, std::size_t(n));
  }
  std::size_t start = 0;
  for (std::size_t end; (end = partial_.find('\n', start)) != std::string::npos; start = end + 1)
    lines.push_back(partial_.substr(start, end - start));
  partial_.erase(0, start);
  return lines;
}

std::string LineWorker::finish() {
  if (to_child_ >= 0) close(to_child_), to_child_ = -1;
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  end_on_interrupt_.reset();
  return describe_status(status);
}

}  // namespace collsim
