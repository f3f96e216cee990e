// cli/cmd_schedule.cpp — `collsim schedule` (write a schedule as JSON, or as MSCCL's XML), `collsim check`
// (prove a generated or saved schedule) and `collsim algorithms` (list the table).
#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/progress_line.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "base/file_io.hpp"
#include "collectives/checker.hpp"
#include "collectives/msccl_xml.hpp"
#include "collectives/schedule_json.hpp"

namespace collsim::cli {
namespace {

struct ScheduleCommand {
  ScheduleOptions schedule;
  ClusterSource cluster;  // a switchless NVLink mesh whose searched rings the ring's channels ride
  std::string output;
  std::string format = "json";  // or msccl-xml
};

// The options' request, with --config/--preset the ring's channels on the mesh's rings.
ScheduleRequest written_request(const ScheduleCommand& c) {
  ScheduleRequest r = c.schedule.request(0);
  if (given(c.cluster))
    ride_mesh_rings(load_cluster(c.cluster), c.schedule.algorithm, r.collective, r.ranks, r.ranks_per_node, r.channels,
                    r.channel_orders);
  return r;
}

struct CheckCommand {
  std::string file;
  ScheduleOptions schedule;
  Format format = Format::table;
};

void run_check(const CheckCommand& c, bool from_file) {
  std::chrono::steady_clock::time_point t0, t1, t2;
  Schedule s;
  CheckReport report;
  {
    // Two items on stderr: the build (or load), then the check, by its transfers done.
    ProgressLine progress("check");
    t0 = std::chrono::steady_clock::now();
    progress.update(from_file ? "loading " + c.file : "building " + c.schedule.algorithm, 0, 2);
    s = from_file ? load_schedule(c.file) : generate_schedule(c.schedule.algorithm, c.schedule.request(0));
    t1 = std::chrono::steady_clock::now();
    CheckOptions options;
    options.progress = [&](std::string_view part, std::uint64_t done, std::uint64_t total) {
      const double share = total > 0 ? double(done) / double(total) : 0;
      progress.update(fmt::format("checking {} ({:.0f}% of {} transfers)", part, 100 * share, total),
                  1 + std::min(0.99, share), 2);  // the postcondition comes after every transfer: not yet "2 of 2 done"
    };
    report = check_schedule(s, options);
    t2 = std::chrono::steady_clock::now();
  }
  const double build_s = std::chrono::duration<double>(t1 - t0).count(), check_s = std::chrono::duration<double>(t2 - t1).count();
  if (c.format == Format::json) {
    std::cout << nlohmann::json{{"valid", true}, {"algorithm", s.info().algorithm},
                                {"collective", to_string(s.info().collective)}, {"ranks", s.info().ranks},
                                {"bytes", s.info().bytes}, {"transfers", report.transfers},
                                {"dependencies", report.dependencies}, {"elements", report.elements},
                                {"exact", report.exact}, {"build_s", build_s}, {"check_s", check_s}}
                     .dump(2)
              << '\n';
    return;
  }
  fmt::print("valid: {} {} on {} ranks, {} bytes: {} transfers, {} dependencies, {} elements; contributions {}; "
             "{} {:.3f} s, check {:.3f} s\n",
             s.info().algorithm, to_string(s.info().collective), s.info().ranks, s.info().bytes, report.transfers,
             report.dependencies, report.elements, report.exact ? "exact sets" : "64-bit signatures",
             from_file ? "load" : "build", build_s, check_s);
}

void list_algorithms(Format format) {
  if (format == Format::json) {
    nlohmann::json out = nlohmann::json::array();
    for (const AlgorithmEntry& a : algorithm_table()) {
      std::vector<std::string> cs;
      for (Collective c : a.collectives) cs.emplace_back(to_string(c));
      out.push_back({{"name", a.name}, {"collectives", cs}, {"pipelined", a.pipelined}, {"summary", a.summary},
                     {"in_network", a.in_network != InNetwork::none}});
    }
    std::cout << out.dump(2) << '\n';
    return;
  }
  for (const AlgorithmEntry& a : algorithm_table()) {
    std::string cs;
    for (Collective c : a.collectives) cs += (cs.empty() ? "" : ", ") + std::string(to_string(c));
    fmt::print("{:<19} {}\n{:<19} collectives: {}{}{}\n", a.name, a.summary, "", cs,
               a.pipelined ? "; pipelined (--segments)" : "",
               a.in_network == InNetwork::node_switch ? "; needs node switches that reduce (nodes: reduction: nvls)"
               : a.in_network == InNetwork::fabric
                   ? "; needs switches that reduce: the fabric's (topology: reduction: sharp) and, with several "
                     "GPUs per node, the nodes' (nodes: reduction: nvls)"
                   : "");
  }
}

}  // namespace

void add_schedule_commands(CLI::App& app) {
  auto sched = std::make_shared<ScheduleCommand>();
  CLI::App* cmd = app.add_subcommand("schedule", "Generate a schedule and write it as JSON");
  add_schedule_options(*cmd, sched->schedule, true);
  cmd->add_option("-o,--output", sched->output, "Output file (default: stdout)");
  cmd->add_option("--format", sched->format,
                  "json (collsim's, docs/schedule-format.md) or msccl-xml (MSCCL's XML IR, for its runtime: allreduce, allgather, reduce-scatter, alltoall)")
      ->capture_default_str()
      ->check(CLI::IsMember({"json", "msccl-xml"}));
  add_mesh_options(*cmd, sched->cluster, "written as its channel_orders");
  cmd->callback([sched] {
    const Schedule s = generate_schedule(sched->schedule.algorithm, written_request(*sched));
    if (sched->format == "msccl-xml") {
      const std::string xml = schedule_to_msccl_xml(s);
      if (sched->output.empty()) std::cout << xml;
      else write_text_file(sched->output, xml, "MSCCL XML");
    } else if (sched->output.empty()) {
      std::cout << schedule_to_json(s).dump() << '\n';
    } else {
      save_schedule(s, sched->output);
    }
  });

  auto check = std::make_shared<CheckCommand>();
  CLI::App* chk = app.add_subcommand("check", "Prove a schedule: structure, hazards and the collective's postcondition");
  chk->add_option("--file", check->file, "Schedule JSON to check (instead of generating one)");
  add_schedule_options(*chk, check->schedule, false, false);  // ALGO --ranks --bytes when no --file
  add_format_option(*chk, check->format, false);
  chk->callback([check] {
    const bool from_file = !check->file.empty();
    if (from_file == !check->schedule.algorithm.empty())
      throw Error("check needs either --file SCHEDULE.json or an algorithm with --ranks and --bytes");
    if (!from_file && (check->schedule.ranks == 0 || check->schedule.bytes.empty()))
      throw Error("check ALGO needs --ranks and --bytes");
    run_check(*check, from_file);
  });

  auto format = std::make_shared<Format>(Format::table);
  CLI::App* list = app.add_subcommand("algorithms", "List the algorithms and the collectives each implements");
  add_format_option(*list, *format, false);
  list->callback([format] { list_algorithms(*format); });
}

}  // namespace collsim::cli
