// cli/commands.hpp — the subcommands of collsim, one file each (cli/cmd_<name>.cpp), and the
// options that only the executing ones (run, calibrate, validate) share. main.cpp registers
// them; nothing below cli/ knows the command line exists.
#pragma once

#include <CLI/CLI.hpp>

#include "execute/launcher.hpp"

namespace collsim::cli {

void add_predict_command(CLI::App& app);
void add_explain_command(CLI::App& app);
void add_schedule_commands(CLI::App& app);  // schedule, check, algorithms
void add_topo_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_calibrate_command(CLI::App& app);
void add_validate_command(CLI::App& app);
void add_sweep_command(CLI::App& app);  // sweep and the hidden sweep-worker

// --timeout, --hostfile and --mpirun-arg, the same for run, calibrate and validate
// (launch.timeout_s holds the command's default on entry).
void add_launch_options(CLI::App& cmd, LaunchOptions& launch);

// --backend NAME, its help listing the backends from the table (only those that calibrate
// where `calibrating`). Required unless the command can read measurements instead
// (calibrate and validate take --measured FILE).
CLI::Option* add_backend_option(CLI::App& cmd, std::string& backend, bool calibrating, bool required = true);

}  // namespace collsim::cli
