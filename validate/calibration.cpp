// validate/calibration.cpp — merged repeats, least-squares fits, the reliability checks and
// the calibrated cluster YAML.
#include "validate/calibration.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/units.hpp"
#include "execute/measurement.hpp"
#include "validate/machine_drift.hpp"

namespace collsim {

// ---- repeats and their spread -------------------------------------------------------------

namespace {

// Each run's value of every point, by point: values[point][run].
template <class Point>
std::vector<std::vector<double>> times_by_point(const std::vector<CalibrationSamples>& runs,
                                                std::vector<Point> CalibrationSamples::*points) {
  const std::vector<Point>& first = runs.front().*points;
  std::vector<std::vector<double>> times(first.size());
  for (const CalibrationSamples& run : runs) {
    const std::vector<Point>& these = run.*points;
    if (these.size() != first.size()) throw Error("calibration runs measured different sweeps");
    for (std::size_t i = 0; i < these.size(); ++i) {
      if (these[i].bytes != first[i].bytes) throw Error("calibration runs measured different sizes");
      times[i].push_back(these[i].seconds);
    }
  }
  return times;
}

// `points` of the first run, each with the runs' times as repeats and their median.
template <class Point>
std::vector<Point> merged(const std::vector<CalibrationSamples>& runs, std::vector<Point> CalibrationSamples::*points) {
  std::vector<Point> out = runs.front().*points;
  const std::vector<std::vector<double>> times = times_by_point(runs, points);
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i].seconds = median_of(times[i]);
    out[i].repeats = times[i];
  }
  return out;
}

}  // namespace

CalibrationSamples merge_repeats(const std::vector<CalibrationSamples>& runs) {
  if (runs.empty()) throw Error("calibration needs at least one run");
  CalibrationSamples s = runs.front();
  s.ping_pong = merged(runs, &CalibrationSamples::ping_pong);
  s.concurrent = merged(runs, &CalibrationSamples::concurrent);
  s.reduction = merged(runs, &CalibrationSamples::reduction);
  s.memory_copy = merged(runs, &CalibrationSamples::memory_copy);
  s.exchange = merged(runs, &CalibrationSamples::exchange);
  s.reduction_into_sent = merged(runs, &CalibrationSamples::reduction_into_sent);
  s.host_issue = merged(runs, &CalibrationSamples::host_issue);
  s.host_sync = merged(runs, &CalibrationSamples::host_sync);
  for (const CalibrationSamples& run : runs) s.on_cpu_fraction = std::min(s.on_cpu_fraction, run.on_cpu_fraction);
  for (const CalibrationSamples& run : runs) s.receiver_copies = s.receiver_copies && run.receiver_copies;
  return s;
}

Spread spread_of(const std::vector<double>& repeats, double median) {
  if (repeats.empty() || median <= 0) return {};
  const auto [low, high] = std::ranges::minmax(repeats);
  return {low / median - 1, high / median - 1};
}

bool model_within_spread(const SizeTime& p, double model_s) {
  if (p.repeats.size() < 2) return std::abs(model_s - p.seconds) <= 0.01 * p.seconds;
  const auto [low, high] = std::ranges::minmax(p.repeats);
  const double slack = 1e-9 * p.seconds;  // the YAML's printed digits
  return model_s >= low - slack && model_s <= high + slack;
}

// ---- fitting -----------------------------------------------------------------------------

namespace {

LinearFit weighted_fit(const std::vector<SizeTime>& points, bool relative) {
  if (points.size() < 2) throw Error("a fit needs at least two sizes");
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const SizeTime& p : points) {
    const double w = relative ? 1.0 / (p.seconds * p.seconds) : 1.0, x = double(p.bytes), y = p.seconds;
    sw += w, sx += w * x, sy += w * y, sxx += w * x * x, sxy += w * x * y;
  }
  const double det = sw * sxx - sx * sx;
  if (det <= 0) throw Error("a fit needs at least two different sizes");
  LinearFit fit;
  fit.slope = (sw * sxy - sx * sy) / det;
  fit.intercept = (sy - fit.slope * sx) / sw;
  double squares = 0;
  for (const SizeTime& p : points) {
    const double residual = (fit.intercept + fit.slope * double(p.bytes) - p.seconds) / p.seconds;
    squares += residual * residual;
    fit.max_relative_residual = std::max(fit.max_relative_residual, std::abs(residual));
  }
  fit.rms_relative_residual = std::sqrt(squares / double(points.size()));
  return fit;
}

}  // namespace

LinearFit fit_relative(const std::vector<SizeTime>& points) { return weighted_fit(points, true); }
LinearFit fit_absolute(const std::vector<SizeTime>& points) { return weighted_fit(points, false); }

double ParameterRange::factor() const {
  if (high_quartile <= 0) return 1;
  return low_quartile > 0 ? high_quartile / low_quartile : std::numeric_limits<double>::infinity();
}

ParameterRange parameter_range(const std::vector<double>& per_repeat) {
  if (per_repeat.empty()) return {};
  const auto [lowest, highest] = std::ranges::minmax(per_repeat);
  return {lowest, percentile_of(per_repeat, 0.25), percentile_of(per_repeat, 0.75), highest};
}

namespace {

// What the fit of a sweep gives for each parameter, clamped as the reported values are.
// A sweep whose times do not grow with size has no bandwidth: infinite.
double alpha_of(const LinearFit& link) { return std::max(link.intercept, 0.0); }
double bandwidth_of(const LinearFit& link) {
  return link.slope > 0 ? 1.0 / link.slope : std::numeric_limits<double>::infinity();
}
double gamma_of(const LinearFit& reduction) { return std::max(reduction.slope, 0.0); }

// Every point's r-th repeat, as one sweep.
std::vector<SizeTime> repeat_sweep(const std::vector<SizeTime>& points, std::uint32_t r) {
  std::vector<SizeTime> sweep;
  for (const SizeTime& p : points) sweep.push_back({p.bytes, p.repeats.at(r), {}});
  return sweep;
}

// How many repeats every ping-pong and reduction point has.
std::uint32_t common_repeats(const CalibrationSamples& s) {
  std::size_t fewest = std::numeric_limits<std::size_t>::max();
  for (const auto* points : {&s.ping_pong, &s.reduction})
    for (const SizeTime& p : *points) fewest = std::min(fewest, p.repeats.size());
  return fewest == std::numeric_limits<std::size_t>::max() ? 0 : std::uint32_t(fewest);
}

// Fits each repeat's sweep alone (needs two repeats or more).
RepeatRanges repeat_ranges(const CalibrationSamples& s) {
  RepeatRanges ranges;
  ranges.repeats = common_repeats(s);
  if (ranges.repeats < 2) return {};
  std::vector<double> alpha, bandwidth, gamma;
  for (std::uint32_t r = 0; r < ranges.repeats; ++r) {
    const LinearFit link = fit_relative(repeat_sweep(s.ping_pong, r));
    alpha.push_back(alpha_of(link));
    bandwidth.push_back(bandwidth_of(link));
    gamma.push_back(gamma_of(fit_absolute(repeat_sweep(s.reduction, r))));
  }
  ranges.alpha_s = parameter_range(alpha);
  ranges.bandwidth_Bps = parameter_range(bandwidth);
  ranges.gamma_s_per_byte = parameter_range(gamma);
  return ranges;
}

}  // namespace

// ---- reliability -------------------------------------------------------------------------

namespace {

std::string format_gamma(double s_per_byte) { return fmt::format("{:.3g} s/B", s_per_byte); }

// "490 ns .. 507 ns (all 484 ns .. 539 ns)": the middle half of the repeats, then all of them.
std::string range_text(const ParameterRange& r, std::string (*format)(double)) {
  return fmt::format("{} .. {} (all {} .. {})", format(r.low_quartile), format(r.high_quartile), format(r.lowest),
                     format(r.highest));
}

// The largest fall of a ping-pong median from one size to the next, as a share of the first.
std::pair<double, std::size_t> largest_drop(const std::vector<SizeTime>& sweep) {
  std::pair<double, std::size_t> worst{0, 0};
  for (std::size_t i = 0; i + 1 < sweep.size(); ++i)
    worst = std::max(worst, {1 - sweep[i + 1].seconds / sweep[i].seconds, i});
  return worst;
}

void check_sweep_shape(const Calibration& c, std::vector<std::string>& reasons) {
  const auto [drop, at] = largest_drop(c.samples.ping_pong);
  if (drop <= kMaxTimeDrop) return;
  const SizeTime& a = c.samples.ping_pong[at];
  const SizeTime& b = c.samples.ping_pong[at + 1];
  reasons.push_back(fmt::format(
      "the ping-pong time falls {:.0f}% from {} ({}) to {} ({}) (bound {:.0f}%): a larger message is not faster, the "
      "smaller one waited for something else: run on an idle machine",
      100 * drop, format_size(a.bytes), format_seconds(a.seconds), format_size(b.bytes), format_seconds(b.seconds),
      100 * kMaxTimeDrop));
}

void check_parameter(const char* name, const ParameterRange& range, std::string (*format)(double),
                     std::vector<std::string>& reasons) {
  if (range.factor() <= kMaxRepeatFactor) return;
  reasons.push_back(fmt::format(
      "{} moved x{:.2f} between repeats (middle half {}; bound x{:.2f}): run on an idle machine or raise "
      "--seconds-per-point",
      name, range.factor(), range_text(range, format), kMaxRepeatFactor));
}

void check_repeats(const RepeatRanges& r, std::vector<std::string>& reasons) {
  if (r.repeats < 2) return;
  check_parameter("alpha", r.alpha_s, format_seconds, reasons);
  check_parameter("bandwidth", r.bandwidth_Bps, format_rate, reasons);
  check_parameter("gamma", r.gamma_s_per_byte, format_gamma, reasons);
}

void check_cpu(const CalibrationSamples& s, std::vector<std::string>& reasons) {
  if (s.on_cpu_fraction >= kMinOnCpuFraction) return;
  reasons.push_back(fmt::format(
      "the measuring ranks had a CPU only {:.0f}% of the time (bound {:.0f}%): other processes shared the cores "
      "(see uptime): run on an idle machine, with fewer --ranks than free cores",
      100 * s.on_cpu_fraction, 100 * kMinOnCpuFraction));
}

// The launches must have met one machine: at the probe sizes validate uses (machine_drift.hpp),
// a launch whose ping-pong sits beyond kDriftTolerance from the median of all ran at another
// speed (a virtual machine may switch between speeds several times apart), and the medians
// then mix the two.
void check_launch_speeds(const CalibrationSamples& s, std::vector<std::string>& reasons) {
  for (std::uint64_t bytes : probe_sizes(s.ping_pong))
    for (const SizeTime& p : s.ping_pong) {
      if (p.bytes != bytes) continue;
      for (std::size_t launch = 0; launch < p.repeats.size(); ++launch) {
        const double drift = std::abs(p.repeats[launch] / p.seconds - 1);
        if (drift <= kDriftTolerance) continue;
        reasons.push_back(fmt::format(
            "launch {} of {} ran at another speed: its {} ping-pong took {} against the median {} ({:.0f}% off, bound "
            "{:.0f}%): the machine changed speed between launches (validate/README.md): calibrate again",
            launch + 1, p.repeats.size(), format_size(bytes), format_seconds(p.repeats[launch]), format_seconds(p.seconds),
            100 * drift, 100 * kDriftTolerance));
        return;
      }
    }
}

// One message alone by a fit's rows (what the cost rule gives the YAML's link class).
double alone_seconds(const SizeFactorFit& fit, std::uint64_t bytes) {
  return factored_seconds(fit.alpha_s, fit.bandwidth_Bps, fit.rows, bytes);
}

// The node's shared capacity: the best aggregate of the exchanges that stayed below what
// their flows reached alone at the same size (0: none did, nothing is shared). Comparing at
// the same size matters on a CPU node: two in-cache exchanges run at twice one flow's rate,
// while out of cache both draw on one memory bus.
double shared_capacity_of(const CalibrationSamples& samples, const SizeFactorFit& alone) {
  double shared = 0;
  for (const ConcurrentSample& s : samples.concurrent) {
    const double alone_Bps = double(s.bytes) / alone_seconds(alone, s.bytes);
    if (s.flows > 1 && s.aggregate_Bps() < 0.9 * s.flows * alone_Bps) shared = std::max(shared, s.aggregate_Bps());
  }
  return shared;
}

// Bytes a reduction moves through its rank's memory per byte reduced (both operands read, the
// result written): sim/cost_rule.hpp's kReductionMemoryBytes, which validate_core cannot include.
constexpr double kReductionMemoryBytesPerByte = 3;

// What the fastest reduction alone drew from its rank's memory: 3 bytes per byte reduced
// (docs/semantics.md, "The rank's memory"); 0 without reduction factors.
double fastest_reduction_Bps(const Calibration& c) {
  if (c.reduction_factors.empty()) return 0;
  return kReductionMemoryBytesPerByte / fastest_reduction_s_per_byte(c.reduction_factors, c.gamma_s_per_byte);
}

// A memcpy of b bytes reads b and writes b: 2b bytes through the rank's memory, at the
// largest size measured (out of the caches).
double memory_bandwidth_of(const std::vector<SizeTime>& copies) {
  if (copies.empty() || copies.back().seconds <= 0) return 0;
  return 2.0 * double(copies.back().bytes) / copies.back().seconds;
}

}  // namespace

Calibration fit_calibration(const CalibrationSamples& samples) {
  Calibration c;
  c.samples = samples;
  c.link = fit_relative(samples.ping_pong);
  if (c.link.slope <= 0) throw Error("ping-pong times do not grow with size: cannot fit a bandwidth");
  c.link.intercept = alpha_of(c.link);
  c.reduction = fit_absolute(samples.reduction);
  c.gamma_s_per_byte = gamma_of(c.reduction);
  c.repeats = repeat_ranges(samples);
  c.size_factors = fit_size_factors(samples.ping_pong);
  if (!samples.exchange.empty())
    c.exchange_factors = fit_exchange_factors(samples.exchange, samples.ping_pong, c.size_factors);
  c.shared_Bps = shared_capacity_of(samples, c.size_factors);
  // Every flow crosses the node's shared capacity, so it may not be below what one flow alone
  // reached between two measured sizes: the ping-pong itself would then miss its medians.
  c.shared_Bps_measured = c.shared_Bps;
  if (c.shared_Bps > 0) c.shared_Bps = std::max(c.shared_Bps, c.size_factors.bandwidth_Bps);
  if (c.gamma_s_per_byte > 0) {
    c.reduction_factors = fit_reduction_factors(samples.reduction, c.gamma_s_per_byte);
    c.reduction_into_sent_factors = fit_reduction_factors(samples.reduction_into_sent, c.gamma_s_per_byte);
  }
  c.memory_Bps_measured = memory_bandwidth_of(samples.memory_copy);
  // Ranks that copy what they receive have a core, copying at the fastest a receive reached.
  // Otherwise nothing that crosses the rank's memory alone may be slower for it than measured:
  // one flow at its fastest stretch, one reduction (3 bytes per byte) at its fastest size.
  if (samples.receiver_copies)
    c.core_Bps = c.size_factors.bandwidth_Bps;
  else if (c.memory_Bps_measured > 0)
    c.memory_Bps = std::max({c.memory_Bps_measured, c.size_factors.bandwidth_Bps, fastest_reduction_Bps(c)});
  check_sweep_shape(c, c.unreliable_because);
  check_repeats(c.repeats, c.unreliable_because);
  check_cpu(samples, c.unreliable_because);
  check_launch_speeds(samples, c.unreliable_because);
  return c;
}

std::string calibration_summary(const Calibration& c) {
  const RepeatRanges& r = c.repeats;
  // Each range is over the repeats fitted alone, so the fit of all of them (the medians) may
  // lie outside it: it is said to be theirs, not the estimate's.
  const auto repeats_alone = [&](const ParameterRange& range, std::string (*format)(double)) {
    if (r.repeats < 2) return std::string();
    return fmt::format(", {} .. {} per repeat", format(range.low_quartile), format(range.high_quartile));
  };
  // What the YAML's link class is: its fastest stretch and first start-up, bent by its rows.
  const SizeFactorFit& f = c.size_factors;
  std::string link = fmt::format("link {} (the fastest stretch), alpha {} (the first stretch's start-up)",
                                 format_rate(f.bandwidth_Bps), format_seconds(f.alpha_s));
  if (!f.rows.empty()) {
    auto [lat_low, lat_high] = std::minmax_element(f.rows.begin(), f.rows.end(),
                                                   [](const auto& a, const auto& b) { return a.latency < b.latency; });
    auto [bw_low, bw_high] = std::minmax_element(f.rows.begin(), f.rows.end(),
                                                 [](const auto& a, const auto& b) { return a.bandwidth < b.bandwidth; });
    link += fmt::format(", {} size-factor rows (alpha x{:.3g} .. x{:.3g}, bandwidth x{:.3g} .. x{:.3g})", f.rows.size(),
                        lat_low->latency, lat_high->latency, bw_low->bandwidth, bw_high->bandwidth);
  }
  return fmt::format(
      "{}; one line through the sweep: alpha {}{}, bandwidth {}{} (rms residual {:.1f}%); gamma {}{}, shared {}, {}{}{}; "
      "ranks on a CPU {:.0f}% of the time: {}",
      link, format_seconds(c.link.intercept), repeats_alone(r.alpha_s, format_seconds), format_rate(1.0 / c.link.slope),
      repeats_alone(r.bandwidth_Bps, format_rate), 100 * c.link.rms_relative_residual, format_gamma(c.gamma_s_per_byte),
      repeats_alone(r.gamma_s_per_byte, format_gamma), c.shared_Bps > 0 ? format_rate(c.shared_Bps) : "none",
      c.core_Bps > 0 ? "each rank's core " + format_rate(c.core_Bps)
                     : "memory " + (c.memory_Bps > 0 ? format_rate(c.memory_Bps) : std::string("not measured")),
      c.exchange_factors.rows.empty() ? "" : ", " + exchange_summary(c),
      r.repeats < 2 ? "" : fmt::format(" (per repeat: middle half of {} repeats fitted alone)", r.repeats),
      100 * c.samples.on_cpu_fraction, c.reliable() ? "reliable" : "UNRELIABLE (see the warnings)");
}

std::string unreliable_calibration_warning(const Calibration& c, std::string_view command) {
  std::string out;
  for (const std::string& reason : c.unreliable_because)
    out += fmt::format("collsim {}: warning: unreliable calibration: {}\n", command, reason);
  if (!c.reliable())
    out += fmt::format("collsim {}: warning: the calibrated YAML says so (calibration: reliable: false)\n", command);
  return out;
}

// ---- the YAML ------------------------------------------------------------------------------

std::string spread_text(const std::vector<double>& repeats, double median) {
  if (repeats.size() < 2) return "";
  const Spread s = spread_of(repeats, median);
  return fmt::format(" [{:+.1f}% {:+.1f}%]", 100 * s.below, 100 * s.above);
}

namespace {

std::string residual_comments(const std::vector<SizeTime>& points, const LinearFit& fit, const char* indent) {
  std::string out;
  for (const SizeTime& p : points) {
    const double model = fit.intercept + fit.slope * double(p.bytes);
    out += fmt::format("{}#   {:>6}: measured {:>10}{}, fit {:>10} ({:+.1f}%)\n", indent, format_size(p.bytes),
                       format_seconds(p.seconds), spread_text(p.repeats, p.seconds), format_seconds(model),
                       100 * (model - p.seconds) / p.seconds);
  }
  return out;
}

std::string measured_comments(const std::vector<SizeTime>& points, const char* indent) {
  std::string out;
  for (const SizeTime& p : points)
    out += fmt::format("{}#   {:>6}: measured {:>10}{}\n", indent, format_size(p.bytes), format_seconds(p.seconds),
                       spread_text(p.repeats, p.seconds));
  return out;
}

// The size factors, a row per stretch of the sweep ("1K .. 4K" beside each).
std::string size_factor_rows(const Calibration& c) {
  const std::vector<SizeTime>& sweep = c.samples.ping_pong;
  std::string out = "    size_factors:\n";
  for (std::size_t i = 0; i < c.size_factors.rows.size(); ++i) {
    const FittedSizeFactor& r = c.size_factors.rows[i];
    out += fmt::format("      - {{from_bytes: {}, bandwidth: {:.10g}, latency: {:.10g}}}  # {} .. {}{}\n", r.from_bytes,
                       r.bandwidth, r.latency, format_size(sweep[i].bytes), format_size(sweep[i + 1].bytes),
                       r.bent   ? ": bent to stay physical, misses a median"
                       : r.step ? ": a jump at the next size (a protocol or cache switch): the row before carries on to it"
                                : "");
  }
  return out;
}

std::string concurrent_comments(const Calibration& c) {
  std::string out;
  for (const ConcurrentSample& s : c.samples.concurrent)
    out += fmt::format("  #   {} flows x {}: {}{} -> {:.3f} GB/s in all\n", s.flows, format_size(s.bytes),
                       format_seconds(s.seconds), spread_text(s.repeats, s.seconds), to_GBps(s.aggregate_Bps()));
  return out;
}

std::string repeats_comment(const Calibration& c) {
  if (c.repeats.repeats < 2) return "";
  return fmt::format(
      "# Each time is the median of {} repeats, each a launch of its own [smallest and largest repeat relative to it].\n",
      c.repeats.repeats);
}

std::string link_ranges_comment(const RepeatRanges& r) {
  if (r.repeats < 2) return "";
  return fmt::format("    # each repeat fitted alone, middle half: alpha {}, bandwidth {}\n",
                     range_text(r.alpha_s, format_seconds), range_text(r.bandwidth_Bps, format_rate));
}

std::string gamma_range_comment(const RepeatRanges& r) {
  if (r.repeats < 2) return "";
  return fmt::format("# each repeat fitted alone, middle half: gamma {}\n", range_text(r.gamma_s_per_byte, format_gamma));
}

// The bounds, and where this calibration stands against each.
std::string reliability_comment(const Calibration& c) {
  const RepeatRanges& r = c.repeats;
  const std::string factors =
      r.repeats < 2 ? "no repeats"
                    : fmt::format("x{:.2f}, x{:.2f}, x{:.2f}", r.alpha_s.factor(), r.bandwidth_Bps.factor(),
                                  r.gamma_s_per_byte.factor());
  return fmt::format(
      "# Reliable when: the ranks had a CPU at least {:.0f}% of the time (here {:.0f}%); alpha, bandwidth and gamma of\n"
      "# the repeats fitted alone within x{:.2f}, middle half (here {}); no ping-pong time {:.0f}% below the next\n"
      "# smaller size's (here {:.0f}% at most).\n",
      100 * kMinOnCpuFraction, 100 * c.samples.on_cpu_fraction, kMaxRepeatFactor, factors, 100 * kMaxTimeDrop,
      100 * std::max(0.0, largest_drop(c.samples.ping_pong).first));
}

// A table of reduction factors with each measured size's time, spread and the model's time
// alone (b x gamma x factor, or 3b / memory where that is slower); empty without rows.
std::string reduction_factor_field(const Calibration& c, const std::vector<FittedReductionFactor>& rows,
                                   const std::vector<SizeTime>& sweep, std::string_view key, std::string_view what) {
  if (rows.empty()) return "";
  std::string y = fmt::format("# {}: each measured size's seconds per byte over gamma, a row from it on\n"
                              "# (validate/reduction_factor_fit.cpp):\n{}:\n",
                              what, key);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const FittedReductionFactor& r = rows[i];
    const double per_byte = std::max(r.gamma * c.gamma_s_per_byte,
                                     c.memory_Bps > 0 ? kReductionMemoryBytesPerByte / c.memory_Bps : 0.0);
    y += fmt::format("  - {{from_bytes: {}, gamma: {:.6g}}}  # {}: measured {}{}, model {}\n", r.from_bytes, r.gamma,
                     format_size(sweep[i].bytes), format_seconds(sweep[i].seconds),
                     spread_text(sweep[i].repeats, sweep[i].seconds), format_seconds(per_byte * double(sweep[i].bytes)));
  }
  return y;
}

// A rank's core, where the ranks copy what they receive (docs/semantics.md, "The rank's core"),
// or else its memory bandwidth, where the worker measured it ("The rank's memory").
std::string memory_field(const Calibration& c) {
  if (c.core_Bps > 0)
    return "# a rank's core copies what it receives and reduces, one at a time (Open MPI's shared memory: the\n"
           "# receiver copies); its copy rate is the ping-pong's fastest stretch. The memcpy, 2 bytes per byte\n"
           "# copied, for reference:\n" +
           measured_comments(c.samples.memory_copy, "") +
           fmt::format("core_copy_Bps: {:.10e}  # measured by calibrate (the ping-pong's fastest stretch)\n", c.core_Bps);
  if (c.memory_Bps <= 0) return "";
  std::string y = "# a rank's memory: memcpy, 2 bytes read and written per byte copied:\n" +
                  measured_comments(c.samples.memory_copy, "");
  if (c.memory_Bps > c.memory_Bps_measured)
    y += fmt::format("# raised from the memcpy's {} to the fastest that one flow alone (every transfer crosses it) or\n"
                     "# one reduction alone (3 bytes per byte) drew from it\n",
                     format_rate(c.memory_Bps_measured));
  return y + fmt::format("memory_bandwidth_Bps: {:.10e}  # measured by calibrate (memcpy of {})\n", c.memory_Bps,
                         format_size(c.samples.memory_copy.back().bytes));
}

// The host's synchronization at the end, as a line over the streams it synchronizes: through
// the first and last points of host_sync (2 and all the ranks' streams), its value at 0 streams
// (at least 0) and per stream; one point: all of it fixed.
struct SyncLine {
  double fixed_s = 0, per_stream_s = 0;
};
SyncLine sync_line(const std::vector<SizeTime>& sync) {
  const SizeTime& first = sync.front();
  const SizeTime& last = sync.back();
  if (last.bytes <= first.bytes) return {first.seconds, 0};
  const double per_stream = std::max(0.0, (last.seconds - first.seconds) / double(last.bytes - first.bytes));
  return {std::max(0.0, first.seconds - per_stream * double(first.bytes)), per_stream};
}

std::string sync_comments(const std::vector<SizeTime>& sync) {
  std::string out;
  for (const SizeTime& p : sync)
    out += fmt::format("#   sync of {} streams after one {} reduction, less its time on the GPU: {}{}\n", p.bytes,
                       format_size(4096), format_seconds(p.seconds), spread_text(p.repeats, p.seconds));
  return out;
}

// The cuda backend's host (CalibrationSamples::host_issue, host_sync), where measured.
std::string host_issue_field(const Calibration& c) {
  const CalibrationSamples& s = c.samples;
  if (s.host_issue.empty() || s.host_sync.empty()) return "";
  const SizeTime& issue = s.host_issue.front();
  const SyncLine sync = sync_line(s.host_sync);
  return fmt::format(
      "# the one host thread that drives the virtual ranks (collsim's cuda backend) issues every transfer in\n"
      "# the schedule's order, each taking per_transfer_s of its time (no transfer starts before its issue), and\n"
      "# after the last waits sync_s + P x sync_per_stream_s beyond the GPU's work for its synchronization of\n"
      "# the P ranks' streams (the line through the measured stream counts).\n"
      "#   per transfer: chained {} reductions across the ranks' streams, the issue loop alone: {}{}\n{}"
      "host_issue:\n"
      "  per_transfer_s: {:.6e}\n"
      "  sync_s: {:.6e}\n"
      "  sync_per_stream_s: {:.6e}\n",
      format_size(issue.bytes), format_seconds(issue.seconds), spread_text(issue.repeats, issue.seconds),
      sync_comments(s.host_sync), issue.seconds, sync.fixed_s, sync.per_stream_s);
}

// The one field a loader reads back: whether to trust the numbers above, and why not.
std::string reliability_field(const Calibration& c) {
  std::string y = reliability_comment(c) + fmt::format("calibration:\n  reliable: {}\n", c.reliable());
  if (c.reliable()) return y;
  y += "  reasons:\n";
  // A JSON string is a YAML double-quoted scalar: the reasons' colons and quotes stay text.
  for (const std::string& reason : c.unreliable_because) y += "    - " + nlohmann::json(reason).dump() + "\n";
  return y;
}

// What one calibrated node is: processes over shared memory (mpi), or virtual ranks sharing
// one GPU (cuda).
struct NodeWording {
  std::string header, description, link_class, measured_as, shared_as;
};

NodeWording wording_of(const Calibration& c, std::uint32_t ranks) {
  if (c.samples.device.empty())
    return {"one node, every rank a process, messages through\n# shared memory",
            fmt::format("{} ranks on one node, intra-node shared memory, calibrated", ranks), "shm", "ping-pong one-way time",
            "concurrent exchanges (the node's shared capacity: memory bus and cores)"};
  return {fmt::format("{} virtual ranks on one GPU ({}),\n# copies through its memory", ranks, c.samples.device),
          fmt::format("{} virtual ranks on one {}, calibrated", ranks, c.samples.device), "hbm",
          "device-to-device copy time on one stream",
          "copies on several streams at once (the GPU's memory and copy engines, shared)"};
}

}  // namespace

std::string calibrated_config_yaml(const Calibration& c, const std::string& name, std::uint32_t ranks) {
  const NodeWording w = wording_of(c, ranks);
  std::string y = fmt::format(
      "# Calibrated by `collsim calibrate` ({}): {}.\n"
      "# Numbers are fits to measurements on this machine, not datasheet values.\n{}"
      "name: {}\n"
      "description: {}\n"
      "link_classes:\n"
      "  {}:\n"
      "    # {}, followed stretch by stretch: SMPI-style size factors, the line between each pair\n"
      "    # of measured sizes (validate/size_factor_fit.cpp). For reference, one line t = alpha + b / bandwidth\n"
      "    # weighted by 1/t^2 would be alpha {}, {}, rms relative residual {:.1f}% (largest {:.1f}%).\n{}{}"
      "    bandwidth_Bps: {:.10e}  # the fastest stretch\n"
      "    efficiency: 1.0  # measured, not a datasheet: bandwidth_Bps is already a rate messages reached\n"
      "    latency_s: 0.0\n"
      "    alpha_s: {:.10e}  # the first stretch's start-up\n{}{}"
      "nodes:\n"
      "  count: 1\n"
      "  gpus_per_node: {}\n"
      "  switch: pcie\n"
      "  gpu_link: {}\n",
      c.samples.library, w.header, repeats_comment(c), name, w.description, w.link_class, w.measured_as,
      format_seconds(c.link.intercept), format_rate(1.0 / c.link.slope), 100 * c.link.rms_relative_residual,
      100 * c.link.max_relative_residual, measured_comments(c.samples.ping_pong, "    "), link_ranges_comment(c.repeats),
      c.size_factors.bandwidth_Bps, c.size_factors.alpha_s, size_factor_rows(c),
      exchange_factors_yaml(c), ranks, w.link_class);
  y += fmt::format("  # {}:\n", w.shared_as) + concurrent_comments(c);
  if (c.shared_Bps > c.shared_Bps_measured)
    y += fmt::format("  # raised from the exchanges' {} to the fastest stretch of one flow alone: no flow beats a capacity "
                     "it crosses\n",
                     format_rate(c.shared_Bps_measured));
  if (c.shared_Bps > 0) y += fmt::format("  backplane_Bps: {:.10e}\n", c.shared_Bps);
  else y += "  # aggregate rate grew with the flows: no shared capacity modeled\n";
  y += fmt::format(
      "# reduction dst += src over floats, plain least squares slope (rms relative residual {:.1f}%):\n{}{}"
      "gamma_s_per_byte: {:.6e}\n",
      100 * c.reduction.rms_relative_residual, residual_comments(c.samples.reduction, c.reduction, ""),
      gamma_range_comment(c.repeats), c.gamma_s_per_byte);
  y += reduction_factor_field(c, c.reduction_factors, c.samples.reduction, "reduction_factors",
                              "reductions by size, each on buffers of a collective's footprint");
  y += reduction_factor_field(c, c.reduction_into_sent_factors, c.samples.reduction_into_sent,
                              "reduction_into_sent_factors",
                              "reductions into the buffer the rank has just sent (its partner read it), by size");
  return y + memory_field(c) + host_issue_field(c) + reliability_field(c);
}

}  // namespace collsim
