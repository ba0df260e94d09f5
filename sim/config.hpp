// Typed, position-aware reading of YAML configuration (hardware, topologies, schedules).
//
// Every error names the file, line and column (1-based) and what was expected. Mappings are
// read through MapReader, which rejects unknown and duplicate keys and suggests the nearest
// valid key, so that a typo is never silently replaced by a default.
//
// Errors are thrown as ConfigError; the loaders of each layer let it through and the CLI turns
// it into one message and exit code 2.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "sim/names.hpp"
#include "sim/units.hpp"

namespace mgsim::sim {

struct SourceLocation {
  std::string file;
  int line = 0;    // 1-based; 0 when unknown
  int column = 0;  // 1-based; 0 when unknown
};

class ConfigError : public std::runtime_error {
 public:
  ConfigError(SourceLocation where, const std::string& message);
  const SourceLocation& where() const { return where_; }
  const std::string& message() const { return message_; }

 private:
  SourceLocation where_;
  std::string message_;
};

// A run went past one of its limits (ops, events, simulated time, wall time, memory): the input
// may be fine, the run was stopped. The CLI exits 5 for it (2 for other ConfigErrors); Python
// raises mgsim.LimitError.
class LimitError : public ConfigError {
 public:
  using ConfigError::ConfigError;
};

// The whole text of an input file `path` (`what` names it in messages): only a regular file
// (not a device, a pipe or a directory, whatever a link points to) of at most kMaxInputBytes;
// a ConfigError at the file otherwise.
inline constexpr std::uintmax_t kMaxInputBytes = std::uintmax_t{64} << 20;
std::string read_input_file(const std::string& path, std::string_view what = "file");

// Whether a "preset or path" argument names a file: it holds a '/' or ends in .yaml / .yml.
bool looks_like_path(std::string_view s);
// A path named inside input file `file`: a relative one is taken from that file's directory, not
// from the working directory (a file that is not on disk, such as "<schedule>", has none).
std::string relative_to_file(const std::string& path, const std::string& file);

// A YAML node together with the name of the file it came from.
class Node {
 public:
  Node() = default;
  Node(const YAML::Node& node, std::shared_ptr<const std::string> file)
      : node_(node), file_(std::move(file)) {}

  // Loads a whole document. Syntax errors become ConfigError with the parser's position.
  static Node load_file(const std::string& path);
  static Node load_string(const std::string& text, const std::string& name);

  SourceLocation location() const;
  [[noreturn]] void fail(const std::string& message) const;
  const std::string& file() const { return *file_; }
  // A node of the same file (for children found through yaml()).
  Node child(const YAML::Node& node) const { return Node(node, file_); }
  const YAML::Node& yaml() const { return node_; }

  bool is_map() const { return node_.IsMap(); }
  bool is_sequence() const { return node_.IsSequence(); }
  bool is_scalar() const { return node_.IsScalar(); }
  bool is_null() const { return !node_.IsDefined() || node_.IsNull(); }

  std::string as_string() const;
  std::int64_t as_int() const;
  double as_double() const;
  bool as_bool() const;
  Bytes as_bytes() const;
  Bandwidth as_bandwidth() const;
  Duration as_duration() const;
  Frequency as_frequency() const;
  Power as_power() const;
  Energy as_energy() const;
  // A strictly positive integer, size or rate (zero or negative is an error naming `what`).
  std::int64_t as_positive_int(std::string_view what) const;
  Bytes as_positive_bytes(std::string_view what) const;
  Bandwidth as_positive_bandwidth(std::string_view what) const;

  // The elements of a sequence; an error if this node is not one.
  std::vector<Node> items() const;

 private:
  std::string scalar(std::string_view expected) const;
  YAML::Node node_;
  std::shared_ptr<const std::string> file_;
};

// Reads one mapping key by key. Each key asked for (required, optional or has) is remembered as
// valid; finish() then rejects any key nobody asked for.
class MapReader {
 public:
  // `what` names the mapping in messages ("link", "topology"). Errors if `node` is not a map
  // or holds the same key twice.
  MapReader(const Node& node, std::string what);

  Node required(std::string_view key);
  std::optional<Node> optional(std::string_view key);
  bool has(std::string_view key);
  // Every entry whose key was not asked for, in file order, marking them as consumed; for
  // mappings whose keys are the user's names (params, presets' overrides).
  std::vector<std::pair<std::string, Node>> rest();
  const Node& node() const { return node_; }
  [[noreturn]] void fail(const std::string& message) const { node_.fail(message); }

  // REQUIRES: called once all valid keys have been asked for.
  void finish() const;

 private:
  Node node_;
  std::string what_;
  std::vector<std::pair<std::string, Node>> entries_;
  std::vector<Node> keys_;  // parallel to entries_, for positions in messages
  std::vector<bool> used_;
  std::vector<std::string> valid_;
};

}  // namespace mgsim::sim
