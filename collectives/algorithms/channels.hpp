// collectives/algorithms/channels.hpp — NCCL-style channels, for every algorithm that takes
// them (ring, tree, two-tree, nccl-tree): the buffer is cut into C contiguous parts and channel c runs
// its own instance of the algorithm on part c, over the ranks in channel c's order (an
// allgather or reduce-scatter: part c of every rank's block, channels_split_blocks).
//
// Channel c's order rotates every node's ranks by c G / C places (G ranks per node), so each
// channel enters and leaves a node through a different GPU, hence a different NIC (rail),
// as NCCL's ring and tree graphs do. Without nodes, every channel keeps the order 0..P-1 and
// channels only split the buffer. For G = 4, C = 2, P = 8, a ring's two orders are
//
//     channel 0:  0 1 2 3 | 4 5 6 7      (node 0 -> node 1 from rank 3 to rank 4)
//     channel 1:  2 3 0 1 | 6 7 4 5      (node 0 -> node 1 from rank 1 to rank 6)
//
// On a switchless NVLink mesh the orders are instead the rings a search over the node's links
// found (ScheduleRequest::channel_orders, topologies/ring_search.hpp), so that the channels
// together cross every link; a channel then runs exactly as here, over its given order.
//
// The instances share nothing: channel c's data is part c of the buffer, and its scratch is
// part c of every scratch slot (an instance's scratch is whole slots of its data's size, byte
// x of a slot staging data byte x; the merged schedule keeps that rule). One channel is
// exactly the algorithm's own schedule.
#pragma once

#include <vector>

#include "collectives/algorithm.hpp"

namespace collsim::algorithms {

// The ranks in channel c's order: position i of the algorithm's instance is rank order[i].
std::vector<Rank> channel_order(Rank ranks, Rank ranks_per_node, std::uint32_t channels, std::uint32_t channel);

// Channel c's order for this request or schedule: the given channel_orders[c], else the rotation above.
std::vector<Rank> channel_order(const ScheduleRequest& request, std::uint32_t channel);
std::vector<Rank> channel_order(const ScheduleInfo& info, std::uint32_t channel);

// Throws Error unless `orders` is empty or holds `channels` (at least 1) permutations of 0..ranks-1.
void check_channel_orders(const std::vector<std::vector<Rank>>& orders, Rank ranks, std::uint32_t channels);

// The data bytes channel c works on, of a buffer split whole: part c.
ByteRange channel_data(std::uint64_t bytes, std::uint32_t channels, std::uint32_t channel);

// Whether channels split every rank's block rather than the buffer: an allgather's or a
// reduce-scatter's buffer is the ranks' blocks (rank r's at r N/P), and NCCL's channel c
// moves part c of every block, so channel c's instance runs on P parts, block b of it
// landing in part c of its rank order[b]'s block. It needs blocks of equal size (N a
// multiple of P; check_channels says so).
bool channels_split_blocks(Collective collective);

// Whether `collective` runs in channels: all but all-to-all (an allreduce, broadcast or reduce
// split whole, an allgather or reduce-scatter by blocks). A broadcast's or reduce's channel runs
// from the root wherever the root sits in that channel's rank order, as NCCL's rings do.
bool collective_runs_in_channels(Collective collective);

// How many data bytes channel c's instance works on: part c of the buffer, or P times part c
// of a block (channels_split_blocks).
std::uint64_t channel_bytes(Collective collective, std::uint64_t bytes, Rank ranks, std::uint32_t channels,
                            std::uint32_t channel);

// The channel the byte at `offset` of a rank's address space belongs to (data or scratch).
std::uint32_t channel_of(const ScheduleInfo& info, std::uint64_t offset);

// C instances of `generate` (request.channels of them, at least 1), merged step by step.
Schedule with_channels(Generator generate, const ScheduleRequest& request);

}  // namespace collsim::algorithms
