// validate/cli/commands.hpp — the subcommands of collsim that execute schedules for real:
// run, calibrate, validate. Registered by sim/cli/main.cpp.
#pragma once

#include <CLI/CLI.hpp>

#include "validate/launcher.hpp"

namespace collsim::cli {

// --timeout, --hostfile and --mpirun-arg, the same for run, calibrate and validate
// (launch.timeout_s holds the command's default on entry).
void add_launch_options(CLI::App& cmd, LaunchOptions& launch);

void add_run_command(CLI::App& app);
void add_calibrate_command(CLI::App& app);
void add_validate_command(CLI::App& app);

}  // namespace collsim::cli
