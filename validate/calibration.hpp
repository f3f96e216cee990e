// validate/calibration.hpp — turning microbenchmarks into a cluster config. The samples
// (measured by a backend's worker, execute/calibration_samples.hpp) are: ping-pong one-way times over a size sweep, the same
// two ranks exchanging (both sending at once) over that sweep, times of
// several pairs exchanging at once (the node's shared capacity: memory bus, copy engines),
// and reduction times. The worker is launched `repeats` times, each launch one whole sweep;
// every point stands for the median of its repeats and keeps them. The fit is least squares
// on t = alpha + beta b weighted by 1/t^2 (relative error: every decade of sizes counts
// alike); gamma is the plain least-squares slope of the reduction times (large, out-of-cache
// sizes dominate); a rank's memory bandwidth is read and written bytes per second of a large
// memcpy; the shared capacity is the best aggregate rate of the concurrent
// exchanges (in cache and out of it) that fell short of their flows alone at the same size. Each repeat is also fitted alone. The fit is unreliable when its points lie far
// off the line, when a parameter moves between repeats, or when the ranks did not have
// their CPUs (bounds below). The result is a topology-form YAML (configs/README.md): one
// node, one link class, each point's spread and the fit's residuals as comments, and a
// `calibration:` field saying whether it is reliable and why not. Pure.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "execute/calibration_samples.hpp"

namespace collsim {

// Repeats per point when the command line names none. Each repeat is a launch of its own
// (fresh processes and buffers), because what moves between back-to-back calibrations is
// mostly what a launch decides (which cores the ranks share, where their pages lie): sweeps
// within one launch agree far better than launches do (validate/README.md). Five is the
// fewest whose quartiles leave out one stray repeat each side.
constexpr std::uint32_t kDefaultRepeats = 5;

// One sample set from the runs of the same plan: each point's time is the median of its
// times in the runs, which it keeps as its repeats; the CPU share is the least of the runs'.
// Throws Error when the runs did not measure the same points.
CalibrationSamples merge_repeats(const std::vector<CalibrationSamples>& runs);

// A point's repeats relative to its median: smallest - 1 and largest - 1 (-0.02, +0.15).
struct Spread {
  double below = 0, above = 0;
};
Spread spread_of(const std::vector<double>& repeats, double median);
// " [-2.0% +15.0%]", as the YAML's comments print it; empty with fewer than two repeats.
std::string spread_text(const std::vector<double>& repeats, double median);
// Whether a model's time lies in the range a point's repeats cover (1% of its median without
// repeats): how a calibrated YAML is held to its measurements.
bool model_within_spread(const SizeTime& p, double model_s);

struct LinearFit {
  double intercept = 0, slope = 0;
  double rms_relative_residual = 0, max_relative_residual = 0;
};

// Least squares t = intercept + slope b, each point weighted by 1/t^2. Needs two sizes.
LinearFit fit_relative(const std::vector<SizeTime>& points);
// Plain least squares: the largest sizes dominate (used for gamma, where the reductions that
// cost time are the large, out-of-cache ones).
LinearFit fit_absolute(const std::vector<SizeTime>& points);

// A parameter over the fits of single repeats: its quartiles (the middle half of the
// repeats, so that one stray repeat each side does not count) and its extremes.
struct ParameterRange {
  double lowest = 0, low_quartile = 0, high_quartile = 0, highest = 0;
  double factor() const;  // high_quartile / low_quartile; infinite when only the low one is 0
};
ParameterRange parameter_range(const std::vector<double>& per_repeat);

struct RepeatRanges {
  ParameterRange alpha_s, bandwidth_Bps, gamma_s_per_byte;
  std::uint32_t repeats = 0;  // 0: the samples carry no repeats
};

// Size factors (validate/size_factor_fit.cpp): a ping-pong sweep turned into SMPI-style size factors (a
// link class's `size_factors`, configs/README.md), so one link class follows the transport
// through its regimes (eager copies, single-copy transfers, caches) where one alpha-beta line
// cannot. Between each pair of consecutive measured sizes the one-way time is the straight
// line through the two medians; each line becomes a row from the smaller size on: its
// intercept over the class's alpha is the row's latency factor, its rate over the class's
// bandwidth its bandwidth factor. The class's alpha is the first line's intercept (a small
// message's start-up) and its bandwidth the fastest line's rate, so every factor stays a
// correction of at most the bandwidth (efficiency 1: on a CPU node there is no datasheet).
// A median below its smaller neighbour's is noise (a larger message is never faster): the
// sweep is first made non-decreasing, the falling points averaged with their neighbours. The
// rows then reproduce every median, except where a line had to be bent to stay physical (a
// flat stretch, a start-up below zero, a latency factor above 10^4); `bent` says where. Pure.
struct FittedSizeFactor {
  std::uint64_t from_bytes = 0;
  double bandwidth = 1, latency = 1;
  bool bent = false;  // its line was bent to stay physical: the model misses a median here
  bool step = false;  // a jump ends this stretch: the row before carries on up to it
};

struct SizeFactorFit {
  double alpha_s = 0;
  double bandwidth_Bps = 0;
  std::vector<FittedSizeFactor> rows;  // the first from 0, one per pair of measured sizes
};

// Needs two sizes or more, by increasing size (as the workers measure them). Throws Error.
SizeFactorFit fit_size_factors(const std::vector<SizeTime>& sweep);

// The cost rule's time for one message of `bytes` by a link class's start-up, rate and factor
// rows: startup x latency factor + bytes / (rate x bandwidth factor), the row the largest
// from_bytes <= bytes. Pure.
double factored_seconds(double alpha_s, double bandwidth_Bps, const std::vector<FittedSizeFactor>& rows,
                        std::uint64_t bytes);

// Exchange factors (validate/exchange_factor_fit.cpp): the exchange sweep, fitted stretch by
// stretch like the ping-pong (fit_size_factors), then expressed relative to the link class the
// ping-pong made (its alpha and bandwidth), so that they are a link class's `exchange_factors`:
// the rows a message uses when its receiver sends to its sender in the same step. A row whose
// rate beats the class's is held to it (no message beats the class's rate), and a latency
// factor to the cost rule's 10^4; both are marked bent.
struct ExchangeFactorFit {
  SizeFactorFit own;                   // the exchange sweep alone
  std::vector<FittedSizeFactor> rows;  // the same stretches, relative to the link class; empty: not measured
};

// Throws Error when the exchange sweep is not at the ping-pong's sizes.
ExchangeFactorFit fit_exchange_factors(const std::vector<SizeTime>& exchange, const std::vector<SizeTime>& ping_pong,
                                       const SizeFactorFit& link_class);

// Reduction factors (validate/reduction_factor_fit.cpp): a reduction sweep as the cluster's
// reduction_factors (topologies/topology.hpp; configs/README.md), each measured size's seconds
// per byte over gamma, a row from that size on. A CPU reduces data in its caches faster than
// data from DRAM (validate/README.md has a node's sweep), which one
// gamma, fitted where the large reductions dominate, prices at the DRAM rate. The sweep doubles
// its sizes, so every power of two a collective reduces is a measured point; between two points
// a reduction takes the smaller one's pace. The sweep of reductions into sent data becomes
// reduction_into_sent_factors alike. Pure.
struct FittedReductionFactor {
  std::uint64_t from_bytes = 0;  // 0 for the first row, else its measured size
  std::uint64_t measured_bytes = 0;
  double gamma = 1;              // the factor on gamma_s_per_byte
};

// One row per measured size, by size (the first from 0); empty for an empty sweep. Throws
// Error when gamma is not above 0 or a point's time is not.
std::vector<FittedReductionFactor> fit_reduction_factors(const std::vector<SizeTime>& sweep, double gamma_s_per_byte);

// The smallest seconds per byte any row gives (gamma x its factor): what a reduction alone
// reached at its fastest, which the rank's memory must let through.
double fastest_reduction_s_per_byte(const std::vector<FittedReductionFactor>& rows, double gamma_s_per_byte);

struct Calibration {
  CalibrationSamples samples;
  LinearFit link;          // alpha = intercept, beta = slope: the one-line summary
  SizeFactorFit size_factors;  // what the YAML's link class is: the sweep, stretch by stretch
  ExchangeFactorFit exchange_factors;  // its rows for a message that is half of an exchange
  std::vector<FittedReductionFactor> reduction_factors;            // by the reduction's size
  std::vector<FittedReductionFactor> reduction_into_sent_factors;  // into data just sent
  double gamma_s_per_byte = 0;
  LinearFit reduction;
  double shared_Bps = 0;   // 0: no contention seen (aggregate grew with flows)
  // What the concurrent test's aggregate gave, before shared_Bps was raised to the fastest
  // single flow (a shared capacity no lone flow may beat).
  double shared_Bps_measured = 0;
  // A rank's memory bandwidth, the bytes a memcpy reads and writes (2 per byte copied) over its
  // time at the largest size, as memory_bandwidth_Bps counts them (docs/semantics.md); 0: not
  // measured. Raised, like shared_Bps, to the fastest stretch of one flow alone, which crosses
  // it; memory_Bps_measured is the memcpy's own.
  double memory_Bps = 0;
  double memory_Bps_measured = 0;
  // Where the ranks copy what they receive (CalibrationSamples::receiver_copies): each rank's
  // core, at the rate its copies reached (the ping-pong's fastest stretch), in place of its
  // memory (memory_Bps is then 0; the memcpy stays in the YAML as a comment).
  double core_Bps = 0;
  RepeatRanges repeats;
  // Why this fit is not to be trusted, each naming the parameter, by how much, the bound and
  // what to do; empty when it is reliable.
  std::vector<std::string> unreliable_because;
  bool reliable() const { return unreliable_because.empty(); }
};

// The bounds beyond which a calibration is unreliable, set between what quiet runs (ranks
// given the cores first) and busy ones (other processes on the cores) gave (validate/README.md).
// Most a ping-pong time may fall from one measured size to the next larger one. A larger
// message is never faster on a quiet machine (the size factors follow the regimes, but a
// drop is no regime: it is noise, a scheduler slice in the smaller point); medians of quiet
// runs fall by a few percent at most.
constexpr double kMaxTimeDrop = 0.25;
// Largest over smallest quartile of alpha, bandwidth or gamma over the repeats fitted alone:
// a parameter that moves 20% between launches moves predictions as much, the top of the
// 10-21% error that peers report (docs/design.md section 7). With the cores given to the ranks
// the parameters stay inside it; other processes sharing the memory bus push gamma past it,
// which is what this bound is for.
constexpr double kMaxRepeatFactor = 1.2;
// Least share of the time every measuring rank must have had a CPU. A rank off its core for
// one scheduler slice (milliseconds) turns a microsecond message into milliseconds; quiet
// runs measure well above this bound, busy ones far below (validate/README.md).
constexpr double kMinOnCpuFraction = 0.8;

Calibration fit_calibration(const CalibrationSamples& samples);

// One line: the link class the YAML writes (its fastest stretch, first start-up and the
// range of its size-factor rows), then the one-line fit and each parameter with the middle
// half of its values over the repeats fitted alone (theirs, not the estimate's range),
// the residual, the CPU share, and whether the fit is reliable.
std::string calibration_summary(const Calibration& c);

// One line per reason, "collsim COMMAND: warning: ...", then what the YAML says; empty when
// the calibration is reliable. For calibrate and validate to print on stderr alike.
std::string unreliable_calibration_warning(const Calibration& c, std::string_view command);

// The cluster YAML for `ranks` ranks on one node; `name` is the platform's.
std::string calibrated_config_yaml(const Calibration& c, const std::string& name, std::uint32_t ranks);

// The exchange sweep with each size's median, spread and model time, then the rows as the
// link class's `exchange_factors:` key; empty without an exchange sweep. Indented for the
// link class.
std::string exchange_factors_yaml(const Calibration& c);

// "exchanges x1.50 at 2K .. x1.02 at 64M over one way": the largest ratio of an exchange to
// the one-way time and the ratio at the largest size; empty without an exchange sweep.
std::string exchange_summary(const Calibration& c);


}  // namespace collsim
