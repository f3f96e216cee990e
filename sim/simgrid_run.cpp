// sim/simgrid_run.cpp — the SimGrid engine's shared state: channels, successors, rank plans,
// the pairs to route, mailboxes and the outcome (see the header).
#include "sim/simgrid_run.hpp"

#include <algorithm>
#include <unordered_map>

#include <simgrid/s4u.hpp>

#include <fmt/format.h>

namespace collsim::simgrid_engine {
namespace sg4 = simgrid::s4u;

void Run::open_channels(const Topology& topology) {
  std::unordered_map<std::uint64_t, std::uint32_t> index;
  for (TransferId id = 0; id < schedule_.size(); ++id) {
    const Transfer x = schedule_.transfer(id);
    if (x.is_local()) continue;
    const auto [it, fresh] = index.try_emplace((std::uint64_t(x.src) << 32) | x.dst, std::uint32_t(channels_.size()));
    if (fresh) {
      Channel& c = channels_.emplace_back();
      c.src = x.src;
      c.dst = x.dst;
      c.route_begin = std::uint32_t(route_pool_.size());
      topology.route(x.src, x.dst, id, route_pool_);  // as the flow engine: the pair's first transfer
      c.route_length = std::uint32_t(route_pool_.size() - c.route_begin);
    }
    channel_of_[id] = it->second;
    ++channels_[it->second].transfers;
  }
}

void Run::index_successors() {
  successor_begin_.assign(schedule_.size() + 1, 0);
  for (TransferId id = 0; id < schedule_.size(); ++id) {
    const auto deps = schedule_.transfer(id).deps;
    waiting_[id] = std::uint32_t(deps.size());
    for (TransferId d : deps) ++successor_begin_[d + 1];
  }
  for (std::size_t i = 0; i < schedule_.size(); ++i) successor_begin_[i + 1] += successor_begin_[i];
  successors_.resize(successor_begin_.back());
  std::vector<std::uint32_t> fill(successor_begin_.begin(), successor_begin_.end() - 1);
  for (TransferId id = 0; id < schedule_.size(); ++id)
    for (TransferId d : schedule_.transfer(id).deps) successors_[fill[d]++] = id;
}

void Run::plan_ranks() {
  for (std::uint32_t c = 0; c < channels_.size(); ++c) {
    Channel& ch = channels_[c];
    ch.out_slot = std::uint32_t(ranks_[ch.src].out.size());
    ranks_[ch.src].out.push_back(c);
    ch.in_slot = std::uint32_t(ranks_[ch.dst].in.size());
    ranks_[ch.dst].in.push_back(c);
  }
  for (TransferId id = 0; id < schedule_.size(); ++id) {
    const Transfer x = schedule_.transfer(id);
    if (x.deps.empty()) ranks_[x.src].initially_ready.push_back(id);
    if (x.is_local()) {
      ++ranks_[x.src].events;  // its reduction (or, for a copy, its completion)
      continue;
    }
    ++ranks_[x.src].events;                  // the send
    ++ranks_[x.dst].events;                  // the arrival
    if (!done_at_arrival(id)) ++ranks_[x.dst].events;  // the reduction
  }
}

std::vector<std::pair<Rank, Rank>> Run::routed_pairs() const {
  std::vector<std::uint64_t> keys;
  for (const Channel& c : channels_) keys.push_back((std::uint64_t(c.src) << 32) | c.dst);
  for (TransferId from = 0; from < schedule_.size(); ++from)
    for (TransferId to : successors(from)) {
      const Rank p = processor(from, to), o = owner(to);
      if (p != o) keys.push_back((std::uint64_t(p) << 32) | o);
    }
  if (models_memory())
    for (TransferId id = 0; id < schedule_.size(); ++id)
      if (!done_at_arrival(id)) keys.push_back((std::uint64_t(schedule_.transfer(id).dst) << 32) | schedule_.transfer(id).dst);
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  std::vector<std::pair<Rank, Rank>> pairs;
  pairs.reserve(keys.size());
  for (std::uint64_t k : keys) pairs.emplace_back(Rank(k >> 32), Rank(k & 0xFFFFFFFFu));
  return pairs;
}

void Run::hand_over(TransferId id) {
  const Rank to = owner(id);
  inbox_[to].push_back(id);
  if (bell_rung_[to]) return;
  bell_rung_[to] = true;
  static int ring;  // a doorbell carries no data, but SimGrid wants a payload
  doorbells_[to]->put_init(&ring, 0)->detach();
}

void Run::open_mailboxes() {
  for (Channel& c : channels_) c.mailbox = sg4::Mailbox::by_name(fmt::format("channel {}->{}", c.src, c.dst));
  doorbells_.resize(ranks_.size());
  for (Rank r = 0; r < ranks_.size(); ++r) doorbells_[r] = sg4::Mailbox::by_name(fmt::format("doorbell {}", r));
  if (!models_memory()) return;
  memories_.resize(ranks_.size());
  for (Rank r = 0; r < ranks_.size(); ++r) memories_[r] = sg4::Mailbox::by_name(fmt::format("memory {}", r));
}

double Run::last_done_s() const {
  double last = 0;
  for (double done : done_s_) last = std::max(last, done);
  return last;
}

std::vector<double> Run::rank_finish_s() const {
  std::vector<double> finish(ranks_.size(), 0.0);
  for (TransferId id = 0; id < schedule_.size(); ++id) {
    const Transfer x = schedule_.transfer(id);
    finish[x.src] = std::max(finish[x.src], arrival_s_[id]);
    finish[x.dst] = std::max(finish[x.dst], done_s_[id]);
  }
  finish.resize(schedule_.info().ranks);  // the ranks', not the switch reducers'
  return finish;
}

}  // namespace collsim::simgrid_engine
