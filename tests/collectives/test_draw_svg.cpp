// tests/collectives/test_draw_svg.cpp — the SVG pictures of collectives/draw_svg.hpp: one
// row per rank, one arrow per transfer (reduce and copy told apart), the trees of tree
// algorithms with interior and leaf ranks (named: tree 1, tree 2, chain), and well-formed XML.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "base/error.hpp"
#include "collectives/algorithm.hpp"
#include "collectives/draw_svg.hpp"
#include "collectives/explain_json.hpp"
#include "tests/support/schedule_request.hpp"

using namespace collsim;

namespace {

Schedule generate(std::string_view algorithm, Rank ranks, std::uint64_t bytes, std::uint32_t segments = 0) {
  ScheduleRequest request;
  request.ranks = ranks;
  request.bytes = bytes;
  request.segments = segments;
  return generate_schedule(algorithm, request);
}

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + needle.size())) ++n;
  return n;
}

// Element nesting: every <tag ...> is closed by </tag> or is self-closing, in order. Returns
// the first problem found, or "" for a well-nested document.
std::string nesting_problem(const std::string& svg) {
  std::vector<std::string> open;
  for (auto lt = svg.find('<'); lt != std::string::npos; lt = svg.find('<', lt + 1)) {
    const auto gt = svg.find('>', lt);
    if (gt == std::string::npos) return "unterminated tag";
    const std::string tag = svg.substr(lt + 1, gt - lt - 1);
    if (tag.empty()) return "empty tag";
    if (tag[0] == '?' || tag[0] == '!') continue;
    if (tag[0] == '/') {
      if (open.empty() || open.back() != tag.substr(1)) return "unexpected </" + tag.substr(1) + ">";
      open.pop_back();
    } else if (tag.back() != '/') {
      open.push_back(tag.substr(0, tag.find_first_of(" \n")));
    }
  }
  return open.empty() ? "" : "unclosed <" + open.back() + ">";
}

std::size_t count_op(const Schedule& s, Op op, bool local) {
  std::size_t n = 0;
  for (TransferId id = 0; id < s.size(); ++id)
    if (s.transfer(id).op == op && s.transfer(id).is_local() == local) ++n;
  return n;
}

}  // namespace

TEST_CASE("the ring's picture has one row per rank, one column per step and one arrow per transfer", "[svg]") {
  const Schedule s = generate("ring", 4, 8);
  const std::string svg = schedule_svg(s);
  CHECK(nesting_problem(svg).empty());
  CHECK(count(svg, "class=\"rank-row\"") == 4);
  CHECK(count(svg, "class=\"step-label\"") == 6);
  CHECK(count(svg, "class=\"transfer ") == 24);
  CHECK(count(svg, "class=\"transfer reduce\"") == 12);  // reduce-scatter
  CHECK(count(svg, "class=\"transfer copy\"") == 12);    // allgather
  CHECK(count(svg, "class=\"phase\"") == 2);
  CHECK(count(svg, "class=\"tree-node") == 0);
}

TEST_CASE("every algorithm's picture is well nested and draws each transfer once, by its operation", "[svg]") {
  for (const AlgorithmEntry& a : algorithm_table()) {
    if (!a.supports(Collective::allreduce)) continue;
    ScheduleRequest request;
    request.ranks = 8;
    request.bytes = 1024;
    request.ranks_per_node = 4;
    const Schedule s = generate_schedule(a.name, request);
    const std::string svg = schedule_svg(s);
    INFO(a.name);
    CHECK(nesting_problem(svg).empty());
    CHECK(count(svg, "class=\"rank-row\"") == 8);
    CHECK(count(svg, "class=\"transfer ") == s.size());
    CHECK(count(svg, "class=\"transfer reduce\"") == count_op(s, Op::reduce, false));
    CHECK(count(svg, "class=\"transfer copy\"") == count_op(s, Op::copy, false));
    CHECK(count(svg, "class=\"transfer reduce local\"") == count_op(s, Op::reduce, true));
  }
}

TEST_CASE("two-tree draws both trees, and no rank is interior in both", "[svg]") {
  const Schedule s = generate("two-tree", 8, 64, 1);
  const std::string svg = schedule_svg(s);
  CHECK(nesting_problem(svg).empty());
  CHECK(count(svg, "class=\"tree\"") == 2);
  CHECK(count(svg, "class=\"tree-node ") == 16);
  const auto trees = teaching_trees(s);
  REQUIRE(trees.size() == 2);
  // Each tree's interior ranks are the other's leaves: 4 + 4 interior nodes, 4 + 4 leaves.
  CHECK(count(svg, "class=\"tree-node interior\"") == interior_ranks(trees[0]).size() + interior_ranks(trees[1]).size());
  CHECK(count(svg, "class=\"tree-node interior\"") == 8);
  CHECK(count(svg, "class=\"tree-edge\"") == 14);  // P - 1 edges per tree
  CHECK(svg.find("interior in both trees: none") != std::string::npos);
}

TEST_CASE("two-tree colours each transfer and each tree edge by its tree, and its caption fits the picture", "[svg]") {
  for (const Rank ranks : {Rank(4), Rank(8), Rank(7)}) {
    const Schedule s = generate("two-tree", ranks, 8 * ranks, 2);
    const std::string svg = schedule_svg(s);
    CHECK(nesting_problem(svg).empty());
    const auto trees = teaching_trees(s);
    REQUIRE(trees.size() == 2);
    const std::string colour[] = {"stroke=\"#2ca02c\"", "stroke=\"#9467bd\""};
    // every transfer in one of the two colours, both used, none in the copy/reduce colours
    std::size_t in_tree[2] = {0, 0}, between_ranks = 0;
    for (TransferId id = 0; id < s.size(); ++id) {
      const Transfer t = s.transfer(id);
      if (t.is_local()) continue;  // a local reduction is a dot, not an arrow of a tree
      ++between_ranks;
      const bool edge0 = trees[0].parent[t.src] == t.dst || trees[0].parent[t.dst] == t.src;
      const bool edge1 = trees[1].parent[t.src] == t.dst || trees[1].parent[t.dst] == t.src;
      REQUIRE((edge0 || edge1));
      if (edge0 != edge1) ++in_tree[edge0 ? 0 : 1];
    }
    // the transfers on an edge of one tree only are drawn in that tree's colour (and its edges)
    CHECK(count(svg, colour[0]) >= in_tree[0] + (ranks - 1));
    CHECK(count(svg, colour[1]) >= in_tree[1] + (ranks - 1));
    CHECK(count(svg, colour[0]) + count(svg, colour[1]) == between_ranks + 2 * (ranks - 1));
    CHECK(svg.find("stroke=\"#1f77b4\" marker-end") == std::string::npos);
    CHECK(svg.find("colour = tree:") != std::string::npos);
    // the caption is whole (both parts), on lines the picture is wide enough for at 7.5 px a character
    const double width = std::stod(svg.substr(svg.find("width=\"") + 7));
    CHECK(svg.find("hollow = leaf (only sends and receives).") != std::string::npos);
    for (auto at = svg.find("class=\"caption\""); at != std::string::npos; at = svg.find("class=\"caption\"", at + 1)) {
      const auto open = svg.find('>', at) + 1;
      const std::size_t chars = svg.find("</text>", open) - open;
      CHECK(80 + 7.5 * double(chars) <= width);
    }
  }
}

TEST_CASE("the binary tree draws one tree with P - 1 edges", "[svg]") {
  const std::string svg = schedule_svg(generate("tree", 6, 48, 1));
  CHECK(nesting_problem(svg).empty());
  CHECK(count(svg, "class=\"tree\"") == 1);
  CHECK(count(svg, "class=\"tree-node ") == 6);
  CHECK(count(svg, "class=\"tree-edge\"") == 5);
}

TEST_CASE("a tree in which every rank forwards to one rank is named a chain, NCCL's two trees are numbered", "[svg]") {
  ScheduleRequest request;
  request.collective = Collective::broadcast;
  request.ranks = 5;
  request.bytes = 40;
  request.segments = 2;
  const std::string svg = schedule_svg(generate_schedule("chain", request));
  CHECK(svg.find(">chain (root 0, height 4): interior 0 1 2 3<") != std::string::npos);
  CHECK(svg.find(">tree ") == std::string::npos);
  const auto trees = teaching_trees(generate("two-tree", 8, 64, 1));
  REQUIRE(trees.size() == 2);
  CHECK(teaching_tree_name(trees[0], 0, 2) == "tree 1");
  CHECK(teaching_tree_name(trees[1], 1, 2) == "tree 2");
}

TEST_CASE("a schedule too large to read is refused with a message", "[svg]") {
  CHECK_THROWS_AS(schedule_svg(generate("ring", 65, 65 * 4)), Error);
}

TEST_CASE("Channels colour each transfer by its channel and list the colours in the legend") {
  const Schedule s = generate_schedule("ring", test::allreduce_request(4, 64, 2, 2));
  const std::string svg = schedule_svg(s);
  CHECK(nesting_problem(svg).empty());
  CHECK(svg.find("colour = channel") != std::string::npos);
  CHECK(count(svg, "class=\"channel\"") == 2);
  // Each channel's ring moves 2 (P-1) P transfers, each drawn in its channel's colour.
  CHECK(count(svg, "stroke=\"#2ca02c\" marker-end") == 24);
  CHECK(count(svg, "stroke=\"#9467bd\" marker-end") == 24);
  CHECK(count(schedule_svg(generate("ring", 4, 64)), "class=\"channel\"") == 0);
}
