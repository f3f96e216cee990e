// collectives/collective_spec.hpp — what each collective means, in one table: its name,
// nccl-tests program and bus-bandwidth factor, which bytes each rank starts with, and what
// each rank must end with (the postcondition the checker proves and the executors verify).
// Adding a collective is one row here (collective_spec.cpp) plus its generators; the checker,
// the reference data, nccl-tests logs and the CLI read this table, not their own lists.
#pragma once

#include <string_view>
#include <vector>

#include "collectives/schedule.hpp"

namespace collsim {

// Which bytes of its data a rank starts with.
enum class Input : std::uint8_t {
  whole,     // all of [0, N) (allreduce, reduce-scatter, reduce, alltoall)
  own_part,  // its part r of P (allgather)
  root_only, // the root holds [0, N), the others nothing (broadcast)
};

// What the output bytes hold.
enum class Output : std::uint8_t {
  sum_everywhere,   // every rank: [0, N) = the sum of all inputs (allreduce)
  sum_at_root,      // the root: [0, N) = the sum (reduce)
  sum_own_part,     // rank r: its part r = the sum of all ranks' part r (reduce-scatter)
  every_part,       // every rank: part b = rank b's part b (allgather)
  root_everywhere,  // every rank: [0, N) = the root's (broadcast)
  exchanged_blocks, // rank r's receive buffer, block b = rank b's data block r (alltoall)
};

struct CollectiveSpec {
  Collective collective;
  std::string_view name;                // the CLI's, schedules', reports'
  std::string_view nccl_tests_program;  // e.g. all_reduce_perf
  Input input;
  Output output;
  bool reduces;  // sums contributions (nccl-tests prints a redop other than none)
  bool rooted;   // has a root (nccl-tests prints it)
  // nccl-tests' count column is one rank's part (size = count x type bytes x P: allgather,
  // reduce-scatter), else the whole buffer (size = count x type bytes).
  bool count_is_one_part;
  // nccl-tests rounds the count down to a multiple of P (alltoall's blocks), so a size it
  // prints is a multiple of P elements.
  bool whole_blocks;
  // busbw = algbw x factor (nccl-tests' doc/PERFORMANCE.md) on P ranks.
  double (*bus_factor)(Rank ranks);
};

const std::vector<CollectiveSpec>& collective_table();
const CollectiveSpec& spec_of(Collective collective);

// The alltoall layout. Rank r's data holds its blocks for ranks 0..P-1 one after another; rank
// b receives them in its receive buffer, in scratch from N on (alltoall is out of place, as
// MPI_Alltoall and ncclAllToAll are), the block from rank r at the place of r. Blocks are
// floor(N / P) bytes each (nccl-tests' alltoall_perf also rounds its count down to a multiple
// of P), or with a size per pair (ScheduleInfo::pair_bytes, all-to-all-v: MPI_Alltoallv with
// displacements packed in rank order) that pair's, N at least the largest row's sum.
std::uint64_t alltoall_block_bytes(const ScheduleInfo& info);  // equal blocks: floor(N / P)
std::uint64_t alltoall_pair_bytes(const ScheduleInfo& info, Rank from, Rank to);
ByteRange alltoall_send_block(const ScheduleInfo& info, Rank from, Rank to);
ByteRange alltoall_receive_block(const ScheduleInfo& info, Rank at, Rank from);
// Whether a collective of N bytes on P ranks moves nothing (N = 0, or alltoall blocks of 0
// bytes): its schedules are empty and every time, bound included, is 0.
bool moves_nothing(Collective collective, Rank ranks, std::uint64_t bytes);
// The scratch an alltoall schedule needs at least: its largest receive buffer.
std::uint64_t alltoall_receive_bytes(const ScheduleInfo& info);
// Throws Error unless `pair_bytes` is a size per pair of an alltoall on P ranks whose every
// row fits in N bytes.
void check_pair_bytes(const std::vector<std::uint64_t>& pair_bytes, Collective collective, Rank ranks,
                      std::uint64_t bytes);
// The largest row's sum: the data bytes an all-to-all-v needs.
std::uint64_t largest_row_bytes(const std::vector<std::uint64_t>& pair_bytes, Rank ranks);

// One part of the postcondition: rank's `range` must hold, taken from `source_offset` on in
// the sources' data, the input of `source` alone, or the sum of every rank's (kEveryRank).
inline constexpr Rank kEveryRank = ~Rank(0);
struct ExpectedOutput {
  ByteRange range;
  Rank source = kEveryRank;
  std::uint64_t source_offset = 0;
};
// Everything `rank` must end with; empty for a rank the collective gives nothing (reduce's
// non-roots). Read by the checker and the executors' reference.
std::vector<ExpectedOutput> expected_output(const ScheduleInfo& info, Rank rank);

// The byte ranges the postcondition names (every ExpectedOutput's and its source's), so the
// checker can cut elements on their bounds.
std::vector<ByteRange> output_bounds(const ScheduleInfo& info);

}  // namespace collsim
