// validate/cli/launch_options.cpp — the options run, calibrate and validate share for starting
// their workers: the deadline, and where MPI puts the ranks (see validate/launcher.hpp).
#include "validate/cli/commands.hpp"

namespace collsim::cli {

void add_launch_options(CLI::App& cmd, LaunchOptions& launch) {
  cmd.add_option("--timeout", launch.timeout_s, "Seconds before a hung or dead rank ends the run")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd.add_option("--hostfile", launch.hostfile,
                 "mpi, mpi+cuda: Open MPI hostfile spreading the ranks over nodes (default: all on this node)");
  cmd.add_option("--mpirun-arg", launch.mpirun_args,
                 "mpi, mpi+cuda: one more argument for mpirun (repeat it: --mpirun-arg=--mca --mpirun-arg=btl ...)")
      ->allow_extra_args(false);
}

}  // namespace collsim::cli
