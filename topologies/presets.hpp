// The topology presets compiled into the library, so `mgsim topo hgx-h200-8` works from any
// working directory and after the source tree moves. CMake embeds every
// topologies/presets/*.yaml into a generated presets_data.cpp at configure time (and re-runs
// when one changes). Internal to the topologies layer.
#pragma once

#include <map>
#include <string>

namespace mgsim::topologies {

struct EmbeddedPreset {
  std::string file;  // "topologies/presets/<name>.yaml", for messages
  std::string text;
};

// Preset name -> text. Defined in the generated presets_data.cpp.
const std::map<std::string, EmbeddedPreset>& embedded_presets();

}  // namespace mgsim::topologies
