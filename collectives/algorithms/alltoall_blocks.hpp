// collectives/algorithms/alltoall_blocks.hpp — what the all-to-all generators share: the
// blocks of collective_spec.hpp (rank r's data block b goes to rank b's receive block r, in
// scratch after the data; equal, or a size per pair) as chunk ids, and the size of the direct
// algorithms.
#pragma once

#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "base/error.hpp"
#include "collectives/algorithms/entries.hpp"
#include "collectives/collective_spec.hpp"
#include "collectives/schedule_builder.hpp"

namespace collsim::algorithms {

// Whether an algorithm moves blocks of any size (a size per pair: all-to-all-v), or only
// equal ones (it packs or stages blocks by index).
enum class BlockSizes : std::uint8_t { equal, any };

class AlltoallBlocks {
 public:
  // `staging_bytes`: scratch an algorithm needs after the receive buffer (Bruck's).
  AlltoallBlocks(const ScheduleRequest& request, std::string_view algorithm, BlockSizes sizes,
                 std::uint64_t staging_bytes = 0)
      : info_(info_for(request, algorithm)), per_pair_(!info_.pair_bytes.empty()) {
    if (per_pair_ && sizes == BlockSizes::equal)
      throw Error(fmt::format("{} moves equal blocks only (it packs or stages them by index), not a size per pair "
                              "(--matrix); use linear or pairwise",
                              algorithm));
    info_.scratch_bytes = alltoall_receive_bytes(info_) + staging_bytes;
    // Equal blocks: rank 0's chunks are every rank's (send and receive blocks alternate).
    for (Rank r = 0; r < (per_pair_ ? info_.ranks : 1); ++r)
      for (Rank b = 0; b < info_.ranks; ++b) {
        send_.push_back(table_.intern(alltoall_send_block(info_, r, b)));
        receive_.push_back(table_.intern(alltoall_receive_block(info_, r, b)));
      }
  }

  const ScheduleInfo& info() const { return info_; }
  std::uint64_t block_bytes() const { return alltoall_block_bytes(info_); }
  // Where the staging bytes begin.
  std::uint64_t staging_offset() const { return info_.bytes + alltoall_receive_bytes(info_); }
  ChunkTable& table() { return table_; }
  const std::vector<ByteRange>& chunks() const { return table_.ranges(); }
  // Equal blocks: the block for `to` in every rank's data, and from `from` in every rank's
  // receive buffer.
  ChunkId send_block(Rank to) const { return send_[to]; }
  ChunkId receive_block(Rank from) const { return receive_[from]; }
  // Any sizes: `from`'s block for `to`, and where `at` receives `from`'s.
  ChunkId send_block(Rank from, Rank to) const { return send_[pair(from, to)]; }
  ChunkId receive_block(Rank at, Rank from) const { return receive_[pair(at, from)]; }

  // Rank r's block for itself, copied into its receive buffer.
  void copy_own_block(ScheduleBuilder& builder, Rank r, std::uint32_t step) const {
    builder.add(r, send_block(r, r), r, receive_block(r, r), Op::copy, step);
  }
  // `from`'s block for `to`, sent straight into `to`'s receive buffer.
  TransferId send(ScheduleBuilder& builder, Rank from, Rank to, std::uint32_t step, TransferId after) const {
    return builder.add(from, send_block(from, to), to, receive_block(to, from), Op::copy, step, after);
  }

 private:
  std::size_t pair(Rank rank, Rank other) const { return (per_pair_ ? std::size_t(rank) * info_.ranks : 0) + other; }

  ScheduleInfo info_;
  bool per_pair_;
  ChunkTable table_;
  std::vector<ChunkId> send_, receive_;
};

// P^2 transfers (P - 1 messages and a local copy per rank), 2P blocks per rank and the bytes
// of N beyond the last block (N mod P) between data and receive buffer; with a size per pair
// every rank's element bounds are all ranks' (collective_spec.cpp's output_bounds): 2P^2. Where
// N < P (equal blocks) the blocks are empty and nothing is sent (16,384 ranks at 1K).
inline ScheduleSize alltoall_direct_size(const ScheduleRequest& r) {
  const double p = r.ranks;
  const bool empty_blocks = r.pair_bytes.empty() && r.bytes < r.ranks;
  return one_pass(empty_blocks ? 0 : p * p, (r.pair_bytes.empty() ? 2 * p : 2 * p * p) + 1);
}

}  // namespace collsim::algorithms
