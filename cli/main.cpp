// cli/main.cpp — the collsim program: registers the subcommands and turns every error, from
// the parser, from collsim or from the system, into one line on stderr and exit code 2.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <new>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "base/error.hpp"
#include "base/interrupt.hpp"
#include "cli/commands.hpp"
#include "cli/huge_pages.hpp"

namespace {

// 600 characters: a size guard names every algorithm that fits before the way out, which must
// stay on the line.
int fail(const std::string& message) {
  std::cerr << "collsim: error: " << collsim::one_line(message, 600) << '\n';
  return 2;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The subcommand the user named (or meant), for "see collsim NAME --help".
const CLI::App* named_subcommand(const CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
      if (sub->get_name() == argv[i]) return sub;
  return nullptr;
}

// `collsim prdict`: the nearest subcommand, instead of the parser's "A subcommand is required".
std::string unknown_subcommand(const CLI::App& app, const std::string& word) {
  std::string best;
  std::size_t best_distance = ~std::size_t(0);
  std::string all;
  // hidden subcommands (sweep-worker, the sweep's own) are neither suggested nor listed
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* c) { return !c->get_group().empty(); })) {
    const std::size_t d = edit_distance(word, sub->get_name());
    if (d < best_distance) best_distance = d, best = sub->get_name();
    all += (all.empty() ? "" : ", ") + sub->get_name();
  }
  if (best_distance <= 3) return fmt::format("unknown subcommand '{}': did you mean '{}'? (see collsim --help)", word, best);
  return fmt::format("unknown subcommand '{}' (expected one of: {})", word, all);
}

// The parser's words, put as collsim says things.
std::string parse_error_line(const CLI::ParseError& e, const CLI::App& app, int argc, char** argv) {
  const CLI::App* sub = named_subcommand(app, argc, argv);
  const std::string help = sub ? fmt::format("see collsim {} --help", sub->get_name()) : "see collsim --help";
  std::string what = e.what();
  if (dynamic_cast<const CLI::RequiredError*>(&e) && what == "A subcommand is required") {
    if (argc > 1 && argv[1][0] != '-') return unknown_subcommand(app, argv[1]);
    return "give a subcommand: predict, explain, schedule, check, algorithms, topo, run, calibrate, validate or sweep "
           "(see collsim --help)";
  }
  if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
    const std::string prefix = "The following argument was not expected: ";
    const std::string prefixes = "The following arguments were not expected: ";
    if (what.rfind(prefix, 0) == 0) what = "unexpected argument '" + what.substr(prefix.size()) + "'";
    else if (what.rfind(prefixes, 0) == 0) what = "unexpected arguments: " + what.substr(prefixes.size());
  }
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e)) {
    const std::size_t colon = what.find(':');
    const std::string name = what.substr(0, colon);
    what = what.find("missing") != std::string::npos ? name + ": needs a value"
                                                       : fmt::format("{}: wrong number of values ({})", name,
                                                                     colon == std::string::npos ? "" : what.substr(colon + 2));
  }
  return fmt::format("{} ({})", what, help);
}

// predict and check are the subcommands that hold schedules of millions of transfers, where
// huge pages pay (cli/huge_pages.hpp); a restart costs a process start (mostly the dynamic
// loader), which every other subcommand is spared.
bool holds_large_schedules(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (argv[i][0] != '-') return std::string(argv[i]) == "predict" || std::string(argv[i]) == "check";
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (holds_large_schedules(argc, argv)) collsim::cli::restart_with_huge_pages(argv);
  collsim::install_interrupt_handler();  // Ctrl-C: children ended, temporary files removed, exit 2
  CLI::App app{"collsim: predict, simulate, check, explain and execute collective communication algorithms.\n"
               "One schedule per algorithm feeds the closed forms, the engines, the executors and the pictures."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "collsim 0.1.0");
  collsim::cli::add_predict_command(app);
  collsim::cli::add_explain_command(app);
  collsim::cli::add_schedule_commands(app);
  collsim::cli::add_topo_command(app);
  collsim::cli::add_run_command(app);
  collsim::cli::add_calibrate_command(app);
  collsim::cli::add_validate_command(app);
  collsim::cli::add_sweep_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return fail(parse_error_line(e, app, argc, argv));
  } catch (const collsim::Error& e) {
    return fail(e.what());
  } catch (const std::bad_alloc&) {
    return fail("out of memory: the request needs more memory than this machine has (try fewer ranks or sizes)");
  } catch (const std::filesystem::filesystem_error& e) {
    return fail(fmt::format("{}: {}", e.path1().string(), e.code().message()));
  } catch (const std::exception& e) {  // a bug: still one line and exit 2, never an abort
    return fail(fmt::format("internal error: {} (please report it with the command line)", e.what()));
  }
  return 0;
}
