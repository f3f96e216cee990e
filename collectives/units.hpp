// collectives/units.hpp — sizes and rates as people write them. Sizes follow nccl-tests:
// K, M, G = 2^10, 2^20, 2^30 bytes ("64M"); a decimal with a suffix is rounded to the
// nearest byte ("1.5K" = 1536). Lists are comma-separated; "A:B" is every power-of-two
// multiple of A up to B ("1K:1M" = 1K,2K,...,1M). Printed rates are GB/s = 1e9 bytes/s.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace collsim {

std::uint64_t parse_size(std::string_view text);                    // throws Error
std::vector<std::uint64_t> parse_size_list(std::string_view text);  // throws Error; a size twice is an error
// "a, b,c" -> {"a", "b", "c"}: the one comma splitter (items trimmed, empty ones kept).
std::vector<std::string> split_list(std::string_view text);
// A list of names ("ring,two-tree"): no empty item, no name twice (throws Error naming `what`).
std::vector<std::string> parse_name_list(std::string_view text, std::string_view what);
std::string format_size(std::uint64_t bytes);                       // "64M"; "1200000000" when not a short binary multiple
std::string format_seconds(double seconds);                         // "12.3 us", "405 ms"

// Rates: bytes/s in, GB/s (1e9 bytes/s, as nccl-tests) out.
inline constexpr double kBytesPerGB = 1e9;
inline double to_GBps(double bytes_per_s) { return bytes_per_s / kBytesPerGB; }
std::string format_rate(double bytes_per_s);  // "4.89 GB/s"; "2.1 TB/s" from 10 TB/s; "unbounded" for inf

}  // namespace collsim
