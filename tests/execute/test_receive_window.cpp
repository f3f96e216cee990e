// tests/execute/test_receive_window.cpp — a rank posts its receives from one peer one at a
// time, in list order (execute/rank_execution.cpp, issue_ready), and that cannot deadlock
// even where a send completes only once its receive is posted (MPI's rendezvous, which the
// loopback's buffered sends do not model). A transport here matches sends and receives only
// when both are posted, delivers a random pair of them each step, and counts every rank's
// posted receives per peer after each step. In-network schedules run too, their switches as ranks.
#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <random>
#include <utility>

#include "execute/execution_plan.hpp"
#include "execute/rank_execution.hpp"
#include "execute/rank_program.hpp"
#include "execute/reference_data.hpp"

using namespace collsim;

namespace {

struct Posted {
  Rank rank;
  std::uint32_t op;
  std::span<const float> send;
  std::span<float> receive;
};

// Sends and receives wait for each other: a transfer moves only when both ends are posted.
class Rendezvous {
 public:
  class RankTransport : public Transport {
   public:
    RankTransport(Rendezvous& room, Rank rank) : room_(room), rank_(rank) {}
    void post_send(std::uint32_t op, const RankOp& r, std::span<const float> data) override {
      room_.sends_[r.transfer] = {rank_, op, data, {}};
    }
    void post_receive(std::uint32_t op, const RankOp& r, std::span<float> into) override {
      room_.receives_[r.transfer] = {rank_, op, {}, into};
      ++room_.receives_posted_[{rank_, r.peer}];
      room_.most_posted_ = std::max(room_.most_posted_, room_.receives_posted_[{rank_, r.peer}]);
    }

   private:
    Rendezvous& room_;
    Rank rank_;
  };

  std::map<TransferId, Posted> sends_, receives_;
  std::map<std::pair<Rank, Rank>, int> receives_posted_;  // (rank, peer): posted, not complete
  int most_posted_ = 0;
};

struct Outcome {
  bool finished = true;
  int most_receives_per_peer = 0;
  std::vector<std::vector<float>> buffers;
};

Outcome run_rendezvous(const Schedule& s, std::uint64_t seed) {
  const std::vector<RankProgram> programs = build_rank_programs(s);
  Rendezvous room;
  Outcome out;
  std::vector<std::unique_ptr<Rendezvous::RankTransport>> transports;
  std::vector<RankExecution> executions;
  const Rank endpoints = s.info().endpoints();  // ranks, then emulated switches
  executions.reserve(endpoints);
  out.buffers.resize(endpoints);
  for (Rank r = 0; r < endpoints; ++r) {
    out.buffers[r].resize(s.info().address_space());
    fill_inputs(s.info(), r, out.buffers[r]);
    transports.push_back(std::make_unique<Rendezvous::RankTransport>(room, r));
    executions.emplace_back(programs[r], out.buffers[r]);
  }
  for (Rank r = 0; r < endpoints; ++r) executions[r].start(*transports[r]);
  std::mt19937_64 random(seed);
  for (;;) {
    std::vector<TransferId> matched;
    for (const auto& [id, send] : room.sends_)
      if (room.receives_.contains(id)) matched.push_back(id);
    if (matched.empty()) break;
    const TransferId id = matched[std::uniform_int_distribution<std::size_t>(0, matched.size() - 1)(random)];
    const Posted send = room.sends_.at(id), receive = room.receives_.at(id);
    room.sends_.erase(id);
    room.receives_.erase(id);
    std::ranges::copy(send.send, receive.receive.begin());
    --room.receives_posted_[{receive.rank, send.rank}];
    executions[send.rank].complete(send.op, *transports[send.rank]);
    executions[receive.rank].complete(receive.op, *transports[receive.rank]);
  }
  for (const RankExecution& e : executions) out.finished = out.finished && e.finished();
  out.most_receives_per_peer = room.most_posted_;
  return out;
}

}  // namespace

TEST_CASE("receives are posted one per peer at a time, and rendezvous sends never deadlock on it") {
  for (Rank p : {2u, 3u, 5u, 8u}) {
    ExecutionRequest request;
    request.ranks = p;
    request.algorithms = {"all"};
    request.segments = 4;
    // nodes of 2 where they divide P, and switches that reduce: the in-network algorithms
    // too, their switches emulated as ranks
    request.ranks_per_node = p % 2 == 0 ? 2 : 0;
    request.switches_reduce = {.node = true, .fabric = true};
    for (const std::string& algorithm : expand_algorithms(request)) {
      const Schedule s = executed_schedule(request, algorithm, 4 * 4096);
      for (std::uint64_t seed : {1u, 2u}) {
        INFO(algorithm << " P=" << p << " seed " << seed);
        const Outcome out = run_rendezvous(s, seed);
        REQUIRE(out.finished);
        CHECK(out.most_receives_per_peer == 1);
        for (Rank r = 0; r < p; ++r) CHECK_FALSE(find_mismatch(s.info(), r, out.buffers[r]));
      }
    }
  }
}
