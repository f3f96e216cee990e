// collectives/exchanges.hpp — which transfers of a schedule are halves of an exchange: a
// transfer from a to b whose step also holds a transfer from b to a. Both ranks then send and
// receive at once; the cost rule prices such messages by their link classes'
// exchange_factors where a class has them (sim/cost_rule.hpp). A property of the schedule
// alone, so every engine sees the same exchanges. Pure.
#pragma once

#include <vector>

#include "collectives/schedule.hpp"

namespace collsim {

// One flag per transfer id: true for a network transfer (src != dst) with a transfer from
// its dst to its src in the same step. Local transfers are never halves of an exchange.
std::vector<bool> exchange_halves(const Schedule& schedule);

}  // namespace collsim
