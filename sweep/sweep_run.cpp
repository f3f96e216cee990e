// sweep/sweep_run.cpp — handing points to workers, retrying, keeping the table (sweep_run.hpp).
#include "sweep/sweep_run.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "base/atomic_file.hpp"
#include "base/error.hpp"
#include "base/file_io.hpp"
#include "base/interrupt.hpp"
#include "base/line_worker.hpp"
#include "base/units.hpp"
#include "sweep/sweep_report.hpp"
#include "sweep/sweep_results.hpp"
#include "sweep/sweep_worker.hpp"
#include "topologies/cluster_config.hpp"

namespace collsim {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// How often the table is rewritten while rows arrive: a kill loses at most this much work.
constexpr double kWriteEvery_s = 0.5;
// The relay's lines: "slots N" first, then "SLOT ROW" or "SLOT died WHY" (mpi_relay_main.cpp).
constexpr std::string_view kSlotsWord = "slots ";
constexpr std::string_view kDiedWord = "died ";

// A process that prices points: a local worker (one slot) or the MPI relay (a slot per rank
// that prices, its lines prefixed with the slot).
struct Channel {
  std::unique_ptr<LineWorker> process;
  bool relay = false;
};

struct Slot {
  std::size_t channel = 0;
  int id = 0;                        // the relay's slot number (local workers: 0)
  std::optional<std::size_t> point;  // the point it prices now
  std::size_t priced = 0;
};

// Larger clusters first (their points take longest), then larger sizes; a cluster's points
// stay together, so a worker builds each cluster once. Clusters the reader refuses go last.
std::deque<std::size_t> largest_first(const Sweep& sweep, const std::vector<std::size_t>& todo) {
  std::map<std::string, std::uint32_t> ranks;  // by cluster YAML
  for (std::size_t i : todo) {
    const std::string& yaml = sweep.points[i].cluster_yaml;
    if (ranks.count(yaml)) continue;
    try {
      ranks[yaml] = parse_cluster_config(yaml, "sweep point").ranks;
    } catch (const Error&) {
      ranks[yaml] = 0;
    }
  }
  std::vector<std::size_t> order = todo;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const SweepPoint &p = sweep.points[a], &q = sweep.points[b];
    const std::uint32_t ra = ranks[p.cluster_yaml], rb = ranks[q.cluster_yaml];
    if (ra != rb) return ra > rb;
    if (p.value != q.value) return p.value < q.value;
    return p.bytes > q.bytes;
  });
  return {order.begin(), order.end()};
}

std::vector<std::string> mpi_command(const SweepOptions& o, const fs::path& bin) {
  const fs::path relay = bin / "collsim-sweep-mpi";
  if (!fs::exists(relay))
    throw Error(fmt::format("--mpi needs {} (built where MPI is found: apt-get install libopenmpi-dev, then rebuild)",
                            relay.string()));
  if (!o.launch.hostfile.empty()) read_text_file(o.launch.hostfile, "hostfile");  // readable, not a folder
  return mpirun_command(o.mpi_ranks, {relay.string(), (bin / "collsim").string(), "sweep-worker"}, o.launch);
}

// After mpirun ended abnormally, its ranks (adopted: adopt_orphans) end too; waits for them, a
// bounded while, so that none is left behind as a process or a zombie.
void wait_for_orphans() {
  const auto deadline = Clock::now() + std::chrono::duration<double>(kInterruptGrace_s);
  while (Clock::now() < deadline) {
    const pid_t pid = waitpid(-1, nullptr, WNOHANG);
    if (pid < 0) return;  // no child left
    if (pid == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

class Dispatcher {
 public:
  Dispatcher(const Sweep& sweep, const SweepOptions& o, std::map<std::size_t, SweepRow>& rows, SweepOutcome& outcome)
      : sweep_(sweep), o_(o), rows_(rows), outcome_(outcome) {
    bin_ = o.launch.worker_dir.empty() ? fs::read_symlink("/proc/self/exe").parent_path() : fs::path(o.launch.worker_dir);
  }

  void run(std::deque<std::size_t> queue) {
    queue_ = std::move(queue);
    todo_ = queue_.size();
    start_channels();
    while (!queue_.empty() || busy() > 0) {
      hand_out();
      wait_for_lines();
      report_progress();
      if (Clock::now() - last_write_ > std::chrono::duration<double>(kWriteEvery_s)) write_table();
    }
    write_table();
  }

 private:
  void start_channels() {
    if (o_.mpi_ranks > 0) {
      if (o_.mpi_ranks < 2) throw Error("--mpi needs at least 2 ranks: rank 0 hands out the points, the others price them");
      adopt_orphans();  // ranks outliving a killed mpirun become ours, to be waited for
      channels_.push_back({std::make_unique<LineWorker>(mpi_command(o_, bin_), SIGTERM), true});
      return;  // its slots arrive with its first line
    }
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t count = std::min<std::size_t>(o_.workers > 0 ? o_.workers : cores, std::max<std::size_t>(1, todo_));
    for (std::size_t c = 0; c < count; ++c) {
      channels_.push_back({start_worker(), false});
      slots_.push_back({c, 0, std::nullopt, 0});
    }
  }

  std::unique_ptr<LineWorker> start_worker() {
    const fs::path collsim = bin_ / "collsim";
    if (!fs::exists(collsim)) throw Error(fmt::format("the sweep's workers run {}, which is missing", collsim.string()));
    return std::make_unique<LineWorker>(std::vector<std::string>{collsim.string(), "sweep-worker"}, SIGKILL);
  }

  std::size_t busy() const {
    return std::size_t(std::count_if(slots_.begin(), slots_.end(), [](const Slot& s) { return s.point.has_value(); }));
  }

  void hand_out() {
    for (Slot& slot : slots_) {
      if (slot.point || queue_.empty() || !channels_[slot.channel].process) continue;
      slot.point = queue_.front();
      queue_.pop_front();
      const Channel& ch = channels_[slot.channel];
      const std::string line = point_line(sweep_.points[*slot.point]);
      ch.process->send(ch.relay ? fmt::format("{} {}", slot.id, line) : line);  // a dead one shows as its end
    }
  }

  void wait_for_lines() {
    std::vector<pollfd> fds;
    for (const Channel& ch : channels_) fds.push_back({ch.process ? ch.process->fd() : -1, POLLIN, 0});
    if (poll(fds.data(), fds.size(), 200) <= 0) return;
    for (std::size_t c = 0; c < channels_.size(); ++c) {
      if (!channels_[c].process || fds[c].revents == 0) continue;
      for (const std::string& line : channels_[c].process->read_lines()) take_line(c, line);
      if (channels_[c].process->ended()) channel_ended(c);
    }
  }

  Slot* slot_of(std::size_t channel, int id) {
    for (Slot& s : slots_)
      if (s.channel == channel && s.id == id) return &s;
    return nullptr;
  }

  void take_line(std::size_t c, std::string line) {
    int id = 0;
    if (channels_[c].relay) {
      if (line.rfind(kSlotsWord, 0) == 0) {
        const int count = std::stoi(line.substr(kSlotsWord.size()));
        for (int s = 0; s < count; ++s) slots_.push_back({c, s, std::nullopt, 0});
        return;
      }
      const std::size_t space = line.find(' ');
      if (space == std::string::npos || line.empty() || !std::isdigit(static_cast<unsigned char>(line[0])))
        return;  // mpirun's own output
      id = std::stoi(line.substr(0, space));
      line.erase(0, space + 1);
    }
    Slot* slot = slot_of(c, id);
    if (!slot || !slot->point) return;
    if (line.rfind(kDiedWord, 0) == 0) return worker_died(*slot, line.substr(kDiedWord.size()));
    SweepRow row = row_from_line(line);
    if (row.index != *slot->point) throw Error(fmt::format("a worker answered point {} for {}", row.index, *slot->point));
    keep(row);
    slot->point.reset();
    ++slot->priced;
  }

  void keep(const SweepRow& row) {
    rows_[row.index] = row;
    ++done_;
    if (row.status == RowStatus::ok) ++outcome_.priced;
    if (row.status == RowStatus::refused) ++outcome_.refused;
    if (row.status == RowStatus::failed) ++outcome_.failed;
    if (row.status != RowStatus::ok && outcome_.first_refusal.empty())
      outcome_.first_refusal = fmt::format("{}: {}", describe_point(sweep_, sweep_.points[row.index]), row.error);
  }

  // A point whose worker died: given again once, then marked failed (nothing else is lost).
  void worker_died(Slot& slot, const std::string& why) {
    const std::size_t point = *slot.point;
    slot.point.reset();
    if (++deaths_[point] < 2) {
      queue_.push_front(point);
      return;
    }
    SweepRow row;
    row.index = point, row.hash = sweep_.points[point].hash, row.status = RowStatus::failed;
    row.error = fmt::format("its worker died twice on it ({})", why);
    keep(row);
  }

  void channel_ended(std::size_t c) {
    const std::string why = channels_[c].process->finish();
    const bool relay = channels_[c].relay;
    channels_[c].process.reset();
    for (Slot& slot : slots_)
      if (slot.channel == c && slot.point) worker_died(slot, why.empty() ? "it ended" : why);
    if (relay) {
      wait_for_orphans();
      write_table();
      throw Error(fmt::format("the MPI job ended ({}) with {} of {} points left: run the same command with --resume to "
                              "finish them",
                              why.empty() ? "exit status 0" : why, todo_ - done_, todo_));
    }
    if (!queue_.empty()) channels_[c].process = start_worker();
  }

  void report_progress() {
    if (!o_.on_progress) return;
    const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
    std::string line = fmt::format("{:.3g} points/s, {} workers", elapsed > 0 ? double(done_) / elapsed : 0.0, slots_.size());
    if (o_.mpi_ranks > 0) {
      line += "; per rank:";
      for (const Slot& s : slots_) line += fmt::format(" {}", s.priced);
    }
    o_.on_progress(outcome_.reused + done_, sweep_.points.size(), line);
  }

  void write_table() {
    AtomicFile file(o_.out / kResultsFile, "sweep results");
    file.write(results_csv(sweep_, rows_));
    file.commit();
    last_write_ = Clock::now();
  }

  const Sweep& sweep_;
  const SweepOptions& o_;
  std::map<std::size_t, SweepRow>& rows_;
  SweepOutcome& outcome_;
  fs::path bin_;
  std::vector<Channel> channels_;
  std::vector<Slot> slots_;
  std::deque<std::size_t> queue_;
  std::map<std::size_t, int> deaths_;
  std::size_t todo_ = 0, done_ = 0;
  Clock::time_point start_ = Clock::now(), last_write_ = Clock::now();
};

// DIR: created when missing; refused when it holds other files, or results without --resume.
void prepare_folder(const SweepOptions& o) {
  check_report_folder(o.out, sweep_files(), "sweep folder");
  check_writable(o.out / kResultsFile, "sweep results");
  if (!o.resume && fs::exists(o.out / kResultsFile))
    throw Error(fmt::format("{} holds a sweep's results: give --resume to continue it, or another -o",
                            o.out.string()));
}

}  // namespace

std::vector<std::string> sweep_files() {
  return {kResultsFile, kWinnersFile, kScalingFile, kSummaryFile};
}

std::string describe_point(const Sweep& sweep, const SweepPoint& point) {
  std::string out;
  for (std::size_t a = 0; a < sweep.axes.size(); ++a)
    out += fmt::format("{}={} ", sweep.axes[a].name, sweep.axes[a].labels[point.value[a]]);
  return out + fmt::format("{} {} {} {}", point.collective, point.engine, point.algorithm, format_size(point.bytes));
}

SweepOutcome run_sweep(const Sweep& sweep, const SweepOptions& o) {
  const auto start = Clock::now();
  prepare_folder(o);
  std::map<std::size_t, SweepRow> rows;
  if (o.resume && fs::exists(o.out / kResultsFile)) rows = read_results(sweep, o.out / kResultsFile);
  SweepOutcome outcome;
  outcome.points = sweep.points.size();
  outcome.reused = rows.size();
  std::vector<std::size_t> todo;
  for (const SweepPoint& p : sweep.points)
    if (!rows.count(p.index)) todo.push_back(p.index);
  if (!todo.empty()) Dispatcher(sweep, o, rows, outcome).run(largest_first(sweep, todo));
  write_text_file(o.out / kResultsFile, results_csv(sweep, rows), "sweep results");
  outcome.refused = outcome.failed = 0;  // of the whole table, reused rows too
  outcome.first_refusal.clear();
  for (const auto& [index, row] : rows) {
    outcome.refused += row.status == RowStatus::refused;
    outcome.failed += row.status == RowStatus::failed;
    if (row.status != RowStatus::ok && outcome.first_refusal.empty())
      outcome.first_refusal = fmt::format("{}: {}", describe_point(sweep, sweep.points[index]), row.error);
  }
  write_sweep_report(sweep, rows, o.out);
  outcome.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  return outcome;
}

}  // namespace collsim
