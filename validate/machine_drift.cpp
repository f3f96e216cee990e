// validate/machine_drift.cpp — probes against the calibration (see the header).
#include "validate/machine_drift.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "base/error.hpp"

namespace collsim {
namespace {

// Start-up bound (below the shared-memory eager limit), bandwidth bound in cache, and out of
// the caches: the last drifts on its own (memory shared with the host's other tenants).
constexpr std::uint64_t kProbes[] = {2048, 1 << 20, 16 << 20};

// The sweep's point nearest `bytes` on a log scale.
std::uint64_t nearest_point(std::span<const SizeTime> ping_pong, std::uint64_t bytes) {
  const auto distance = [bytes](const SizeTime& p) { return std::abs(std::log(double(p.bytes) / double(bytes))); };
  return std::min_element(ping_pong.begin(), ping_pong.end(),
                          [&](const SizeTime& a, const SizeTime& b) { return distance(a) < distance(b); })
      ->bytes;
}

double calibrated_time(std::span<const SizeTime> ping_pong, std::uint64_t bytes) {
  for (const SizeTime& p : ping_pong)
    if (p.bytes == bytes) return p.seconds;
  throw Error(fmt::format("probe size {} B is not a point of the calibration's ping-pong sweep", bytes));
}

}  // namespace

std::vector<std::uint64_t> probe_sizes(std::span<const SizeTime> ping_pong) {
  if (ping_pong.empty()) return {};
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t bytes : kProbes) sizes.push_back(nearest_point(ping_pong, bytes));
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

double machine_drift(const Measurement& m, std::span<const std::uint64_t> probe_bytes,
                     std::span<const SizeTime> ping_pong) {
  if (m.probe_before_s.empty() && m.probe_after_s.empty()) return kNoProbe;
  double drift = 0;
  for (const std::vector<double>* probes : {&m.probe_before_s, &m.probe_after_s}) {
    if (probes->size() != probe_bytes.size())
      throw Error(fmt::format("{} {} B: {} probe times for {} probe sizes", m.algorithm, m.bytes, probes->size(),
                              probe_bytes.size()));
    for (std::size_t i = 0; i < probes->size(); ++i)
      drift = std::max(drift, std::abs((*probes)[i] / calibrated_time(ping_pong, probe_bytes[i]) - 1.0));
  }
  return drift;
}

}  // namespace collsim
