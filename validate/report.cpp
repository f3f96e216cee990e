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
#include "base/units.hpp"
#include "execute/measurement.hpp"
#include "validate/nccl_tests_log.hpp"

namespace collsim {
namespace {

// The value of "key<sep>value" on the first line of `path` that starts with key.
std::string field_of(const char* path, const std::string& key, char sep) {
  std::ifstream file(path);
  std::string line;
  while (std::getline(file, line)) {
    if (line.rfind(key, 0) != 0) continue;
    std::string value = line.substr(line.find(sep) + 1);
    value.erase(0, value.find_first_not_of(" \t\""));
    while (!value.empty() && (value.back() == '"' || value.back() == ' ')) value.pop_back();
    return value;
  }
  return "unknown";
}

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
  m.cpu = field_of("/proc/cpuinfo", "model name", ':');
  m.os = field_of("/etc/os-release", "PRETTY_NAME", '=');
  const std::string kib = field_of("/proc/meminfo", "MemTotal", ':');
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

std::string results_csv(const std::vector<ValidationRow>& rows) {
  const bool probed = any_probed(rows);
  std::string out = probed ? "algorithm,ranks,bytes,predicted_s,measured_median_s,error_pct,machine_drift_pct\n"
                           : "algorithm,ranks,bytes,predicted_s,measured_median_s,error_pct\n";
  for (const ValidationRow& r : rows) {
    out += fmt::format("{},{},{},{:.6e},{:.6e},{:.2f}", r.algorithm, r.ranks, r.bytes, r.predicted_s, r.measured_median_s,
                       r.error_pct());
    if (probed) out += std::isnan(r.machine_drift) ? "," : fmt::format(",{:.1f}", 100 * r.machine_drift);
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
      "Machine drift: each case is bracketed by ping-pong probes between ranks 0 and 1 (validate/machine_drift.hpp), "
      "timed as the calibration times its ping-pong; a case whose probes moved more than {:.0f}% from the calibration "
      "ran on a machine of another speed and is run again (3 launches at most, keeping the closest). {} of {} cases "
      "were measured within {:.0f}%:\n\n",
      100 * kDriftTolerance, steady.size(), rows.size(), 100 * kDriftTolerance);
  out += "| ranks | steady cases | median \\|error\\| | p90 \\|error\\| |\n|---:|---:|---:|---:|\n";
  for (const RanksSummary& r : summarize_by_ranks(steady, cores))
    out += fmt::format("| {}{} | {} | {:.1f}% | {:.1f}% |\n", r.ranks, r.oversubscribed ? " (oversubscribed)" : "",
                       r.summary.rows, r.summary.median_abs_error_pct, r.summary.p90_abs_error_pct);
  return out + "\n";
}

}  // namespace

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

std::string svg_marker(double x, double y, Rank ranks, const char* color, const std::string& tip) {
  if (ranks % 2 == 1 || ranks <= 2)
    return fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"{}\"><title>{}</title></circle>\n", x, y, color, tip);
  return fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"8\" height=\"8\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\">"
                     "<title>{}</title></rect>\n",
                     x - 4, y - 4, color, tip);
}

}  // namespace

std::string plot_svg(const std::vector<ValidationRow>& rows, const std::string& title, const std::string& x_label,
                     const std::string& y_label) {
  double lo = 1e9, hi = -1e9;
  for (const ValidationRow& r : rows)
    for (double v : {r.predicted_s, r.measured_median_s}) lo = std::min(lo, std::floor(std::log10(v))), hi = std::max(hi, std::ceil(std::log10(v)));
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
  for (const ValidationRow& r : rows)
    s += svg_marker(x.at(r.predicted_s), y.at(r.measured_median_s), r.ranks, color[r.algorithm],
                    fmt::format("{} P={} {}: {:+.1f}%", r.algorithm, r.ranks, format_size(r.bytes), r.error_pct()));
  double ly = 90;
  for (const auto& [name, c] : color) {
    s += fmt::format("<circle cx=\"545\" cy=\"{:.0f}\" r=\"4\" fill=\"{}\"/><text x=\"555\" y=\"{:.0f}\">{}</text>\n", ly, c, ly + 4, name);
    ly += 18;
  }
  s += fmt::format("<text x=\"540\" y=\"{:.0f}\">filled circle: P = 2 or odd</text>\n", ly + 10);
  s += fmt::format("<text x=\"540\" y=\"{:.0f}\">open square: even P &gt; 2</text>\n", ly + 28);
  s += fmt::format("<text x=\"540\" y=\"{:.0f}\">dashed: predicted = measured</text>\n</svg>\n", ly + 46);
  return s;
}


}  // namespace collsim
