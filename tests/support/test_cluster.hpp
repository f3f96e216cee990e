// tests/support/test_cluster.hpp — the small clusters the engine tests build: a topology line
// and the link classes it names, with gamma 1e-10 s/B; and what loading a config says.
#pragma once

#include <string>

#include <fmt/format.h>

#include "base/error.hpp"
#include "topologies/cluster_config.hpp"

namespace collsim::test {

// `link_classes`: YAML lines of the classes, each indented by two spaces; `topology`: the
// topology's flow map (and any lines after it, e.g. a placement).
inline ClusterConfig test_cluster(const std::string& link_classes, const std::string& topology, Rank ranks) {
  return parse_cluster_config(fmt::format("name: t\nlink_classes:\n{}topology: {}\nranks: {}\ngamma_s_per_byte: 1.0e-10\n",
                                          link_classes, topology, ranks),
                              "t.yaml");
}

// What loading `yaml` says: the one-line error, or "accepted".
inline std::string config_error(const std::string& yaml) {
  try {
    parse_cluster_config(yaml, "t.yaml");
  } catch (const Error& e) {
    return e.what();
  }
  return "accepted";
}

}  // namespace collsim::test
