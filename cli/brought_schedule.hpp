// cli/brought_schedule.hpp — a schedule the user brings instead of a built-in algorithm
// (`--schedule FILE`: collsim's JSON; `--msccl-xml FILE --bytes N`: MSCCL's XML IR at N bytes;
// docs/schedule-format.md), for predict, explain, run and validate alike: declared once, read,
// and proved by the checker before any command uses it.
#pragma once

#include <initializer_list>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "collectives/schedule.hpp"

namespace collsim::cli {

struct BroughtSchedule {
  std::string json;       // --schedule FILE
  std::string msccl_xml;  // --msccl-xml FILE, at the command's --bytes
  const CLI::Option* bytes = nullptr;  // the command's --bytes
  bool given() const { return !json.empty() || !msccl_xml.empty(); }
};

// Declares --schedule and --msccl-xml on `cmd`, which then exclude each other and each of
// `replaced` (the options that choose a built-in algorithm's schedule there: --algo, ...);
// --schedule also excludes --bytes (a JSON schedule has its size), --msccl-xml needs it.
void add_brought_schedule_options(CLI::App& cmd, BroughtSchedule& brought, const std::string& use,
                                  std::initializer_list<const char*> replaced);

// The schedule, read (structure checked; MSCCL XML converted) and proved by the checker.
// Throws Error with one line naming the file (and line) and the first fault.
std::shared_ptr<const Schedule> load_brought_schedule(const BroughtSchedule& brought);

}  // namespace collsim::cli
