// validate/report.cpp — results.csv, results.md, plot.svg and machine.md.
#include "validate/report.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/file_io.hpp"
#include "base/units.hpp"
#include "execute/measurement.hpp"
#include "validate/nccl_tests_log.hpp"

namespace collsim {
namespace {

std::string slug(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c))) out += char(std::tolower(static_cast<unsigned char>(c)));
    else if (!out.empty() && out.back() != '-') out += '-';
  }
  for (const std::string noise : {"-r-", "-tm-"})
    for (std::size_t at; (at = out.find(noise)) != std::string::npos;) out.replace(at, noise.size(), "-");
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

std::string cuda_version() {
#ifdef COLLSIM_CUDA_VERSION
  return "CUDA toolkit " COLLSIM_CUDA_VERSION " (nvcc), no GPU used by this backend";
#else
  return "none";
#endif
}

}  // namespace

ValidationSummary summarize(const std::vector<ValidationRow>& rows) {
  std::vector<double> errors;
  for (const ValidationRow& r : rows) errors.push_back(std::abs(r.error_pct()));
  return {rows.size(), median_of(errors), percentile_of(errors, 0.9)};
}

bool any_probed(const std::vector<ValidationRow>& rows) {
  return std::any_of(rows.begin(), rows.end(), [](const ValidationRow& r) { return !std::isnan(r.machine_drift); });
}

std::vector<ValidationRow> steady_rows(const std::vector<ValidationRow>& rows) {
  std::vector<ValidationRow> out;
  std::copy_if(rows.begin(), rows.end(), std::back_inserter(out),
               [](const ValidationRow& r) { return machine_steady(r.machine_drift); });
  return out;
}

std::vector<RanksSummary> summarize_by_ranks(const std::vector<ValidationRow>& rows, unsigned cores) {
  std::map<Rank, std::vector<ValidationRow>> by_ranks;
  for (const ValidationRow& r : rows) by_ranks[r.ranks].push_back(r);
  std::vector<RanksSummary> out;
  for (const auto& [ranks, these] : by_ranks) out.push_back({ranks, cores > 0 && ranks > cores, summarize(these)});
  return out;
}

std::string by_ranks_text(const std::vector<RanksSummary>& summaries, unsigned cores) {
  std::string out;
  for (const RanksSummary& r : summaries)
    out += fmt::format("{}P = {}{}: {} cases, median |error| {:.1f}%, p90 |error| {:.1f}%", out.empty() ? "" : "; ",
                       r.ranks, r.oversubscribed ? fmt::format(" (oversubscribed: {} ranks on {} cores)", r.ranks, cores) : "",
                       r.summary.rows, r.summary.median_abs_error_pct, r.summary.p90_abs_error_pct);
  return out;
}

MachineInfo describe_machine(const std::string& library, const std::string& gpu) {
  MachineInfo m;
  m.gpu = gpu;
  m.cpu = system_file_field("/proc/cpuinfo", "model name", ':');
  m.os = system_file_field("/etc/os-release", "PRETTY_NAME", '=');
  const std::string kib = system_file_field("/proc/meminfo", "MemTotal", ':');
  m.memory_GiB = std::atof(kib.c_str()) / (1024.0 * 1024.0);
  m.cores = std::thread::hardware_concurrency();
  m.library = library;
  m.compiler = fmt::format("{} (C++20, Release)", __VERSION__);
  m.cuda = gpu.empty() ? cuda_version() : library;  // the GPU worker reports runtime and driver
  return m;
}

std::string platform_name(const MachineInfo& machine, const std::string& backend) {
  if (!machine.gpu.empty()) return fmt::format("gpu-{}", slug(machine.gpu));
  return fmt::format("cpu-{}-{}-{}core", slug(backend), slug(machine.cpu), machine.cores);
}

bool any_issue_timed(const std::vector<ValidationRow>& rows) {
  return std::ranges::any_of(rows, [](const ValidationRow& r) { return !std::isnan(r.measured_issue_s); });
}

namespace {
std::string seconds_cell(double s) { return std::isnan(s) ? "" : fmt::format("{:.6e}", s); }
}  // namespace

std::string results_csv(const std::vector<ValidationRow>& rows) {
  const bool probed = any_probed(rows), issued = any_issue_timed(rows);
  std::string out = "algorithm,ranks,bytes,predicted_s,measured_median_s,error_pct";
  if (probed) out += ",machine_drift_pct";
  if (issued) out += ",transfers,measured_issue_s,model_issue_s";
  out += '\n';
  for (const ValidationRow& r : rows) {
    out += fmt::format("{},{},{},{:.6e},{:.6e},{:.2f}", r.algorithm, r.ranks, r.bytes, r.predicted_s, r.measured_median_s,
                       r.error_pct());
    if (probed) out += std::isnan(r.machine_drift) ? "," : fmt::format(",{:.1f}", 100 * r.machine_drift);
    if (issued)
      out += fmt::format(",{},{},{}", r.transfers, seconds_cell(r.measured_issue_s), seconds_cell(r.model_issue_s));
    out += '\n';
  }
  return out;
}

namespace {

std::string drift_cell(double drift) {
  if (std::isnan(drift)) return "not probed";
  const std::string value = fmt::format("{:.0f}%", 100 * drift);
  return machine_steady(drift) ? value : fmt::format("**{}** (drifted)", value);
}

// The cases measured on the machine as calibrated, summed up by rank count, and what the
// probes are.
std::string steady_summary_markdown(const std::vector<ValidationRow>& rows, unsigned cores) {
  const std::vector<ValidationRow> steady = steady_rows(rows);
  std::string out = fmt::format(
      "Machine drift: each case is bracketed by probes of the machine's speed (validate/machine_drift.hpp), timed as "
      "the calibration times them (mpi: ping-pong between ranks 0 and 1; cuda: the host's issue of one transfer); a "
      "case whose probes moved more than {:.0f}% from the calibration "
      "ran on a machine of another speed and is run again (3 launches at most, keeping the closest). {} of {} cases "
      "were measured within {:.0f}%{}\n\n",
      100 * kDriftTolerance, steady.size(), rows.size(), 100 * kDriftTolerance,
      steady.empty() ? ": none, so no error is given for the machine as calibrated." : ":");
  if (steady.empty()) return out;  // no table of nothing
  out += "| ranks | steady cases | median \\|error\\| | p90 \\|error\\| |\n|---:|---:|---:|---:|\n";
  for (const RanksSummary& r : summarize_by_ranks(steady, cores))
    out += fmt::format("| {}{} | {} | {:.1f}% | {:.1f}% |\n", r.ranks, r.oversubscribed ? " (oversubscribed)" : "",
                       r.summary.rows, r.summary.median_abs_error_pct, r.summary.p90_abs_error_pct);
  return out + "\n";
}

}  // namespace

// Size by size, the host's issue against the case's whole time and against the model's issue:
// a case whose issue is most of its time was bound by the host, one whose issue is a small part
// by the GPU's work; a measured issue per transfer above the calibration's says the host was
// slower at this case's enqueue than at the calibration's probe.
std::string issue_markdown(const std::vector<ValidationRow>& rows) {
  std::map<std::uint64_t, std::vector<const ValidationRow*>> by_size;
  for (const ValidationRow& r : rows)
    if (!std::isnan(r.measured_issue_s) && r.transfers > 0) by_size[r.bytes].push_back(&r);
  std::string out =
      "## The host's issue\n\nThe cuda backend's one host thread enqueues every transfer; each case's median time to "
      "enqueue it (the loop alone, before the wait for the streams) against its whole time, and per transfer against "
      "the calibration's (host_issue.per_transfer_s).\n\n"
      "| size | cases | median time | median issue | issue / time | issue per transfer | model's per transfer |\n"
      "|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& [bytes, cases] : by_size) {
    std::vector<double> time, issue, share, per_transfer, model;
    for (const ValidationRow* r : cases) {
      time.push_back(r->measured_median_s);
      issue.push_back(r->measured_issue_s);
      share.push_back(r->measured_issue_s / r->measured_median_s);
      per_transfer.push_back(r->measured_issue_s / double(r->transfers));
      if (!std::isnan(r->model_issue_s)) model.push_back(r->model_issue_s / double(r->transfers));
    }
    out += fmt::format("| {} | {} | {} | {} | {:.0f}% | {} | {} |\n", format_size(bytes), cases.size(),
                       format_seconds(median_of(time)), format_seconds(median_of(issue)), 100 * median_of(share),
                       format_seconds(median_of(per_transfer)), model.empty() ? "-" : format_seconds(median_of(model)));
  }
  return out + "\n";
}

std::string results_markdown(const std::vector<ValidationRow>& rows, const std::string& preamble, unsigned cores,
                             const std::string& measured_label) {
  const ValidationSummary s = summarize(rows);
  std::string out = preamble;
  out += fmt::format("\n## Summary\n\n{} cases: median |error| **{:.1f}%**, p90 |error| **{:.1f}%** "
                     "(error = (predicted - measured) / measured).\n\n",
                     s.rows, s.median_abs_error_pct, s.p90_abs_error_pct);
  out += "| ranks | cases | median \\|error\\| | p90 \\|error\\| | |\n|---:|---:|---:|---:|---|\n";
  for (const RanksSummary& r : summarize_by_ranks(rows, cores))
    out += fmt::format("| {} | {} | {:.1f}% | {:.1f}% | {} |\n", r.ranks, r.summary.rows, r.summary.median_abs_error_pct,
                       r.summary.p90_abs_error_pct,
                       r.oversubscribed ? fmt::format("oversubscribed ({} ranks on {} cores): reported, not judged", r.ranks, cores)
                       : cores > 0      ? "one rank per core or fewer: judged"
                                        : "");
  out += "\n";
  const bool probed = any_probed(rows);
  if (probed) out += steady_summary_markdown(rows, cores);
  if (any_issue_timed(rows)) out += issue_markdown(rows);
  out += fmt::format("| algorithm | ranks | size | predicted | {} | error |{}\n|---|---:|---:|---:|---:|---:|{}\n", measured_label,
                     probed ? " machine drift |" : "", probed ? "---:|" : "");
  for (const ValidationRow& r : rows) {
    out += fmt::format("| {} | {} | {} | {} | {} | {:+.1f}% |", r.algorithm, r.ranks, format_size(r.bytes),
                       format_seconds(r.predicted_s), format_seconds(r.measured_median_s), r.error_pct());
    if (probed) out += fmt::format(" {} |", drift_cell(r.machine_drift));
    out += '\n';
  }
  return out;
}

std::string machine_markdown(const MachineInfo& m) {
  return fmt::format(
      "# Machine\n\n| | |\n|---|---|\n| CPU | {} |\n| cores | {} |\n| memory | {:.0f} GiB |\n| OS | {} |\n"
      "{}| compiler | {} |\n| CUDA | {} |\n",
      m.cpu, m.cores, m.memory_GiB, m.os, m.gpu.empty() ? fmt::format("| MPI | {} |\n", m.library) : fmt::format("| GPU | {} |\n", m.gpu),
      m.compiler, m.cuda);
}

std::string measured_machine_markdown(const NcclTestsLog& log) {
  std::map<std::string, std::size_t> devices;  // GPU name -> ranks
  for (const NcclTestsRank& r : log.ranks) ++devices[r.device];
  std::string gpus;
  for (const auto& [name, count] : devices) gpus += fmt::format("{}{} x {}", gpus.empty() ? "" : ", ", count, name);
  return fmt::format(
      "# Machine (from the nccl-tests log's header)\n\n| | |\n|---|---|\n| program | {} |\n| NCCL | {} |\n| ranks | {} |\n"
      "| hosts | {} |\n| GPUs | {} |\n",
      log.program.empty() ? "not named in the log" : log.program, log.nccl_version.empty() ? "not named in the log" : log.nccl_version,
      log.rank_count(), log.host_count(), gpus);
}

namespace {

struct Axis {  // log10 axis mapped onto [from, to] pixels
  double lo, hi, from, to;
  double at(double v) const { return from + (std::log10(v) - lo) / (hi - lo) * (to - from); }
};

const char* kColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#17becf"};

// Filled circle: P = 2 or odd; open square: even P > 2. Half-transparent, so points that fall
// on each other (P = 2's many sizes) still show. A case measured on a machine that drifted from
// the calibration gets a red cross over its marker.
bool square_marker(Rank ranks) { return !(ranks % 2 == 1 || ranks <= 2); }

std::string svg_shape(double x, double y, bool square, const char* color) {
  if (!square) return fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"{}\" fill-opacity=\"0.6\"", x, y, color);
  return fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"8\" height=\"8\" fill=\"none\" stroke=\"{}\" "
                     "stroke-width=\"1.5\"",
                     x - 4, y - 4, color);
}

std::string svg_marker(double x, double y, Rank ranks, const char* color, const std::string& tip, bool drifted) {
  const bool square = square_marker(ranks);
  std::string out = fmt::format("{}><title>{}</title></{}>\n", svg_shape(x, y, square, color), tip, square ? "rect" : "circle");
  if (drifted)
    out += fmt::format("<path class=\"drifted\" d=\"M{0:.1f},{1:.1f} l10,10 m-10,0 l10,-10\" stroke=\"#d62728\" "
                       "stroke-width=\"1.5\"><title>{2} (machine drifted)</title></path>\n",
                       x - 5, y - 5, tip);
  return out;
}

}  // namespace

std::string plot_svg(const std::vector<ValidationRow>& rows, const std::string& title, const std::string& x_label,
                     const std::string& y_label, const std::vector<MeasuredSpread>& spreads) {
  if (!spreads.empty() && spreads.size() != rows.size())
    throw Error(fmt::format("plot: {} spreads for {} rows", spreads.size(), rows.size()));
  double lo = 1e9, hi = -1e9;
  for (const ValidationRow& r : rows)
    for (double v : {r.predicted_s, r.measured_median_s}) lo = std::min(lo, std::floor(std::log10(v))), hi = std::max(hi, std::ceil(std::log10(v)));
  for (const MeasuredSpread& m : spreads)
    for (double v : {m.min_s, m.max_s})
      if (v > 0) lo = std::min(lo, std::floor(std::log10(v))), hi = std::max(hi, std::ceil(std::log10(v)));
  if (rows.empty()) lo = -6, hi = -3;
  const Axis x{lo, hi, 80, 520}, y{lo, hi, 520, 80};
  std::map<std::string, const char*> color;
  for (const ValidationRow& r : rows)
    if (!color.contains(r.algorithm)) color[r.algorithm] = kColors[color.size() % std::size(kColors)];
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"760\" height=\"600\" font-family=\"sans-serif\" font-size=\"12\">\n"
                  "<rect width=\"760\" height=\"600\" fill=\"white\"/>\n";
  s += fmt::format("<text x=\"300\" y=\"40\" text-anchor=\"middle\" font-size=\"14\">{}</text>\n", title);
  for (double d = lo; d <= hi; d += 1) {  // decades: grid and labels
    s += fmt::format("<line x1=\"{0:.1f}\" y1=\"80\" x2=\"{0:.1f}\" y2=\"520\" stroke=\"#ddd\"/>\n", x.at(std::pow(10, d)));
    s += fmt::format("<line x1=\"80\" y1=\"{0:.1f}\" x2=\"520\" y2=\"{0:.1f}\" stroke=\"#ddd\"/>\n", y.at(std::pow(10, d)));
    s += fmt::format("<text x=\"{:.1f}\" y=\"540\" text-anchor=\"middle\">{}</text>\n", x.at(std::pow(10, d)), format_seconds(std::pow(10, d)));
    s += fmt::format("<text x=\"74\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", y.at(std::pow(10, d)) + 4, format_seconds(std::pow(10, d)));
  }
  s += "<line x1=\"80\" y1=\"520\" x2=\"520\" y2=\"80\" stroke=\"black\" stroke-dasharray=\"4 3\"/>\n";
  s += fmt::format("<text x=\"300\" y=\"570\" text-anchor=\"middle\">{}</text>\n", x_label);
  s += fmt::format("<text x=\"20\" y=\"300\" text-anchor=\"middle\" transform=\"rotate(-90 20 300)\">{}</text>\n", y_label);
  // Error bars first, under the markers: each case's fastest .. slowest iteration.
  for (std::size_t i = 0; i < spreads.size(); ++i) {
    const MeasuredSpread& m = spreads[i];
    if (!(m.min_s > 0 && m.max_s >= m.min_s)) continue;
    const double px = x.at(rows[i].predicted_s), top = y.at(m.max_s), bottom = y.at(m.min_s);
    s += fmt::format("<path class=\"spread\" d=\"M{0:.1f},{1:.1f} V{2:.1f} M{3:.1f},{1:.1f} h6 M{3:.1f},{2:.1f} h6\" "
                     "stroke=\"{4}\" stroke-width=\"1\" fill=\"none\"><title>{5} P={6} {7}: {8} .. {9}</title></path>\n",
                     px, top, bottom, px - 3, color[rows[i].algorithm], rows[i].algorithm, rows[i].ranks,
                     format_size(rows[i].bytes), format_seconds(m.min_s), format_seconds(m.max_s));
  }
  bool circles = false, squares = false, drifts = false;
  for (const ValidationRow& r : rows) {
    const bool drifted = !machine_steady(r.machine_drift);
    s += svg_marker(x.at(r.predicted_s), y.at(r.measured_median_s), r.ranks, color[r.algorithm],
                    fmt::format("{} P={} {}: {:+.1f}%", r.algorithm, r.ranks, format_size(r.bytes), r.error_pct()), drifted);
    (square_marker(r.ranks) ? squares : circles) = true;
    drifts = drifts || drifted;
  }
  // The legend draws the shapes the plot uses: one shape alone colours the algorithms' swatches.
  const bool one_shape_square = squares && !circles;
  double ly = 90;
  s += "<g class=\"legend\">\n";
  for (const auto& [name, c] : color) {
    s += fmt::format("{}/><text x=\"555\" y=\"{:.0f}\">{}</text>\n", svg_shape(545, ly, one_shape_square, c), ly + 4, name);
    ly += 18;
  }
  ly += 10;
  if (circles && squares) {
    s += fmt::format("{}/><text x=\"555\" y=\"{:.0f}\">P = 2 or odd</text>\n", svg_shape(545, ly, false, "#555555"), ly + 4);
    s += fmt::format("{}/><text x=\"555\" y=\"{:.0f}\">even P &gt; 2</text>\n", svg_shape(545, ly + 18, true, "#555555"), ly + 22);
    ly += 36;
  }
  if (drifts) {
    s += fmt::format("<path d=\"M540,{0:.0f} l10,10 m-10,0 l10,-10\" stroke=\"#d62728\" stroke-width=\"1.5\"/><text x=\"555\" "
                     "y=\"{1:.0f}\">machine drifted &gt; {2:.0f}%</text>\n",
                     ly - 5, ly + 4, 100 * kDriftTolerance);
    ly += 18;
  }
  if (!spreads.empty()) {
    s += fmt::format("<path d=\"M545,{0:.0f} v14 M542,{0:.0f} h6 M542,{1:.0f} h6\" stroke=\"#555555\" fill=\"none\"/>"
                     "<text x=\"555\" y=\"{2:.0f}\">bar: fastest .. slowest iteration</text>\n",
                     ly - 3, ly + 11, ly + 8);
    ly += 22;
  }
  s += fmt::format("<text x=\"540\" y=\"{:.0f}\">dashed: predicted = measured</text>\n</g>\n</svg>\n", ly + 10);
  return s;
}


std::string busbw_plot_svg(const std::vector<ValidationRow>& rows, Collective collective, const std::string& title,
                           const std::string& predicted_label, const std::string& measured_label) {
  // busbw as nccl-tests prints it: bytes / time x the collective's bus factor, in GB/s.
  auto busbw = [&](const ValidationRow& r, double seconds) {
    return seconds > 0 ? to_GBps(double(r.bytes) / seconds) * bus_bandwidth_factor(collective, r.ranks) : 0.0;
  };
  double size_lo = 1e30, size_hi = 0, bw_lo = 1e30, bw_hi = 0;
  for (const ValidationRow& r : rows) {
    size_lo = std::min(size_lo, double(r.bytes)), size_hi = std::max(size_hi, double(r.bytes));
    for (double v : {busbw(r, r.predicted_s), busbw(r, r.measured_median_s)})
      if (v > 0) bw_lo = std::min(bw_lo, v), bw_hi = std::max(bw_hi, v);
  }
  if (rows.empty() || bw_hi <= 0) size_lo = 1, size_hi = 1e9, bw_lo = 0.01, bw_hi = 100;
  const Axis x{std::floor(std::log10(size_lo)), std::max(std::ceil(std::log10(size_hi)), std::floor(std::log10(size_lo)) + 1), 80, 520};
  const Axis y{std::floor(std::log10(bw_lo)), std::max(std::ceil(std::log10(bw_hi)), std::floor(std::log10(bw_lo)) + 1), 520, 80};
  std::map<std::string, const char*> color;
  std::map<std::string, std::vector<const ValidationRow*>> by_algorithm;
  for (const ValidationRow& r : rows) {
    if (!color.contains(r.algorithm)) color[r.algorithm] = kColors[color.size() % std::size(kColors)];
    by_algorithm[r.algorithm].push_back(&r);
  }
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"760\" height=\"600\" font-family=\"sans-serif\" font-size=\"12\">\n"
                  "<rect width=\"760\" height=\"600\" fill=\"white\"/>\n";
  s += fmt::format("<text x=\"300\" y=\"40\" text-anchor=\"middle\" font-size=\"14\">{}</text>\n", title);
  for (double d = x.lo; d <= x.hi; d += 1) {
    s += fmt::format("<line x1=\"{0:.1f}\" y1=\"80\" x2=\"{0:.1f}\" y2=\"520\" stroke=\"#ddd\"/>\n", x.at(std::pow(10, d)));
    s += fmt::format("<text x=\"{:.1f}\" y=\"540\" text-anchor=\"middle\">1e{:.0f}</text>\n", x.at(std::pow(10, d)), d);
  }
  for (double d = y.lo; d <= y.hi; d += 1) {
    s += fmt::format("<line x1=\"80\" y1=\"{0:.1f}\" x2=\"520\" y2=\"{0:.1f}\" stroke=\"#ddd\"/>\n", y.at(std::pow(10, d)));
    s += fmt::format("<text x=\"74\" y=\"{:.1f}\" text-anchor=\"end\">{:g}</text>\n", y.at(std::pow(10, d)) + 4, std::pow(10, d));
  }
  s += "<text x=\"300\" y=\"570\" text-anchor=\"middle\">size (bytes, nccl-tests' size column)</text>\n";
  s += "<text x=\"20\" y=\"300\" text-anchor=\"middle\" transform=\"rotate(-90 20 300)\">busbw (GB/s)</text>\n";
  for (const auto& [name, list] : by_algorithm) {
    std::vector<const ValidationRow*> sorted = list;
    std::sort(sorted.begin(), sorted.end(), [](const ValidationRow* a, const ValidationRow* b) { return a->bytes < b->bytes; });
    std::string predicted, measured;
    for (const ValidationRow* r : sorted) {
      predicted += fmt::format("{}{:.1f},{:.1f}", predicted.empty() ? "" : " ", x.at(double(r->bytes)), y.at(busbw(*r, r->predicted_s)));
      measured += fmt::format("{}{:.1f},{:.1f}", measured.empty() ? "" : " ", x.at(double(r->bytes)), y.at(busbw(*r, r->measured_median_s)));
    }
    s += fmt::format("<polyline class=\"predicted\" points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\" "
                     "stroke-dasharray=\"5 3\"/>\n",
                     predicted, color[name]);
    s += fmt::format("<polyline class=\"measured\" points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>\n",
                     measured, color[name]);
    for (const ValidationRow* r : sorted)
      s += fmt::format("<circle class=\"measured\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"><title>{} {}: measured {:.3g} "
                       "GB/s, predicted {:.3g} GB/s</title></circle>\n",
                       x.at(double(r->bytes)), y.at(busbw(*r, r->measured_median_s)), color[name], name,
                       format_size(r->bytes), busbw(*r, r->measured_median_s), busbw(*r, r->predicted_s));
  }
  double ly = 90;
  s += "<g class=\"legend\">\n";
  for (const auto& [name, c] : color) {
    s += fmt::format("<line x1=\"540\" y1=\"{0:.0f}\" x2=\"556\" y2=\"{0:.0f}\" stroke=\"{1}\" stroke-width=\"2\"/><text x=\"562\" "
                     "y=\"{2:.0f}\">{3}</text>\n",
                     ly, c, ly + 4, name);
    ly += 18;
  }
  s += fmt::format("<line x1=\"540\" y1=\"{0:.0f}\" x2=\"556\" y2=\"{0:.0f}\" stroke=\"#555\" stroke-width=\"2\"/><text x=\"562\" "
                   "y=\"{1:.0f}\">solid, dots: {2}</text>\n",
                   ly + 10, ly + 14, measured_label);
  s += fmt::format("<line x1=\"540\" y1=\"{0:.0f}\" x2=\"556\" y2=\"{0:.0f}\" stroke=\"#555\" stroke-width=\"1.5\" "
                   "stroke-dasharray=\"5 3\"/><text x=\"562\" y=\"{1:.0f}\">dashed: {2}</text>\n</g>\n</svg>\n",
                   ly + 28, ly + 32, predicted_label);
  return s;
}

}  // namespace collsim
