// collectives/schedule.hpp — the schedule IR: the single source of truth every engine,
// executor, checker and picture consumes (docs/design.md section 1).
//
// A schedule is P ranks, each with an address space of `bytes` data bytes followed by
// `scratch_bytes` staging bytes, a table of chunks (named byte ranges in that address
// space), and a list of transfers. A transfer moves one chunk's bytes from one rank to a
// chunk of equal size on another rank (or, with src == dst, between two disjoint chunks of
// one rank: a local reduction of staged data), either copying or reducing (+=) into it.
//
// Semantics every consumer shares (docs/semantics.md):
//  * A transfer may start once all its dependencies are done. It reads its source during the
//    transfer and writes its destination when it completes.
//  * Transfers are listed in a topological order: every dependency precedes its dependent.
//    Cycles are therefore impossible in a valid schedule, and list order is also each rank's
//    issue order (the one-port model of the analytic engine grants ports in list order).
//  * Correctness never relies on list order: every conflicting access (read/write or
//    write/write of the same bytes on the same rank) is ordered by dependencies, which the
//    checker proves.
//  * `step` is a teaching label: the time slot of the algorithm's idealised synchronous
//    schedule. Phases name ranges of steps ("reduce-scatter", "allgather", ...).
//
// In-network reduction: a schedule may name `reducers` switch endpoints beyond its P ranks,
// ids P .. P+R-1. A reducer has an address space like a rank's, holds no input and is not
// part of the postcondition. A `reduce` transfer into a reducer is an in-network reduction:
// reductions into the same bytes of a reducer commute (the switch accumulates them), so
// they need no order among themselves, but every read of those bytes (the multicast back)
// must follow every reduction into them. Which switch reducer k is, is the layout below
// (ScheduleInfo::nodes, fabric_reducer): node n's switch, then the fabric's, so this folder
// needs no topology.
//
// Storage is struct-of-arrays with dependencies in CSR form, so ring allreduce on 4096 ranks
// (33.5 M transfers) fits in about 1.2 GB.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/partition.hpp"

namespace collsim {

using Rank = std::uint32_t;
// The most ranks a request may name (the command line's --ranks range).
inline constexpr Rank kMaxRanks = Rank(1) << 24;
using TransferId = std::uint32_t;
using ChunkId = std::uint32_t;
inline constexpr TransferId kNoTransfer = 0xFFFFFFFFu;

// What each one means (names, buffers, postcondition, nccl-tests program): collective_spec.hpp.
enum class Collective : std::uint8_t { allreduce, reduce_scatter, allgather, broadcast, reduce, alltoall };
enum class Op : std::uint8_t { copy, reduce };

std::string_view to_string(Collective collective);
std::string_view to_string(Op op);
Collective parse_collective(std::string_view name);  // throws Error naming the valid ones
std::string collective_names();  // "allreduce, reduce-scatter, ... or alltoall", for messages
Op parse_op(std::string_view name);
const std::vector<Collective>& all_collectives();

// nccl-tests bus-bandwidth factor: busbw = algbw * factor.
double bus_bandwidth_factor(Collective collective, Rank ranks);

struct Phase {
  std::string name;
  std::uint32_t first_step = 0;
  std::uint32_t step_count = 0;
  friend bool operator==(const Phase&, const Phase&) = default;
};

// What was asked for: enough to regenerate the schedule and to state its postcondition.
struct ScheduleInfo {
  Collective collective = Collective::allreduce;
  std::string algorithm;
  Rank ranks = 1;
  std::uint64_t bytes = 0;          // data bytes per rank
  std::uint64_t scratch_bytes = 0;  // staging bytes per rank, after the data bytes
  Rank root = 0;                    // broadcast and reduce
  std::uint32_t segments = 1;       // pipelining, where the algorithm has it
  std::uint32_t ranks_per_node = 0; // hierarchical algorithms; 0 = not used
  std::uint32_t channels = 1;       // instances on disjoint parts of the buffer (algorithms/channels.hpp)
  // Each channel's rank order where a ring search chose them (ScheduleRequest::channel_orders);
  // empty: every node's ranks rotated (algorithms::channel_order).
  std::vector<std::vector<Rank>> channel_orders;
  Rank reducers = 0;                // in-network reducers, ids ranks .. ranks+reducers-1 (switches)
  // Alltoall with a size per pair (all-to-all-v): P x P, row = the sender, column = the
  // receiver (collective_spec.hpp lays the blocks out); empty: floor(N / P) bytes each.
  std::vector<std::uint64_t> pair_bytes;
  friend bool operator==(const ScheduleInfo&, const ScheduleInfo&) = default;

  ByteRange data() const { return {0, bytes}; }
  std::uint64_t address_space() const { return bytes + scratch_bytes; }
  // Ranks and reducers: every id a transfer may name.
  Rank endpoints() const { return ranks + reducers; }
  bool is_reducer(Rank id) const { return id >= ranks; }
  // The reducer layout, defined once: reducer n (id ranks + n) is node n's switch for the
  // nodes() the ranks fill (ranks_per_node to a node; without it, one node), and the one after
  // them, id fabric_reducer(), the fabric's (InfiniBand SHARP's aggregation tree), where a
  // schedule has it (reducers = nodes() + 1).
  Rank nodes() const { return ranks_per_node > 0 ? (ranks + ranks_per_node - 1) / ranks_per_node : 1; }
  Rank fabric_reducer() const { return ranks + nodes(); }
  bool is_fabric_reducer(Rank id) const { return id == fabric_reducer() && id < endpoints(); }
  // The collective's precondition: does `rank` start with its own contribution in `range`
  // (a range inside one element)? Allgather ranks hold only their block, broadcast only the
  // root holds data, scratch starts empty.
  // Reducers hold none.
  bool holds_input(Rank rank, ByteRange range) const;
  // The bytes `rank` starts with, as one range (empty where it starts with none).
  ByteRange input_range(Rank rank) const;
};

struct Transfer {
  Rank src = 0;
  Rank dst = 0;
  ChunkId src_chunk = 0;
  ChunkId dst_chunk = 0;
  Op op = Op::copy;
  std::uint32_t step = 0;
  std::span<const TransferId> deps;

  bool is_local() const { return src == dst; }
};

// How explain, the SVG and traces name a reducer: "switch k" for node k's, "SHARP switch"
// for the fabric's.
std::string reducer_name(const ScheduleInfo& info, Rank id);

// A reduce into a reducer: an in-network reduction, which commutes with the others into the
// same bytes (schedule.hpp's header).
inline bool is_in_network_reduction(const ScheduleInfo& info, const Transfer& t) {
  return t.op == Op::reduce && info.is_reducer(t.dst);
}

class Schedule {
 public:
  Schedule() = default;
  explicit Schedule(ScheduleInfo info) : info_(std::move(info)) {}

  const ScheduleInfo& info() const { return info_; }
  const std::vector<ByteRange>& chunks() const { return chunks_; }
  const std::vector<Phase>& phases() const { return phases_; }
  std::size_t size() const { return src_.size(); }
  std::size_t dependency_count() const { return deps_.size(); }
  std::uint32_t step_count() const;

  Transfer transfer(TransferId id) const {
    return {src_[id], dst_[id], src_chunk_[id], dst_chunk_[id], op_[id], step_[id],
            std::span<const TransferId>(deps_.data() + dep_begin_[id],
                                        deps_.data() + dep_begin_[id + 1])};
  }
  std::uint64_t transfer_bytes(TransferId id) const { return chunks_[dst_chunk_[id]].bytes; }
  const Phase* phase_of_step(std::uint32_t step) const;

  // Construction (used by ScheduleBuilder and the JSON loader). No validation here: the
  // loader validates structure, the checker proves the rest.
  ChunkId add_chunk(ByteRange range);
  void add_phase(Phase phase) { phases_.push_back(std::move(phase)); }
  void reserve(std::size_t transfers, std::size_t deps);
  TransferId append(Rank src, ChunkId src_chunk, Rank dst, ChunkId dst_chunk, Op op,
                    std::uint32_t step, std::span<const TransferId> deps);

  std::size_t memory_bytes() const;
  friend bool operator==(const Schedule& a, const Schedule& b);

 private:
  ScheduleInfo info_;
  std::vector<ByteRange> chunks_;
  std::vector<Phase> phases_;
  std::vector<Rank> src_, dst_;
  std::vector<ChunkId> src_chunk_, dst_chunk_;
  std::vector<std::uint32_t> step_;
  std::vector<Op> op_;
  std::vector<std::uint64_t> dep_begin_{0};
  std::vector<TransferId> deps_;
};

}  // namespace collsim
