// sweep/sweep_file.cpp — reading a sweep file and expanding it into points (sweep_file.hpp).
#include "sweep/sweep_file.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include "base/error.hpp"
#include "base/file_io.hpp"
#include "base/units.hpp"
#include "topologies/cluster_config.hpp"

namespace collsim {
namespace {

namespace fs = std::filesystem;

inline constexpr std::uint64_t kMaxSweepFileBytes = 1u << 20;

// "FILE:LINE: what" for a node of the sweep file.
[[noreturn]] void fail(const Sweep& s, const YAML::Node& at, const std::string& what) {
  const YAML::Mark mark = at.Mark();
  if (mark.line >= 0) throw Error(fmt::format("{}:{}: {}", s.origin, mark.line + 1, what));
  throw Error(fmt::format("{}: {}", s.origin, what));
}

void only_keys(const Sweep& s, const YAML::Node& map, const std::string& where, const std::vector<std::string>& keys) {
  if (!map.IsMap()) fail(s, map, fmt::format("{}: expected a mapping of {}", where, fmt::join(keys, ", ")));
  for (const auto& kv : map) {
    const std::string key = kv.first.as<std::string>();
    if (std::find(keys.begin(), keys.end(), key) == keys.end())
      fail(s, kv.first, fmt::format("{}: unknown field '{}' (expected {})", where, key, fmt::join(keys, ", ")));
  }
}

// A scalar or a list of scalars, as a list of strings ("engine: flow" or "engine: [flow, analytic]").
std::vector<std::string> one_or_list(const Sweep& s, const YAML::Node& node, const std::string& field) {
  std::vector<std::string> out;
  if (node.IsScalar()) out.push_back(node.as<std::string>());
  else if (node.IsSequence())
    for (const YAML::Node& item : node) {
      if (!item.IsScalar()) fail(s, item, fmt::format("{}: expected names, got a nested value", field));
      out.push_back(item.as<std::string>());
    }
  if (out.empty()) fail(s, node, fmt::format("{}: expected a name or a list of names", field));
  for (std::size_t i = 0; i < out.size(); ++i)
    if (std::find(out.begin(), out.begin() + std::ptrdiff_t(i), out[i]) != out.begin() + std::ptrdiff_t(i))
      fail(s, node, fmt::format("{}: '{}' is named twice", field, out[i]));
  return out;
}

std::string flow_yaml(const YAML::Node& value) {
  YAML::Emitter out;
  out << YAML::Flow << value;
  return out.c_str();
}

// A label goes into CSV cells, SVG text and the results' key: no separators or quotes.
void check_label(const Sweep& s, const YAML::Node& at, const std::string& label) {
  const bool control = std::any_of(label.begin(), label.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; });
  if (label.empty() || control || label.find_first_of(",|\"<>&") != std::string::npos)
    fail(s, at, fmt::format("axis label '{}' must be non-empty and hold none of , | \" < > & or control bytes "
                            "(give the axis `labels:`)", control ? std::string("(with control bytes)") : label));
}

// The base config's YAML text: `base: {preset: NAME}` or `base: {config: FILE}` (relative to the sweep file).
std::string base_yaml(Sweep& s, const YAML::Node& base, const fs::path& folder) {
  only_keys(s, base, "base", {"preset", "config"});
  if (base["preset"] && base["config"]) fail(s, base, "base: give preset or config, not both");
  if (base["preset"]) {
    s.base_name = base["preset"].as<std::string>();
    return preset_yaml(s.base_name);
  }
  if (!base["config"]) fail(s, base, "base: expected preset: NAME or config: FILE");
  const fs::path config = folder / base["config"].as<std::string>();
  s.base_name = config.string();
  return read_text_file(config, "cluster config", kMaxConfigBytes);
}

// The field an axis edits: every step but the last must be a mapping in the base config;
// the last must be a field the base has or, under `topology`, one its kind takes (`taper`).
void check_field(const Sweep& s, const YAML::Node& at, const YAML::Node& root, const std::string& path) {
  std::vector<std::string> steps;
  for (std::size_t start = 0, dot; start <= path.size(); start = dot + 1) {
    dot = path.find('.', start);
    if (dot == std::string::npos) dot = path.size();
    steps.push_back(path.substr(start, dot - start));
  }
  YAML::Node node = root;
  for (std::size_t i = 0; i + 1 < steps.size(); ++i) {
    const YAML::Node& here = node;  // const: looking a key up must not add it
    if (!here.IsMap() || !here[steps[i]] || !here[steps[i]].IsMap())
      fail(s, at, fmt::format("axis path '{}': the base config {} has no section '{}'", path, s.base_name,
                              fmt::join(steps.begin(), steps.begin() + std::ptrdiff_t(i) + 1, ".")));
    node.reset(here[steps[i]]);  // reset, not =: assigning a yaml-cpp node overwrites its value
  }
  const YAML::Node& parent = node;
  if (parent[steps.back()]) return;
  std::vector<std::string> takes;
  for (const auto& kv : parent) takes.push_back(kv.first.as<std::string>());
  if (steps.size() == 2 && steps[0] == "topology" && parent["kind"])
    for (const TopologyKindHelp& kind : topology_kinds())
      if (kind.name == parent["kind"].as<std::string>()) {
        if (std::find(kind.keys.begin(), kind.keys.end(), steps.back()) != kind.keys.end()) return;
        takes = kind.keys;
      }
  fail(s, at, fmt::format("axis path '{}': no field '{}' in the base config {} (there: {})", path, steps.back(),
                          s.base_name, fmt::join(takes, ", ")));
}

void set_field(YAML::Node root, const std::string& path, const std::string& value_yaml) {
  YAML::Node node = root;
  std::size_t start = 0;
  for (std::size_t dot; (dot = path.find('.', start)) != std::string::npos; start = dot + 1)
    node.reset(node[path.substr(start, dot - start)]);
  node[path.substr(start)] = YAML::Load(value_yaml);
}

SweepAxis read_axis(const Sweep& s, const YAML::Node& node, const YAML::Node& base) {
  only_keys(s, node, "axes", {"path", "name", "values", "labels"});
  if (!node["path"] || !node["values"]) fail(s, node, "an axis needs path: FIELD and values: [...]");
  SweepAxis axis;
  axis.path = node["path"].as<std::string>();
  axis.name = node["name"] ? node["name"].as<std::string>() : axis.path;
  check_label(s, node, axis.name);
  check_field(s, node["path"], base, axis.path);
  const YAML::Node values = node["values"];
  if (!values.IsSequence() || values.size() == 0)
    fail(s, values, fmt::format("axis '{}': values must be a non-empty list", axis.name));
  for (const YAML::Node& v : values) {
    axis.values.push_back(flow_yaml(v));
    std::string label = v.IsScalar() ? v.as<std::string>() : axis.values.back();
    if (v.IsSequence()) label = label.substr(1, label.size() - 2), std::replace(label.begin(), label.end(), ',', ' ');
    axis.labels.push_back(label);
  }
  if (node["labels"]) {
    const YAML::Node labels = node["labels"];
    if (!labels.IsSequence() || labels.size() != values.size())
      fail(s, labels, fmt::format("axis '{}': labels must list one label per value ({})", axis.name, values.size()));
    for (std::size_t i = 0; i < labels.size(); ++i) axis.labels[i] = labels[i].as<std::string>();
  }
  for (std::size_t i = 0; i < axis.labels.size(); ++i) {
    check_label(s, values[i], axis.labels[i]);
    if (std::find(axis.labels.begin(), axis.labels.begin() + std::ptrdiff_t(i), axis.labels[i]) !=
        axis.labels.begin() + std::ptrdiff_t(i))
      fail(s, values[i], fmt::format("axis '{}': the value '{}' is listed twice", axis.name, axis.labels[i]));
  }
  return axis;
}

void read_request(Sweep& s, const YAML::Node& request) {
  only_keys(s, request, "request", {"collective", "engine", "algorithms", "sizes"});
  s.collectives = request["collective"] ? one_or_list(s, request["collective"], "collective") : std::vector<std::string>{"allreduce"};
  s.engines = request["engine"] ? one_or_list(s, request["engine"], "engine") : std::vector<std::string>{"analytic"};
  if (!request["algorithms"]) fail(s, request, "request: name the algorithms (e.g. [ring, two-tree, nccl])");
  s.algorithms = one_or_list(s, request["algorithms"], "algorithms");
  for (const std::string& a : s.algorithms)
    if (a == "all" || a == "auto")
      fail(s, request["algorithms"], fmt::format("algorithms: name each algorithm ('{}' is predict's, not a sweep's)", a));
  if (!request["sizes"]) fail(s, request, "request: give sizes (e.g. 64K:4G, as predict --bytes)");
  const YAML::Node sizes = request["sizes"];
  try {
    s.sizes = parse_size_list(sizes.IsSequence() ? fmt::format("{}", fmt::join(one_or_list(s, sizes, "sizes"), ","))
                                                 : sizes.as<std::string>());
  } catch (const Error& e) {
    fail(s, sizes, fmt::format("sizes: {}", e.what()));
  }
}

std::size_t point_count(const Sweep& s) {
  std::size_t count = s.collectives.size() * s.engines.size() * s.algorithms.size() * s.sizes.size();
  for (const SweepAxis& a : s.axes) count *= a.values.size();
  return count;
}

// Every combination of the axes' values, the first axis slowest.
std::vector<std::vector<std::size_t>> combinations(const std::vector<SweepAxis>& axes) {
  std::vector<std::vector<std::size_t>> out{{}};
  for (const SweepAxis& axis : axes) {
    std::vector<std::vector<std::size_t>> next;
    for (const auto& prefix : out)
      for (std::size_t v = 0; v < axis.values.size(); ++v) {
        next.push_back(prefix);
        next.back().push_back(v);
      }
    out = std::move(next);
  }
  return out;
}

void expand(Sweep& s, const std::string& base_text) {
  for (const std::vector<std::size_t>& values : combinations(s.axes)) {
    YAML::Node cluster = YAML::Load(base_text);
    for (std::size_t a = 0; a < s.axes.size(); ++a) set_field(cluster, s.axes[a].path, s.axes[a].values[values[a]]);
    YAML::Emitter emitted;
    emitted << cluster;
    const std::string cluster_yaml = emitted.c_str();
    const std::uint64_t cluster_hash = fnv1a(cluster_yaml);
    for (const std::string& collective : s.collectives)
      for (const std::string& engine : s.engines)
        for (std::uint64_t bytes : s.sizes)
          for (const std::string& algorithm : s.algorithms) {
            SweepPoint p{s.points.size(), values, cluster_yaml, s.base_name + " as the sweep edits it", collective,
                         engine, algorithm, bytes, 0};
            p.hash = fnv1a(fmt::format("{}|{}|{}|{}", collective, engine, algorithm, bytes), cluster_hash);
            s.points.push_back(std::move(p));
          }
  }
}

}  // namespace

std::uint64_t fnv1a(const std::string& text, std::uint64_t seed) {
  std::uint64_t hash = seed;
  for (unsigned char c : text) hash = (hash ^ c) * 1099511628211ull;
  return hash;
}

std::string SweepPoint::key(const std::vector<SweepAxis>& axes) const {
  std::string out;
  for (std::size_t a = 0; a < axes.size(); ++a) out += axes[a].labels[value[a]] + '|';
  return out + fmt::format("{}|{}|{}|{}", collective, engine, algorithm, bytes);
}

Sweep read_sweep(const std::string& yaml_text, const std::string& origin, const fs::path& folder) {
  Sweep s;
  s.origin = origin;
  check_cluster_yaml(yaml_text, origin);  // the YAML guards: one document, bounded depth and aliases
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    throw Error(fmt::format("{}:{}: not YAML: {}", origin, e.mark.line + 1, e.msg));
  }
  if (!root.IsMap()) throw Error(fmt::format("{}: a sweep file is a mapping of name, base, axes, request", origin));
  only_keys(s, root, "sweep", {"name", "description", "base", "axes", "request", "budget"});
  s.name = root["name"] ? root["name"].as<std::string>() : fs::path(origin).stem().string();
  if (!root["base"]) fail(s, root, "sweep: give the base cluster (base: {preset: NAME} or {config: FILE})");
  const std::string base_text = base_yaml(s, root["base"], folder);
  check_cluster_yaml(base_text, s.base_name);
  const YAML::Node base = YAML::Load(base_text);
  if (root["axes"]) {
    if (!root["axes"].IsSequence()) fail(s, root["axes"], "axes: expected a list of {path, values}");
    for (const YAML::Node& axis : root["axes"]) s.axes.push_back(read_axis(s, axis, base));
  }
  if (!root["request"]) fail(s, root, "sweep: give the request (algorithms and sizes)");
  read_request(s, root["request"]);
  if (root["budget"]) {
    only_keys(s, root["budget"], "budget", {"points"});
    s.budget.points = root["budget"]["points"].as<std::size_t>();
  }
  const std::size_t count = point_count(s);
  if (count > s.budget.points)
    throw Error(fmt::format("{}: the sweep has {} points, over its budget of {}: drop axis values or sizes, or raise "
                            "budget: {{points: N}} in the file",
                            origin, count, s.budget.points));
  expand(s, base_text);
  return s;
}

Sweep parse_sweep(const std::string& yaml_text, const std::string& origin, const fs::path& folder) {
  try {
    return read_sweep(yaml_text, origin, folder);
  } catch (const YAML::Exception& e) {  // a field of the wrong type ("points: many")
    throw Error(fmt::format("{}:{}: {}", origin, e.mark.line + 1, e.msg));
  }
}

Sweep load_sweep(const fs::path& path) {
  return parse_sweep(read_text_file(path, "sweep file", kMaxSweepFileBytes), path.string(), path.parent_path());
}

}  // namespace collsim
