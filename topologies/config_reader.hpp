// topologies/config_reader.hpp — typed fields of a cluster YAML (yaml-cpp), each failure one
// line "FILE:LINE:COLUMN: field: what was expected" (PlacedError, an Error). Shared by the
// cluster loader and by each topology kind's parser, which sits beside its builder
// (builders/fabric_kinds.hpp). Touches nothing but the nodes it is given.
#pragma once

#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include "base/error.hpp"
#include "base/units.hpp"
#include "collectives/cost_model.hpp"
#include "topologies/network.hpp"

namespace collsim {

// An Error that already names its FILE:LINE:COLUMN: passed on as it is, never placed twice.
class PlacedError : public Error {
 public:
  using Error::Error;
};

// Reads typed fields; every failure names FILE:LINE:COLUMN of the node at fault and the
// field's dotted path ("topology.g").
class ConfigReader {
 public:
  explicit ConfigReader(std::string origin) : origin_(std::move(origin)) {}

  [[noreturn]] void fail(const YAML::Node& at, const std::string& what) const {
    const YAML::Mark m = at.Mark();
    if (m.is_null()) throw PlacedError(fmt::format("{}: {}", origin_, what));
    throw PlacedError(fmt::format("{}:{}:{}: {}", origin_, m.line + 1, m.column + 1, what));
  }

  void only_keys(const YAML::Node& node, const std::string& where, const std::set<std::string>& allowed) const {
    if (!node.IsMap()) fail(node, fmt::format("'{}' must be a mapping", where));
    for (const auto& kv : node) {
      if (!kv.first.IsScalar()) fail(kv.first, fmt::format("a key in '{}' must be a plain name", where));
      const std::string key = kv.first.Scalar();
      if (!allowed.count(key))
        fail(kv.first, fmt::format("unknown key '{}' in '{}' (expected one of: {})", key, where, fmt::join(allowed, ", ")));
    }
  }

  YAML::Node require(const YAML::Node& map, const std::string& key, const std::string& where) const {
    const YAML::Node v = map[key];
    if (!v) fail(map, fmt::format("missing key '{}'{}", key, where.empty() ? "" : " in '" + where + "'"));
    return v;
  }

  // A number >= 0 (> 0 unless zero_ok). `units`: the unit forms it may be written with
  // besides a plain number (units.hpp: `400Gbps`, `50GB/s`, `2us`).
  double number(const YAML::Node& v, const std::string& field, bool zero_ok,
                WrittenUnits units = WrittenUnits::none) const {
    const double x = scalar_number(v, field, units);
    if (!std::isfinite(x) || x < 0 || (!zero_ok && x == 0))
      fail(v, fmt::format("'{}' must be {} (got {})", field, zero_ok ? ">= 0" : "> 0", x));
    return x;
  }

  // A number that must lie in its physical range (cost_model.hpp); rates and times may carry
  // a unit (`400Gbps`, `50GB/s`, `2us`: units.hpp), plain numbers are in the base unit.
  double physical(const YAML::Node& v, const std::string& field, const PhysicalRange& range) const {
    const double x = number(v, field, range.min == 0, range.written);
    if (const std::string problem = range_problem(range, x); !problem.empty())
      fail(v, fmt::format("'{}': {}", field, problem));
    return x;
  }

  std::uint32_t count(const YAML::Node& v, const std::string& field, bool zero_ok = false) const {
    const double x = number(v, field, zero_ok);
    if (x != std::floor(x) || x > 4.0e9) fail(v, fmt::format("'{}' must be a whole number (got {})", field, x));
    return std::uint32_t(x);
  }

  std::vector<std::uint32_t> counts(const YAML::Node& v, const std::string& field) const {
    if (!v.IsSequence() || v.size() == 0) fail(v, fmt::format("'{}' must be a non-empty list of whole numbers", field));
    std::vector<std::uint32_t> out;
    for (const YAML::Node& item : v) out.push_back(count(item, field));
    return out;
  }

  std::vector<double> numbers(const YAML::Node& v, const std::string& field) const {
    if (!v.IsSequence()) fail(v, fmt::format("'{}' must be a list of numbers", field));
    std::vector<double> out;
    for (const YAML::Node& item : v) out.push_back(number(item, field, false));
    return out;
  }

  std::string text(const YAML::Node& v, const std::string& field) const {
    if (!v.IsScalar()) fail(v, fmt::format("'{}' must be a string", field));
    return v.Scalar();
  }

  // A name printed in tables and files: not empty, no control bytes (base/error.hpp).
  std::string name(const YAML::Node& v, const std::string& field) const {
    const std::string s = text(v, field);
    try {
      check_name(s, fmt::format("'{}'", field));
    } catch (const Error& e) {
      fail(v, e.what());
    }
    return s;
  }

  bool flag(const YAML::Node& v, const std::string& field) const {
    try {
      return v.as<bool>();
    } catch (const YAML::Exception&) {
      fail(v, fmt::format("'{}' must be true or false", field));
    }
  }

  std::vector<std::uint64_t> sizes(const YAML::Node& v) const {
    if (!v.IsSequence()) fail(v, "'bytes' must be a list of sizes");
    std::vector<std::uint64_t> out;
    for (const YAML::Node& item : v) {
      try {
        out.push_back(parse_size(text(item, "bytes")));
      } catch (const Error& e) {
        fail(item, e.what());
      }
    }
    return out;
  }

  // Runs a builder step; an Error it throws is reported at `at`.
  template <class F>
  auto at(const YAML::Node& at, F&& step) const {
    try {
      return step();
    } catch (const PlacedError&) {
      throw;
    } catch (const Error& e) {
      fail(at, e.what());
    }
  }

  // The link class a key names ("link: ib-ndr"), checked against the network's classes.
  LinkClassId link_class(const YAML::Node& map, const std::string& key, const std::string& where, const Network& net) const {
    const YAML::Node v = require(map, key, where);
    return at(v, [&] { return net.find_link_class(text(v, where + "." + key)); });
  }

 private:
  double scalar_number(const YAML::Node& v, const std::string& field, WrittenUnits units) const {
    if (!v.IsScalar()) fail(v, fmt::format("'{}' must be a number", field));
    try {
      const double x = v.as<double>();
      // "1e9" in quotes is text that happens to read as a number: a sign the value was meant
      // otherwise (a unit forgotten, a template left unfilled), so it is not taken silently.
      if (v.Tag() == "!")
        fail(v, fmt::format("'{}' is the quoted text \"{}\": write the number without quotes", field, v.Scalar()));
      return x;
    } catch (const YAML::Exception&) {
    }
    if (units == WrittenUnits::none) fail(v, fmt::format("'{}' must be a number (got '{}')", field, v.Scalar()));
    try {
      return units == WrittenUnits::rate ? parse_rate(v.Scalar()) : parse_duration(v.Scalar());
    } catch (const Error& e) {
      fail(v, fmt::format("'{}': {}", field, e.what()));
    }
  }

  std::string origin_;
};

}  // namespace collsim
