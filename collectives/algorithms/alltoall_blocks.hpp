// collectives/algorithms/alltoall_blocks.hpp — what the all-to-all generators share: the
// blocks of collective_spec.hpp (rank r's data block b goes to rank b's receive block r, in
// scratch after the data) as chunk ids, and the size of the direct algorithms.
#pragma once

#include <cmath>
#include <vector>

#include "collectives/algorithms/entries.hpp"
#include "collectives/collective_spec.hpp"
#include "collectives/schedule_builder.hpp"

namespace collsim::algorithms {

class AlltoallBlocks {
 public:
  // `staging_bytes`: scratch an algorithm needs after the receive buffer (Bruck's).
  AlltoallBlocks(const ScheduleRequest& request, std::string_view algorithm, std::uint64_t staging_bytes = 0)
      : info_(info_for(request, algorithm)) {
    info_.scratch_bytes = alltoall_receive_bytes(info_) + staging_bytes;
    for (Rank b = 0; b < info_.ranks; ++b) {
      send_.push_back(table_.intern(alltoall_send_block(info_, b)));
      receive_.push_back(table_.intern(alltoall_receive_block(info_, b)));
    }
  }

  const ScheduleInfo& info() const { return info_; }
  std::uint64_t block_bytes() const { return alltoall_block_bytes(info_); }
  // Where the staging bytes begin.
  std::uint64_t staging_offset() const { return info_.bytes + alltoall_receive_bytes(info_); }
  ChunkTable& table() { return table_; }
  const std::vector<ByteRange>& chunks() const { return table_.ranges(); }
  ChunkId send_block(Rank to) const { return send_[to]; }
  ChunkId receive_block(Rank from) const { return receive_[from]; }

  // Rank r's block for itself, copied into its receive buffer.
  void copy_own_block(ScheduleBuilder& builder, Rank r, std::uint32_t step) const {
    builder.add(r, send_[r], r, receive_[r], Op::copy, step);
  }
  // `from`'s block for `to`, sent straight into `to`'s receive buffer.
  TransferId send(ScheduleBuilder& builder, Rank from, Rank to, std::uint32_t step, TransferId after) const {
    return builder.add(from, send_[to], to, receive_[from], Op::copy, step, after);
  }

 private:
  ScheduleInfo info_;
  ChunkTable table_;
  std::vector<ChunkId> send_, receive_;
};

// P^2 transfers (P - 1 messages and a local copy per rank), 2P blocks per rank and the bytes
// of N beyond the last block (N mod P) between data and receive buffer. Where N < P the blocks
// are empty and nothing is sent (16,384 ranks at 1K).
inline ScheduleSize alltoall_direct_size(const ScheduleRequest& r) {
  const double p = r.ranks;
  return one_pass(r.bytes < r.ranks ? 0 : p * p, 2 * p + 1);
}

}  // namespace collsim::algorithms
