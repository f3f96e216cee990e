// cli/brought_schedule.hpp — a schedule the user brings instead of a built-in algorithm
// (`--schedule FILE`: collsim's JSON, docs/schedule-format.md), for predict, explain, run and
// validate alike: declared once, read, and proved by the checker before any command uses it.
#pragma once

#include <initializer_list>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "collectives/schedule.hpp"

namespace collsim::cli {

struct BroughtSchedule {
  std::string json;  // --schedule FILE
  bool given() const { return !json.empty(); }
};

// Declares --schedule on `cmd`, which then excludes each of `replaced` (the options that
// choose a built-in algorithm's schedule there: --algo, --bytes, ...).
void add_brought_schedule_options(CLI::App& cmd, BroughtSchedule& brought, const std::string& use,
                                  std::initializer_list<const char*> replaced);

// The schedule, read (structure checked) and proved by the checker. Throws Error with one
// line naming the file and the first fault.
std::shared_ptr<const Schedule> load_brought_schedule(const BroughtSchedule& brought);

}  // namespace collsim::cli
