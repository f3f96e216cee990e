// collectives/explain.hpp — a schedule run on strings, for teaching (seeds 002 and 003).
// The data buffer's elements are named a, b, c, ...; rank r starts with a<r>, b<r>, ...
// A copy replaces the destination's string; a reduction appends the incoming string to the
// destination's (a1 += a0 gives "a1a0"), so every cell shows which contributions it holds
// and in which order they were added. "-" marks bytes that hold nothing yet. A schedule's
// switch reducers (in-network reduction) get rows after the ranks', named "switch k".
#pragma once

#include <string>
#include <vector>

#include "collectives/schedule.hpp"

namespace collsim {

struct ExplainedStep {
  std::uint32_t step = 0;
  std::string phase;                            // phases containing the step, joined by " + "
  std::string slice;                            // "ring step 1, slice 2 of 3" in a sliced ring; else ""
  std::vector<TransferId> transfers;            // in list order
  std::vector<std::vector<std::string>> state;  // [rank or reducer][element] after the step
};

struct Explanation {
  std::vector<std::string> element_names;       // data elements only
  std::vector<ByteRange> element_ranges;
  std::vector<std::vector<std::string>> initial;  // [rank or reducer][element]
  std::vector<ExplainedStep> steps;
  std::uint32_t slices = 1;  // a pipelined ring's slices per ring step (each step below is one); else 1
  // Channels (collectives/algorithms/channels.hpp): channel c's rank order, position i of its
  // instance (of its ring, or of its trees' rank numbers) being rank channel_orders[c][i].
  // Empty for one channel.
  std::vector<std::vector<Rank>> channel_orders;
};

inline constexpr Rank kMaxExplainedRanks = 32;

// Throws Error when the schedule has more than kMaxExplainedRanks ranks or 52 elements.
Explanation explain_schedule(const Schedule& schedule);

// "gpu 3" for rank 3, "switch 0" for the schedule's first reducer.
std::string endpoint_name(const ScheduleInfo& info, Rank id);

// "chunk 3" / "chunks 0-1" / "staged chunk a": names of a transfer's source or destination.
std::string describe_chunk(const Schedule& schedule, const Explanation& explanation, ChunkId chunk);

}  // namespace collsim
