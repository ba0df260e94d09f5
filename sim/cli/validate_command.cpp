#include "sim/cli/commands.hpp"

namespace mgsim::cli {

void add_validate_command(CLI::App& app) { app.add_subcommand("validate", "(to come)"); }

}  // namespace mgsim::cli
