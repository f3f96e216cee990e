// execute/calibration_samples.cpp — the workers' CPU-share clock and the samples' JSON.
#include "execute/calibration_samples.hpp"

#include <algorithm>
#include <ctime>

namespace collsim {

namespace {

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

}  // namespace

// The calling thread's CPU time: a rank that waits for a message spins (Open MPI's shared
// memory, cudaStreamSynchronize), so it runs all the time unless something else took its core.
ThreadCpuShare::ThreadCpuShare() : cpu_start_s_(thread_cpu_seconds()), wall_start_(std::chrono::steady_clock::now()) {}

double ThreadCpuShare::fraction() const {
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start_).count();
  return wall > 0 ? std::min(1.0, (thread_cpu_seconds() - cpu_start_s_) / wall) : 1.0;
}

nlohmann::json to_json(const CalibrationSamples& s) {
  nlohmann::json j;
  for (const SizeTime& p : s.ping_pong) j["ping_pong"].push_back({p.bytes, p.seconds, p.repeats});
  for (const SizeTime& p : s.reduction) j["reduction"].push_back({p.bytes, p.seconds, p.repeats});
  for (const SizeTime& p : s.memory_copy) j["memory_copy"].push_back({p.bytes, p.seconds, p.repeats});
  for (const SizeTime& p : s.exchange) j["exchange"].push_back({p.bytes, p.seconds, p.repeats});
  for (const SizeTime& p : s.reduction_into_sent) j["reduction_into_sent"].push_back({p.bytes, p.seconds, p.repeats});
  for (const SizeTime& p : s.host_issue) j["host_issue"].push_back({p.bytes, p.seconds, p.repeats});
  for (const SizeTime& p : s.host_sync) j["host_sync"].push_back({p.bytes, p.seconds, p.repeats});
  for (const ConcurrentSample& c : s.concurrent) j["concurrent"].push_back({c.flows, c.bytes, c.seconds, c.repeats});
  j["library"] = s.library;
  if (!s.device.empty()) j["device"] = s.device;
  j["on_cpu_fraction"] = s.on_cpu_fraction;
  if (s.receiver_copies) j["receiver_copies"] = true;
  return j;
}

namespace {

// The repeats at `index` of a point's array; absent in samples written before repeats were kept.
std::vector<double> repeats_at(const nlohmann::json& point, std::size_t index) {
  return point.size() > index ? point.at(index).get<std::vector<double>>() : std::vector<double>{};
}

std::vector<SizeTime> size_times_from_json(const nlohmann::json& points) {
  std::vector<SizeTime> out;
  for (const auto& p : points) out.push_back({p.at(0).get<std::uint64_t>(), p.at(1).get<double>(), repeats_at(p, 2)});
  return out;
}

}  // namespace

CalibrationSamples calibration_samples_from_json(const nlohmann::json& j) {
  CalibrationSamples s;
  s.ping_pong = size_times_from_json(j.at("ping_pong"));
  s.reduction = size_times_from_json(j.at("reduction"));
  if (j.contains("memory_copy")) s.memory_copy = size_times_from_json(j.at("memory_copy"));
  if (j.contains("exchange")) s.exchange = size_times_from_json(j.at("exchange"));
  if (j.contains("reduction_into_sent")) s.reduction_into_sent = size_times_from_json(j.at("reduction_into_sent"));
  if (j.contains("host_issue")) s.host_issue = size_times_from_json(j.at("host_issue"));
  if (j.contains("host_sync")) s.host_sync = size_times_from_json(j.at("host_sync"));
  if (j.contains("concurrent"))
    for (const auto& c : j.at("concurrent"))
      s.concurrent.push_back(
          {c.at(0).get<std::uint32_t>(), c.at(1).get<std::uint64_t>(), c.at(2).get<double>(), repeats_at(c, 3)});
  s.library = j.value("library", "");
  s.device = j.value("device", "");
  s.on_cpu_fraction = j.value("on_cpu_fraction", 1.0);
  s.receiver_copies = j.value("receiver_copies", false);
  return s;
}

}  // namespace collsim
