// sweep/mpi_relay_main.cpp — collsim-sweep-mpi WORKER...: the MPI side of `collsim sweep --mpi K`.
// collsim starts `mpirun -np K collsim-sweep-mpi /path/collsim sweep-worker` and talks to
// rank 0 through mpirun's stdin and stdout (which mpirun carries from any node):
//
//   collsim --"S POINT"--> rank 0 --MPI--> rank S+1 --pipe--> collsim sweep-worker
//   collsim <--"S ROW"---- rank 0 <--MPI-- rank S+1 <--pipe-- (one line per point)
//
// Rank 0 first writes "slots K-1", then relays each point to the rank of its slot and each
// answer back as it comes, so points go to ranks as they free up (collsim keeps the queue).
// Ranks 1..K-1 each run a worker beside them; when it dies they answer "S died WHY" and
// start another (collsim gives the point once more). It links MPI and base/ only: the
// pricing happens in the workers, which link the engines (and SimGrid, whose own MPI_Init
// would shadow the real one here).
// Touches: its stdin and stdout (rank 0), the worker it starts (other ranks).
#include <mpi.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "base/error.hpp"
#include "base/line_worker.hpp"

namespace {

constexpr int kTagPoint = 1, kTagAnswer = 2, kTagStop = 3;
// Probing, not blocking: a blocked MPI_Recv spins a core, which the workers need (the ranks
// are often more than the cores on a test machine).
constexpr auto kIdle = std::chrono::milliseconds(1);

void send_text(const std::string& text, int to, int tag) {
  MPI_Send(text.data(), int(text.size()), MPI_CHAR, to, tag, MPI_COMM_WORLD);
}

// A message's text, if one waits from `from` (MPI_ANY_SOURCE: anyone); sets `source` and `tag`.
bool receive_text(int from, std::string& text, int& source, int& tag) {
  int waiting = 0;
  MPI_Status status;
  MPI_Iprobe(from, MPI_ANY_TAG, MPI_COMM_WORLD, &waiting, &status);
  if (!waiting) return false;
  int size = 0;
  MPI_Get_count(&status, MPI_CHAR, &size);
  text.assign(std::size_t(size), '\0');
  MPI_Recv(text.data(), size, MPI_CHAR, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  source = status.MPI_SOURCE, tag = status.MPI_TAG;
  return true;
}

// Rank 0: lines from collsim to the ranks, answers back, until collsim closes stdin.
void hand_out(int ranks) {
  std::printf("slots %d\n", ranks - 1);
  std::fflush(stdout);
  std::string pending;
  bool open = true;
  while (open) {
    bool idle = true;
    pollfd in{STDIN_FILENO, POLLIN, 0};
    if (poll(&in, 1, 0) > 0) {
      char buffer[65536];
      const ssize_t n = read(STDIN_FILENO, buffer, sizeof buffer);
      if (n <= 0) open = false;
      else pending.append(buffer, std::size_t(n)), idle = false;
      for (std::size_t end; (end = pending.find('\n')) != std::string::npos; pending.erase(0, end + 1)) {
        const std::string line = pending.substr(0, end);
        const std::size_t space = line.find(' ');
        const int slot = std::stoi(line.substr(0, space));
        if (slot >= 0 && slot < ranks - 1) send_text(line.substr(space + 1), slot + 1, kTagPoint);
      }
    }
    std::string answer;
    int source = 0, tag = 0;
    while (receive_text(MPI_ANY_SOURCE, answer, source, tag)) {
      std::printf("%d %s\n", source - 1, answer.c_str());
      idle = false;
    }
    std::fflush(stdout);
    if (idle) std::this_thread::sleep_for(kIdle);
  }
  for (int r = 1; r < ranks; ++r) send_text("", r, kTagStop);
}

// Ranks 1..K-1: each point to the worker beside it, its answer back to rank 0.
void price(const std::vector<std::string>& worker_command) {
  auto worker = std::make_unique<collsim::LineWorker>(worker_command, SIGKILL);
  for (;;) {
    std::string point;
    int source = 0, tag = 0;
    if (!receive_text(0, point, source, tag)) {
      std::this_thread::sleep_for(kIdle);
      continue;
    }
    if (tag == kTagStop) return;
    std::vector<std::string> lines;
    if (worker->send(point))
      while (lines.empty() && !worker->ended()) {
        pollfd from{worker->fd(), POLLIN, 0};
        poll(&from, 1, -1);
        lines = worker->read_lines();
      }
    if (!lines.empty()) {
      send_text(lines.front(), 0, kTagAnswer);
      continue;
    }
    const std::string why = worker->finish();
    send_text("died " + (why.empty() ? std::string("it ended") : why), 0, kTagAnswer);
    worker = std::make_unique<collsim::LineWorker>(worker_command, SIGKILL);
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  try {
    if (argc < 2) throw collsim::Error("usage: collsim-sweep-mpi WORKER... (started by collsim sweep --mpi K)");
    if (rank == 0) hand_out(ranks);
    else price(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "collsim-sweep-mpi: error: rank %d: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Finalize();
  return 0;
}
