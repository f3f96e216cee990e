// collectives/draw_svg.hpp — pictures of a schedule for teaching (`collsim explain --svg`):
//  * a time-space diagram: one row per rank, one column per step (the schedule's teaching
//    label), an arrow per transfer from its source row to its destination row; copies are
//    blue arrows with a triangle head, reductions red arrows with a circled-plus head, and a
//    rank's local reduction of staged data a red dot on its row; phases label the columns;
//  * for `tree` and `two-tree`, each tree drawn with its ranks as interior (filled) or leaf
//    (hollow), which shows that the two trees of two-tree swap the roles.
// Only the schedule IR is read. The SVG carries class names (transfer, copy, reduce, local,
// rank-row, step-label, tree-node, interior, leaf, tree-edge) so tests can count its parts.
#pragma once

#include <string>

#include "collectives/schedule.hpp"

namespace collsim {

inline constexpr Rank kMaxDrawnRanks = 64;
inline constexpr std::size_t kMaxDrawnTransfers = 20000;

// Throws Error when the schedule has more than kMaxDrawnRanks ranks or kMaxDrawnTransfers
// transfers (the picture would be unreadable).
std::string schedule_svg(const Schedule& schedule);

}  // namespace collsim
