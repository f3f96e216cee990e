// validate/cli/commands.hpp — the subcommands of collsim that execute schedules for real:
// run, calibrate, validate. Registered by sim/cli/main.cpp.
#pragma once

#include <CLI/CLI.hpp>

namespace collsim::cli {

void add_run_command(CLI::App& app);
void add_calibrate_command(CLI::App& app);
void add_validate_command(CLI::App& app);

}  // namespace collsim::cli
