// Each subcommand of the mgsim CLI lives in its own file and registers itself on the app.
// A command's callback throws sim::ConfigError for bad input; main() reports it (exit 2).
#pragma once

#include <CLI/CLI.hpp>

namespace mgsim::cli {

void add_topo_command(CLI::App& app);  // topo_command.cpp
void add_run_command(CLI::App& app);   // run_command.cpp

}  // namespace mgsim::cli
