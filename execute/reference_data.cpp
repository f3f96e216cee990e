// execute/reference_data.cpp — inputs and the independent reference result.
#include "execute/reference_data.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "base/units.hpp"

namespace collsim {
namespace {

// The sum over all ranks of input_value(r, i): P position_part(i) plus the ranks' owner parts,
// which depend on i mod kOwnerPeriod only.
class ReferenceSum {
 public:
  explicit ReferenceSum(Rank ranks) : ranks_(ranks) {
    for (std::uint64_t residue = 0; residue < kOwnerPeriod; ++residue)
      for (Rank r = 0; r < ranks; ++r) owners_[residue] += owner_part(r, residue);
  }
  float at(std::uint64_t element) const {
    return static_cast<float>(ranks_ * position_part(element) + owners_[element % kOwnerPeriod]);
  }

 private:
  std::uint64_t ranks_;
  std::array<std::uint64_t, kOwnerPeriod> owners_{};
};

std::optional<Mismatch> compare_sum(std::span<const float> buffer, ByteRange range, Rank ranks) {
  const ReferenceSum sum(ranks);
  for (std::uint64_t i = range.offset; i < range.end(); ++i)
    if (buffer[i] != sum.at(i)) return Mismatch{i, buffer[i], sum.at(i)};
  return std::nullopt;
}

std::optional<Mismatch> compare_input(std::span<const float> buffer, ByteRange range, Rank owner) {
  for (std::uint64_t i = range.offset; i < range.end(); ++i)
    if (buffer[i] != input_value(owner, i)) return Mismatch{i, buffer[i], input_value(owner, i)};
  return std::nullopt;
}

}  // namespace

void fill_inputs(const ScheduleInfo& info, Rank rank, std::span<float> buffer) {
  std::ranges::fill(buffer, kEmptyElement);
  ByteRange held{0, 0};
  if (info.collective == Collective::allgather) held = part_of(info.data(), info.ranks, rank);
  else if (info.bytes > 0 && info.holds_input(rank, {0, 1})) held = info.data();
  for (std::uint64_t i = held.offset; i < held.end(); ++i) buffer[i] = input_value(rank, i);
}

std::optional<Mismatch> find_mismatch(const ScheduleInfo& info, Rank rank, std::span<const float> buffer) {
  const ByteRange data = info.data();
  switch (info.collective) {
    case Collective::allreduce: return compare_sum(buffer, data, info.ranks);
    case Collective::reduce:
      return rank == info.root ? compare_sum(buffer, data, info.ranks) : std::nullopt;
    case Collective::reduce_scatter:
      return compare_sum(buffer, part_of(data, info.ranks, rank), info.ranks);
    case Collective::allgather:
      for (Rank owner = 0; owner < info.ranks; ++owner)
        if (auto m = compare_input(buffer, part_of(data, info.ranks, owner), owner)) return m;
      return std::nullopt;
    case Collective::broadcast: return compare_input(buffer, data, info.root);
  }
  return std::nullopt;
}

std::string describe_mismatch(const ScheduleInfo& info, Rank rank, const Mismatch& m) {
  return fmt::format("result mismatch on rank {} at element {}: got {}, expected {} ({} {}, {} ranks, {})", rank,
                     m.element, m.got, m.expected, info.algorithm, to_string(info.collective), info.ranks,
                     format_size(info.bytes * kElementBytes));
}

}  // namespace collsim
