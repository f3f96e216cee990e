// collectives/collective_spec.cpp — the table of collectives and the postcondition each states.
#include "collectives/collective_spec.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "base/error.hpp"

namespace collsim {
namespace {

double twice_p_minus_1_over_p(Rank p) { return p > 1 ? 2.0 * (p - 1) / p : 0.0; }
double p_minus_1_over_p(Rank p) { return p > 1 ? double(p - 1) / p : 0.0; }
double one(Rank) { return 1.0; }

}  // namespace

// nccl-tests programs and factors: nccl-tests src/*.cu (e.g. AllReduceGetBw: 2(P-1)/P;
// AlltoAllGetBw: (P-1)/P) and doc/PERFORMANCE.md.
const std::vector<CollectiveSpec>& collective_table() {
  static const std::vector<CollectiveSpec> table{
      {.collective = Collective::allreduce, .name = "allreduce", .nccl_tests_program = "all_reduce_perf",
       .input = Input::whole, .output = Output::sum_everywhere, .reduces = true, .rooted = false,
       .count_is_one_part = false, .whole_blocks = false, .bus_factor = twice_p_minus_1_over_p},
      {.collective = Collective::reduce_scatter, .name = "reduce-scatter", .nccl_tests_program = "reduce_scatter_perf",
       .input = Input::whole, .output = Output::sum_own_part, .reduces = true, .rooted = false,
       .count_is_one_part = true, .whole_blocks = false, .bus_factor = p_minus_1_over_p},
      {.collective = Collective::allgather, .name = "allgather", .nccl_tests_program = "all_gather_perf",
       .input = Input::own_part, .output = Output::every_part, .reduces = false, .rooted = false,
       .count_is_one_part = true, .whole_blocks = false, .bus_factor = p_minus_1_over_p},
      {.collective = Collective::broadcast, .name = "broadcast", .nccl_tests_program = "broadcast_perf",
       .input = Input::root_only, .output = Output::root_everywhere, .reduces = false, .rooted = true,
       .count_is_one_part = false, .whole_blocks = false, .bus_factor = one},
      {.collective = Collective::reduce, .name = "reduce", .nccl_tests_program = "reduce_perf",
       .input = Input::whole, .output = Output::sum_at_root, .reduces = true, .rooted = true,
       .count_is_one_part = false, .whole_blocks = false, .bus_factor = one},
      {.collective = Collective::alltoall, .name = "alltoall", .nccl_tests_program = "alltoall_perf",
       .input = Input::whole, .output = Output::exchanged_blocks, .reduces = false, .rooted = false,
       .count_is_one_part = false, .whole_blocks = true, .bus_factor = p_minus_1_over_p},
  };
  return table;
}

const CollectiveSpec& spec_of(Collective collective) {
  const auto& table = collective_table();
  return *std::find_if(table.begin(), table.end(), [&](const CollectiveSpec& s) { return s.collective == collective; });
}

std::uint64_t alltoall_block_bytes(const ScheduleInfo& info) { return info.bytes / info.ranks; }

std::uint64_t alltoall_pair_bytes(const ScheduleInfo& info, Rank from, Rank to) {
  if (info.pair_bytes.empty()) return alltoall_block_bytes(info);
  return info.pair_bytes[std::size_t(from) * info.ranks + to];
}

bool moves_nothing(Collective collective, Rank ranks, std::uint64_t bytes) {
  return bytes == 0 || (spec_of(collective).whole_blocks && bytes < ranks);
}

ByteRange alltoall_send_block(const ScheduleInfo& info, Rank from, Rank to) {
  if (info.pair_bytes.empty()) {
    const std::uint64_t b = alltoall_block_bytes(info);
    return {to * b, b};
  }
  std::uint64_t offset = 0;
  for (Rank c = 0; c < to; ++c) offset += alltoall_pair_bytes(info, from, c);
  return {offset, alltoall_pair_bytes(info, from, to)};
}

ByteRange alltoall_receive_block(const ScheduleInfo& info, Rank at, Rank from) {
  if (info.pair_bytes.empty()) {
    const std::uint64_t b = alltoall_block_bytes(info);
    return {info.bytes + from * b, b};
  }
  std::uint64_t offset = info.bytes;
  for (Rank c = 0; c < from; ++c) offset += alltoall_pair_bytes(info, c, at);
  return {offset, alltoall_pair_bytes(info, from, at)};
}

std::uint64_t alltoall_receive_bytes(const ScheduleInfo& info) {
  if (info.pair_bytes.empty()) return alltoall_block_bytes(info) * info.ranks;
  std::uint64_t most = 0;
  for (Rank at = 0; at < info.ranks; ++at) {
    std::uint64_t column = 0;
    for (Rank from = 0; from < info.ranks; ++from) column += alltoall_pair_bytes(info, from, at);
    most = std::max(most, column);
  }
  return most;
}

std::uint64_t largest_row_bytes(const std::vector<std::uint64_t>& pair_bytes, Rank ranks) {
  std::uint64_t most = 0;
  for (std::size_t row = 0; ranks > 0 && row < pair_bytes.size() / ranks; ++row) {
    std::uint64_t sum = 0;
    for (Rank c = 0; c < ranks; ++c) sum += pair_bytes[row * ranks + c];
    most = std::max(most, sum);
  }
  return most;
}

void check_pair_bytes(const std::vector<std::uint64_t>& pair_bytes, Collective collective, Rank ranks,
                      std::uint64_t bytes) {
  if (collective != Collective::alltoall)
    throw Error(fmt::format("sizes per pair (a matrix) belong to alltoall, not {}", to_string(collective)));
  if (pair_bytes.size() != std::size_t(ranks) * ranks)
    throw Error(fmt::format("a matrix of {} sizes does not fit {} ranks ({} x {} = {} sizes)", pair_bytes.size(), ranks,
                            ranks, ranks, std::size_t(ranks) * ranks));
  // Each row's sum is a rank's data buffer: bounded so that offsets never overflow.
  constexpr std::uint64_t kMaxRowBytes = std::uint64_t(1) << 50;
  for (Rank row = 0; row < ranks; ++row) {
    std::uint64_t sum = 0;
    for (Rank c = 0; c < ranks; ++c) {
      const std::uint64_t b = pair_bytes[std::size_t(row) * ranks + c];
      if (b > kMaxRowBytes || sum + b > kMaxRowBytes)
        throw Error(fmt::format("rank {} sends more than 2^50 bytes in all: not a size any machine holds", row));
      sum += b;
    }
    if (sum > bytes)
      throw Error(fmt::format("rank {} sends {} bytes in all, more than its {} data bytes", row, sum, bytes));
  }
}

std::vector<ExpectedOutput> expected_output(const ScheduleInfo& info, Rank rank) {
  const ByteRange data = info.data();
  const auto same_place = [](ByteRange r, Rank source) { return ExpectedOutput{r, source, r.offset}; };
  std::vector<ExpectedOutput> out;
  switch (spec_of(info.collective).output) {
    case Output::sum_everywhere: out.push_back(same_place(data, kEveryRank)); break;
    case Output::sum_at_root:
      if (rank == info.root) out.push_back(same_place(data, kEveryRank));
      break;
    case Output::sum_own_part: out.push_back(same_place(part_of(data, info.ranks, rank), kEveryRank)); break;
    case Output::every_part:
      for (Rank b = 0; b < info.ranks; ++b) out.push_back(same_place(part_of(data, info.ranks, b), b));
      break;
    case Output::root_everywhere: out.push_back(same_place(data, info.root)); break;
    case Output::exchanged_blocks:
      for (Rank b = 0; b < info.ranks; ++b)
        out.push_back({alltoall_receive_block(info, rank, b), b, alltoall_send_block(info, b, rank).offset});
      break;
  }
  std::erase_if(out, [](const ExpectedOutput& e) { return e.range.bytes == 0; });
  return out;
}

std::vector<ByteRange> output_bounds(const ScheduleInfo& info) {
  std::vector<ByteRange> ranges{info.data()};
  switch (spec_of(info.collective).output) {
    case Output::sum_own_part:
    case Output::every_part:
      for (Rank b = 0; b < info.ranks; ++b) ranges.push_back(part_of(info.data(), info.ranks, b));
      break;
    case Output::exchanged_blocks:
      // Equal blocks: rank 0's bounds are every rank's. A size per pair: every rank's blocks.
      for (Rank r = 0; r < (info.pair_bytes.empty() ? 1 : info.ranks); ++r)
        for (Rank b = 0; b < info.ranks; ++b) {
          ranges.push_back(alltoall_send_block(info, r, b));
          ranges.push_back(alltoall_receive_block(info, r, b));
        }
      break;
    default: break;
  }
  return ranges;
}

}  // namespace collsim
