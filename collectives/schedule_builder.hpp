// collectives/schedule_builder.hpp — how generators write a schedule: as a sequential
// program of transfers, listed in the order a rank would issue them. The builder infers the
// dependencies from byte-level hazards, so generators state only what moves where:
//   read-after-write:  a transfer reading bytes of rank r depends on their last writer;
//   write-after-read:  a transfer writing bytes of rank r depends on every reader since the
//                      last write (each of which already depends on that writer);
//   write-after-write: otherwise it depends on the last writer.
// In-network reductions (a reduce into a reducer, schedule.hpp) commute: one depends on the
// readers since the last write, or on the last writer when that was a copy, but not on the
// reductions accumulated before it; a read of a reducer's bytes depends on every reduction
// accumulated there.
// A planned transfer may also name one it must follow (PlannedTransfer::after: flow control).
// Every dependency found this way involves the transfer's own source or destination rank,
// so executors can observe it locally. The checker proves the result independently.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "collectives/elements.hpp"
#include "collectives/schedule.hpp"

namespace collsim {

// Interns byte ranges as chunk ids, so a generator can name "the upper half of rank r's
// current range" without keeping its own table. Complete it before building.
class ChunkTable {
 public:
  ChunkId intern(ByteRange range);
  const std::vector<ByteRange>& ranges() const { return ranges_; }

 private:
  std::vector<ByteRange> ranges_;
  std::map<std::pair<std::uint64_t, std::uint64_t>, ChunkId> ids_;
};

struct PlannedTransfer {
  std::uint32_t step = 0;
  Rank src = 0;
  ChunkId src_chunk = 0;
  Rank dst = 0;
  ChunkId dst_chunk = 0;
  Op op = Op::copy;
  // Index in the same plan of a transfer this one must follow although no byte says so:
  // flow control, a bounded buffer that lets a rank run only so far ahead (kNoPlan: none).
  // It shares a rank (not a switch) with this one, so executors can observe it, and has an
  // earlier step; the builder refuses any other.
  std::uint32_t after = kNoPlan;
  static constexpr std::uint32_t kNoPlan = ~std::uint32_t(0);
};

class ScheduleBuilder {
 public:
  ScheduleBuilder(ScheduleInfo info, const std::vector<ByteRange>& chunks);

  void reserve(std::size_t transfers, std::size_t deps) { schedule_.reserve(transfers, deps); }
  void add_phase(std::string name, std::uint32_t first_step, std::uint32_t step_count);

  // Appends one transfer and infers its dependencies. src == dst is a local operation
  // between two disjoint chunks of one rank (a reduction of staged data). A transfer of an
  // empty chunk is not emitted (returns kNoTransfer).
  // `after`: one more transfer it depends on (kNoTransfer: none).
  TransferId add(Rank src, ChunkId src_chunk, Rank dst, ChunkId dst_chunk, Op op, std::uint32_t step,
                 TransferId after = kNoTransfer);
  TransferId send(Rank src, Rank dst, ChunkId chunk, Op op, std::uint32_t step) {
    return add(src, chunk, dst, chunk, op, step);
  }
  // Adds planned transfers sorted by step (stable), for generators that compute a pipeline's
  // time slots out of order (trees).
  void add_in_step_order(std::vector<PlannedTransfer> plan);

  Schedule build() &&;

  // Whether this builder keeps dense (rank, element) records (elements.hpp), else each rank's
  // pieces.
  bool dense() const { return dense_; }

 private:
  template <class Visit>
  void for_each_access(Rank rank, ChunkId chunk, Visit&& visit);
  void collect_read_hazards(Rank rank, ChunkId chunk, TransferId self);
  void collect_write_hazards(Rank rank, ChunkId chunk, TransferId self);
  void collect_accumulate_hazards(Rank reducer, ChunkId chunk, TransferId self);

  Schedule schedule_;
  ElementMap elements_;
  bool dense_;
  AccessLog log_;
  std::vector<AccessState> dense_records_;  // dense: (endpoint, element)
  PieceMap<AccessState> pieces_;            // otherwise
  std::vector<TransferId> deps_;
};

// The most (endpoint, element) records a builder keeps dense (12 bytes each): beyond them it
// keeps each rank's pieces, whose cost follows the transfers, not P x elements. Tests lower
// it to 0 to build every schedule both ways.
inline constexpr std::size_t kDenseRecordLimit = std::size_t(1) << 25;
std::size_t dense_record_limit();
void set_dense_record_limit(std::size_t records);

}  // namespace collsim
