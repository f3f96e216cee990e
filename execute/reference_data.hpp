// execute/reference_data.hpp — the inputs every executor starts from and the independent
// reference its result is checked against. Values are small integers stored as float: rank r,
// element i holds position(i) + owner(r, i), each a hash in 0..7, so every sum of up to 2^20
// ranks (at most 14 x 2^20 < 2^24) is exact. position(i) has no period, so a chunk moved to
// any other offset shows as wrong numbers; owner(r, i) depends on i mod 64 only, so a
// reduced element's reference is P position(i) plus one of 64 per-residue sums (O(P) to
// prepare, O(1) an element), and two ranks' blocks confused differ on about 7 elements in 8.
// Executed schedules are generated with one schedule "byte" per float element (so chunks
// never split a float); reported sizes are 4 x elements bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "collectives/schedule.hpp"

namespace collsim {

inline constexpr float kEmptyElement = -1.0f;  // what a rank holds where it has no input
inline constexpr std::uint64_t kElementBytes = sizeof(float);

// The period of owner(r, i) in i (see above).
inline constexpr std::uint64_t kOwnerPeriod = 64;

inline std::uint64_t mix64(std::uint64_t x) {  // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
inline std::uint64_t position_part(std::uint64_t element) { return mix64(element) & 7; }
inline std::uint64_t owner_part(Rank rank, std::uint64_t element) {
  return mix64((std::uint64_t(rank) << 32) + (element % kOwnerPeriod) + 0x5eed) & 7;
}

inline float input_value(Rank rank, std::uint64_t element) {
  return static_cast<float>(position_part(element) + owner_part(rank, element));
}

// Writes rank's starting buffer (data then scratch, `info` in elements): its input where
// the collective gives it one (ScheduleInfo::holds_input), kEmptyElement elsewhere. A switch
// reducer's emulation (an id from info.ranks on) starts at 0 everywhere, the sum's identity:
// the checker models a reducer as holding nothing until its first reduction, which then is
// that contribution, and 0 + x is x exactly; a read of a reducer's bytes before any
// reduction into them is refused by the checker, so the 0 itself is never seen.
void fill_inputs(const ScheduleInfo& info, Rank rank, std::span<float> buffer);

struct Mismatch {
  std::uint64_t element = 0;
  float got = 0, expected = 0;
};

// Checks the collective's postcondition on rank's buffer, computed from the inputs alone.
// A switch reducer (rank >= info.ranks) has none: nothing to check.
std::optional<Mismatch> find_mismatch(const ScheduleInfo& info, Rank rank, std::span<const float> buffer);

// "result mismatch on rank 1 at element 5: got 9, expected 8 (ring allreduce, 4 ranks, 4K)".
std::string describe_mismatch(const ScheduleInfo& info, Rank rank, const Mismatch& m);

}  // namespace collsim
