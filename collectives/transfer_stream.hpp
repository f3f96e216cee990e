// collectives/transfer_stream.hpp — a schedule told transfer by transfer, in list order,
// without being held: for schedules too large to store. Ring allreduce on 16,384 ranks has
// 537 M transfers (about 19 GB as a Schedule); streamed, it needs only its step rule.
//
// A stream yields exactly what generate_schedule would hold (same ids, ranks, bytes, op,
// step and dependencies; tested for every ring collective on 2..33 ranks), and states how
// far back a dependency can reach, so a consumer keeps only that window of results.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>

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
  virtual void for_each(const std::function<void(TransferId, const StreamedTransfer&)>& visit) const = 0;
};

// Ring allreduce, reduce-scatter or allgather (algorithm "ring"), streamed. Throws Error for
// other collectives and when a chunk would be empty (bytes < ranks; empty transfers are not
// emitted, which a step rule cannot number).
std::unique_ptr<TransferStream> stream_ring(const ScheduleRequest& request);

}  // namespace collsim
