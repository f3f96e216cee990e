// collectives/partition.hpp — how a byte range is split into near-equal parts. Every
// generator, the checker and the closed forms use this one helper, so "chunk i" means the
// same bytes everywhere: the first (bytes % parts) parts are one byte longer.
#pragma once

#include <algorithm>
#include <cstdint>

namespace collsim {

struct ByteRange {
  std::uint64_t offset = 0;
  std::uint64_t bytes = 0;

  std::uint64_t end() const { return offset + bytes; }
  friend bool operator==(const ByteRange&, const ByteRange&) = default;
};

// Part `index` of `parts` near-equal parts of `range`.
inline ByteRange part_of(ByteRange range, std::uint64_t parts, std::uint64_t index) {
  const std::uint64_t base = range.bytes / parts;
  const std::uint64_t longer = range.bytes % parts;
  const std::uint64_t offset = index * base + std::min(index, longer);
  return {range.offset + offset, base + (index < longer ? 1 : 0)};
}

// Parts [first, last) of `parts` near-equal parts of `range`, as one contiguous range.
inline ByteRange parts_of(ByteRange range, std::uint64_t parts, std::uint64_t first,
                          std::uint64_t last) {
  const ByteRange a = part_of(range, parts, first);
  const ByteRange b = part_of(range, parts, last - 1);
  return {a.offset, b.end() - a.offset};
}

// Integer log2 helpers (no floating point for step counts).
inline unsigned floor_log2(std::uint64_t x) { return x <= 1 ? 0 : 63u - unsigned(__builtin_clzll(x)); }
inline unsigned ceil_log2(std::uint64_t x) { return x <= 1 ? 0 : floor_log2(x - 1) + 1; }
inline bool is_power_of_two(std::uint64_t x) { return x != 0 && (x & (x - 1)) == 0; }

}  // namespace collsim
