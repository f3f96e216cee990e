// cli/cmd_predict.cpp — `collsim predict`: time of every algorithm per message size on a
// cluster (a YAML config or preset, the embedded default, or --ranks/--alpha/--bandwidth/--gamma).
#include <algorithm>
#include <cctype>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.hpp"
#include "base/progress_line.hpp"
#include "base/units.hpp"
#include "cli/brought_schedule.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/predict_header.hpp"
#include "cli/predict_options.hpp"
#include "sim/engine_table.hpp"
#include "sim/flow_report.hpp"
#include "sim/prediction.hpp"
#include "sim/protocol.hpp"
#include "sim/runtime.hpp"
#include "sim/trace.hpp"
#include "topologies/cluster_config.hpp"
#include "topologies/link_catalog.hpp"
#include "validate/nccl_tests_log.hpp"

namespace collsim::cli {
namespace {

// --alpha, --beta/--bandwidth and --ranks-per-node: a flat network's classes and node size.
LinkEdits link_edits(const PredictOptions& o) {
  return {.alpha_s = o.alpha, .beta_s_per_byte = o.beta >= 0 ? o.beta : (o.bandwidth > 0 ? 1.0 / o.bandwidth : -1),
          .ranks_per_node = o.ranks_per_node};
}

// The cluster: a config file or preset, the embedded default, or a flat what-if network.
ClusterConfig resolve_cluster(const PredictOptions& o) {
  const bool network_flags = o.alpha >= 0 || o.beta >= 0 || o.bandwidth >= 0;
  if (o.beta >= 0 && o.bandwidth >= 0) throw Error("give --beta or --bandwidth, not both");
  ClusterConfig c;
  if (!o.cluster.config.empty() || !o.cluster.preset.empty()) {
    c = load_cluster(o.cluster);
  } else if (network_flags) {
    if (o.ranks == 0) throw Error("a what-if network (--alpha/--beta/--bandwidth) needs --ranks");
    if (o.beta < 0 && o.bandwidth < 0) throw Error("a what-if network needs --bandwidth (bytes/s) or --beta (s/byte)");
    CostModel what_if = CostModel::uniform(0, 0, 0);
    link_edits(o).apply(what_if);
    c = flat_cluster("what-if (flat, contention-free)", what_if, o.ranks);
  } else {
    c = default_cluster_config();
  }
  if (o.gamma >= 0) c.cost.gamma_s_per_byte = o.gamma;
  c.place(o.ranks, o.placement ? std::optional<Placement>({*o.placement, o.placement_seed, {}}) : std::nullopt,
          link_edits(o));
  return c;
}

// "channels: ring 8, two-tree 8 (...)" where some run more than one, before the rows.
std::string channels_line(const PredictOptions& o, const std::vector<PredictionRecord>& records,
                          const PredictionRequest& r) {
  std::vector<std::string> runs;
  for (const PredictionRecord& rec : records) {
    const std::string run = fmt::format("{} {}", rec.algorithm, rec.channels);
    if (rec.channels > 1 && std::find(runs.begin(), runs.end(), run) == runs.end()) runs.push_back(run);
  }
  if (runs.empty()) return "";
  const std::string why =
      o.channels > 0                      ? "--channels"
      : !r.topology->mesh_rings.empty()   ? fmt::format("default: the {} rings a search over the NVLink mesh finds, which "
                                                        "the ring's channels ride (collsim explain ring --config)",
                                                        suggested_channels(r))
                                          : fmt::format("default: the {} NICs per node the ranks span", suggested_channels(r));
  std::string out = fmt::format("channels: {} ({}; --channels 1 runs one)\n", fmt::join(runs, ", "), why);
  // The analytic column beside a contention engine: one port per rank, so a rank's channels,
  // which the flow engine runs side by side through its NICs, take turns there.
  if (find_engine(r.engine).contention && o.one_port)
    out += "analytic: one port per rank, so a rank's channels take turns where the flow engine runs them side by side "
           "through its NICs: no floor here (--ports unlimited lifts it)\n";
  return out;
}

// A row's algorithm as every output names it: "ring", or for --algo nccl the choice with its
// protocol, "nccl (two-tree, ll)" (the table has the protocol in its own column).
std::string shown_name(const PredictionRecord& rec, bool with_protocol = true) {
  if (rec.runs == rec.algorithm) return rec.algorithm;
  return with_protocol ? fmt::format("{} ({}, {})", rec.algorithm, rec.runs, rec.protocol.name)
                       : fmt::format("{} ({})", rec.algorithm, rec.runs);
}

// Rows that ran, or whose choice was made among candidates that ran, in fewer channels than
// the cluster suggests (PredictionRecord::short_of_channels) are starred, and the footnote
// under the table names those runs: their times are not like for like with runs in more.
std::string channels_footnote(const std::vector<PredictionRecord>& records) {
  std::vector<std::string> runs;
  for (const PredictionRecord& rec : records)
    for (const std::string& run : rec.short_of_channels) runs.push_back(run);
  if (runs.empty()) return "";
  return fmt::format("\n* compared in fewer channels than the cluster suggests ({}): a ring streamed runs one unless "
                     "--channels asks (its channels share GPU ports and reducers, which only the slower event "
                     "simulation times); not like for like with runs in more channels\n",
                     fmt::join(runs, ", "));
}

// With the flow or simgrid engine, two more columns: the analytic engine's time and the ratio.
void print_table(const PredictOptions& o, const std::vector<PredictionRecord>& records, const ClusterConfig& c,
                 const PredictionRequest& r,
                 const std::vector<std::string>& details) {
  print_predict_header(o, c, r);
  fmt::print("{}", channels_line(o, records, r));
  const EngineEntry& engine = find_engine(r.engine);
  // Each row's own protocol, where rows may differ in it.
  const bool by_protocol = !o.protocol || std::any_of(records.begin(), records.end(), [](const PredictionRecord& x) {
                             return x.algorithm == kNcclChoice;
                           });
  fmt::print("{:>10}  {:<19}{} {:>11}{} {:>12} {:>12} {:>9}\n", "size", "algorithm", by_protocol ? fmt::format(" {:<6}", "proto") : "",
             "time", engine.contention ? fmt::format(" {:>11} {:>8}", "analytic", engine.ratio_label) : "", "algbw GB/s",
             "busbw GB/s", "x bound");
  std::uint64_t previous = ~0ull;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const PredictionRecord& rec = records[i];
    if (rec.bytes != previous && previous != ~0ull) fmt::print("\n");
    const std::string size = rec.bytes != previous ? format_size(rec.bytes) : "";
    previous = rec.bytes;
    // A streamed run has no analytic time: the analytic engine walks a held schedule.
    const std::string contention =
        rec.analytic_s ? fmt::format(" {:>11} {:>7.2f}x", format_seconds(*rec.analytic_s),
                                     *rec.analytic_s > 0 ? rec.time_s / *rec.analytic_s : 1.0)
        : rec.streamed ? fmt::format(" {:>11} {:>8}", "(streamed)", "-")
                       : "";
    const std::string algorithm = shown_name(rec, false) + (rec.short_of_channels.empty() ? "" : " *");
    if (!rec.refused.empty()) {  // "all": an algorithm that cannot run here, and why
      fmt::print("{:>10}  {:<19} refused: {}\n", size, algorithm, one_line(rec.refused));
      continue;
    }
    const bool moves_data = rec.ranks > 1;  // on one rank nothing moves: no bandwidth to show
    fmt::print("{:>10}  {:<19}{} {:>11}{} {:>12} {:>12} {:>9.2f}{}\n", size, algorithm,
               by_protocol ? fmt::format(" {:<6}", rec.protocol.name) : "", format_seconds(rec.time_s), contention,
               format_GBps_cell(rec.algbw_GBps, moves_data), format_GBps_cell(rec.busbw_GBps, moves_data), rec.lower_bound_s > 0 ? rec.time_s / rec.lower_bound_s : 1.0,
               rec.winner ? "  <- winner" : "");
  }
  fmt::print("{}", channels_footnote(records));
  for (const std::string& d : details) fmt::print("\n{}", d);
  fmt::print("\nwinner per size:");
  for (const PredictionRecord& rec : records)
    if (rec.winner) fmt::print(" {}={}", format_size(rec.bytes), rec.algorithm);
  fmt::print("\n");
}

void print_csv(const std::vector<PredictionRecord>& records) {
  fmt::print("collective,algorithm,ranks,bytes,engine,placement,segments,channels,protocol,transfers,time_s,algbw_GBps,busbw_GBps,"
             "lower_bound_s,closed_form_s,analytic_s,winner,runs,refused\n");
  auto optional = [](const std::optional<double>& x) { return x ? fmt::format("{:.9g}", *x) : std::string(); };
  // On one rank nothing moves: the bandwidth fields are left empty, not 0.
  auto rate = [](double GBps, Rank ranks) { return ranks > 1 ? fmt::format("{:.6g}", GBps) : std::string(); };
  // A refused row ("all": cannot run here) has no times, and its reason quoted last.
  auto quoted = [](const std::string& why) {
    std::string out = "\"";
    for (char ch : one_line(why)) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return out + "\"";
  };
  for (const PredictionRecord& r : records)
    if (!r.refused.empty())
      fmt::print("{},{},{},{},{},{},,,,,,,,,,,0,{},{}\n", to_string(r.collective), r.algorithm, r.ranks, r.bytes,
                 to_string(r.engine), r.placement, r.runs, quoted(r.refused));
    else
      fmt::print("{},{},{},{},{},{},{},{},{},{},{:.9g},{},{},{:.9g},{},{},{},{},\n", to_string(r.collective), r.algorithm,
                 r.ranks, r.bytes, to_string(r.engine), r.placement, r.segments, r.channels, r.protocol.name, r.transfers,
                 r.time_s, rate(r.algbw_GBps, r.ranks), rate(r.busbw_GBps, r.ranks), r.lower_bound_s,
                 optional(r.closed_form_s), optional(r.analytic_s), r.winner ? 1 : 0, r.runs);
}

// nccl-tests' layout: one line per size, so the fastest of the algorithms asked (the winner).
// A prediction has one time: it is printed out of place and in place alike, #wrong N/A (no
// result was checked). Host names are node0, node1, ... as the ranks are placed.
void print_nccl_tests(const std::vector<PredictionRecord>& records, const ClusterConfig& c, const PredictionRequest& r) {
  NcclTestsLog log;
  log.collective = r.collective;
  std::string chosen;
  for (const PredictionRecord& rec : records) {
    if (!rec.winner) continue;
    log.rows.push_back(nccl_tests_row(r.collective, r.ranks, rec.bytes, rec.time_s));
    chosen += fmt::format(" {}={}", rec.bytes, shown_name(rec));
  }
  std::map<std::uint32_t, std::uint32_t> gpus_seen;  // per node, for the device index
  for (Rank rank = 0; rank < r.ranks; ++rank) {
    const std::uint32_t node = c.topology->node_of(rank);
    log.ranks.push_back({rank, fmt::format("node{}", node), "collsim prediction", gpus_seen[node]++});
  }
  log.comments = {fmt::format("predicted by collsim, not measured: {} on {} ranks of {}, engine {}", to_string(r.collective),
                              r.ranks, c.name, to_string(r.engine)),
                  fmt::format("algorithm per size (the fastest of those asked):{}", chosen)};
  fmt::print("{}", nccl_tests_log_text(log));
}

// 0.37 for "37% of ...", 0 for a line that does not start with a percentage.
double leading_share(const std::string& line) {
  std::size_t digits = 0;
  while (digits < line.size() && std::isdigit(static_cast<unsigned char>(line[digits]))) ++digits;
  if (digits == 0 || digits > 3 || digits >= line.size() || line[digits] != '%') return 0;
  return std::min(std::stod(line.substr(0, digits)), 100.0) / 100.0;
}

// --detail's line for an "nccl" row: every run it compared, fastest first, each but the first with
// how much slower it is; "" elsewhere.
std::string candidates_detail_text(const PredictionRecord& rec) {
  if (rec.candidates.size() < 2) return "";
  std::vector<std::string> runs;
  const double kept = rec.candidates.front().time_s;
  for (const NcclCandidate& c : rec.candidates)
    runs.push_back(c.time_s == kept || kept <= 0
                       ? fmt::format("{} {} {}", c.runs, c.protocol, format_seconds(c.time_s))
                       : fmt::format("{} {} {} (+{:.1f}%)", c.runs, c.protocol, format_seconds(c.time_s),
                                     100.0 * (c.time_s / kept - 1.0)));
  return fmt::format("  candidates, fastest first (collsim keeps the fastest; NCCL ranks them by its own cost model, "
                     "tuning.cc, so a close second may be what it runs): {}\n",
                     fmt::join(runs, ", "));
}

nlohmann::json candidates_json(const PredictionRecord& rec) {
  nlohmann::json out = nlohmann::json::array();
  for (const NcclCandidate& c : rec.candidates)
    out.push_back({{"runs", c.runs}, {"protocol", c.protocol}, {"time_s", c.time_s}});
  return out;
}

// --detail's first line where the cluster names a runtime: what the run paid before its first
// transfer, which the critical path below does not show (it starts at the first transfer).
std::string runtime_detail_text(const PredictionRecord& rec) {
  if (rec.runtime_s <= 0) return "";
  const RuntimePipeline& pipeline = rec.protocol.pipeline;
  std::string text = fmt::format("  runtime: {} before the first transfer (the library's launch and base latency for {}, "
                                 "{}{}); the critical path below adds to it\n",
                                 format_seconds(rec.runtime_s), rec.runs, rec.protocol.name,
                                 pipeline.extra_sync_s > 0
                                     ? fmt::format(", and {} of its pipeline's flag waits", format_seconds(pipeline.extra_sync_s))
                                     : "");
  if (pipeline.active() && pipeline.segments > 0)
    text += fmt::format("  runtime: pipeline of {} channel{}, chunk {} x {} loop{} per channel and head: the schedule runs "
                        "{} segment{}{} ({} {}: NCCL's NVLS channels and chunks)\n",
                        pipeline.channels, pipeline.channels == 1 ? "" : "s", format_size(pipeline.chunk_bytes),
                        pipeline.loops, pipeline.loops == 1 ? "" : "s", rec.segments, rec.segments == 1 ? "" : "s",
                        rec.segments != pipeline.segments ? ", as --segments asks"
                        : pipeline.loops > pipeline.segments ? fmt::format(", one per loop up to {}", pipeline.segments)
                                                             : ", one per loop",
                        rec.runs, rec.protocol.name);
  else if (pipeline.active())
    text += fmt::format("  runtime: pipeline of {} channel{}, chunk {} x {} loop{} per channel, {} slice{} per chunk step: "
                        "{} flag waits per rank on the chain of {} steps ({} {}: NCCL's buffers and chunks)\n",
                        pipeline.channels, pipeline.channels == 1 ? "" : "s", format_size(pipeline.chunk_bytes),
                        pipeline.loops, pipeline.loops == 1 ? "" : "s", pipeline.slices, pipeline.slices == 1 ? "" : "s",
                        pipeline.loops * pipeline.slices * pipeline.steps, pipeline.steps, rec.runs, rec.protocol.name);
  const RuntimeRate& rate = rec.protocol.rate;
  if (rate.active() && rate.network_only)
    text += fmt::format("  runtime: each head's message across the network at most {:.1f} GB/s ({} {}: NCCL's "
                        "per-channel rate of its NVLS graph, one channel per head)\n",
                        rate.cap_Bps / 1e9, rec.runs, rec.protocol.name);
  else if (rate.active())
    text += fmt::format("  runtime: {} channel{} at this size, each message at most {:.1f} GB/s ({} {}: NCCL's rate "
                        "caps)\n",
                        rate.channels, rate.channels == 1 ? "" : "s", rate.cap_Bps / 1e9, rec.runs, rec.protocol.name);
  return text;
}

// --trace and --detail: what each flow run leaves besides its time. Runs are keyed by
// (algorithm, bytes, protocol), since --algo auto keeps only the winners and --protocol auto
// only each one's fastest protocol.
struct FlowOutputs {
  FlowOutputs(const PredictOptions& o, const ClusterConfig& c, PredictionRequest& r) {
    if ((!o.trace.empty() || o.detail) && !find_engine(r.engine).flow_details)
      throw Error(fmt::format("--trace and --detail report on flow-engine runs, not {}: use --engine flow (the default on a cluster with a topology)", to_string(r.engine)));
    if (o.detail && (o.format == Format::csv || o.format == Format::nccl_tests))
      throw Error("--detail prints as a table or JSON, not CSV or nccl-tests");
    if ((!o.trace.empty() || o.detail) && o.stream == Streaming::always)
      throw Error("--stream always runs without a held schedule; --trace and --detail need one (use --stream auto)");
    // Per-transfer records only where a report reads them (32 bytes a transfer saved on the
    // 67 M transfers of a 16,384-rank hierarchical ring).
    r.run.flow.critical_path = !o.trace.empty() || o.detail;
    if (!o.trace.empty()) {
      trace = std::make_unique<ChromeTrace>(o.trace);
      path = o.trace;
      r.run.flow.timeline = true;
    }
    if (!trace && !o.detail) return;
    r.on_flow_run = [this, &o, &c](const PredictionRecord& rec, const Schedule& s, const FlowResult& result) {
      // --algo nccl runs each candidate with every protocol: the name says which
      const bool named_protocol = o.protocol != simple_protocol() || rec.protocol != simple_protocol();
      const std::string name = fmt::format("{} {}{}", rec.algorithm, format_size(rec.bytes),
                                           named_protocol ? " " + std::string(rec.protocol.name) : "");
      if (trace) trace->add_run(name, s, *c.topology, result, c.cost.gamma_s_per_byte, trace_runtime(rec, c.runtime));
      if (!o.detail) return;
      keys.emplace_back(rec.runs, rec.bytes, rec.protocol.name);
      if (o.format == Format::json) {
        json.push_back(flow_detail_json(s, *c.topology, result));
        json.back()["runtime_s"] = rec.runtime_s;
      } else {  // titled by the row that shows it
        text.push_back(runtime_detail_text(rec) + flow_detail_text(s, *c.topology, result));
      }
    };
  }
  void finish() {
    if (!trace) return;
    trace->close();
    fmt::print(stderr, "collsim predict: wrote {} trace events to {} (open it in https://ui.perfetto.dev)\n",
               trace->events(), path);
  }
  std::size_t run_of(const PredictionRecord& rec) const {
    return std::size_t(std::find(keys.begin(), keys.end(), std::tuple(rec.runs, rec.bytes, rec.protocol.name)) -
                       keys.begin());
  }

  std::unique_ptr<ChromeTrace> trace;
  std::string path;
  std::vector<std::tuple<std::string, std::uint64_t, std::string_view>> keys;
  std::vector<std::string> text;
  std::vector<nlohmann::json> json;
};

// --schedule FILE: proved, and made the request's one candidate, whose collective and size are
// the schedule's.
std::shared_ptr<const Schedule> proved_schedule(const BroughtSchedule& brought, PredictionRequest& r) {
  std::shared_ptr<const Schedule> schedule = load_brought_schedule(brought);
  r.collective = schedule->info().collective;
  r.sizes = {schedule->info().bytes};
  r.pair_bytes = schedule->info().pair_bytes;
  return schedule;
}

// --matrix FILE: the one size is the largest row's, the ranks the run's.
void sized_by_matrix(PredictionRequest& r, const std::string& file, Format format) {
  if (format == Format::nccl_tests)
    throw Error("--matrix: nccl-tests' alltoall_perf moves equal blocks, so an all-to-all-v has no nccl-tests line; "
                "use --format table, csv or json");
  ScheduleRequest sized;
  sized.collective = r.collective;
  sized.ranks = r.ranks;
  with_matrix(sized, file);
  r.pair_bytes = std::move(sized.pair_bytes);
  r.sizes = {sized.bytes};
}

void run(const PredictOptions& o) {
  const ClusterConfig cluster = resolve_cluster(o);
  if (!cluster.calibration_reliable)
    fmt::print(stderr, "collsim predict: warning: {}'s calibration was flagged unreliable ({}): calibrate again on an idle "
                       "machine before trusting these times\n",
               cluster.name, one_line(fmt::format("{}", fmt::join(cluster.calibration_reasons, "; "))));
  PredictionRequest r = cluster_request(cluster);  // predict's defaults, then the options
  r.collective = parse_collective(o.collective);
  r.algorithms = parse_name_list(o.algo, "algorithm");
  if (!o.bytes.empty()) r.sizes = parse_size_list(o.bytes);
  if (!o.matrix.empty()) sized_by_matrix(r, o.matrix, o.format);
  if (o.format == Format::nccl_tests)  // whole float elements, said before anything runs
    for (std::uint64_t bytes : r.sizes) nccl_tests_row(r.collective, r.ranks, bytes, 0);
  r.segments = o.segments;
  r.protocol = o.protocol;
  if (o.protocol_given) r.nccl_protocol = o.protocol;
  set_gpus_per_thread(r, cluster, o.gpus_per_thread);
  r.jobs = o.jobs;
  r.channels = o.channels;
  if (o.engine) r.engine = *o.engine;
  r.run.one_port = o.one_port;
  r.run.verbose = o.verbose;
  r.on_note = [](const std::string& note) { fmt::print(stderr, "collsim predict: {}\n", one_line(note)); };
  r.streaming = o.stream;
  r.refusals_in_rows = true;  // "all": what cannot run here says so in its row, the rest answer
  if (o.schedule.given()) r.schedule = proved_schedule(o.schedule, r);
  FlowOutputs flow(o, cluster, r);
  std::vector<PredictionRecord> records;
  {
    ProgressLine progress("predict");  // cleared before the table prints
    PredictionStep now;
    std::string run;  // "ring 1G"
    // Inside a long flow run too: how far through its transfers it is.
    r.run.flow.progress = [&](std::uint64_t done, std::uint64_t total) {
      const double part = double(done) / double(total);
      progress.update(fmt::format("{} ({:.0f}% of {:.3g} M transfers)", run, 100 * part, double(total) / 1e6),
                      double(now.index) + part, now.total);
    };
    // A streamed run tells its progress in words ("37% of 536854528 transfers"): its leading
    // percentage, where there is one, is the run's share done (for the time left).
    r.run.stream_progress = [&](const std::string& line) {
      progress.update(fmt::format("{} (streamed: {})", run, line), double(now.index) + leading_share(line), now.total);
    };
    // A step that runs several candidates names the one running ("nccl 1G: two-tree, ll"), so
    // that the progress inside each run is not read as one run starting over.
    r.on_candidate = [&](std::string_view algorithm, const Protocol& protocol) {
      if (algorithm == now.algorithm && o.protocol) return;
      run = fmt::format("{} {}: {}, {}", now.algorithm, format_size(now.bytes), algorithm, protocol.name);
      progress.update(run, double(now.index), now.total);
    };
    records = predict(r, [&](const PredictionStep& step) {
      now = step;
      run = fmt::format("{} {}", step.algorithm, format_size(step.bytes));
      if (!step.resumed) progress.update(run, double(step.index), step.total);  // side by side, a run's callback follows
    });
  }
  flow.finish();
  switch (o.format) {
    case Format::table: {
      std::vector<std::string> details;  // of the runs shown, in their order
      if (o.detail)
        for (const PredictionRecord& rec : records) {
          if (!rec.refused.empty()) continue;  // no run to detail
          // the row's own name ("nccl (ring) 1G, ll"), so that no two titles are the same
          const bool named_protocol =
              o.protocol != simple_protocol() || rec.protocol != simple_protocol() || rec.runs != rec.algorithm;
          details.push_back(fmt::format("{} {}{}:\n{}{}", shown_name(rec, false), format_size(rec.bytes),
                                        named_protocol ? ", " + std::string(rec.protocol.name) : "",
                                        candidates_detail_text(rec), flow.text.at(flow.run_of(rec))));
        }
      print_table(o, records, cluster, r, details);
      break;
    }
    case Format::csv: print_csv(records); break;
    case Format::nccl_tests: print_nccl_tests(records, cluster, r); break;
    case Format::json: {
      nlohmann::json out = nlohmann::json::array();
      for (std::size_t i = 0; i < records.size(); ++i) {
        out.push_back(to_json(records[i]));
        if (o.detail && records[i].refused.empty()) {
          out.back()["detail"] = flow.json.at(flow.run_of(records[i]));
          if (!records[i].candidates.empty()) out.back()["candidates"] = candidates_json(records[i]);
        }
      }
      std::cout << out.dump(2) << '\n';
      break;
    }
  }
}

// --engine's words: auto, then the engines of this build, from the table.
std::vector<std::pair<std::string, std::optional<EngineKind>>> engine_choices() {
  std::vector<std::pair<std::string, std::optional<EngineKind>>> choices{{"auto", std::nullopt}};
  for (const EngineEntry& e : engine_table()) choices.emplace_back(std::string(e.name), e.kind);
  return choices;
}

// --protocol's words: auto, then the protocols of the table.
std::vector<std::pair<std::string, std::optional<Protocol>>> protocol_choices() {
  std::vector<std::pair<std::string, std::optional<Protocol>>> choices{{"auto", std::nullopt}};
  for (const Protocol& p : protocol_table()) choices.emplace_back(std::string(p.name), p);
  return choices;
}

// --engine's help: the engines of this build, from the table.
std::string engine_help() {
  std::string help = "Engine. auto (default): flow on a cluster with a topology, analytic on a flat one;";
  for (const EngineEntry& e : engine_table()) help += fmt::format(" {}: {};", e.name, e.help);
  help.back() = '.';
  return help;
}

}  // namespace

void add_predict_command(CLI::App& app) {
  auto options = std::make_shared<PredictOptions>();
  CLI::App* cmd = app.add_subcommand("predict", "Predict collective time per algorithm and message size");
  auto& o = *options;
  add_cluster_options(*cmd, o.cluster, "Cluster YAML (default: the embedded seed-000 cluster, 40 GPUs)");
  add_choice_option(*cmd, "--placement", o.placement,
                    {{"linear", Placement::Kind::linear},
                     {"round-robin", Placement::Kind::round_robin},
                     {"random", Placement::Kind::random}},
                    "Re-place the ranks: linear, round-robin, random (topology configs)");
  cmd->add_option("--placement-seed", o.placement_seed, "Seed of --placement random")
      ->capture_default_str()
      ->check(whole_number(0, std::numeric_limits<std::uint64_t>::max()));
  add_collective_option(*cmd, o.collective);
  add_algo_option(*cmd, o.algo,
                  "Algorithm names (comma-separated), 'all' (one that cannot run here at a size says why in its row; "
                  "the others answer), 'auto' (fastest per size), or among the names 'nccl' (what "
                  "NCCL would run: the fastest of ring and nccl-tree with every protocol, and where the switches reduce of "
                  "nvls, nvls-tree and, with the config's runtime: collnet_enable: true, collnet with Simple; for "
                  "alltoall its sends and receives, LL up to 16 KiB a peer where none is across the network, else "
                  "Simple, as NCCL's point-to-point rule)")
      ->capture_default_str();
  add_bytes_option(*cmd, o.bytes,
                   "Sizes per rank: the buffer every rank holds, e.g. 1K,64M,1G or 1K:1G (default: the config's); "
                   "nccl-tests' size column (for allgather the whole output, for reduce-scatter the whole input)");
  add_matrix_option(*cmd, o.matrix)->excludes("--bytes");
  add_choice_option(*cmd, "-e,--engine", o.engine, engine_choices(), engine_help());
  add_choice_option(*cmd, "--ports", o.one_port, {{"one", true}, {"unlimited", false}},
                    "Analytic model: 'one' (one send + one receive per rank) or 'unlimited'");
  add_ranks_option(*cmd, o.ranks, kMaxRanks, "Number of ranks (overrides the config)");
  add_ranks_per_node_option(*cmd, o.ranks_per_node, kMaxRanks);
  cmd->add_option("--alpha", o.alpha, "Per-message overhead in seconds (all links)")->check(physical(kTimeRange));
  cmd->add_option("--beta", o.beta, "Seconds per byte (all links)")->check(physical(kBetaRange));
  cmd->add_option("--bandwidth", o.bandwidth, "Link bandwidth in bytes/s (all links), instead of --beta")
      ->check(physical(kBandwidthRange));
  cmd->add_option("--gamma", o.gamma, "Reduction cost in seconds per byte")->check(physical(kGammaRange));
  add_segments_option(*cmd, o.segments);
  add_choice_option(*cmd, "--protocol", o.protocol, protocol_choices(),
                    "Wire protocol of every link, as NCCL's: simple (the links as configured), ll (8 data bytes in "
                    "each 16-byte line, ~0.2 of the alpha), ll128 (120 of 128 bytes, ~0.5 of the alpha), or auto (the "
                    "fastest per algorithm and size; under runtime: nccl, LL128 only where NCCL enables it by "
                    "default: NVLink between a node's GPUs); with --algo nccl it is NCCL_PROTO, the one protocol "
                    "NCCL may choose, over the cluster's own (runtime: proto); without either NCCL chooses among "
                    "all it enables")
      ->each([&o](const std::string&) { o.protocol_given = true; });
  add_channels_option(*cmd, o.channels, "on a cluster whose ranks span nodes of several NICs, one per NIC, at most 64; else 1");
  cmd->add_option("--gpus-per-thread", o.gpus_per_thread,
                  fmt::format("GPUs one host thread launches each collective on, as nccl-tests -g G (one process and "
                              "thread for G GPUs): the last GPU starts (G - 1) kernel launch calls of {:.2f} us later "
                              "(an H100's host, collsim-gpu-microbench), added to the collective; nccl-tests' loop of "
                              "back-to-back iterations hides them where the collective is longer (published curves: "
                              "from about 2 MiB; docs/validation-public.md). A cluster with runtime nccl only",
                              kHostKernelLaunchCall_s * 1e6))
      ->capture_default_str()
      ->check(whole_number(1, 1024));
  cmd->add_option("-j,--jobs", o.jobs,
                  "Runs (algorithm x size) predicted at once, one per thread, each starting when the memory it holds "
                  "fits beside the others' (/proc/meminfo's MemAvailable): 0 (default) one per core, 1 one after "
                  "another. The SimGrid engine, --trace and --detail run one after another. Same answers either way")
      ->capture_default_str()
      ->check(whole_number(0, 1024));
  cmd->add_option("--trace", o.trace,
                  "Flow engine: write a Chrome trace (Perfetto) of every run to this JSON file (with a runtime, each "
                  "rank's launch and flag-wait slices come first)");
  add_brought_schedule_options(*cmd, o.schedule, "predict instead of --algo, at its own collective and size",
                               {"--algo", "--collective", "--segments", "--channels", "--matrix"});
  add_choice_option(*cmd, "--stream", o.stream,
                    {{"auto", Streaming::when_large}, {"always", Streaming::always}, {"never", Streaming::never}},
                  fmt::format("Flow engine, ring, hierarchical-ring and bruck: run the schedule as a stream, not held (memory: "
                              "a window of the run; same times; no analytic column, --detail or --trace). auto: where "
                              "held it would be large, more than {:.0e} transfers (about {:.1f} GB), or too large to "
                              "hold, unless --detail or --trace ask for it held (the ring: one channel only); always: "
                              "wherever it can; never: hold it wherever it fits",
                              kStreamAboveTransfers, kStreamAboveTransfers * kHeldBytesPerTransfer / 1e9));
  cmd->add_flag("--detail", o.detail, "Flow engine: critical path, its links, busiest links and rank finish times per run");
  cmd->add_flag("--verbose", o.verbose, "SimGrid engine: let SimGrid log to stderr (quiet otherwise)");
  add_format_option(*cmd, o.format, true, true);
  cmd->callback([options, cmd] {
    if (cmd->count("--bytes") > 0 && options->bytes.empty()) throw Error("--bytes: expected sizes, got an empty string");
    run(*options);
  });
}

}  // namespace collsim::cli
