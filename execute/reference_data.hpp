// execute/reference_data.hpp — the inputs every executor starts from and the independent
// reference its result is checked against. Values are small integers stored as float
// (rank r, element i holds (7 r + i) mod 13), so every sum of up to 2^20 ranks is exact and
// any lost, doubled or misplaced contribution shows as a wrong number.
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

inline float input_value(Rank rank, std::uint64_t element) {
  return static_cast<float>((std::uint64_t(rank) * 7 + element) % 13);
}

// Writes rank's starting buffer (data then scratch, `info` in elements): its input where
// the collective gives it one (ScheduleInfo::holds_input), kEmptyElement elsewhere.
void fill_inputs(const ScheduleInfo& info, Rank rank, std::span<float> buffer);

struct Mismatch {
  std::uint64_t element = 0;
  float got = 0, expected = 0;
};

// Checks the collective's postcondition on rank's buffer, computed from the inputs alone.
std::optional<Mismatch> find_mismatch(const ScheduleInfo& info, Rank rank, std::span<const float> buffer);

// "result mismatch on rank 1 at element 5: got 9, expected 8 (ring allreduce, 4 ranks, 4K)".
std::string describe_mismatch(const ScheduleInfo& info, Rank rank, const Mismatch& m);

}  // namespace collsim
