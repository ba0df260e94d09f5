#include "sim/cli/commands.hpp"

namespace mgsim::cli {

void add_calibrate_command(CLI::App& app) { app.add_subcommand("calibrate", "(to come)"); }

}  // namespace mgsim::cli
