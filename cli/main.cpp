// mgsim: the command line. The only code that reads argv.
//
// Exit codes: 0 success; 1 the simulation ran but a check failed (e.g. deadlock);
// 2 bad input or usage (file:line:column: error: ...); 3 an internal error (a bug in mgsim);
// 4 an output file could not be written; 5 a run passed one of its limits (--max-*).
#include <exception>
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "sim/check.hpp"
#include "sim/config.hpp"

namespace mgsim::cli {

int report_failure(const std::exception_ptr& failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const CheckFailed& e) {
    std::cerr << e.what() << "\n";
    return 1;
  } catch (const OutputFailed& e) {
    std::cerr << e.what() << "\n";
    return 4;
  } catch (const sim::LimitError& e) {
    std::cerr << e.what() << "\n";
    return 5;
  } catch (const sim::ConfigError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const sim::InternalError& e) {
    std::cerr << e.what() << "\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 3;
  }
}

}  // namespace mgsim::cli

int main(int argc, char** argv) {
  CLI::App app{"mgsim: a cycle-approximate simulator of multi-GPU nodes and fabrics"};
  app.require_subcommand(1);
  mgsim::cli::add_topo_command(app);
  mgsim::cli::add_run_command(app);
  mgsim::cli::add_sweep_command(app);
  mgsim::cli::add_bound_command(app);
  mgsim::cli::add_check_command(app);
  mgsim::cli::add_calibrate_command(app);
  mgsim::cli::add_validate_command(app);
  mgsim::cli::add_serve_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  } catch (...) {
    return mgsim::cli::report_failure(std::current_exception());
  }
  return 0;
}
