// collectives/explain_json.cpp — trees of tree algorithms and the Explanation as JSON.
#include "collectives/explain_json.hpp"

#include <fmt/format.h>

#include "collectives/algorithm.hpp"

namespace collsim {

std::vector<algorithms::BinaryTree> teaching_trees(const Schedule& s) {
  const AlgorithmEntry* entry = lookup_algorithm(s.info().algorithm);  // a loaded file may name any
  return entry && entry->trees ? entry->trees(s.info()) : std::vector<algorithms::BinaryTree>{};
}

namespace {

// A tree in which no rank has two children: each rank forwards to one next rank.
bool is_chain(const algorithms::BinaryTree& t) {
  for (const auto& children : t.children)
    if (children.size() > 1) return false;
  return true;
}

}  // namespace

std::string teaching_tree_name(const algorithms::BinaryTree& tree, std::size_t index, std::size_t count) {
  if (!is_chain(tree)) return fmt::format("tree {}", index + 1);
  return count == 1 ? std::string("chain") : fmt::format("chain {}", index + 1);
}

std::vector<Rank> interior_ranks(const algorithms::BinaryTree& t) {
  std::vector<Rank> out;
  for (Rank r = 0; r < t.size(); ++r)
    if (t.interior(r)) out.push_back(r);
  return out;
}

namespace {

nlohmann::json step_json(const Schedule& s, const Explanation& x, const ExplainedStep& step) {
  nlohmann::json transfers = nlohmann::json::array();
  for (TransferId id : step.transfers) {
    const Transfer t = s.transfer(id);
    transfers.push_back({{"id", id}, {"src", t.src}, {"dst", t.dst}, {"op", to_string(t.op)},
                         {"src_chunk", describe_chunk(s, x, t.src_chunk)}, {"dst_chunk", describe_chunk(s, x, t.dst_chunk)}});
  }
  nlohmann::json out{{"step", step.step}, {"phase", step.phase}, {"transfers", transfers}, {"state", step.state}};
  if (!step.slice.empty()) out["slice"] = step.slice;
  return out;
}

nlohmann::json tree_json(const algorithms::BinaryTree& t, const std::string& name) {
  nlohmann::json parents = nlohmann::json::array();
  for (Rank p : t.parent) parents.push_back(p == algorithms::kNoRank ? nlohmann::json(nullptr) : nlohmann::json(p));
  return {{"name", name}, {"root", t.root}, {"parent", parents}, {"interior", interior_ranks(t)}};
}

}  // namespace

nlohmann::json explanation_json(const Schedule& s, const Explanation& x) {
  nlohmann::json steps = nlohmann::json::array();
  for (const ExplainedStep& step : x.steps) steps.push_back(step_json(s, x, step));
  nlohmann::json trees = nlohmann::json::array();
  const auto taught = teaching_trees(s);
  for (std::size_t i = 0; i < taught.size(); ++i)
    trees.push_back(tree_json(taught[i], teaching_tree_name(taught[i], i, taught.size())));
  nlohmann::json out{{"algorithm", s.info().algorithm}, {"collective", to_string(s.info().collective)},
                     {"ranks", s.info().ranks}, {"bytes", s.info().bytes}, {"slices", x.slices}, {"chunks", x.element_names},
                     {"initial", x.initial}, {"steps", steps}, {"trees", trees}};
  if (!x.channel_orders.empty()) out["channel_orders"] = x.channel_orders;  // one channel: absent, as before
  if (s.info().reducers > 0) out["reducers"] = s.info().reducers;  // rows after the ranks' in every state
  return out;
}

}  // namespace collsim
