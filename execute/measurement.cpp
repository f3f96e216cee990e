// execute/measurement.cpp — summaries and the JSON the workers exchange with collsim.
#include "execute/measurement.hpp"

#include <algorithm>
#include <cmath>

#include "base/units.hpp"
#include "collectives/schedule_json.hpp"
#include "execute/reference_data.hpp"

namespace collsim {

double median_of(std::vector<double> values) {
  if (values.empty()) return 0;
  std::ranges::sort(values);
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

double percentile_of(std::vector<double> values, double fraction) {
  if (values.empty()) return 0;
  std::ranges::sort(values);
  const auto rank = static_cast<std::size_t>(std::ceil(fraction * double(values.size())));
  return values[std::clamp<std::size_t>(rank, 1, values.size()) - 1];
}

double Measurement::min_s() const { return times_s.empty() ? 0 : *std::ranges::min_element(times_s); }
double Measurement::max_s() const { return times_s.empty() ? 0 : *std::ranges::max_element(times_s); }
double Measurement::median_s() const { return median_of(times_s); }
double Measurement::issue_median_s() const { return median_of(issue_s); }
double Measurement::algbw_GBps() const {
  const double t = median_s();
  return t > 0 ? to_GBps(double(bytes) / t) : 0;
}
double Measurement::busbw_GBps() const { return algbw_GBps() * bus_bandwidth_factor(collective, ranks); }

nlohmann::json to_json(const Measurement& m) {
  return {{"collective", std::string(to_string(m.collective))},
          {"algorithm", m.algorithm},
          {"backend", m.backend},
          {"ranks", m.ranks},
          {"bytes", m.bytes},
          {"segments", m.segments},
          {"transfers", m.transfers},
          {"emulated_switches", m.emulated_switches},
          {"times_s", m.times_s},
          {"verified", m.verified},
          {"probe_before_s", m.probe_before_s},
          {"probe_after_s", m.probe_after_s},
          {"issue_s", m.issue_s},
          {"min_s", m.min_s()},
          {"median_s", m.median_s()},
          {"max_s", m.max_s()},
          {"algbw_GBps", m.algbw_GBps()},
          {"busbw_GBps", m.busbw_GBps()}};
}

Measurement measurement_from_json(const nlohmann::json& j) {
  Measurement m;
  m.collective = parse_collective(j.at("collective").get<std::string>());
  m.algorithm = j.at("algorithm").get<std::string>();
  m.backend = j.at("backend").get<std::string>();
  m.ranks = j.at("ranks").get<Rank>();
  m.bytes = j.at("bytes").get<std::uint64_t>();
  m.segments = j.at("segments").get<std::uint32_t>();
  m.transfers = j.at("transfers").get<std::size_t>();
  m.emulated_switches = j.value("emulated_switches", Rank(0));
  m.times_s = j.at("times_s").get<std::vector<double>>();
  m.verified = j.at("verified").get<bool>();
  m.probe_before_s = j.value("probe_before_s", std::vector<double>{});
  m.probe_after_s = j.value("probe_after_s", std::vector<double>{});
  m.issue_s = j.value("issue_s", std::vector<double>{});
  return m;
}

nlohmann::json to_json(const ExecutionJob& job) {
  const ExecutionRequest& r = job.request;
  nlohmann::json j = {{"collective", std::string(to_string(r.collective))},
          {"algorithms", r.algorithms},
          {"sizes", r.sizes},
          {"ranks", r.ranks},
          {"segments", r.segments},
          {"ranks_per_node", r.ranks_per_node},
          {"channels", r.channels},
          {"channel_orders", r.channel_orders},
          {"switches_reduce", {{"node", r.switches_reduce.node}, {"fabric", r.switches_reduce.fabric}}},
          {"backend", job.backend},
          {"iterations", job.iterations},
          {"warmup", job.warmup},
          {"reference", job.reference},
          {"probe_bytes", job.probe_bytes}};
  if (r.schedule) j["schedule"] = schedule_to_json(*r.schedule);  // the workers cannot read the user's file
  return j;
}

ExecutionJob job_from_json(const nlohmann::json& j) {
  ExecutionJob job;
  ExecutionRequest& r = job.request;
  r.collective = parse_collective(j.at("collective").get<std::string>());
  r.algorithms = j.at("algorithms").get<std::vector<std::string>>();
  r.sizes = j.at("sizes").get<std::vector<std::uint64_t>>();
  r.ranks = j.at("ranks").get<Rank>();
  r.segments = j.at("segments").get<std::uint32_t>();
  r.ranks_per_node = j.at("ranks_per_node").get<Rank>();
  r.channels = j.value("channels", std::uint32_t(0));
  r.channel_orders = j.value("channel_orders", std::vector<std::vector<Rank>>{});
  if (const auto reduce = j.find("switches_reduce"); reduce != j.end())
    r.switches_reduce = {reduce->value("node", false), reduce->value("fabric", false)};
  job.backend = j.at("backend").get<std::string>();
  job.iterations = j.at("iterations").get<std::uint32_t>();
  job.warmup = j.at("warmup").get<std::uint32_t>();
  job.reference = j.at("reference").get<bool>();
  job.probe_bytes = j.value("probe_bytes", std::vector<std::uint64_t>{});
  if (j.contains("schedule")) r.schedule = std::make_shared<const Schedule>(schedule_from_json(j.at("schedule")));
  return job;
}

Measurement measurement_of(const ExecutionJob& job, const std::string& backend, const std::string& algorithm,
                           std::uint64_t bytes, const Schedule& schedule) {
  Measurement m;
  m.collective = job.request.collective;
  m.algorithm = algorithm;
  m.backend = backend;
  m.ranks = job.request.ranks;
  m.bytes = bytes;
  m.segments = schedule.info().segments;
  m.transfers = schedule.size();
  m.emulated_switches = schedule.info().reducers;
  return m;
}

ScheduleInfo library_allreduce_info(const ExecutionJob& job, const std::string& name, std::uint64_t bytes) {
  ScheduleInfo info;
  info.collective = Collective::allreduce;
  info.algorithm = name;
  info.ranks = job.request.ranks;
  info.bytes = bytes / kElementBytes;
  return info;
}

Measurement measurement_of(const ExecutionJob& job, const std::string& backend, const ScheduleInfo& library,
                           std::uint64_t bytes) {
  Measurement m;
  m.collective = library.collective;
  m.algorithm = library.algorithm;
  m.backend = backend;
  m.ranks = job.request.ranks;
  m.bytes = bytes;
  return m;
}

}  // namespace collsim
