// base/units.cpp — parsing and printing sizes and times.
#include "base/units.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <span>

#include <fmt/format.h>

#include "base/error.hpp"

namespace collsim {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

namespace {

// The largest size: what a signed 64-bit count (JSON readers, CSV tools) still holds exactly.
constexpr std::uint64_t kMaxSize = std::uint64_t(std::numeric_limits<std::int64_t>::max());

// Whole numbers stay exact (9223372036854775807 is not rounded through a double).
std::optional<std::uint64_t> exact_whole(std::string_view digits, std::uint64_t multiplier) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  if (value > kMaxSize / multiplier) return std::nullopt;
  return value * multiplier;
}

}  // namespace

std::uint64_t parse_size(std::string_view text) {
  const std::string_view s = trim(text);
  auto bad = [&](const char* why) {
    return Error(fmt::format("invalid size '{}': {} (use bytes or K/M/G, e.g. 4096, 64K, 1G)", text, why));
  };
  if (s.empty()) throw bad("empty");
  if (s.front() == '-') throw bad("sizes cannot be negative");
  std::uint64_t multiplier = 1;
  std::string_view number = s;
  switch (s.back()) {
    case 'K': case 'k': multiplier = 1ull << 10; break;
    case 'M': case 'm': multiplier = 1ull << 20; break;
    case 'G': case 'g': multiplier = 1ull << 30; break;
    default: break;
  }
  if (multiplier != 1) number.remove_suffix(1);
  if (number.find_first_not_of("0123456789") == std::string_view::npos) {
    if (const auto exact = exact_whole(number, multiplier)) return *exact;
    if (!number.empty()) throw bad("too large (at most 2^63 - 1 bytes)");
  }
  double value = 0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (ec != std::errc() || end != number.data() + number.size() || !std::isfinite(value)) throw bad("not a number");
  if (value < 0) throw bad("sizes cannot be negative");
  const double bytes = value * double(multiplier);
  if (bytes >= 9.2e18) throw bad("too large (at most 2^63 - 1 bytes)");
  if (bytes != std::floor(bytes))  // never rounded: 0.4 would become 0 bytes, 2.5 become 3
    throw Error(fmt::format("invalid size '{}': {:.10g} bytes is not a whole number of bytes", text, bytes));
  return static_cast<std::uint64_t>(bytes);
}

std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> items;
  for (std::size_t pos = 0; pos <= text.size();) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    items.emplace_back(trim(text.substr(pos, comma - pos)));
    pos = comma + 1;
  }
  return items;
}

std::vector<std::string> parse_name_list(std::string_view text, std::string_view what) {
  std::vector<std::string> names;
  for (std::string& item : split_list(text)) {
    if (item.empty()) throw Error(fmt::format("invalid {} list '{}': an empty name (stray comma?)", what, text));
    if (std::find(names.begin(), names.end(), item) != names.end())
      throw Error(fmt::format("invalid {} list '{}': '{}' is named twice", what, text, item));
    names.push_back(std::move(item));
  }
  return names;
}

std::vector<std::uint64_t> parse_size_list(std::string_view text) {
  std::vector<std::uint64_t> sizes;
  auto add = [&](std::uint64_t b) {
    if (std::find(sizes.begin(), sizes.end(), b) != sizes.end())
      throw Error(fmt::format("invalid size list '{}': {} is listed twice", text, format_size(b)));
    sizes.push_back(b);
  };
  for (const std::string& item : split_list(text)) {
    if (const std::size_t colon = item.find(':'); colon != std::string::npos) {
      const std::uint64_t first = parse_size(item.substr(0, colon)), last = parse_size(item.substr(colon + 1));
      if (first == 0 || first > last)
        throw Error(fmt::format("invalid size range '{}': expected A:B with 0 < A <= B", item));
      for (std::uint64_t b = first; b <= last; b *= 2) {
        add(b);
        if (b > last / 2) break;  // doubling again would pass B (or wrap around)
      }
    } else {
      add(parse_size(item));
    }
  }
  return sizes;
}

std::string format_size(std::uint64_t bytes) {
  constexpr const char* kSuffix[] = {"", "K", "M", "G", "T"};
  int unit = 0;
  std::uint64_t value = bytes;
  while (value >= 1024 && value % 1024 == 0 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  // An exact binary multiple reads best with its suffix (64M); other sizes print in full.
  if (unit == 0 || value >= 10000) return std::to_string(bytes);
  return fmt::format("{}{}", value, kSuffix[unit]);
}

std::string format_rate(double bytes_per_s) {
  if (std::isinf(bytes_per_s)) return "unbounded";
  if (bytes_per_s >= 1e13) return fmt::format("{:.4g} TB/s", bytes_per_s / 1e12);
  return fmt::format("{:.4g} GB/s", to_GBps(bytes_per_s));
}

namespace {

// A unit a number may carry, and what it multiplies the number by to reach the base unit.
struct UnitScale {
  std::string_view unit;
  double scale;
};

// Bits and bytes per second, with SI prefixes (datasheets: 400 Gb/s = 400e9 bits/s).
constexpr UnitScale kRateUnits[] = {
    {"bps", 0.125},     {"b/s", 0.125},     {"kbps", 125.0},    {"kb/s", 125.0},    {"Kbps", 125.0},
    {"Kb/s", 125.0},    {"Mbps", 125.0e3},  {"Mb/s", 125.0e3},  {"Gbps", 125.0e6},  {"Gb/s", 125.0e6},
    {"Tbps", 125.0e9},  {"Tb/s", 125.0e9},  {"Bps", 1.0},       {"B/s", 1.0},       {"kBps", 1.0e3},
    {"kB/s", 1.0e3},    {"KBps", 1.0e3},    {"KB/s", 1.0e3},    {"MBps", 1.0e6},    {"MB/s", 1.0e6},
    {"GBps", 1.0e9},    {"GB/s", 1.0e9},    {"TBps", 1.0e12},   {"TB/s", 1.0e12},
};
constexpr UnitScale kDurationUnits[] = {{"s", 1.0}, {"ms", 1.0e-3}, {"us", 1.0e-6}, {"ns", 1.0e-9}};

// "50GB/s" -> 50 x the scale of "GB/s"; a bare number is taken in the base unit. nullopt for
// anything else (no number, an unknown unit, trailing text).
std::optional<double> number_with_unit(std::string_view text, std::span<const UnitScale> units) {
  const std::string_view s = trim(text);
  double value = 0;
  const char* first = s.data() + (!s.empty() && s.front() == '+' ? 1 : 0);
  const auto [end, ec] = std::from_chars(first, s.data() + s.size(), value);
  if (ec != std::errc() || !std::isfinite(value)) return std::nullopt;
  const std::string_view unit = trim(std::string_view(end, std::size_t(s.data() + s.size() - end)));
  if (unit.empty()) return value;
  for (const UnitScale& u : units)
    if (u.unit == unit) return value * u.scale;
  return std::nullopt;
}

}  // namespace

double parse_rate(std::string_view text) {
  if (const auto v = number_with_unit(text, kRateUnits)) return *v;
  throw Error(fmt::format("'{}' is not a rate: write {}", text, kRateForms));
}

double parse_duration(std::string_view text) {
  if (const auto v = number_with_unit(text, kDurationUnits)) return *v;
  throw Error(fmt::format("'{}' is not a time: write {}", text, kDurationForms));
}

std::string format_GBps_cell(double GBps, bool defined) { return defined ? fmt::format("{:.3f}", GBps) : "-"; }

std::string format_seconds(double s) {
  if (s == 0) return "0 s";
  if (s < 1e-6) return fmt::format("{:.3g} ns", s * 1e9);
  if (s < 1e-3) return fmt::format("{:.3g} us", s * 1e6);
  if (s < 1) return fmt::format("{:.3g} ms", s * 1e3);
  return fmt::format("{:.3g} s", s);
}

}  // namespace collsim
