#include "sim/cli/commands.hpp"

namespace mgsim::cli {

void add_topo_command(CLI::App& app) { app.add_subcommand("topo", "(to come)"); }

}  // namespace mgsim::cli
