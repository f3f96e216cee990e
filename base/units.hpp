// base/units.hpp — sizes and rates as people write them. Sizes follow nccl-tests:
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
// A bandwidth column's cell: GB/s with 3 decimals, or "-" where it means nothing (`defined` false:
// on one rank a collective moves no data, so it has no bus bandwidth, and a prediction no time).
std::string format_GBps_cell(double GBps, bool defined);

// Rates and times as datasheets write them, for config files. A rate is bytes/s, or a number
// with a unit: bits (`400Gbps`, `400Gb/s`) or bytes (`50GB/s`, `50GBps`), prefixes k/K, M, G, T
// as powers of 1000 (datasheets' decimal prefixes, not K/M/G of sizes). A time is seconds, or
// a number with `s`, `ms`, `us`, `ns`. Both throw Error "'TEXT' is not a rate/time" listing
// the accepted forms; the range of the value is the caller's to check.
double parse_rate(std::string_view text);     // bytes/s
double parse_duration(std::string_view text);  // seconds
inline constexpr std::string_view kRateForms =
    "bytes/s as a number (50.0e+9) or with a unit: 400Gbps or 400Gb/s (bits/s), 50GB/s or 50GBps (bytes/s); "
    "prefixes k, M, G, T are powers of 1000";
inline constexpr std::string_view kDurationForms =
    "seconds as a number (2.0e-6) or with a unit: 1s, 1ms, 2us, 100ns";

}  // namespace collsim
