// collectives/transfer_context.hpp — what a transfer's neighbours in its schedule make it cost
// on a CPU rank, told from the schedule alone so every engine sees the same:
//   - halves of an exchange: a transfer from a to b whose step also holds one from b to a.
//     Both ranks then send and receive at once; the cost rule prices such messages by their
//     link classes' exchange_factors where a class has them.
//   - reductions into sent data: a reduction into a chunk that its rank sent in one of the
//     reduction's dependencies (recursive doubling reduces into the buffer its partner has
//     just read). On a CPU the reader's cache then holds those lines, and each write first
//     takes them back; the cost rule prices such reductions by the cluster's
//     reduction_into_sent_factors where it has them (sim/cost_rule.hpp).
// Pure.
#pragma once

#include <vector>

#include "collectives/schedule.hpp"

namespace collsim {

// One flag per transfer id: true for a network transfer (src != dst) with a transfer from
// its dst to its src in the same step. Local transfers are never halves of an exchange.
std::vector<bool> exchange_halves(const Schedule& schedule);

// One flag per transfer id: true for a reduction whose destination chunk overlaps the source
// chunk of a network transfer its destination rank sent, among the reduction's dependencies.
std::vector<bool> reductions_into_sent(const Schedule& schedule);

// Both, each only where the cost rule prices it apart (an engine asks for what its network
// has rows for): empty flags answer false, at no cost to schedules of millions of transfers.
struct TransferContext {
  std::vector<bool> halves, into_sent;
  bool exchange_half(TransferId id) const { return !halves.empty() && halves[id]; }
  bool reduction_into_sent(TransferId id) const { return !into_sent.empty() && into_sent[id]; }
};
TransferContext transfer_context(const Schedule& schedule, bool exchanges, bool reductions);

}  // namespace collsim
