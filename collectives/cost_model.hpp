// collectives/cost_model.hpp — the alpha-beta-gamma cost constants of a contention-free
// network (docs/design.md section 3). Units: seconds, seconds per byte.
//   alpha: per-message overhead;  beta = 1 / bandwidth;  gamma: reduction cost per byte.
// Two link classes let a flat model tell a node's internal links (NVLink, PCIe) from the
// network between nodes; ranks n*G .. n*G+G-1 share node n when ranks_per_node = G > 0.
#pragma once

#include <cmath>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "collectives/schedule.hpp"

namespace collsim {

// The physically possible range of each cost number. A value outside it is a unit slip
// (bits for bytes, microseconds for seconds) or a typo, refused with the range instead of
// turning into zero or 300-digit times. `written` says which units a config may write the
// number with (units.hpp: `400Gbps`, `2us`); plain numbers are always in the base unit.
enum class WrittenUnits : std::uint8_t { none, rate, duration };
struct PhysicalRange {
  std::string_view quantity;
  double min, max;
  WrittenUnits written = WrittenUnits::none;
};
inline constexpr PhysicalRange kBandwidthRange{"bytes/s", 1e3, 1e15, WrittenUnits::rate};  // 1 kB/s .. 1 PB/s
inline constexpr PhysicalRange kTimeRange{"seconds", 0, 1, WrittenUnits::duration};      // alpha, latency: 0 .. 1 s
inline constexpr PhysicalRange kGammaRange{"seconds per byte", 0, 1e-3};  // reduction: down to 1 kB/s
inline constexpr PhysicalRange kBetaRange{"seconds per byte", 1e-15, 1e-3};

// Why `value` is outside `range` ("expected seconds in 0..1, got 1e+300"), or "" inside.
inline std::string range_problem(const PhysicalRange& range, double value) {
  if (std::isfinite(value) && value >= range.min && value <= range.max) return "";
  return fmt::format("expected {} in {:g}..{:g}, got {:g}", range.quantity, range.min, range.max, value);
}

struct LinkCost {
  double alpha_s = 0;
  double beta_s_per_byte = 0;

  double message_s(std::uint64_t bytes) const { return alpha_s + double(bytes) * beta_s_per_byte; }
  friend bool operator==(const LinkCost&, const LinkCost&) = default;
};

struct CostModel {
  LinkCost inter_node;             // between nodes; everywhere when ranks_per_node == 0
  LinkCost intra_node;             // inside a node
  double gamma_s_per_byte = 0;
  Rank ranks_per_node = 0;

  static CostModel uniform(double alpha_s, double beta_s_per_byte, double gamma_s_per_byte) {
    return {{alpha_s, beta_s_per_byte}, {alpha_s, beta_s_per_byte}, gamma_s_per_byte, 0};
  }
  bool is_uniform() const { return ranks_per_node == 0 || inter_node == intra_node; }
  bool same_node(Rank a, Rank b) const { return ranks_per_node > 0 && a / ranks_per_node == b / ranks_per_node; }
  const LinkCost& link(Rank a, Rank b) const { return same_node(a, b) ? intra_node : inter_node; }
  double reduction_s(std::uint64_t bytes) const { return double(bytes) * gamma_s_per_byte; }
};

}  // namespace collsim
