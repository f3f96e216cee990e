// sim/simgrid_rank_actor.hpp — one rank of a schedule on SimGrid (internal; needs SimGrid).
//
// Each rank's actor sends the transfers whose source it is and reduces the ones that end on it:
//   ready:   all dependencies done. The rank that sees a dependency complete hands each
//            dependent on: to itself, or, when the dependent is another rank's to send, into that
//            rank's inbox, ringing its doorbell (a 0-byte message: it arrives within the instant);
//   issued:  not before the host has issued it ((id + 1) x issue_s, sim/host_issue.hpp): a
//            local transfer is held until then by a timer;
//   delay:   from then, alpha + route latency (the cost rule's start-up), a timer: the timeout
//            of the actor's wait_any;
//   channel: one mailbox per (src, dst) pair with at most one message in flight: a transfer
//            whose delay is over while the previous one of its pair still drains waits for it;
//   drain:   put_async on the pair's mailbox, whose receiver always has a get posted (and is its
//            permanent receiver): the message starts at once, and CM02 shares the links max-min;
//   arrival: the receiver's get completes (the sender's put completes in the same instant);
//   reduce:  an Exec of `bytes` flops on the receiver's host (speed 1/gamma), one at a time in
//            order of arrival; the transfer is done when it ends. With the ranks' memory
//            modelled, a message of 3 x `bytes` from the rank to itself instead, across its
//            memory link, its rate capped at 3/gamma (Comm::set_rate).
// Within one instant a rank takes, as the flow engine does: ends (sends, arrivals, its
// reduction), then starts, then local reductions, each kind by transfer id.
#pragma once

#include "collectives/schedule.hpp"
#include "sim/simgrid_run.hpp"

namespace collsim::simgrid_engine {

// SimGrid's events closer than this are one instant (the flow engine's: 1e-12 relative); the
// actors' timers count as due within it.
inline constexpr double kTimingPrecision_s = 1e-14;

// The body of rank `rank`'s actor: returns when all its sends, arrivals and reductions ended.
void run_rank(Run& run, Rank rank);

}  // namespace collsim::simgrid_engine
