// sim/simgrid_run.hpp — what the SimGrid engine's rank actors share (internal; needs SimGrid):
// the schedule's rank-pair channels with their routes and start-ups (by the cost rule), the
// dependency edges and which rank hands each one on, every rank's plan, the inboxes and
// doorbells through which a rank hands a ready transfer to the rank that sends it, and the
// times that make the outcome. SimGrid runs the actors one at a time, so nothing here locks.
// Built before the s4u::Engine; its mailboxes are opened once the engine exists.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include <simgrid/forward.h>

#include "collectives/schedule.hpp"
#include "sim/cost_rule.hpp"
#include "sim/host_issue.hpp"
#include "topologies/topology.hpp"

namespace collsim::simgrid_engine {

inline constexpr std::uint32_t kLocal = ~0u;  // the channel of a local transfer: none

// A (src, dst) rank pair: an in-order channel with a mailbox of its own.
struct Channel {
  Rank src = 0, dst = 0;
  std::uint32_t route_begin = 0, route_length = 0;  // its links in the run's pool
  RouteCostCache cost;       // by the cost rule, as the flow engine: the start-up is the delay
  std::uint32_t transfers = 0;
  std::uint32_t out_slot = 0, in_slot = 0;  // its index among the sender's / receiver's channels
  simgrid::s4u::Mailbox* mailbox = nullptr;
};

struct RankPlan {
  std::vector<std::uint32_t> out, in;       // channels it sends on, receives from
  std::vector<TransferId> initially_ready;  // its transfers without dependencies, by id
  std::size_t events = 0;                   // sends, arrivals and reductions it must see end
};

class Run {
 public:
  Run(const Schedule& schedule, const Topology& topology, double gamma, const Protocol& protocol, double issue_s)
      : schedule_(schedule), topology_(topology), network_(topology.network), protocol_(protocol), gamma_(gamma),
        issue_s_(issue_s),
        channel_of_(schedule.size(), kLocal),
        waiting_(schedule.size()), arrival_s_(schedule.size(), 0.0), done_s_(schedule.size(), 0.0),
        ranks_(schedule.info().endpoints()), inbox_(schedule.info().endpoints()),
        bell_rung_(schedule.info().endpoints(), false) {
    context_ = context_for(schedule, topology);
    open_channels(topology);
    index_successors();
    plan_ranks();
  }

  const Schedule& schedule() const { return schedule_; }
  const RankPlan& plan(Rank r) const { return ranks_[r]; }
  Channel& channel(std::uint32_t c) { return channels_[c]; }
  std::uint32_t channel_of(TransferId id) const { return channel_of_[id]; }
  // When the host has issued `id` (sim/host_issue.hpp): it starts no earlier.
  double issued_s(TransferId id) const { return issued_at(issue_s_, id); }
  // The delay of a network transfer before its bytes move: alpha and its route's latency.
  double startup_s(TransferId id) {
    Channel& c = channels_[channel_of_[id]];
    const std::span<const LinkId> route{route_pool_.data() + c.route_begin, c.route_length};
    return c.cost.at(network_, route, schedule_.transfer_bytes(id), schedule_.info().segments, protocol_,
                     exchange_half(id))
        .startup_s;
  }
  // The rate a network transfer's size factors hold it to, when that is below what its links
  // offer (their max-min share could be more); 0: the links alone decide, as SimGrid does.
  double rate_bound_Bps(TransferId id) {
    Channel& c = channels_[channel_of_[id]];
    const std::span<const LinkId> route{route_pool_.data() + c.route_begin, c.route_length};
    const double alone = c.cost.at(network_, route, schedule_.transfer_bytes(id), schedule_.info().segments, protocol_,
                                   exchange_half(id))
                             .bandwidth_Bps;
    for (LinkId l : route)
      if (alone >= shared_capacity_Bps(network_, l, protocol_)) return 0;
    return route.empty() ? 0 : alone;
  }
  // Half of an exchange, where the network prices those apart (collectives/transfer_context.hpp).
  bool exchange_half(TransferId id) const { return context_.exchange_half(id); }
  std::span<const TransferId> successors(TransferId id) const {
    return {successors_.data() + successor_begin_[id], successors_.data() + successor_begin_[id + 1]};
  }
  std::uint32_t& waiting(TransferId id) { return waiting_[id]; }
  Rank owner(TransferId id) const { return schedule_.transfer(id).src; }

  // A copy is done when it arrives; a reduction when the receiver has reduced it (at once
  // with gamma 0, unless its bytes go through the rank's memory; and into a switch reducer,
  // whose reduction is its link). Local transfers arrive when they are ready.
  bool done_at_arrival(TransferId id) const {
    const Transfer x = schedule_.transfer(id);
    return x.op == Op::copy || schedule_.info().is_reducer(x.dst) || (gamma_ == 0 && !topology_.models_memory());
  }

  // The ranks' memory modelled (sim/cost_rule.hpp): a reduction is a message from its rank to
  // itself, on the loopback route across its memory link, of this many bytes...
  bool models_memory() const { return topology_.models_memory(); }
  std::uint64_t reduction_memory_bytes(TransferId id) const { return std::uint64_t(reduction_flow_of(id).bytes); }
  // ... held to its reduction unit's pace at its size where that is below the memory's
  // capacity (0: none).
  double reduction_rate_bound_Bps(Rank r, TransferId id) const {
    const double cap = reduction_flow_of(id).cap_Bps;
    return cap < shared_capacity_Bps(network_, topology_.memory_of(r), protocol_) ? cap : 0;
  }
  std::uint32_t segments() const { return schedule_.info().segments; }
  ReductionFlow reduction_flow_of(TransferId id) const {
    const std::uint64_t bytes = schedule_.transfer_bytes(id);
    return reduction_flow(topology_, reduction_gamma(topology_, gamma_, bytes, segments(), context_.reduction_into_sent(id)), bytes);
  }
  // Without memory links, a reduction is an Exec on a host of speed 1/gamma: its flops are its
  // bytes times its size's reduction factor.
  double reduction_flops(TransferId id) const {
    const std::uint64_t bytes = schedule_.transfer_bytes(id);
    return double(bytes) * reduction_gamma(topology_, 1.0, bytes, segments(), context_.reduction_into_sent(id));
  }
  simgrid::s4u::Mailbox* memory(Rank r) const { return memories_[r]; }

  // The rank that hands the dependency `from` -> `to` on: one that sees `from` complete.
  // Both ends see a network copy arrive; the sender takes the edges to its own transfers.
  Rank processor(TransferId from, TransferId to) const {
    const Transfer x = schedule_.transfer(from);
    if (!x.is_local() && done_at_arrival(from) && owner(to) == x.src) return x.src;
    return x.dst;
  }

  // Every pair that needs a route: the channels, each (processor, owner) doorbell pair, and
  // with memory modelled (r, r) for every rank r that reduces.
  std::vector<std::pair<Rank, Rank>> routed_pairs() const;

  void open_mailboxes();
  simgrid::s4u::Mailbox* doorbell(Rank r) const { return doorbells_[r]; }

  // `id`, another rank's to send, is ready: into its owner's inbox, and ring unless rung.
  void hand_over(TransferId id);
  std::vector<TransferId> take_inbox(Rank r) {
    bell_rung_[r] = false;
    return std::exchange(inbox_[r], {});
  }

  void arrived(TransferId id, double now) { arrival_s_[id] = now; }
  void completed(TransferId id, double now) {
    done_s_[id] = now;
    ++completed_;
  }
  std::uint64_t completed() const { return completed_; }
  double last_done_s() const;  // the latest completion
  // Per rank, as the flow engine: its last arrival as a source, its last completion as a destination.
  std::vector<double> rank_finish_s() const;

 private:
  void open_channels(const Topology& topology);
  void index_successors();
  void plan_ranks();

  const Schedule& schedule_;
  const Topology& topology_;
  const Network& network_;
  Protocol protocol_;
  TransferContext context_;  // what the cost rule prices apart
  double gamma_;
  double issue_s_;  // the host's time to issue one transfer, in list order
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
  std::vector<simgrid::s4u::Mailbox*> doorbells_;
  std::vector<simgrid::s4u::Mailbox*> memories_;  // per rank, its reductions' loopback (memory modelled)
};

}  // namespace collsim::simgrid_engine
