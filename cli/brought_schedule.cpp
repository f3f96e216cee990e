// cli/brought_schedule.cpp — --schedule FILE: read, then proved as `check --file` proves it.
#include "cli/brought_schedule.hpp"

#include <fmt/format.h>

#include "base/error.hpp"
#include "collectives/checker.hpp"
#include "collectives/schedule_json.hpp"

namespace collsim::cli {

void add_brought_schedule_options(CLI::App& cmd, BroughtSchedule& brought, const std::string& use,
                                  std::initializer_list<const char*> replaced) {
  CLI::Option* json = cmd.add_option(
      "--schedule", brought.json,
      fmt::format("A schedule JSON (collsim schedule -o, docs/schedule-format.md) to {}: proved by the checker first", use));
  for (const char* other : replaced) json->excludes(cmd.get_option(other));
}

std::shared_ptr<const Schedule> load_brought_schedule(const BroughtSchedule& brought) {
  auto schedule = std::make_shared<const Schedule>(load_schedule(brought.json));
  try {
    check_schedule(*schedule);
  } catch (const Error& e) {
    throw Error(fmt::format("schedule '{}' is not a correct {}: {}", brought.json, to_string(schedule->info().collective),
                            e.what()));
  }
  return schedule;
}

}  // namespace collsim::cli
