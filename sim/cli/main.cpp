// sim/cli/main.cpp — the collsim command line. Every error, from CLI11 or from collsim,
// becomes one line on stderr and exit code 2.
#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>

#include "collectives/error.hpp"
#include "sim/cli/options.hpp"
#include "validate/cli/commands.hpp"

namespace {

int fail(const std::string& message) {
  std::string line = message;
  for (char& c : line)
    if (c == '\n') c = ' ';
  std::cerr << "collsim: error: " << line << '\n';
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"collsim: predict, simulate, check and explain collective communication algorithms.\n"
               "One schedule per algorithm feeds the closed forms, the engines and the pictures."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "collsim 0.1.0");
  collsim::cli::add_predict_command(app);
  collsim::cli::add_explain_command(app);
  collsim::cli::add_schedule_commands(app);
  collsim::cli::add_topo_command(app);
  collsim::cli::add_run_command(app);        // validate/: real execution
  collsim::cli::add_calibrate_command(app);
  collsim::cli::add_validate_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return fail(std::string(e.what()) + " (see collsim --help)");
  } catch (const collsim::Error& e) {
    return fail(e.what());
  } catch (const std::bad_alloc&) {
    return fail("out of memory (try fewer ranks or bytes)");
  }
  return 0;
}
