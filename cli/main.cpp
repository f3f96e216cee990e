// cli/main.cpp — the collsim program: registers the subcommands and turns every error, from
// the parser, from collsim or from the system, into one line on stderr and exit code 2.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.hpp"
#include "base/interrupt.hpp"
#include "cli/commands.hpp"
#include "cli/huge_pages.hpp"

namespace {

// The one line every error becomes: "collsim: error: ...". 600 characters: a size guard names
// every algorithm that fits before the way out, which must stay on the line.
std::string error_line(const std::string& message) {
  return "collsim: error: " + collsim::one_line(message, 600) + "\n";
}

int fail(const std::string& message) {
  std::cerr << error_line(message);
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

// "--ranks: needs a value". CLI11 2.1's ArgumentMismatch carries only its text, which names
// the option first in every form it raises ("--ranks: 1 required UINT missing", "--route: At
// least 2 required but received 1").
std::string argument_mismatch(const std::string& what) {
  const std::size_t colon = what.find(':');
  const std::string option = what.substr(0, colon);
  if (what.find("missing") != std::string::npos) return option + ": needs a value";
  return fmt::format("{}: wrong number of values ({})", option, colon == std::string::npos ? "" : what.substr(colon + 2));
}

// CLI11's errors put as collsim says things, then where the help is: the app's failure_message
// (its subcommands inherit it). What the parser knows is read from the app, not its wording.
std::string parse_failure(const CLI::App* app, const CLI::Error& e) {
  const std::vector<CLI::App*> named = app->get_subcommands();  // the one the parse reached, if any
  const CLI::App* sub = named.empty() ? nullptr : named.front();
  const std::string help = sub ? fmt::format("see collsim {} --help", sub->get_name()) : "see collsim --help";
  const std::vector<std::string> left = app->remaining();  // words the top level did not take
  if (dynamic_cast<const CLI::RequiredError*>(&e) && !sub) {  // require_subcommand(1): none named
    if (!left.empty() && left.front()[0] != '-') return error_line(unknown_subcommand(*app, left.front()));
    return error_line("give a subcommand: predict, explain, schedule, check, algorithms, topo, run, calibrate, "
                      "validate or sweep (see collsim --help)");
  }
  std::string what = e.what();
  if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
    const std::vector<std::string> extra = left.empty() && sub ? sub->remaining() : left;
    what = extra.size() == 1 ? fmt::format("unexpected argument '{}'", extra.front())
                             : fmt::format("unexpected arguments: {}", fmt::join(extra, " "));
  }
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e)) what = argument_mismatch(what);
  return error_line(fmt::format("{} ({})", what, help));
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
  app.failure_message(parse_failure);  // before the subcommands, which copy it
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
    app.exit(e);  // prints parse_failure's line
    return 2;
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
