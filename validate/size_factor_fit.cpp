// validate/size_factor_fit.cpp — the lines between measured sizes, as rows of factors
// (validate/calibration.hpp, "Size factors").
#include "validate/calibration.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "base/error.hpp"

namespace collsim {
namespace {

// The cost rule's bound on a latency factor (topologies/network.cpp).
constexpr double kMaxLatencyFactor = 1e4;
// A line whose start-up came out at or below zero (a steep step between regimes) starts at
// this share of its first point's time instead (its bytes then carry the rest), so the row
// keeps a positive latency factor.
constexpr double kLeastStartupShare = 0.05;

// t = startup + bytes / rate over one stretch of the sweep; rate infinite when flat.
struct Line {
  double startup_s = 0, rate_Bps = std::numeric_limits<double>::infinity();
  bool bent = false;
  bool steep = false;  // its own line would start below zero: a jump between the two sizes
  bool step = false;   // the stretch before carries on up to the jump (steps_at_jumps)
};

Line line_through(const SizeTime& a, const SizeTime& b) {
  const double slope = (b.seconds - a.seconds) / double(b.bytes - a.bytes);
  if (slope <= 0) return {std::min(a.seconds, b.seconds), std::numeric_limits<double>::infinity(), true};
  Line line{a.seconds - slope * double(a.bytes), 1.0 / slope, false};
  if (line.startup_s <= 0) {  // steeper than its start allows: keep the far point
    line.startup_s = kLeastStartupShare * a.seconds;
    line.rate_Bps = double(b.bytes) / (b.seconds - line.startup_s);
    line.bent = true;
    line.steep = true;
  }
  return line;
}

// A steep stretch is a protocol switch between its two sizes (Open MPI's shared memory goes
// from eager copies to single-copy rendezvous at 4 KiB): no straight line with a start-up
// above zero joins them. The stretch before carries on up to the jump instead, and the next
// row, from the far size on, starts exactly at its time, so both medians are met; the switch
// is taken at the far size. The first stretch has nothing before it and the last nothing
// after: those stay bent, and so does the second of two jumps in a row.
void steps_at_jumps(std::vector<Line>& lines) {
  for (std::size_t i = 1; i + 1 < lines.size(); ++i)
    if (lines[i].steep && !lines[i - 1].step) {  // a step's line misses its far size: two jumps in a row stay bent
      lines[i] = lines[i - 1];  // passes through this stretch's first size, bent or not
      lines[i].step = true;
      lines[i].steep = lines[i].bent = false;
    }
}

// A line whose start-up is beyond the latency factor's bound keeps the far point with less.
void bound_startup(Line& line, const SizeTime& far, double alpha_s) {
  if (line.startup_s <= kMaxLatencyFactor * alpha_s) return;
  line.startup_s = kMaxLatencyFactor * alpha_s;
  line.rate_Bps = double(far.bytes) / std::max(far.seconds - line.startup_s, 1e-300);
  line.bent = true;
}

// The sweep made non-decreasing (pool-adjacent-violators, each point weighted alike): a
// larger message is never faster, so a median below its smaller neighbour is noise, averaged
// away with it instead of bending the line through it.
std::vector<SizeTime> non_decreasing(const std::vector<SizeTime>& sweep) {
  struct Block {
    double sum;
    std::size_t count;
    double mean() const { return sum / double(count); }
  };
  std::vector<Block> blocks;
  for (const SizeTime& p : sweep) {
    blocks.push_back({p.seconds, 1});
    while (blocks.size() > 1 && blocks[blocks.size() - 2].mean() > blocks.back().mean()) {
      blocks[blocks.size() - 2].sum += blocks.back().sum;
      blocks[blocks.size() - 2].count += blocks.back().count;
      blocks.pop_back();
    }
  }
  std::vector<SizeTime> out = sweep;
  std::size_t i = 0;
  for (const Block& b : blocks)
    for (std::size_t k = 0; k < b.count; ++k) out[i++].seconds = b.mean();
  return out;
}

}  // namespace

SizeFactorFit fit_size_factors(const std::vector<SizeTime>& measured) {
  if (measured.size() < 2) throw Error("size factors need a ping-pong sweep of two sizes or more");
  for (std::size_t i = 0; i + 1 < measured.size(); ++i)
    if (measured[i + 1].bytes <= measured[i].bytes) throw Error("the ping-pong sweep must grow in size");
  const std::vector<SizeTime> sweep = non_decreasing(measured);
  std::vector<Line> lines;
  for (std::size_t i = 0; i + 1 < sweep.size(); ++i) lines.push_back(line_through(sweep[i], sweep[i + 1]));
  steps_at_jumps(lines);
  SizeFactorFit fit;
  fit.alpha_s = lines.front().startup_s;
  for (std::size_t i = 0; i < lines.size(); ++i) bound_startup(lines[i], sweep[i + 1], fit.alpha_s);
  for (const Line& l : lines)
    if (std::isfinite(l.rate_Bps)) fit.bandwidth_Bps = std::max(fit.bandwidth_Bps, l.rate_Bps);
  if (fit.bandwidth_Bps <= 0) throw Error("ping-pong times do not grow with size: cannot fit a bandwidth");
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const Line& l = lines[i];
    fit.rows.push_back({i == 0 ? 0 : sweep[i].bytes, std::isfinite(l.rate_Bps) ? l.rate_Bps / fit.bandwidth_Bps : 1.0,
                        l.startup_s / fit.alpha_s, l.bent, l.step});
  }
  return fit;
}

}  // namespace collsim
