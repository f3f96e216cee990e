// collectives/transfer_stream.hpp — a schedule told transfer by transfer, in list order,
// without being held: for schedules too large to store. Ring allreduce on 16,384 ranks has
// 537 M transfers (about 19 GB as a Schedule); streamed, it needs only its step rule.
//
// A stream yields exactly what generate_schedule would hold (same ids, ranks, bytes, op,
// step and dependencies; tested for every ring collective on 2..33 ranks and hierarchical
// rings of 1..8 ranks per node on 1..8 nodes), in list order or
// one transfer at a time with its successors, so a consumer keeps only what is live: the
// shortcut a window of done times (how far back a dependency reaches), the event
// simulation the transfers in flight.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "collectives/algorithm.hpp"

namespace collsim {

struct StreamedTransfer {
  Rank src = 0;
  Rank dst = 0;
  std::uint64_t bytes = 0;
  Op op = Op::copy;
  std::uint32_t step = 0;
  std::span<const TransferId> deps;  // ascending
};

class TransferStream {
 public:
  virtual ~TransferStream() = default;
  virtual const ScheduleInfo& info() const = 0;
  virtual std::uint64_t size() const = 0;
  // Every dependency d of transfer id satisfies id - d <= max_dependency_distance().
  virtual std::uint64_t max_dependency_distance() const = 0;
  // The same for deciding dependencies only (below): how far back a consumer that waits for
  // those alone must remember done times.
  virtual std::uint64_t max_deciding_distance() const { return max_dependency_distance(); }

  // Transfer `id`; its dependencies are written to `deps` (the result's deps view them).
  virtual StreamedTransfer transfer(TransferId id, std::vector<TransferId>& deps) const = 0;
  // The dependencies of `id` that can decide when it is ready, ascending: all but those
  // implied by a chain through the others (such a one is done before them, so it never sets
  // the ready time). Consumers that follow successors wait for these only: a ring's
  // allgather waits on the reduce-scatter step that read the chunk it overwrites, P^2
  // transfers back, a wait its forwarding chain implies.
  virtual void deciding_dependencies(TransferId id, std::vector<TransferId>& out) const = 0;
  // Transfer `id` with its deciding dependencies only, in `deps` (the result's deps view
  // them): what a consumer that follows successors reads of a transfer, in one call where the
  // stream can (the default asks twice).
  virtual StreamedTransfer deciding_transfer(TransferId id, std::vector<TransferId>& deps) const {
    StreamedTransfer x = transfer(id, deps);
    deciding_dependencies(id, deps);
    x.deps = deps;
    return x;
  }
  // The transfers `id` is a deciding dependency of, each once, ascending (written to `out`).
  virtual void successors(TransferId id, std::vector<TransferId>& out) const = 0;
  // The transfers with no dependency, ascending.
  virtual std::vector<TransferId> roots() const = 0;

  // Every transfer in list order (ids 0, 1, ...), until `visit` returns false.
  void for_each(const std::function<bool(TransferId, const StreamedTransfer&)>& visit) const {
    std::vector<TransferId> deps;
    for (std::uint64_t id = 0; id < size(); ++id)
      if (!visit(TransferId(id), transfer(TransferId(id), deps))) return;
  }
};

// Ring allreduce, reduce-scatter or allgather (algorithm "ring"), streamed (algorithms/ring.cpp,
// the entry's `stream`). Throws Error for
// other collectives and when a chunk would be empty (bytes < ranks; empty transfers are not
// emitted, which a step rule cannot number).
std::unique_ptr<TransferStream> stream_ring(const ScheduleRequest& request);

// Hierarchical-ring allreduce (algorithm "hierarchical-ring"), streamed
// (algorithms/hierarchical_ring.cpp, the entry's `stream`). Throws Error where
// the generator refuses (no ranks per node, ranks not whole nodes, another collective, more
// than one channel), when a slice would be empty (bytes < ranks x segments) and when it has
// more transfers than ids.
std::unique_ptr<TransferStream> stream_hierarchical_ring(const ScheduleRequest& request);

// Bruck all-to-all (algorithm "bruck"), streamed as its messages alone (algorithms/bruck.cpp,
// the entry's `stream`): its local copies, free in every engine, are folded into the
// messages' dependencies, so it tells fewer transfers than the held schedule, at the same
// times (none where a block is empty: fewer bytes than ranks). Throws Error for other collectives.
std::unique_ptr<TransferStream> stream_bruck(const ScheduleRequest& request);

}  // namespace collsim
