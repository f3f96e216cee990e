// execute/launcher.cpp — worker processes with a deadline (see the header).
#include "execute/launcher.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/file_io.hpp"
#include "base/interrupt.hpp"
#include "execute/backends.hpp"
#include "execute/progress.hpp"

namespace collsim {
namespace fs = std::filesystem;

namespace {

#ifndef COLLSIM_MPIEXEC
#define COLLSIM_MPIEXEC "mpirun"
#endif

// The folder for temporary files: TMPDIR, else /tmp, as the user would name it in a fix.
fs::path temporary_root() {
  const char* tmpdir = std::getenv("TMPDIR");
  return tmpdir && *tmpdir ? fs::path(tmpdir) : fs::path("/tmp");
}

// A private folder for the job, its answer and the ranks' progress; removed when the run
// ends, however it ends (Ctrl-C included: base/interrupt.hpp).
struct TempDir {
  TempDir() {
    const fs::path root = temporary_root();
    std::string pattern = (root / "collsim-run-XXXXXX").string();
    if (!mkdtemp(pattern.data()))
      throw Error(fmt::format("cannot create a temporary folder in '{}' ({}): {} (set TMPDIR to a writable folder)",
                              root.string(), std::getenv("TMPDIR") ? "TMPDIR" : "the default", system_reason()));
    path = pattern;
    cleanup = std::make_unique<RemoveOnInterrupt>(path.string());
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  fs::path path;
  std::unique_ptr<RemoveOnInterrupt> cleanup;
};

fs::path worker_binary(const BackendEntry& backend, const LaunchOptions& launch) {
  const fs::path dir = launch.worker_dir.empty() ? fs::read_symlink("/proc/self/exe").parent_path() : fs::path(launch.worker_dir);
  const fs::path path = dir / backend.worker;
  if (fs::exists(path)) return path;
  throw Error(fmt::format("backend '{}' is not built: {}", backend.name, backend.missing_because));
}

std::vector<std::string> worker_command(const LaunchRequest& r, const fs::path& job, const fs::path& out) {
  const BackendEntry& backend = find_backend(r.backend);
  const std::vector<std::string> program{worker_binary(backend, r.launch).string(), job.string(), out.string()};
  if (backend.one_process) return program;
  return mpirun_command(r.ranks, program, r.launch);
}

// Child: own process group (so a deadline or Ctrl-C can end it and everything it started),
// ended when collsim dies, output to the log file.
[[noreturn]] void exec_child(const std::vector<std::string>& command, const fs::path& log) {
  setpgid(0, 0);
  die_with_parent(SIGTERM);
  std::FILE* file = std::fopen(log.c_str(), "w");
  if (file) {
    dup2(fileno(file), STDOUT_FILENO);
    dup2(fileno(file), STDERR_FILENO);
  }
  std::vector<char*> argv;
  for (const std::string& a : command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  execvp(argv[0], argv.data());
  std::fprintf(stderr, "collsim-launcher: error: cannot start %s\n", argv[0]);
  _exit(127);
}

// Terminates the group politely (mpirun then ends its ranks), then for good.
void end_group(pid_t pid) {
  kill(-pid, SIGTERM);
  for (int i = 0; i < 300; ++i) {
    if (waitpid(pid, nullptr, WNOHANG) == pid) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(-pid, SIGKILL);
  waitpid(pid, nullptr, WNOHANG);
}

// Without --timeout: a minute, plus a second for every 50 MB the ranks move in one iteration
// of the largest case (P N bytes), so a slow 4 GiB run is given minutes, not called hung.
double default_timeout_s(const LaunchRequest& r) {
  std::uint64_t largest = r.job.value("max_bytes", std::uint64_t(0));
  if (const auto sizes = r.job.find("sizes"); sizes != r.job.end() && sizes->is_array())
    for (const nlohmann::json& size : *sizes) largest = std::max(largest, size.get<std::uint64_t>());
  return 60.0 + double(r.ranks) * double(largest) / 50e6;
}

// Waits for the child; returns its wait status, or nothing once no rank has moved forward
// for `timeout_s` (a slow run that keeps reporting progress is never cut off).
std::optional<int> wait_while_alive(pid_t pid, double timeout_s, const fs::path& progress_folder) {
  using Clock = std::chrono::steady_clock;
  const auto timeout = std::chrono::duration<double>(timeout_s);
  auto last_move = Clock::now(), last_look = Clock::now();
  std::uint64_t beats = 0;
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    const auto now = Clock::now();
    if (now - last_look > std::chrono::milliseconds(250)) {
      last_look = now;
      std::uint64_t total = 0;
      for (const RankProgress& p : read_progress(progress_folder)) total += p.beats;
      if (total != beats) beats = total, last_move = now;
    }
    if (now - last_move > timeout) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return status;
}

// mpirun's own complaint, when it failed before any worker could (a bad option, an unusable
// hostfile): the first paragraph of its output, without Open MPI's dashed frame.
std::string mpirun_complaint(const std::vector<std::string>& lines) {
  std::string paragraph;
  for (const std::string& line : lines) {
    const bool frame = line.find_first_not_of("- \t") == std::string::npos;
    if (frame && !paragraph.empty()) break;
    if (frame || line.rfind("Type '", 0) == 0) continue;
    paragraph += (paragraph.empty() ? "" : " ") + line;
  }
  return paragraph;
}

// "rank 4", or where process 4 emulates a switch reducer (from `first_switch` on, 0: none),
// "rank 4 (the process emulating switch reducer 0)".
std::string process_name(const std::string& rank, Rank first_switch) {
  const bool whole = !rank.empty() && rank.find_first_not_of("0123456789") == std::string::npos && rank.size() < 10;
  if (first_switch == 0 || !whole || std::stoul(rank) < first_switch) return "rank " + rank;
  return fmt::format("rank {} (the process emulating switch reducer {})", rank, std::stoul(rank) - first_switch);
}

// Which rank mpirun says died, from its report ("Process name: [[5636,1],1]" and "Exit
// code: 3", or "process rank 1 with PID ... exited on signal 9"), or "" when it names none.
std::string dead_rank(const std::vector<std::string>& lines, Rank first_switch) {
  std::string rank, code;
  for (const std::string& line : lines) {
    if (line.find("exited on signal") != std::string::npos) return line.substr(line.find_first_not_of(' '));
    if (const std::size_t at = line.find("Process name: [["); at != std::string::npos) {
      const std::size_t comma = line.rfind(','), close = line.rfind(']');
      if (comma != std::string::npos && close != std::string::npos && close > comma)
        rank = line.substr(comma + 1, close - comma - 1);
    }
    if (const std::size_t at = line.find("Exit code:"); at != std::string::npos)
      code = line.substr(line.find_first_not_of(' ', at + 10));
  }
  if (rank.empty()) return "";
  const std::string who = process_name(rank, first_switch);
  return code.empty() ? fmt::format("{} ended", who) : fmt::format("{} exited with code {}", who, code);
}

// The worker's own error line if it wrote one, else the rank mpirun says died, else what
// mpirun itself said.
std::string failure_message(const fs::path& log, int status, Rank first_switch) {
  std::ifstream file(log);
  std::vector<std::string> lines;
  for (std::string line; std::getline(file, line);) {
    for (const char* prefix : {"collsim-mpi-worker: error: ", "collsim-gpu-worker: error: ", "collsim-launcher: error: "}) {
      const std::size_t at = line.find(prefix);
      if (at != std::string::npos) return line.substr(at + std::string_view(prefix).size());
    }
    lines.push_back(line);
  }
  const std::string how = WIFSIGNALED(status) ? fmt::format("killed by signal {}", WTERMSIG(status))
                                              : fmt::format("exit status {}", WEXITSTATUS(status));
  if (const std::string rank = dead_rank(lines, first_switch); !rank.empty())
    return fmt::format("a rank died: {} (the workers ended with {})", rank, how);
  if (const std::string complaint = mpirun_complaint(lines); !complaint.empty())
    return fmt::format("the workers did not start ({}): {} (check --mpirun-arg and --hostfile)", how, complaint);
  return fmt::format("a rank died: the workers ended with {}", how);
}

}  // namespace

std::vector<std::string> mpirun_command(Rank ranks, const std::vector<std::string>& program,
                                        const LaunchOptions& launch) {
  std::vector<std::string> command{COLLSIM_MPIEXEC, "-np", std::to_string(ranks), "--bind-to", "none"};
  if (launch.hostfile.empty()) {
    // one node: shared memory and loopback only, so no network is needed or probed
    command.insert(command.end(), {"--mca", "btl", "self,vader", "--mca", "pml", "ob1"});
    if (ranks > std::max(1u, std::thread::hardware_concurrency())) command.push_back("--oversubscribe");
  } else {
    command.insert(command.end(), {"--hostfile", launch.hostfile});  // its slots decide the placement
  }
  if (geteuid() == 0) command.push_back("--allow-run-as-root");
  command.insert(command.end(), launch.mpirun_args.begin(), launch.mpirun_args.end());
  command.insert(command.end(), program.begin(), program.end());
  return command;
}

nlohmann::json launch_worker(const LaunchRequest& request) {
  const BackendEntry& backend = find_backend(request.backend);
  if (request.ranks < 1) throw Error("--ranks must be at least 1");
  if (!request.launch.hostfile.empty()) read_text_file(request.launch.hostfile, "hostfile");  // readable, not a folder
  if (!request.launch.hostfile.empty() && backend.one_process)
    throw Error(fmt::format("backend '{}' runs in one process on this node: --hostfile needs mpi or mpi+cuda", request.backend));
  TempDir dir;
  const fs::path job = dir.path / "job.json", out = dir.path / "out.json", log = dir.path / "log.txt";
  nlohmann::json job_with_folder = request.job;
  job_with_folder["progress_folder"] = dir.path.string();
  write_text_file(job, job_with_folder.dump() + '\n', "worker job");
  const std::vector<std::string> command = worker_command(request, job, out);
  std::fflush(nullptr);
  adopt_orphans();  // ranks outliving their mpirun become ours, to be waited for
  const pid_t pid = fork();
  if (pid < 0) throw Error("cannot fork the worker");
  if (pid == 0) exec_child(command, log);
  setpgid(pid, pid);  // also here, so the group exists before anything signals it
  const EndOnInterrupt end_on_interrupt(pid);
  const double timeout_s = request.launch.timeout_s > 0 ? request.launch.timeout_s : default_timeout_s(request);
  const std::optional<int> status = wait_while_alive(pid, timeout_s, dir.path);
  if (!status) {
    const std::string stall = describe_stall(read_progress(dir.path), request.ranks);
    end_group(pid);
    reap_finished_children();
    throw Error(fmt::format("{}: no rank made progress for {:g} s: {}; it hung or died (if the run is only slow, raise "
                            "--timeout, the seconds allowed without progress)",
                            request.backend, timeout_s, stall));
  }
  reap_finished_children();
  if (!WIFEXITED(*status) || WEXITSTATUS(*status) != 0) throw Error(failure_message(log, *status, request.first_switch));
  std::ifstream answer(out);
  if (!answer) throw Error(fmt::format("{} workers ended without writing their results", request.backend));
  return nlohmann::json::parse(answer);
}

}  // namespace collsim
