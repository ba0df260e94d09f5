#include "sim/cli/commands.hpp"

namespace mgsim::cli {

void add_bound_command(CLI::App& app) { app.add_subcommand("bound", "(to come)"); }

}  // namespace mgsim::cli
