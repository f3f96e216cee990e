// execute/reference_data.cpp — inputs and the independent reference result.
#include "execute/reference_data.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "base/units.hpp"
#include "collectives/collective_spec.hpp"

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

// One part of the postcondition (collective_spec.hpp): element i of `part.range` holds the
// source's input (or the sum of all ranks') at part.source_offset + (i - part.range.offset).
std::optional<Mismatch> compare(std::span<const float> buffer, const ExpectedOutput& part, const ReferenceSum& sum) {
  for (std::uint64_t k = 0; k < part.range.bytes; ++k) {
    const std::uint64_t i = part.range.offset + k, from = part.source_offset + k;
    const float expected = part.source == kEveryRank ? sum.at(from) : input_value(part.source, from);
    if (buffer[i] != expected) return Mismatch{i, buffer[i], expected};
  }
  return std::nullopt;
}

}  // namespace

void fill_inputs(const ScheduleInfo& info, Rank rank, std::span<float> buffer) {
  if (info.is_reducer(rank)) {
    std::ranges::fill(buffer, 0.0f);  // the sum's identity (the header says why)
    return;
  }
  std::ranges::fill(buffer, kEmptyElement);
  ByteRange held{0, 0};
  switch (spec_of(info.collective).input) {
    case Input::whole: held = info.data(); break;
    case Input::own_part: held = part_of(info.data(), info.ranks, rank); break;
    case Input::root_only: held = rank == info.root ? info.data() : ByteRange{0, 0}; break;
  }
  for (std::uint64_t i = held.offset; i < held.end(); ++i) buffer[i] = input_value(rank, i);
}

std::optional<Mismatch> find_mismatch(const ScheduleInfo& info, Rank rank, std::span<const float> buffer) {
  if (info.is_reducer(rank)) return std::nullopt;
  const ReferenceSum sum(info.ranks);
  for (const ExpectedOutput& part : expected_output(info, rank))
    if (auto m = compare(buffer, part, sum)) return m;
  return std::nullopt;
}

std::string describe_mismatch(const ScheduleInfo& info, Rank rank, const Mismatch& m) {
  return fmt::format("result mismatch on rank {} at element {}: got {}, expected {} ({} {}, {} ranks, {})", rank,
                     m.element, m.got, m.expected, info.algorithm, to_string(info.collective), info.ranks,
                     format_size(info.bytes * kElementBytes));
}

}  // namespace collsim
