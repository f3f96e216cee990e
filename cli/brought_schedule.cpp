// cli/brought_schedule.cpp — --schedule FILE and --msccl-xml FILE: read, then proved as
// `check --file` proves a schedule.
#include "cli/brought_schedule.hpp"

#include <fmt/format.h>

#include "base/error.hpp"
#include "cli/options.hpp"
#include "collectives/checker.hpp"
#include "collectives/msccl_xml.hpp"
#include "collectives/schedule_json.hpp"

namespace collsim::cli {

void add_brought_schedule_options(CLI::App& cmd, BroughtSchedule& brought, const std::string& use,
                                  std::initializer_list<const char*> replaced) {
  CLI::Option* json = cmd.add_option(
      "--schedule", brought.json,
      fmt::format("A schedule JSON (collsim schedule -o, docs/schedule-format.md) to {}: proved by the checker first", use));
  CLI::Option* xml = cmd.add_option(
      "--msccl-xml", brought.msccl_xml,
      fmt::format("An MSCCL XML algorithm (allreduce, allgather, reduce_scatter or alltoall; docs/schedule-format.md) at --bytes N, converted to a schedule to "
                  "{}: proved by the checker first",
                  use));
  json->excludes(xml);
  brought.bytes = cmd.get_option("--bytes");
  json->excludes(cmd.get_option("--bytes"));
  for (const char* other : replaced) {
    json->excludes(cmd.get_option(other));
    xml->excludes(cmd.get_option(other));
  }
}

namespace {
std::shared_ptr<const Schedule> read_brought(const BroughtSchedule& brought) {
  if (!brought.json.empty()) return std::make_shared<const Schedule>(load_schedule(brought.json));
  if (brought.bytes->count() == 0)
    throw Error("--msccl-xml needs --bytes N (one size): MSCCL's XML cuts any buffer into its chunks");
  const std::uint64_t bytes = one_size("--bytes", brought.bytes->as<std::string>());
  return std::make_shared<const Schedule>(load_msccl_xml(brought.msccl_xml, bytes));
}
}  // namespace

std::shared_ptr<const Schedule> load_brought_schedule(const BroughtSchedule& brought) {
  std::shared_ptr<const Schedule> schedule = read_brought(brought);
  try {
    check_schedule(*schedule);
  } catch (const Error& e) {
    throw Error(fmt::format("{} '{}' is not a correct {}: {}", brought.json.empty() ? "MSCCL XML" : "schedule",
                            brought.json.empty() ? brought.msccl_xml : brought.json,
                            to_string(schedule->info().collective), e.what()));
  }
  return schedule;
}

}  // namespace collsim::cli
