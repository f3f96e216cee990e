// collectives/draw_svg.cpp — the time-space diagram and tree drawings of draw_svg.hpp, as
// plain SVG 1.1 text (no library: a few shapes, written with fmt).
#include "collectives/draw_svg.hpp"

#include <algorithm>
#include <functional>
#include <iterator>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "base/error.hpp"
#include "collectives/algorithms/channels.hpp"
#include "collectives/explain_json.hpp"
#include "collectives/partition.hpp"

namespace collsim {
namespace {

constexpr const char* kCopyColour = "#1f77b4";
constexpr const char* kReduceColour = "#d62728";
constexpr double kLeft = 80;        // room for the rank labels
constexpr double kTop = 120;        // title, legend, phase band and step labels above the rows
constexpr double kTreeCell = 44;    // horizontal room per rank in a tree drawing
constexpr double kTreeLevel = 56;   // vertical room per tree level
constexpr double kCaptionCharWidth = 7.5;  // an upper bound on a 13 px sans-serif character's width

// With channels, a transfer's colour is its channel's (its arrow head still tells copy from
// reduce): matplotlib's tab10 without the copy and reduce colours, repeating after 8.
constexpr const char* kChannelColours[] = {"#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
                                           "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"};
constexpr std::size_t kChannelColourCount = std::size(kChannelColours);

// With two trees (two-tree, one channel), a transfer's colour is its tree's, in the arrows and
// in the tree drawings below them (the arrow head still tells copy from reduce).
constexpr const char* kTreeColours[] = {"#2ca02c", "#9467bd"};

// Which tree carries a transfer: the tree one of whose edges it crosses; where both trees
// have that edge, the part of the buffer it moves (tree t carries part t, and a staged copy
// sits at the same offset of a buffer-sized slot: binary_tree.cpp's plan_tree).
std::size_t tree_of(const Schedule& s, const std::vector<algorithms::BinaryTree>& trees, const Transfer& t) {
  auto has_edge = [&](const algorithms::BinaryTree& tree) {
    return tree.parent[t.src] == t.dst || tree.parent[t.dst] == t.src;
  };
  const bool first = has_edge(trees[0]), second = has_edge(trees[1]);
  if (first != second) return first ? 0 : 1;
  const std::uint64_t bytes = std::max<std::uint64_t>(s.info().bytes, 1);
  return s.chunks()[t.dst_chunk].offset % bytes < part_of(ByteRange{0, bytes}, 2, 0).bytes ? 0 : 1;
}

const char* transfer_colour(const Schedule& s, const std::vector<algorithms::BinaryTree>& trees, const Transfer& t) {
  if (s.info().channels <= 1 && trees.size() == 2 && !t.is_local()) return kTreeColours[tree_of(s, trees, t)];
  if (s.info().channels <= 1) return t.op == Op::reduce ? kReduceColour : kCopyColour;
  return kChannelColours[algorithms::channel_of(s.info(), s.chunks()[t.dst_chunk].offset) % kChannelColourCount];
}

// "colour = tree: tree 1, tree 2" in their colours, where two trees colour the arrows.
std::string tree_legend(const Schedule& s, double y) {
  if (s.info().channels > 1 || teaching_trees(s).size() != 2) return "";
  // after "local reduction of staged data", which ends near kLeft + 570
  std::string out = fmt::format("  <text x=\"{}\" y=\"{}\">colour = tree:</text>\n", kLeft + 590, y + 4);
  for (std::size_t i = 0; i < 2; ++i)
    out += fmt::format("  <text class=\"tree-colour\" x=\"{}\" y=\"{}\" fill=\"{}\" font-weight=\"bold\">tree {}</text>\n",
                       kLeft + 685 + 56 * i, y + 4, kTreeColours[i], i + 1);
  return out;
}

// "channel 0 ... channel C-1" in their colours, under the legend, where there are channels.
std::string channel_legend(const ScheduleInfo& info, double y) {
  if (info.channels <= 1) return "";
  std::string out = fmt::format("  <text x=\"{}\" y=\"{}\">colour = channel:</text>\n", kLeft + 560, y + 4);
  for (std::uint32_t c = 0; c < info.channels; ++c)
    out += fmt::format("  <text class=\"channel\" x=\"{}\" y=\"{}\" fill=\"{}\">{}</text>\n", kLeft + 680 + 22 * c, y + 4,
                       kChannelColours[c % kChannelColourCount], c);
  return out;
}

std::string escape_xml(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// Column and row sizes shrink for long or tall schedules so the picture stays on a screen.
struct Grid {
  double step_width;
  double row_height;
  std::uint32_t steps;
  Rank ranks;  // rows: the ranks, then the switch reducers
  ScheduleInfo info;  // which rows are reducers, and their names

  double x(std::uint32_t step) const { return kLeft + step * step_width; }
  double y(Rank rank) const { return kTop + (rank + 0.5) * row_height; }
  double right() const { return x(steps) + 20; }
  double bottom() const { return kTop + ranks * row_height; }
};

Grid make_grid(const Schedule& s) {
  const std::uint32_t steps = std::max<std::uint32_t>(s.step_count(), 1);
  const Rank rows = s.info().endpoints();
  return {std::clamp(1400.0 / steps, 24.0, 90.0), std::clamp(720.0 / rows, 14.0, 36.0), steps, rows, s.info()};
}

std::string markers() {
  return fmt::format(
      "<defs>\n"
      "  <marker id=\"head-copy\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
      "orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"{0}\"/></marker>\n"
      "  <marker id=\"head-reduce\" viewBox=\"0 0 12 12\" refX=\"6\" refY=\"6\" markerWidth=\"9\" markerHeight=\"9\" "
      "orient=\"0\"><circle cx=\"6\" cy=\"6\" r=\"5.5\" fill=\"{1}\"/>"
      "<path d=\"M6,2.5 V9.5 M2.5,6 H9.5\" stroke=\"white\" stroke-width=\"1.6\"/></marker>\n"
      "</defs>\n",
      kCopyColour, kReduceColour);
}

std::string title_and_legend(const Schedule& s) {
  const ScheduleInfo& info = s.info();
  std::string out = fmt::format(
      "<text x=\"{}\" y=\"26\" font-size=\"17\" font-weight=\"bold\">{} {} on {} ranks, {} bytes: {} transfers in {} "
      "steps</text>\n",
      kLeft, escape_xml(info.algorithm), to_string(info.collective), info.ranks, info.bytes, s.size(), s.step_count());
  const double y = 52;
  out += "<g class=\"legend\" font-size=\"13\">\n";
  out += fmt::format("  <line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{3}\" stroke-width=\"2\" "
                     "marker-end=\"url(#head-copy)\"/><text x=\"{4}\" y=\"{5}\">copy</text>\n",
                     kLeft, y, kLeft + 40, kCopyColour, kLeft + 48, y + 4);
  out += fmt::format("  <line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{3}\" stroke-width=\"2\" "
                     "marker-end=\"url(#head-reduce)\"/><text x=\"{4}\" y=\"{5}\">reduce (+= into the receiver)</text>\n",
                     kLeft + 110, y, kLeft + 150, kReduceColour, kLeft + 166, y + 4);
  out += fmt::format("  <circle cx=\"{}\" cy=\"{}\" r=\"5\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">local reduction of "
                     "staged data</text>\n",
                     kLeft + 380, y, kReduceColour, kLeft + 392, y + 4);
  out += channel_legend(info, y);
  out += tree_legend(s, y);
  out += "</g>\n";
  return out;
}

// Phase names over their steps, and every step's number.
std::string column_labels(const Schedule& s, const Grid& g) {
  std::string out = "<g class=\"columns\" font-size=\"12\" text-anchor=\"middle\">\n";
  const char* fills[] = {"#eef3fb", "#fbeeee"};
  for (std::size_t i = 0; i < s.phases().size(); ++i) {
    const Phase& p = s.phases()[i];
    if (p.step_count == 0) continue;
    const double x0 = g.x(p.first_step), x1 = g.x(p.first_step + p.step_count);
    out += fmt::format("  <rect class=\"phase\" x=\"{:.1f}\" y=\"72\" width=\"{:.1f}\" height=\"20\" fill=\"{}\"/>"
                       "<text x=\"{:.1f}\" y=\"86\">{}</text>\n",
                       x0, x1 - x0, fills[i % 2], (x0 + x1) / 2, escape_xml(p.name));
  }
  for (std::uint32_t step = 0; step < g.steps; ++step)
    out += fmt::format("  <text class=\"step-label\" x=\"{:.1f}\" y=\"110\">{}</text>\n",
                       g.x(step) + g.step_width / 2, step);
  out += "</g>\n";
  return out;
}

std::string rank_rows(const Grid& g) {
  std::string out = "<g class=\"rows\" font-size=\"12\">\n";
  for (Rank r = 0; r < g.ranks; ++r) {
    const bool reducer = g.info.is_reducer(r);
    out += fmt::format("  <line class=\"{5}-row\" x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" "
                       "stroke=\"#bbbbbb\"/><text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{6}</text>\n",
                       kLeft, g.y(r), g.x(g.steps), kLeft - 8, g.y(r) + 4, reducer ? "switch" : "rank",
                       reducer ? reducer_name(g.info, r) : fmt::format("rank {}", r));
  }
  for (std::uint32_t step = 0; step <= g.steps; ++step)
    out += fmt::format("  <line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#e4e4e4\"/>\n",
                       g.x(step), kTop, g.bottom());
  out += "</g>\n";
  return out;
}

// One arrow per transfer (the reduce head is a circled plus centred on the arrow's end,
// kept upright so it reads as "+"). Transfers of one step between the same pair (segments, or two
// trees using the same edge) are fanned out a little so each stays visible.
std::string transfer_arrows(const Schedule& s, const Grid& g) {
  std::string out = "<g class=\"transfers\" stroke-width=\"1.8\">\n";
  const std::vector<algorithms::BinaryTree> trees = teaching_trees(s);
  std::map<std::tuple<std::uint32_t, Rank, Rank>, int> seen;
  for (TransferId id = 0; id < s.size(); ++id) {
    const Transfer t = s.transfer(id);
    const bool reduce = t.op == Op::reduce;
    const int repeat = seen[{t.step, t.src, t.dst}]++;
    const double shift = std::min(repeat, 4) * 0.06 * g.step_width;
    const std::string tip =
        fmt::format("<title>step {}: {} {} -&gt; {}, {} bytes</title>", t.step, to_string(t.op), t.src, t.dst,
                    s.transfer_bytes(id));
    if (t.is_local()) {
      out += fmt::format("  <circle class=\"transfer reduce local\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"{}\">{}"
                         "</circle>\n",
                         g.x(t.step) + g.step_width * 0.5 + shift, g.y(t.src), transfer_colour(s, trees, t), tip);
      continue;
    }
    out += fmt::format("  <line class=\"transfer {}\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
                       "stroke=\"{}\" marker-end=\"url(#head-{})\">{}</line>\n",
                       reduce ? "reduce" : "copy", g.x(t.step) + g.step_width * 0.12 + shift, g.y(t.src),
                       g.x(t.step) + g.step_width * 0.82 + shift, g.y(t.dst), transfer_colour(s, trees, t),
                       reduce ? "reduce" : "copy", tip);
  }
  out += "</g>\n";
  return out;
}

// In-order position of every rank (children below a rank's number to its left), so the
// drawing has no crossing edges, and each rank's depth.
void layout_tree(const algorithms::BinaryTree& t, std::vector<double>& column, std::vector<std::uint32_t>& depth) {
  column.assign(t.size(), 0);
  depth.assign(t.size(), 0);
  double next = 0;
  std::function<void(Rank, std::uint32_t)> walk = [&](Rank r, std::uint32_t d) {
    depth[r] = d;
    for (Rank c : t.children[r])
      if (c < r) walk(c, d + 1);
    column[r] = next++;
    for (Rank c : t.children[r])
      if (c > r) walk(c, d + 1);
  };
  walk(t.root, 0);
}

std::string ranks_text(const std::vector<Rank>& ranks) {
  std::string s;
  for (Rank r : ranks) s += (s.empty() ? "" : " ") + std::to_string(r);
  return s.empty() ? "none" : s;
}

// One tree at vertical offset `top`; returns its SVG and advances `top` past it.
std::string tree_drawing(const algorithms::BinaryTree& t, const std::string& name, const char* colour, double& top) {
  std::vector<double> column;
  std::vector<std::uint32_t> depth;
  layout_tree(t, column, depth);
  auto x = [&](Rank r) { return kLeft + 20 + column[r] * kTreeCell; };
  auto y = [&](Rank r) { return top + 40 + depth[r] * kTreeLevel; };
  std::string out = fmt::format("<g class=\"tree\" font-size=\"12\">\n  <text x=\"{}\" y=\"{:.1f}\" font-size=\"14\" "
                                "font-weight=\"bold\" fill=\"{}\">{} (root {}, height {}): interior {}</text>\n",
                                kLeft, top + 12, colour, name, t.root, t.height(), ranks_text(interior_ranks(t)));
  for (Rank r = 0; r < t.size(); ++r)
    if (t.parent[r] != algorithms::kNoRank)
      out += fmt::format("  <line class=\"tree-edge\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
                         "stroke=\"{}\" stroke-width=\"2\"/>\n",
                         x(t.parent[r]), y(t.parent[r]), x(r), y(r), colour);
  for (Rank r = 0; r < t.size(); ++r) {
    const bool interior = t.interior(r);
    out += fmt::format("  <circle class=\"tree-node {}\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"14\" fill=\"{}\" "
                       "stroke=\"#333333\" stroke-width=\"1.5\"/><text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" "
                       "fill=\"{}\">{}</text>\n",
                       interior ? "interior" : "leaf", x(r), y(r), interior ? "#333333" : "white", x(r), y(r) + 4,
                       interior ? "white" : "#333333", r);
  }
  out += "</g>\n";
  top = y(t.root) + (t.height() + 1) * kTreeLevel;
  return out;
}

std::string tree_section(const Schedule& s, double& top, double& width) {
  const auto trees = teaching_trees(s);
  if (trees.empty()) return {};
  // The caption on lines short enough for the narrowest picture (kCaptionChars at 13 px).
  const bool coloured = trees.size() == 2 && s.info().channels <= 1;
  const std::vector<std::string> caption = {
      "Trees: filled = interior (receives, reduces and forwards),",
      "hollow = leaf (only sends and receives).",
      coloured ? "Each tree's edges, and its transfers above, in its colour." : ""};
  std::string out = "<g class=\"trees\">\n";
  for (const std::string& line : caption) {
    if (line.empty()) continue;
    out += fmt::format("<text class=\"caption\" x=\"{}\" y=\"{:.1f}\" font-size=\"13\">{}</text>\n", kLeft, top + 14,
                       escape_xml(line));
    top += 17;
    width = std::max(width, kLeft + kCaptionCharWidth * double(line.size()) + 20);
  }
  top += 8;
  if (coloured) width = std::max(width, kLeft + 810);  // the legend's "colour = tree: tree 1 tree 2"
  for (std::size_t i = 0; i < trees.size(); ++i)
    out += tree_drawing(trees[i], teaching_tree_name(trees[i], i, trees.size()), coloured ? kTreeColours[i] : "#555555", top);
  if (trees.size() == 2) {
    std::vector<Rank> both;
    for (Rank r = 0; r < trees[0].size(); ++r)
      if (trees[0].interior(r) && trees[1].interior(r)) both.push_back(r);
    out += fmt::format("<text class=\"interior-both\" x=\"{}\" y=\"{:.1f}\" font-size=\"13\">interior in both trees: "
                       "{}</text>\n",
                       kLeft, top, ranks_text(both));
    top += 20;
  }
  width = std::max(width, kLeft + 40 + s.info().ranks * kTreeCell);
  return out + "</g>\n";
}

}  // namespace

std::string schedule_svg(const Schedule& s) {
  if (s.info().ranks > kMaxDrawnRanks)
    throw Error(fmt::format("cannot draw {} ranks: at most {} fit in a picture", s.info().ranks, kMaxDrawnRanks));
  if (s.size() > kMaxDrawnTransfers)
    throw Error(fmt::format("cannot draw {} transfers: at most {} fit in a picture (use fewer --segments or ranks)",
                            s.size(), kMaxDrawnTransfers));
  const Grid g = make_grid(s);
  double width = std::max(g.right(), kLeft + 620);
  double top = g.bottom() + 30;
  const std::string body =
      title_and_legend(s) + column_labels(s, g) + rank_rows(g) + transfer_arrows(s, g) + tree_section(s, top, width);
  return fmt::format("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                     "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:.0f}\" height=\"{1:.0f}\" "
                     "viewBox=\"0 0 {0:.0f} {1:.0f}\" font-family=\"sans-serif\">\n"
                     "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n{2}{3}</svg>\n",
                     width, top + 10, markers(), body);
}

}  // namespace collsim
