// validate/exchange_factor_fit.cpp — the exchange sweep as a link class's `exchange_factors`
// (validate/calibration.hpp, "Exchange factors"), its lines in the calibrated YAML, and its
// share of the summary line.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/units.hpp"
#include "validate/calibration.hpp"

namespace collsim {
namespace {

// The cost rule's bound on a latency factor (topologies/network.cpp), as size_factor_fit.cpp's.
constexpr double kMaxLatencyFactor = 1e4;

void require_ping_pong_sizes(const std::vector<SizeTime>& exchange, const std::vector<SizeTime>& ping_pong) {
  const bool same = std::ranges::equal(exchange, ping_pong, {}, &SizeTime::bytes, &SizeTime::bytes);
  if (!same) throw Error("the exchange sweep must measure the ping-pong's sizes: calibrate again");
}

// One stretch of the exchange's own fit as a row of the link class: its start-up over the
// class's alpha, its rate over the class's bandwidth, each held to what the cost rule allows.
FittedSizeFactor relative_row(const FittedSizeFactor& own_row, const SizeFactorFit& own, const SizeFactorFit& link_class) {
  FittedSizeFactor row = own_row;
  row.bandwidth = own_row.bandwidth * own.bandwidth_Bps / link_class.bandwidth_Bps;
  row.latency = own_row.latency * own.alpha_s / link_class.alpha_s;
  if (row.bandwidth > 1) row = {row.from_bytes, 1.0, row.latency, true, row.step};  // no message beats the class
  if (row.latency > kMaxLatencyFactor) row = {row.from_bytes, row.bandwidth, kMaxLatencyFactor, true, row.step};
  return row;
}

// Each measured exchange size: median and spread, the model's time for one half of the
// exchange, its ratio to the one-way time, and whether the model stays inside the spread.
struct HeldPoint {
  std::string line;
  bool inside = false;
};

HeldPoint held_point(const Calibration& c, std::size_t i) {
  const SizeTime& p = c.samples.exchange[i];
  const double model =
      factored_seconds(c.size_factors.alpha_s, c.size_factors.bandwidth_Bps, c.exchange_factors.rows, p.bytes);
  const bool inside = model_within_spread(p, model);
  return {fmt::format("    #   {:>6}: measured {:>10}{}, x{:.2f} one way; model {:>10} ({:+.1f}%){}\n", format_size(p.bytes),
                      format_seconds(p.seconds), spread_text(p.repeats, p.seconds),
                      p.seconds / c.samples.ping_pong[i].seconds, format_seconds(model),
                      100 * (model - p.seconds) / p.seconds, inside ? "" : ": OUTSIDE the measured spread"),
          inside};
}

std::string row_lines(const Calibration& c, const char* prefix) {
  const std::vector<SizeTime>& sweep = c.samples.exchange;
  std::string out;
  for (std::size_t i = 0; i < c.exchange_factors.rows.size(); ++i) {
    const FittedSizeFactor& r = c.exchange_factors.rows[i];
    out += fmt::format("{}- {{from_bytes: {}, bandwidth: {:.10g}, latency: {:.10g}}}  # {} .. {}{}\n", prefix, r.from_bytes,
                       r.bandwidth, r.latency, format_size(sweep[i].bytes), format_size(sweep[i + 1].bytes),
                       r.bent   ? ": bent to stay physical, misses a median"
                       : r.step ? ": a jump at the next size: the row before carries on to it"
                                : "");
  }
  return out;
}

}  // namespace

double factored_seconds(double alpha_s, double bandwidth_Bps, const std::vector<FittedSizeFactor>& rows,
                        std::uint64_t bytes) {
  FittedSizeFactor row = rows.front();
  for (const FittedSizeFactor& r : rows)
    if (r.from_bytes <= bytes) row = r;
  return alpha_s * row.latency + double(bytes) / (bandwidth_Bps * row.bandwidth);
}

ExchangeFactorFit fit_exchange_factors(const std::vector<SizeTime>& exchange, const std::vector<SizeTime>& ping_pong,
                                       const SizeFactorFit& link_class) {
  require_ping_pong_sizes(exchange, ping_pong);
  ExchangeFactorFit fit;
  fit.own = fit_size_factors(exchange);
  for (const FittedSizeFactor& own_row : fit.own.rows) fit.rows.push_back(relative_row(own_row, fit.own, link_class));
  return fit;
}

std::string exchange_factors_yaml(const Calibration& c) {
  if (c.exchange_factors.rows.empty()) return "";
  std::string points;
  std::size_t inside = 0;
  for (std::size_t i = 0; i < c.samples.exchange.size(); ++i) {
    const HeldPoint held = held_point(c, i);
    points += held.line;
    inside += held.inside;
  }
  std::string y = fmt::format(
      "    # Exchanges: ranks 0 and 1 send the size to each other at once, the send buffer written before each (a\n"
      "    # collective sends data it just wrote; an unwritten buffer measured faster), the slower rank's time. The\n"
      "    # model is the cost rule's for one half of an exchange, alpha_s x latency + bytes / (bandwidth_Bps x\n"
      "    # bandwidth), by the rows below; within the measured spread at {} of {} exchange sizes:\n{}",
      inside, c.samples.exchange.size(), points);
  return y + "    exchange_factors:\n" + row_lines(c, "      ");
}

std::string exchange_summary(const Calibration& c) {
  const std::vector<SizeTime>&exchange = c.samples.exchange, &one_way = c.samples.ping_pong;
  if (c.exchange_factors.rows.empty()) return "";
  std::size_t largest = 0;
  for (std::size_t i = 0; i < exchange.size(); ++i)
    if (exchange[i].seconds / one_way[i].seconds > exchange[largest].seconds / one_way[largest].seconds) largest = i;
  return fmt::format("exchanges x{:.2f} at {} .. x{:.2f} at {} over one way",
                     exchange[largest].seconds / one_way[largest].seconds, format_size(exchange[largest].bytes),
                     exchange.back().seconds / one_way.back().seconds, format_size(exchange.back().bytes));
}

}  // namespace collsim
