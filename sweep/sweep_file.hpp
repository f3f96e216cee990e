// sweep/sweep_file.hpp — a design-space sweep as a file (configs/sweeps/*.yaml, documented in
// configs/sweeps/README.md) and the points it expands to. A sweep names a base cluster (a
// preset or a config file), axes that edit the base config field by field (`nodes.count`,
// `topology.taper`, ...), and the request (collectives, engines, algorithms, sizes). A point
// is one row of the results: one value of every axis, one collective, engine, algorithm and
// size. Each point carries its edited cluster YAML and a hash of everything that decides
// its row, so a resumed sweep reuses only rows that the file still asks for.
// Touches: the sweep file and the base config it names (read only).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace collsim {

struct SweepAxis {
  std::string name;                 // the results' column ("nodes"); default: the path
  std::string path;                 // the config field it edits, dotted ("nodes.count")
  std::vector<std::string> values;  // each value as YAML (flow style: "[1, 0.5]")
  std::vector<std::string> labels;  // as the results and pictures show them
};

struct SweepPoint {
  std::size_t index = 0;            // its place in the file's order (the results' order)
  std::vector<std::size_t> value;   // per axis, the index of its value
  std::string cluster_yaml;         // the base config with the point's values written in
  std::string origin;               // how the config reader names it in errors
  std::string collective, engine, algorithm;
  std::uint64_t bytes = 0;
  std::uint64_t hash = 0;           // of the cluster YAML and the request: a changed file, a new hash
  // The request's fields as the results' key: the axes' labels, then collective, engine,
  // algorithm and size ("32|0.5|allreduce|analytic|ring|1048576").
  std::string key(const std::vector<SweepAxis>& axes) const;
};

// The sweep's budget (`budget:` in the file): a sweep larger than this is refused before it
// starts, with the way out (raise the budget, or drop values).
struct SweepBudget {
  std::size_t points = 20000;
};

struct Sweep {
  std::string name;
  std::string origin;     // the file, for messages
  std::string base_name;  // the preset or config it starts from
  std::vector<SweepAxis> axes;
  std::vector<std::string> collectives, engines, algorithms;
  std::vector<std::uint64_t> sizes;
  SweepBudget budget;
  // Every point in the file's order: the axes (first slowest), collective, engine, size, algorithm.
  std::vector<SweepPoint> points;
};

// Throws Error "FILE: what is wrong" (an unknown field or axis path, an empty axis, a value
// list of the wrong shape, a sweep over its budget). Values a cluster config refuses are not
// found here: they fail their own points, which the sweep reports and goes on from.
Sweep parse_sweep(const std::string& yaml_text, const std::string& origin,
                  const std::filesystem::path& folder = ".");
Sweep load_sweep(const std::filesystem::path& path);

// 64-bit FNV-1a: the points' hashes (printed as 16 hex digits in the results).
std::uint64_t fnv1a(const std::string& text, std::uint64_t seed = 14695981039346656037ull);

}  // namespace collsim
