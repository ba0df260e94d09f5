// Every schedule under examples/ (recursively; not the sweep files, *.sweep.yaml, nor the
// hardware files, *.hw.yaml), sorted, for the
// tests that check a property of all of them (the roofline's bound, determinism).
#pragma once

#include <algorithm>
#include <filesystem>
#include <vector>

namespace mgsim::test {

inline bool is_schedule(const std::filesystem::path& p) {
  return p.extension() == ".yaml" && !p.string().ends_with(".sweep.yaml") &&
         !p.string().ends_with(".hw.yaml");
}

inline std::vector<std::filesystem::path> example_files() {
  std::vector<std::filesystem::path> files;
  for (const auto& f : std::filesystem::recursive_directory_iterator(MGSIM_EXAMPLES_DIR))
    if (is_schedule(f.path())) files.push_back(f.path());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace mgsim::test
