// sim/simgrid_rank_actor.cpp — a rank's actor: timers, channels, arrivals, reductions (the
// rules are in the header).
#include "sim/simgrid_rank_actor.hpp"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

#include <simgrid/s4u.hpp>

namespace collsim::simgrid_engine {
namespace {
namespace sg4 = simgrid::s4u;

// A timer counts as due when the actor wakes this close to it: SimGrid ends a timeout up to its
// timing precision early, and `now + timeout` rounds.
double due_slack(double now) { return 2 * kTimingPrecision_s + now * 1e-15; }

// Mailbox payloads name transfers; SimGrid needs a non-null pointer to send.
void* as_payload(TransferId id) { return reinterpret_cast<void*>(std::uintptr_t(id) + 1); }
TransferId from_payload(const void* payload) { return TransferId(reinterpret_cast<std::uintptr_t>(payload) - 1); }

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

  // Every transfer waits for the host to issue it; then network transfers wait out their
  // delay, and local ones, reductions, are taken that instant (this one, or a timer's).
  void became_ready(TransferId id, double now) {
    const double issued = std::max(now, run_.issued_s(id));
    if (run_.channel_of(id) != kLocal) return timers_.push({issued + run_.startup_s(id), id});
    if (issued > now) return timers_.push({issued, id});
    ready_locals_.push_back(id);
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
      if (run_.channel_of(id) == kLocal) {  // issued now: reduced with this instant's locals
        ready_locals_.push_back(id);
        continue;
      }
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
    o.comm = run_.channel(run_.channel_of(id)).mailbox->put_init(as_payload(id), run_.schedule().transfer_bytes(id));
    if (const double bound = run_.rate_bound_Bps(id); bound > 0) o.comm->set_rate(bound);
    o.comm->start();
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
    if (run_.models_memory()) return reduce_through_memory();
    reduction_ = sg4::this_actor::exec_async(run_.reduction_flops(reducing_));
  }

  // The ranks' memory modelled: the reduction's bytes go from this rank to itself across its
  // memory link, at most at its reduction unit's pace, sharing the link max-min with the
  // rank's transfers. The get is posted first, so the message starts at once.
  void reduce_through_memory() {
    sg4::Mailbox* memory = run_.memory(rank_);
    memory_get_ = memory->get_async<void>(&memory_payload_);
    const sg4::CommPtr put = memory->put_init(as_payload(reducing_), run_.reduction_memory_bytes(reducing_));
    if (const double bound = run_.reduction_rate_bound_Bps(rank_, reducing_); bound > 0) put->set_rate(bound);
    put->start();
    reduction_ = put;
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
    memory_get_ = nullptr;  // the other end of the same message: it ended too
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
  sg4::ActivityPtr reduction_;  // an Exec, or with memory modelled the put across the memory link
  TransferId reducing_ = 0;
  sg4::CommPtr memory_get_;
  void* memory_payload_ = nullptr;
  sg4::CommPtr doorbell_;
  void* doorbell_payload_ = nullptr;
  std::size_t outstanding_;
  std::vector<sg4::ActivityPtr> activities_;  // scratch of wait_and_take_ends
  std::vector<Waited> waited_;
};

}  // namespace

void run_rank(Run& run, Rank rank) { RankActor(run, rank)(); }

}  // namespace collsim::simgrid_engine
