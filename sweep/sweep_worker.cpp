// sweep/sweep_worker.cpp — pricing one point per line (sweep_worker.hpp).
#include "sweep/sweep_worker.hpp"

#include <csignal>
#include <cstdlib>
#include <istream>
#include <memory>
#include <ostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/error.hpp"
#include "sim/prediction.hpp"
#include "topologies/cluster_config.hpp"

namespace collsim {
namespace {

// The last cluster built, by its YAML's hash: a sweep hands a worker each cluster's points
// together (they are next to each other in the queue), so most points reuse it.
struct ClusterCache {
  std::uint64_t hash = 0;
  std::shared_ptr<const ClusterConfig> cluster;

  const ClusterConfig& get(const std::string& yaml, const std::string& origin) {
    const std::uint64_t h = fnv1a(yaml);
    if (!cluster || h != hash) {
      cluster.reset();
      cluster = std::make_shared<const ClusterConfig>(parse_cluster_config(yaml, origin));
      hash = h;
    }
    return *cluster;
  }
};

PredictionRecord price(const nlohmann::json& point, ClusterCache& cache) {
  const ClusterConfig& cluster = cache.get(point.at("cluster"), point.at("origin"));
  PredictionRequest r = cluster_request(cluster);
  r.collective = parse_collective(point.at("collective").get<std::string>());
  r.engine = find_engine(point.at("engine").get<std::string>()).kind;
  r.algorithms = {point.at("algorithm").get<std::string>()};
  r.sizes = {point.at("bytes").get<std::uint64_t>()};
  std::vector<PredictionRecord> records = predict(r);
  if (records.size() != 1) throw Error(fmt::format("the prediction gave {} rows for one point", records.size()));
  return records.front();
}

}  // namespace

std::string point_line(const SweepPoint& point) {
  return nlohmann::json{{"index", point.index},         {"hash", point.hash},         {"cluster", point.cluster_yaml},
                        {"origin", point.origin},      {"collective", point.collective}, {"engine", point.engine},
                        {"algorithm", point.algorithm}, {"bytes", point.bytes}}
      .dump();
}

std::string price_point_line(const std::string& line) {
  static ClusterCache cache;
  nlohmann::json row;
  try {
    const nlohmann::json point = nlohmann::json::parse(line);
    row["index"] = point.at("index");
    row["hash"] = point.at("hash");
    try {
      const PredictionRecord rec = price(point, cache);
      row.update({{"status", "ok"}, {"ranks", rec.ranks}, {"runs", rec.runs}, {"protocol", rec.protocol.name},
                  {"channels", rec.channels}, {"time_s", rec.time_s}, {"algbw_GBps", rec.algbw_GBps},
                  {"busbw_GBps", rec.busbw_GBps}});
    } catch (const std::bad_alloc&) {
      row.update({{"status", "refused"}, {"error", "out of memory: the point needs more than this worker has"}});
    } catch (const Error& e) {
      row.update({{"status", "refused"}, {"error", one_line(e.what())}});
    }
  } catch (const nlohmann::json::exception& e) {
    row = {{"status", "refused"}, {"error", fmt::format("not a point line: {}", e.what())}};
  }
  return row.dump();
}

namespace {

// Fault injection for the tests (hidden): COLLSIM_FAULT=sweep-worker-dies:N kills the worker
// (SIGKILL, as the kernel's out-of-memory killer would) whenever it is given point N.
void die_on_faulty_point(const std::string& line) {
  const char* fault = std::getenv("COLLSIM_FAULT");
  const std::string prefix = "sweep-worker-dies:";
  if (!fault || std::string(fault).rfind(prefix, 0) != 0) return;
  if (nlohmann::json::parse(line).value("index", ~std::size_t(0)) == std::stoul(std::string(fault).substr(prefix.size())))
    raise(SIGKILL);
}

}  // namespace

void serve_points(std::istream& in, std::ostream& out) {
  for (std::string line; std::getline(in, line);) {
    die_on_faulty_point(line);
    out << price_point_line(line) << std::endl;
  }
}

SweepRow row_from_line(const std::string& line) {
  try {
    const nlohmann::json j = nlohmann::json::parse(line);
    SweepRow row;
    row.index = j.at("index");
    row.hash = j.at("hash");
    const std::string status = j.at("status");
    row.status = status == "ok" ? RowStatus::ok : RowStatus::refused;
    if (row.status == RowStatus::refused) {
      row.error = j.at("error");
      return row;
    }
    row.ranks = j.at("ranks");
    row.runs = j.at("runs");
    row.protocol = j.at("protocol");
    row.channels = j.at("channels");
    row.time_s = j.at("time_s");
    row.algbw_GBps = j.at("algbw_GBps");
    row.busbw_GBps = j.at("busbw_GBps");
    return row;
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("a worker wrote a line that is not a row ({}): '{}'", e.what(), line.substr(0, 200)));
  }
}

}  // namespace collsim
