// sweep/sweep_report.cpp — winner map, scaling curves and summary of a sweep (sweep_report.hpp).
#include "sweep/sweep_report.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "base/file_io.hpp"
#include "base/units.hpp"

namespace collsim {
namespace {

// One colour per algorithm, in the order the file names them (colour-blind safe: Okabe-Ito).
constexpr const char* kPalette[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"};
const char* colour(std::size_t i) { return kPalette[i % std::size(kPalette)]; }

// A row of the winner map: a point's cluster (its axis values), collective and engine.
using Variant = std::tuple<std::vector<std::size_t>, std::string, std::string>;
Variant variant_of(const SweepPoint& p) { return {p.value, p.collective, p.engine}; }

std::string variant_label(const Sweep& s, const Variant& v, const std::vector<bool>& shown_axes = {}) {
  std::string out;
  const auto& [values, collective, engine] = v;
  for (std::size_t a = 0; a < s.axes.size(); ++a)
    if (shown_axes.empty() || shown_axes[a]) out += fmt::format("{}={} ", s.axes[a].name, s.axes[a].labels[values[a]]);
  if (s.collectives.size() > 1) out += collective + ' ';
  if (s.engines.size() > 1) out += engine + ' ';
  if (!out.empty()) out.pop_back();
  return out.empty() ? s.base_name : out;
}

std::size_t algorithm_index(const Sweep& s, const std::string& name) {
  return std::size_t(std::find(s.algorithms.begin(), s.algorithms.end(), name) - s.algorithms.begin());
}

// The fastest priced point of each variant and size (ties: the algorithm named first).
std::map<std::pair<Variant, std::uint64_t>, std::size_t> winners(const Sweep& s, const std::map<std::size_t, SweepRow>& rows) {
  std::map<std::pair<Variant, std::uint64_t>, std::size_t> best;  // -> point index
  for (const auto& [index, row] : rows) {
    if (row.status != RowStatus::ok) continue;
    const SweepPoint& p = s.points[index];
    const auto key = std::make_pair(variant_of(p), p.bytes);
    const auto it = best.find(key);
    if (it == best.end() || row.time_s < rows.at(it->second).time_s) best[key] = index;
  }
  return best;
}

// A winner as a cell shows it: the algorithm, and for nccl what it ran ("nccl: collnet").
std::string winner_name(const Sweep& s, const std::map<std::size_t, SweepRow>& rows, std::size_t point) {
  const std::string& algorithm = s.points[point].algorithm;
  const std::string& runs = rows.at(point).runs;
  return runs == algorithm ? algorithm : fmt::format("{}: {}", algorithm, runs);
}

std::vector<Variant> variants(const Sweep& s) {
  std::vector<Variant> out;
  for (const SweepPoint& p : s.points)
    if (std::find(out.begin(), out.end(), variant_of(p)) == out.end()) out.push_back(variant_of(p));
  return out;
}

std::string legend(const Sweep& s, double x, double y) {
  std::string out;
  for (std::size_t a = 0; a < s.algorithms.size(); ++a)
    out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">{}</text>\n",
                       x + double(a) * 110, y, colour(a), x + double(a) * 110 + 16, y + 11, s.algorithms[a]);
  return out;
}

constexpr const char* kSvgStyle = "<style>text{font-family:sans-serif;font-size:12px}</style>\n";

// Which axes change the GPU count (each of their values gives one count): the scaling plot's x.
std::vector<bool> axes_setting_ranks(const Sweep& s, const std::map<std::size_t, SweepRow>& rows) {
  std::vector<bool> out(s.axes.size(), false);
  for (std::size_t a = 0; a < s.axes.size(); ++a) {
    std::map<std::size_t, std::set<std::uint32_t>> ranks_by_value;
    for (const auto& [index, row] : rows)
      if (row.status == RowStatus::ok) ranks_by_value[s.points[index].value[a]].insert(row.ranks);
    std::set<std::uint32_t> all;
    bool one_each = true;
    for (const auto& [value, ranks] : ranks_by_value) one_each &= ranks.size() == 1, all.insert(ranks.begin(), ranks.end());
    out[a] = one_each && all.size() > 1;
  }
  return out;
}

}  // namespace

std::string winners_svg(const Sweep& s, const std::map<std::size_t, SweepRow>& rows) {
  const auto win = winners(s, rows);
  const std::vector<Variant> vs = variants(s);
  const double cell_w = 56, cell_h = 20, left = 200, top = 46;
  const double width = left + cell_w * double(s.sizes.size()) + 20, height = top + cell_h * double(vs.size()) + 50;
  std::string out = fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\">\n{}", width, height, kSvgStyle);
  out += fmt::format("<text x=\"10\" y=\"18\">{}: the fastest algorithm by message size (inside: what nccl ran; blank: "
                     "none priced)</text>\n", s.name);
  for (std::size_t i = 0; i < s.sizes.size(); ++i)
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", left + cell_w * (double(i) + 0.5),
                       top - 6, format_size(s.sizes[i]));
  for (std::size_t v = 0; v < vs.size(); ++v) {
    const double y = top + cell_h * double(v);
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", left - 6, y + 14, variant_label(s, vs[v]));
    for (std::size_t i = 0; i < s.sizes.size(); ++i) {
      const auto it = win.find({vs[v], s.sizes[i]});
      if (it == win.end()) continue;
      const std::size_t algorithm = algorithm_index(s, s.points[it->second].algorithm);
      const std::string& runs = rows.at(it->second).runs;
      out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"white\"><title>{}</title></rect>\n",
                         left + cell_w * double(i), y, cell_w, cell_h, colour(algorithm), winner_name(s, rows, it->second));
      if (runs != s.points[it->second].algorithm)  // nccl: what it chose, inside the cell
        out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"white\" font-size=\"10\">{}</text>\n",
                           left + cell_w * (double(i) + 0.5), y + 14, runs);
    }
  }
  return out + legend(s, 10, height - 30) + "</svg>\n";
}

std::string scaling_svg(const Sweep& s, const std::map<std::size_t, SweepRow>& rows) {
  const std::uint64_t largest = *std::max_element(s.sizes.begin(), s.sizes.end());
  const std::vector<bool> x_axes = axes_setting_ranks(s, rows);
  std::vector<bool> shown(x_axes.size());
  for (std::size_t a = 0; a < x_axes.size(); ++a) shown[a] = !x_axes[a];
  // series: algorithm and the other axes' values -> (ranks, busbw)
  std::map<std::pair<std::size_t, std::string>, std::map<std::uint32_t, double>> series;
  double max_bw = 0;
  std::uint32_t min_ranks = ~0u, max_ranks = 0;
  for (const auto& [index, row] : rows) {
    const SweepPoint& p = s.points[index];
    if (row.status != RowStatus::ok || p.bytes != largest) continue;
    series[{algorithm_index(s, p.algorithm), variant_label(s, variant_of(p), shown)}][row.ranks] = row.busbw_GBps;
    max_bw = std::max(max_bw, row.busbw_GBps);
    min_ranks = std::min(min_ranks, row.ranks), max_ranks = std::max(max_ranks, row.ranks);
  }
  const double left = 60, top = 40, plot_w = 460, plot_h = 260;
  const double width = left + plot_w + 300, height = top + plot_h + 60;
  std::string out = fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\">\n{}", width, height, kSvgStyle);
  out += fmt::format("<text x=\"10\" y=\"18\">{}: bus bandwidth at {} against GPUs</text>\n", s.name, format_size(largest));
  out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#888\"/>\n", left, top, plot_w, plot_h);
  if (series.empty()) return out + "</svg>\n";
  const double lo = std::log2(double(min_ranks)), span = std::max(1.0, std::log2(double(max_ranks)) - lo);
  const double top_bw = max_bw > 0 ? max_bw * 1.1 : 1;
  auto x_of = [&](std::uint32_t r) { return left + plot_w * (std::log2(double(r)) - lo) / span; };
  auto y_of = [&](double bw) { return top + plot_h * (1 - bw / top_bw); };
  for (std::uint32_t r = 1; r <= max_ranks && r != 0; r *= 2)
    if (r >= min_ranks)
      out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", x_of(r), top + plot_h + 16, r);
  out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">GPUs (ranks)</text>\n", left + plot_w / 2, top + plot_h + 34);
  for (int t = 0; t <= 4; ++t)
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{:.0f}</text>\n", left - 4, y_of(top_bw * t / 4) + 4, top_bw * t / 4);
  out += fmt::format("<text x=\"12\" y=\"{}\" transform=\"rotate(-90 12 {})\" text-anchor=\"middle\">busbw GB/s</text>\n",
                     top + plot_h / 2, top + plot_h / 2);
  const char* dashes[] = {"", "6,3", "2,3", "8,3,2,3"};
  std::map<std::string, std::size_t> dash_of;  // one dash pattern per variant
  double legend_y = top;
  for (const auto& [key, points] : series) {
    const auto& [algorithm, variant] = key;
    const std::size_t dash = dash_of.emplace(variant, dash_of.size()).first->second % std::size(dashes);
    std::string path;
    for (const auto& [ranks, bw] : points) path += fmt::format("{}{:.1f},{:.1f} ", path.empty() ? "M" : "L", x_of(ranks), y_of(bw));
    out += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\" stroke-dasharray=\"{}\"/>\n", path,
                       colour(algorithm), dashes[dash]);
    out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"2\" stroke-dasharray=\"{}\"/>"
                       "<text x=\"{}\" y=\"{}\">{} {}</text>\n",
                       left + plot_w + 12, legend_y, left + plot_w + 40, legend_y, colour(algorithm), dashes[dash],
                       left + plot_w + 46, legend_y + 4, s.algorithms[algorithm], variant);
    legend_y += 16;
  }
  return out + "</svg>\n";
}

std::string summary_markdown(const Sweep& s, const std::map<std::size_t, SweepRow>& rows) {
  std::size_t ok = 0, refused = 0, failed = 0;
  for (const auto& [index, row] : rows)
    (row.status == RowStatus::ok ? ok : row.status == RowStatus::refused ? refused : failed)++;
  std::string out = fmt::format("# Sweep {}\n\nBase cluster {}; {} points: {} priced, {} refused, {} failed, {} not run.\n\n",
                                s.name, s.base_name, s.points.size(), ok, refused, failed, s.points.size() - rows.size());
  out += "Fastest algorithm per message size (winners.svg draws the same):\n\n| point |";
  for (std::uint64_t b : s.sizes) out += fmt::format(" {} |", format_size(b));
  out += "\n|---|";
  for (std::size_t i = 0; i < s.sizes.size(); ++i) out += "---|";
  out += '\n';
  const auto win = winners(s, rows);
  for (const Variant& v : variants(s)) {
    out += fmt::format("| {} |", variant_label(s, v));
    for (std::uint64_t b : s.sizes) {
      const auto it = win.find({v, b});
      out += fmt::format(" {} |", it == win.end() ? "-" : winner_name(s, rows, it->second));
    }
    out += '\n';
  }
  if (refused + failed > 0) {
    out += "\nPoints without a time (results.csv, columns status and error):\n\n";
    std::size_t listed = 0;
    for (const auto& [index, row] : rows) {
      if (row.status == RowStatus::ok) continue;
      if (++listed > 20) {
        out += fmt::format("- and {} more\n", refused + failed - 20);
        break;
      }
      const SweepPoint& p = s.points[index];
      out += fmt::format("- {} {} {} {}: {} ({})\n", variant_label(s, variant_of(p)), p.algorithm, format_size(p.bytes),
                         p.collective, to_string(row.status), row.error);
    }
  }
  return out;
}

void write_sweep_report(const Sweep& s, const std::map<std::size_t, SweepRow>& rows, const std::filesystem::path& folder) {
  write_text_file(folder / kWinnersFile, winners_svg(s, rows), "winner map");
  write_text_file(folder / kScalingFile, scaling_svg(s, rows), "scaling plot");
  write_text_file(folder / kSummaryFile, summary_markdown(s, rows), "sweep summary");
}

}  // namespace collsim
