// execute/loopback.cpp — the in-process adversarial transport (see the header).
#include "execute/loopback.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <random>

#include <fmt/format.h>

#include "base/error.hpp"
#include "execute/rank_program.hpp"
#include "execute/reference_data.hpp"

namespace collsim {
namespace {

struct PostedSend {
  Rank rank;
  std::uint32_t op;
  TransferId transfer;
  std::span<const float> data;
};
struct PostedReceive {
  Rank rank;
  std::uint32_t op;
  std::span<float> into;
};

// Sends are buffered at a random moment after they are posted (then they complete, like an
// eager MPI send); a receive completes once its message is buffered and a random pick
// delivers it.
class Mailroom {
 public:
  class RankTransport : public Transport {
   public:
    RankTransport(Mailroom& room, Rank rank) : room_(room), rank_(rank) {}
    void post_send(std::uint32_t op, const RankOp& r, std::span<const float> data) override {
      room_.sends_.push_back({rank_, op, r.transfer, data});
    }
    void post_receive(std::uint32_t op, const RankOp& r, std::span<float> into) override {
      room_.receives_.emplace(r.transfer, PostedReceive{rank_, op, into});
    }

   private:
    Mailroom& room_;
    Rank rank_;
  };

  std::vector<PostedSend> sends_;
  std::map<TransferId, PostedReceive> receives_;
  std::map<TransferId, std::vector<float>> buffered_;
};

}  // namespace

LoopbackResult run_loopback(const Schedule& schedule, std::uint64_t seed, const std::vector<Faults>& faults) {
  const Rank endpoints = schedule.info().endpoints();  // the switch reducers run as ranks too
  const std::vector<RankProgram> programs = build_rank_programs(schedule);
  LoopbackResult result;
  Mailroom room;
  std::vector<std::unique_ptr<Mailroom::RankTransport>> transports;
  std::vector<RankExecution> executions;
  result.buffers.resize(endpoints);
  executions.reserve(endpoints);
  for (Rank r = 0; r < endpoints; ++r) {
    result.buffers[r].resize(schedule.info().address_space());
    fill_inputs(schedule.info(), r, result.buffers[r]);
    transports.push_back(std::make_unique<Mailroom::RankTransport>(room, r));
    executions.emplace_back(programs[r], result.buffers[r], r < faults.size() ? faults[r] : Faults{});
  }
  for (Rank r = 0; r < endpoints; ++r) executions[r].start(*transports[r]);
  std::mt19937_64 random(seed);
  while (!room.sends_.empty() || !room.buffered_.empty()) {
    // Deliverable: buffered messages whose receive is posted.
    std::vector<TransferId> deliverable;
    for (const auto& [id, data] : room.buffered_)
      if (room.receives_.contains(id)) deliverable.push_back(id);
    const std::size_t choices = room.sends_.size() + deliverable.size();
    if (choices == 0) break;
    const std::size_t pick = std::uniform_int_distribution<std::size_t>(0, choices - 1)(random);
    if (pick < room.sends_.size()) {  // the send reads its buffer now and completes
      const PostedSend send = room.sends_[pick];
      room.sends_.erase(room.sends_.begin() + std::ptrdiff_t(pick));
      room.buffered_[send.transfer].assign(send.data.begin(), send.data.end());
      executions[send.rank].complete(send.op, *transports[send.rank]);
      continue;
    }
    const TransferId id = deliverable[pick - room.sends_.size()];
    const PostedReceive receive = room.receives_.at(id);
    std::ranges::copy(room.buffered_.at(id), receive.into.begin());
    room.buffered_.erase(id);
    room.receives_.erase(id);
    ++result.deliveries;
    executions[receive.rank].complete(receive.op, *transports[receive.rank]);
  }
  for (Rank r = 0; r < endpoints; ++r)
    if (!executions[r].finished())
      throw Error(fmt::format("loopback execution of {} stalled: {} finished {} of {} operations",
                              schedule.info().algorithm,
                              schedule.info().is_reducer(r) ? reducer_name(schedule.info(), r) : fmt::format("rank {}", r),
                              executions[r].completed(), executions[r].operations()));
  return result;
}

}  // namespace collsim
