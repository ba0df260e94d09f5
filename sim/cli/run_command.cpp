#include "sim/cli/commands.hpp"

namespace mgsim::cli {

void add_run_command(CLI::App& app) { app.add_subcommand("run", "(to come)"); }

}  // namespace mgsim::cli
