// collectives/units.cpp — parsing and printing sizes and times.
#include "collectives/units.hpp"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "collectives/error.hpp"

namespace collsim {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::uint64_t parse_size(std::string_view text) {
  const std::string_view s = trim(text);
  auto bad = [&](const char* why) {
    return Error(fmt::format("invalid size '{}': {} (use bytes or K/M/G, e.g. 4096, 64K, 1G)", text, why));
  };
  if (s.empty()) throw bad("empty");
  if (s.front() == '-') throw bad("sizes cannot be negative");
  double multiplier = 1;
  std::string_view number = s;
  switch (s.back()) {
    case 'K': case 'k': multiplier = 1024.0; break;
    case 'M': case 'm': multiplier = 1024.0 * 1024; break;
    case 'G': case 'g': multiplier = 1024.0 * 1024 * 1024; break;
    default: break;
  }
  if (multiplier != 1) number.remove_suffix(1);
  double value = 0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (ec != std::errc() || end != number.data() + number.size() || !std::isfinite(value)) throw bad("not a number");
  if (value < 0) throw bad("sizes cannot be negative");
  const double bytes = std::round(value * multiplier);
  if (bytes > 1.8e19) throw bad("too large");
  return static_cast<std::uint64_t>(bytes);
}

std::vector<std::uint64_t> parse_size_list(std::string_view text) {
  std::vector<std::uint64_t> sizes;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    const std::string_view item = text.substr(pos, comma - pos);
    if (const std::size_t colon = item.find(':'); colon != std::string_view::npos) {
      const std::uint64_t first = parse_size(item.substr(0, colon)), last = parse_size(item.substr(colon + 1));
      if (first == 0 || first > last)
        throw Error(fmt::format("invalid size range '{}': expected A:B with 0 < A <= B", item));
      for (std::uint64_t b = first; b <= last; b *= 2) {
        sizes.push_back(b);
        if (b > last / 2) break;  // doubling again would pass B (or wrap around)
      }
    } else {
      sizes.push_back(parse_size(item));
    }
    pos = comma + 1;
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

std::string format_seconds(double s) {
  if (s == 0) return "0 s";
  if (s < 1e-6) return fmt::format("{:.3g} ns", s * 1e9);
  if (s < 1e-3) return fmt::format("{:.3g} us", s * 1e6);
  if (s < 1) return fmt::format("{:.3g} ms", s * 1e3);
  return fmt::format("{:.3g} s", s);
}

}  // namespace collsim
