// sim/simgrid_simulation.cpp — a schedule on SimGrid, one actor per rank.
//
// Each rank's actor sends the transfers whose source it is and reduces the ones that end on it:
//   ready:   all dependencies done. The rank that sees a dependency complete hands each
//            dependent on: to itself, or, when the dependent is another rank's to send, into that
//            rank's inbox, ringing its doorbell (a 0-byte message: it arrives within the instant);
//   delay:   alpha + route latency, a timer: the timeout of the actor's wait_any;
//   channel: one mailbox per (src, dst) pair with at most one message in flight: a transfer
//            whose delay is over while the previous one of its pair still drains waits for it;
//   drain:   put_async on the pair's mailbox, whose receiver always has a get posted (and is its
//            permanent receiver): the message starts at once, and CM02 shares the links max-min;
//   arrival: the receiver's get completes (the sender's put completes in the same instant);
//   reduce:  an Exec of `bytes` flops on the receiver's host (speed 1/gamma), one at a time in
//            order of arrival; the transfer is done when it ends.
// Within one instant a rank takes, as the flow engine does: ends (sends, arrivals, its
// reduction), then starts, then local reductions, each kind by transfer id.
#include "sim/simgrid_simulation.hpp"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <queue>
#include <string>
#include <unordered_map>

#include <simgrid/s4u.hpp>

#include <fmt/format.h>

#include "sim/cost_rule.hpp"
#include "sim/simgrid_platform.hpp"

namespace collsim::simgrid_engine {
namespace {
namespace sg4 = simgrid::s4u;

constexpr std::uint32_t kLocal = ~0u;  // the channel of a local transfer: none

// SimGrid's events closer than this are one instant (the flow engine's: 1e-12 relative).
constexpr double kTimingPrecision_s = 1e-14;

// A timer counts as due when the actor wakes this close to it: SimGrid ends a timeout up to its
// timing precision early, and `now + timeout` rounds.
double due_slack(double now) { return 2 * kTimingPrecision_s + now * 1e-15; }

// Mailbox payloads name transfers; SimGrid needs a non-null pointer to send.
void* as_payload(TransferId id) { return reinterpret_cast<void*>(std::uintptr_t(id) + 1); }
TransferId from_payload(const void* payload) { return TransferId(reinterpret_cast<std::uintptr_t>(payload) - 1); }

// A (src, dst) rank pair: an in-order channel with a mailbox of its own.
struct Channel {
  Rank src = 0, dst = 0;
  std::uint32_t route_begin = 0, route_length = 0;  // its links in the run's pool
  RouteCostCache cost;       // by the cost rule, as the flow engine: the start-up is the delay
  std::uint32_t transfers = 0;
  std::uint32_t out_slot = 0, in_slot = 0;  // its index among the sender's / receiver's channels
  sg4::Mailbox* mailbox = nullptr;
};

struct RankPlan {
  std::vector<std::uint32_t> out, in;       // channels it sends on, receives from
  std::vector<TransferId> initially_ready;  // its transfers without dependencies, by id
  std::size_t events = 0;                   // sends, arrivals and reductions it must see end
};

// What all actors share (SimGrid runs them one at a time: no locks). Built before the engine.
class Run {
 public:
  Run(const Schedule& schedule, const Topology& topology, double gamma)
      : schedule_(schedule), network_(topology.network), gamma_(gamma), channel_of_(schedule.size(), kLocal),
        waiting_(schedule.size()), arrival_s_(schedule.size(), 0.0), done_s_(schedule.size(), 0.0), ranks_(schedule.info().ranks),
        inbox_(schedule.info().ranks), bell_rung_(schedule.info().ranks, false) {
    open_channels(topology);
    index_successors();
    plan_ranks();
  }

  const Schedule& schedule() const { return schedule_; }
  const RankPlan& plan(Rank r) const { return ranks_[r]; }
  Channel& channel(std::uint32_t c) { return channels_[c]; }
  std::uint32_t channel_of(TransferId id) const { return channel_of_[id]; }
  // The delay of a network transfer before its bytes move: alpha and its route's latency.
  double startup_s(TransferId id) {
    Channel& c = channels_[channel_of_[id]];
    const std::span<const LinkId> route{route_pool_.data() + c.route_begin, c.route_length};
    return c.cost.at(network_, route, schedule_.transfer_bytes(id)).startup_s;
  }
  std::span<const TransferId> successors(TransferId id) const {
    return {successors_.data() + successor_begin_[id], successors_.data() + successor_begin_[id + 1]};
  }
  std::uint32_t& waiting(TransferId id) { return waiting_[id]; }
  Rank owner(TransferId id) const { return schedule_.transfer(id).src; }

  // A copy is done when it arrives; a reduction when the receiver has reduced it (at once
  // with gamma 0). Local transfers arrive when they are ready.
  bool done_at_arrival(TransferId id) const { return schedule_.transfer(id).op == Op::copy || gamma_ == 0; }

  // The rank that hands the dependency `from` -> `to` on: one that sees `from` complete.
  // Both ends see a network copy arrive; the sender takes the edges to its own transfers.
  Rank processor(TransferId from, TransferId to) const {
    const Transfer x = schedule_.transfer(from);
    if (!x.is_local() && done_at_arrival(from) && owner(to) == x.src) return x.src;
    return x.dst;
  }

  // Every pair that needs a route: the channels, and each (processor, owner) doorbell pair.
  std::vector<std::pair<Rank, Rank>> routed_pairs() const;

  void open_mailboxes();
  sg4::Mailbox* doorbell(Rank r) const { return doorbells_[r]; }

  // `id`, another rank's to send, is ready: into its owner's inbox, and ring unless rung.
  void hand_over(TransferId id) {
    const Rank to = owner(id);
    inbox_[to].push_back(id);
    if (bell_rung_[to]) return;
    bell_rung_[to] = true;
    static int ring;  // a doorbell carries no data, but SimGrid wants a payload
    doorbells_[to]->put_init(&ring, 0)->detach();
  }
  std::vector<TransferId> take_inbox(Rank r) {
    bell_rung_[r] = false;
    return std::exchange(inbox_[r], {});
  }

  void arrived(TransferId id, double now) { arrival_s_[id] = now; }
  void completed(TransferId id, double now) {
    done_s_[id] = now;
    ++completed_;
  }
  Outcome outcome(bool deadlock) const;

 private:
  void open_channels(const Topology& topology);
  void index_successors();
  void plan_ranks();

  const Schedule& schedule_;
  const Network& network_;
  double gamma_;
  std::vector<Channel> channels_;
  std::vector<LinkId> route_pool_;         // the channels' routes
  std::vector<std::uint32_t> channel_of_;  // per transfer
  std::vector<std::uint32_t> successor_begin_;
  std::vector<TransferId> successors_;
  std::vector<std::uint32_t> waiting_;     // dependencies not yet done
  std::vector<double> arrival_s_, done_s_;
  std::uint64_t completed_ = 0;
  std::vector<RankPlan> ranks_;
  std::vector<std::vector<TransferId>> inbox_;  // per rank: handed over, not yet taken
  std::vector<bool> bell_rung_;
  std::vector<sg4::Mailbox*> doorbells_;
};

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
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  std::vector<std::pair<Rank, Rank>> pairs;
  pairs.reserve(keys.size());
  for (std::uint64_t k : keys) pairs.emplace_back(Rank(k >> 32), Rank(k & 0xFFFFFFFFu));
  return pairs;
}

void Run::open_mailboxes() {
  for (Channel& c : channels_) c.mailbox = sg4::Mailbox::by_name(fmt::format("channel {}->{}", c.src, c.dst));
  doorbells_.resize(ranks_.size());
  for (Rank r = 0; r < ranks_.size(); ++r) doorbells_[r] = sg4::Mailbox::by_name(fmt::format("doorbell {}", r));
}

Outcome Run::outcome(bool deadlock) const {
  Outcome out;
  out.completed = completed_;
  out.deadlock = deadlock;
  out.rank_finish_s.assign(ranks_.size(), 0.0);
  for (TransferId id = 0; id < schedule_.size(); ++id) {
    const Transfer x = schedule_.transfer(id);
    out.rank_finish_s[x.src] = std::max(out.rank_finish_s[x.src], arrival_s_[id]);
    out.rank_finish_s[x.dst] = std::max(out.rank_finish_s[x.dst], done_s_[id]);
    out.time_s = std::max(out.time_s, done_s_[id]);
  }
  return out;
}

// One rank: its sends (timers, then channels), its arrivals and its reductions.
class RankActor {
 public:
  RankActor(Run& run, Rank rank)
      : run_(run), rank_(rank), plan_(run.plan(rank)), out_(plan_.out.size()), in_(plan_.in.size()),
        outstanding_(plan_.events) {}

  void operator()() {
    open();
    for (TransferId id : plan_.initially_ready) became_ready(id, 0.0);
    while (outstanding_ > 0) {
      const double now = sg4::Engine::get_clock();
      start_due(now);
      reduce_ready_locals(now);
      start_next_reduction();
      if (outstanding_ > 0) wait_and_take_ends();
    }
    close();
  }

 private:
  struct Timer {
    double due_s;
    TransferId id;
    bool operator>(const Timer& o) const { return due_s != o.due_s ? due_s > o.due_s : id > o.id; }
  };
  struct Outgoing {
    sg4::CommPtr comm;  // the message in flight, if any
    TransferId sending = 0;
    std::deque<TransferId> queued;  // delay over, waiting for the channel
  };
  struct Incoming {
    sg4::CommPtr comm;  // the get posted for the channel's next message
    void* payload = nullptr;
    std::uint32_t left = 0;
  };
  enum class Source : std::uint8_t { sent, arrived, reduced, doorbell };
  struct Waited {
    Source source;
    std::uint32_t slot;
  };

  // This rank receives on its channels and its doorbell: as their permanent receiver, with a
  // get always posted, so that a message starts the moment it is put.
  void open() {
    const sg4::ActorPtr self = sg4::Actor::self();
    for (std::uint32_t i = 0; i < in_.size(); ++i) {
      Channel& c = run_.channel(plan_.in[i]);
      c.mailbox->set_receiver(self);
      in_[i].left = c.transfers;
      post_get(i);
    }
    run_.doorbell(rank_)->set_receiver(self);
    doorbell_ = run_.doorbell(rank_)->get_async<void>(&doorbell_payload_);
  }

  void close() {
    doorbell_->cancel();
    run_.doorbell(rank_)->set_receiver(nullptr);
    for (std::uint32_t c : plan_.in) run_.channel(c).mailbox->set_receiver(nullptr);
  }

  void post_get(std::uint32_t slot) {
    Incoming& in = in_[slot];
    in.comm = in.left > 0 ? run_.channel(plan_.in[slot]).mailbox->get_async<void>(&in.payload) : nullptr;
  }

  // Network transfers wait out their delay; local ones are reductions, taken this instant.
  void became_ready(TransferId id, double now) {
    const std::uint32_t c = run_.channel_of(id);
    if (c == kLocal) {
      ready_locals_.push_back(id);
    } else {
      timers_.push({now + run_.startup_s(id), id});
    }
  }

  // Channels freed this instant pass on to their queued transfers first (they were due
  // earlier), then timers due now start or queue, in order of due time and id.
  void start_due(double now) {
    for (Outgoing& o : out_)
      if (!o.comm && !o.queued.empty()) {
        const TransferId id = o.queued.front();
        o.queued.pop_front();
        send(id);
      }
    while (!timers_.empty() && timers_.top().due_s <= now + due_slack(now)) {
      const TransferId id = timers_.top().id;
      timers_.pop();
      Outgoing& o = out_[run_.channel(run_.channel_of(id)).out_slot];
      if (o.comm) {
        o.queued.push_back(id);
      } else {
        send(id);
      }
    }
  }

  void send(TransferId id) {
    Outgoing& o = out_[run_.channel(run_.channel_of(id)).out_slot];
    o.sending = id;
    o.comm = run_.channel(run_.channel_of(id)).mailbox->put_async(as_payload(id), run_.schedule().transfer_bytes(id));
  }

  // Local transfers ready this instant, by id, join the reduction queue (those done at once,
  // copies or with gamma 0, may make more ready).
  void reduce_ready_locals(double now) {
    while (!ready_locals_.empty()) {
      std::vector<TransferId> batch = std::exchange(ready_locals_, {});
      std::sort(batch.begin(), batch.end());
      for (TransferId id : batch) {
        run_.arrived(id, now);
        if (run_.done_at_arrival(id)) {
          --outstanding_;
          complete(id, now);
        } else {
          reductions_.push_back(id);
        }
      }
    }
  }

  void start_next_reduction() {
    if (reduction_ || reductions_.empty()) return;
    reducing_ = reductions_.front();
    reductions_.pop_front();
    reduction_ = sg4::this_actor::exec_async(double(run_.schedule().transfer_bytes(reducing_)));
  }

  // Blocks until something of this rank ends or a timer is due, then takes every end of the
  // instant, in the flow engine's order.
  void wait_and_take_ends() {
    activities_.clear();
    waited_.clear();
    for (std::uint32_t i = 0; i < out_.size(); ++i)
      if (out_[i].comm) add_waited(out_[i].comm, {Source::sent, i});
    for (std::uint32_t i = 0; i < in_.size(); ++i)
      if (in_[i].comm) add_waited(in_[i].comm, {Source::arrived, i});
    if (reduction_) add_waited(reduction_, {Source::reduced, 0});
    add_waited(doorbell_, {Source::doorbell, 0});
    const double now = sg4::Engine::get_clock();
    const double timeout = timers_.empty() ? -1.0 : std::max(0.0, timers_.top().due_s - now);
    // The rest of the instant's ends with a zero timeout: 3.32's test_any leaves what it finds
    // on the actor's list of activities, which then grows with every transfer.
    std::vector<Waited> ended;
    for (ssize_t i = sg4::Activity::wait_any_for(activities_, timeout); i >= 0;
         i = activities_.empty() ? -1 : sg4::Activity::wait_any_for(activities_, 0.0)) {
      ended.push_back(waited_[std::size_t(i)]);
      activities_.erase(activities_.begin() + i);
      waited_.erase(waited_.begin() + i);
    }
    take_ends(ended, sg4::Engine::get_clock());
  }

  void add_waited(const sg4::ActivityPtr& activity, Waited what) {
    activities_.push_back(activity);
    waited_.push_back(what);
  }

  void take_ends(std::vector<Waited>& ended, double now) {
    std::sort(ended.begin(), ended.end(), [this](const Waited& a, const Waited& b) {
      return a.source != b.source ? a.source < b.source : id_of(a) < id_of(b);
    });
    for (const Waited& w : ended) {
      switch (w.source) {
        case Source::sent: sent(w.slot, now); break;
        case Source::arrived: arrived(w.slot, now); break;
        case Source::reduced: reduced(now); break;
        case Source::doorbell: doorbell_rang(now); break;
      }
    }
  }

  TransferId id_of(const Waited& w) const {
    switch (w.source) {
      case Source::sent: return out_[w.slot].sending;
      case Source::arrived: return from_payload(in_[w.slot].payload);
      default: return 0;
    }
  }

  // The sender's side of an arrival: the channel is free; hand on the copy's dependents it owns.
  void sent(std::uint32_t slot, double now) {
    Outgoing& o = out_[slot];
    o.comm = nullptr;
    --outstanding_;
    if (run_.done_at_arrival(o.sending)) hand_on(o.sending, now);
  }

  void arrived(std::uint32_t slot, double now) {
    const TransferId id = from_payload(in_[slot].payload);
    --in_[slot].left;
    post_get(slot);
    --outstanding_;
    run_.arrived(id, now);
    if (run_.done_at_arrival(id)) {
      complete(id, now);
    } else {
      reductions_.push_back(id);
    }
  }

  void reduced(double now) {
    reduction_ = nullptr;
    --outstanding_;
    complete(reducing_, now);
  }

  void doorbell_rang(double now) {
    doorbell_ = run_.doorbell(rank_)->get_async<void>(&doorbell_payload_);
    std::vector<TransferId> ready = run_.take_inbox(rank_);
    std::sort(ready.begin(), ready.end());
    for (TransferId id : ready) became_ready(id, now);
  }

  void complete(TransferId id, double now) {
    run_.completed(id, now);
    hand_on(id, now);
  }

  // The dependency edges from `id` this rank processes: a dependent whose last dependency
  // this was is ready now, here or at its owner.
  void hand_on(TransferId id, double now) {
    for (TransferId next : run_.successors(id)) {
      if (run_.processor(id, next) != rank_ || --run_.waiting(next) > 0) continue;
      if (run_.owner(next) == rank_) {
        became_ready(next, now);
      } else {
        run_.hand_over(next);
      }
    }
  }

  Run& run_;
  Rank rank_;
  const RankPlan& plan_;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<>> timers_;
  std::vector<Outgoing> out_;  // by the channel's out_slot
  std::vector<Incoming> in_;   // by the channel's in_slot
  std::vector<TransferId> ready_locals_;
  std::deque<TransferId> reductions_;
  sg4::ExecPtr reduction_;
  TransferId reducing_ = 0;
  sg4::CommPtr doorbell_;
  void* doorbell_payload_ = nullptr;
  std::size_t outstanding_;
  std::vector<sg4::ActivityPtr> activities_;  // scratch of wait_and_take_ends
  std::vector<Waited> waited_;
};

// SimGrid's command line: quiet unless verbose; small actor stacks (a rank's loop is shallow,
// and 8 MiB each adds up over thousands of ranks).
std::vector<std::string> engine_arguments(bool verbose) {
  std::vector<std::string> args = {"collsim-simgrid", "--cfg=contexts/stack-size:1024"};
  if (!verbose) args.emplace_back("--log=root.thres:critical");
  return args;
}

}  // namespace

Outcome simulate(const Schedule& schedule, const Topology& topology, double gamma_s_per_byte, bool verbose) {
  Run run(schedule, topology, gamma_s_per_byte);
  std::vector<std::string> args = engine_arguments(verbose);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int argc = int(args.size());
  // Never destroyed: the process exits right after the run, and tearing down a deadlocked
  // simulation would only fail.
  auto* engine = new sg4::Engine(&argc, argv.data());
  select_network_model(kTimingPrecision_s);
  // Reductions run at 1/gamma bytes per second: an Exec of `bytes` flops takes bytes * gamma.
  const double host_speed = gamma_s_per_byte > 0 ? 1.0 / gamma_s_per_byte : 1.0;
  const std::vector<std::pair<Rank, Rank>> pairs = run.routed_pairs();
  const std::vector<sg4::Host*> hosts = build_platform(topology, schedule.info().ranks, host_speed, pairs);
  run.open_mailboxes();
  bool deadlock = false;
  sg4::Engine::on_deadlock_cb([&deadlock] { deadlock = true; });
  for (Rank r = 0; r < schedule.info().ranks; ++r)
    sg4::Actor::create(fmt::format("rank{}", r), hosts[r], [&run, r] { RankActor(run, r)(); });
  engine->run();
  return run.outcome(deadlock);
}

}  // namespace collsim::simgrid_engine
