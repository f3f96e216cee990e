// cli/launch_options.cpp — the options run, calibrate and validate share for starting
// their workers: the deadline, and where MPI puts the ranks (see execute/launcher.hpp).
#include "cli/commands.hpp"
#include "cli/options.hpp"

#include <fmt/format.h>

#include "execute/backends.hpp"

namespace collsim::cli {

CLI::Option* add_backend_option(CLI::App& cmd, std::string& backend, bool calibrating, bool required) {
  std::string help = "Backend.";
  for (const BackendEntry& b : backend_table())
    if (b.calibrates || !calibrating) help += fmt::format(" {}: {};", b.name, b.help);
  help.back() = '.';
  if (!required) help += " Or --measured FILE instead.";
  return cmd.add_option("--backend", backend, help)->required(required);
}

void add_launch_options(CLI::App& cmd, LaunchOptions& launch) {
  cmd.add_option("--timeout", launch.timeout_s,
                 launch.timeout_s > 0 ? "Seconds without progress before a hung or dead rank ends the run"
                                      : "Seconds without progress before a hung or dead rank ends the run (default: 60 "
                                        "plus 1 per 50 MB the ranks move per iteration)")
      ->default_str(launch.timeout_s > 0 ? fmt::format("{:g}", launch.timeout_s) : "")
      ->check(positive_number());
  cmd.add_option("--hostfile", launch.hostfile,
                 "mpi, mpi+cuda: Open MPI hostfile spreading the ranks over nodes (default: all on this node)");
  cmd.add_option("--mpirun-arg", launch.mpirun_args,
                 "mpi, mpi+cuda: one more argument for mpirun (repeat it: --mpirun-arg=--mca --mpirun-arg=btl ...)")
      ->allow_extra_args(false);
}

}  // namespace collsim::cli
