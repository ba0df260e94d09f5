#include "sim/config.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace mgsim::sim {
namespace {

std::string format_where(const SourceLocation& w) {
  if (w.line == 0) return w.file;
  return fmt::format("{}:{}:{}", w.file, w.line, w.column);
}

template <typename T, typename Parse>
T parse_unit(const Node& n, std::string_view what, Parse parse) {
  if (!n.is_scalar()) n.fail(fmt::format("expected a {} as a string with a unit", what));
  T value{};
  std::string error;
  if (!parse(n.yaml().Scalar(), value, error)) n.fail(error);
  return value;
}

}  // namespace

ConfigError::ConfigError(SourceLocation where, const std::string& message)
    : std::runtime_error(fmt::format("{}: error: {}", format_where(where), message)),
      where_(std::move(where)),
      message_(message) {}

std::string read_input_file(const std::string& path, std::string_view what) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status))
    throw ConfigError({path, 0, 0}, fmt::format("cannot open the {}: no such file", what));
  if (!std::filesystem::is_regular_file(status))
    throw ConfigError({path, 0, 0}, fmt::format("the {} is not a regular file", what));
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec || size > kMaxInputBytes)
    throw ConfigError({path, 0, 0},
                      fmt::format("the {} is larger than {} MiB", what, kMaxInputBytes >> 20));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError({path, 0, 0}, fmt::format("cannot open the {}", what));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool looks_like_path(std::string_view s) {
  return s.find('/') != std::string_view::npos || s.ends_with(".yaml") || s.ends_with(".yml");
}

std::string relative_to_file(const std::string& path, const std::string& file) {
  const std::filesystem::path p(path);
  if (p.is_absolute()) return path;
  return (std::filesystem::path(file).parent_path() / p).string();
}

Node Node::load_file(const std::string& path) { return load_string(read_input_file(path), path); }

Node Node::load_string(const std::string& text, const std::string& name) {
  auto file = std::make_shared<const std::string>(name);
  try {
    return Node(YAML::Load(text), file);
  } catch (const YAML::Exception& e) {
    throw ConfigError({name, e.mark.line + 1, e.mark.column + 1},
                      fmt::format("not valid YAML: {}", e.msg));
  }
}

SourceLocation Node::location() const {
  const YAML::Mark m = node_.IsDefined() ? node_.Mark() : YAML::Mark::null_mark();
  if (m.is_null()) return {file_ ? *file_ : std::string("<input>"), 0, 0};
  return {*file_, m.line + 1, m.column + 1};
}

void Node::fail(const std::string& message) const { throw ConfigError(location(), message); }

std::string Node::scalar(std::string_view expected) const {
  if (!node_.IsScalar()) {
    const char* got = node_.IsMap() ? "a mapping" : node_.IsSequence() ? "a list" : "nothing";
    fail(fmt::format("expected {}, got {}", expected, got));
  }
  return node_.Scalar();
}

std::string Node::as_string() const { return scalar("a string"); }

std::int64_t Node::as_int() const {
  const std::string s = scalar("an integer");
  std::int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size())
    fail(fmt::format("expected an integer, got '{}'", s));
  return v;
}

double Node::as_double() const {
  const std::string s = scalar("a number");
  double v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size())
    fail(fmt::format("expected a number, got '{}'", s));
  return v;
}

bool Node::as_bool() const {
  const std::string s = scalar("true or false");
  if (s == "true") return true;
  if (s == "false") return false;
  fail(fmt::format("expected true or false, got '{}'", s));
}

Bytes Node::as_bytes() const { return parse_unit<Bytes>(*this, "size", parse_bytes); }
Bandwidth Node::as_bandwidth() const {
  return parse_unit<Bandwidth>(*this, "bandwidth", parse_bandwidth);
}
Duration Node::as_duration() const {
  return parse_unit<Duration>(*this, "duration", parse_duration);
}
Frequency Node::as_frequency() const {
  return parse_unit<Frequency>(*this, "frequency", parse_frequency);
}
Power Node::as_power() const { return parse_unit<Power>(*this, "power", parse_power); }
Energy Node::as_energy() const { return parse_unit<Energy>(*this, "energy", parse_energy); }

std::int64_t Node::as_positive_int(std::string_view what) const {
  const std::int64_t v = as_int();
  if (v <= 0) fail(fmt::format("{} must be positive, got {}", what, v));
  return v;
}

Bytes Node::as_positive_bytes(std::string_view what) const {
  const Bytes v = as_bytes();
  if (v.count() <= 0) fail(fmt::format("{} must be positive, got {}", what, as_string()));
  return v;
}

Bandwidth Node::as_positive_bandwidth(std::string_view what) const {
  const Bandwidth v = as_bandwidth();
  if (v.bytes_per_second() <= 0)
    fail(fmt::format("{} must be positive, got {}", what, as_string()));
  return v;
}

std::vector<Node> Node::items() const {
  if (!node_.IsSequence()) fail("expected a list");
  std::vector<Node> out;
  out.reserve(node_.size());
  for (const auto& item : node_) out.push_back(child(item));
  return out;
}

MapReader::MapReader(const Node& node, std::string what) : node_(node), what_(std::move(what)) {
  if (!node.is_map()) node.fail(fmt::format("expected a mapping for {}", what_));
  for (const auto& kv : node.yaml()) {
    const Node key = node.child(kv.first);
    const std::string name = key.as_string();
    for (const auto& [seen, _] : entries_) {
      if (seen == name) key.fail(fmt::format("key '{}' appears twice in {}", name, what_));
    }
    entries_.emplace_back(name, node.child(kv.second));
    keys_.push_back(key);
  }
  used_.assign(entries_.size(), false);
}

std::optional<Node> MapReader::optional(std::string_view key) {
  valid_.emplace_back(key);
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].first == key) {
      used_[i] = true;
      return entries_[i].second;
    }
  }
  return std::nullopt;
}

Node MapReader::required(std::string_view key) {
  auto n = optional(key);
  if (!n) node_.fail(fmt::format("{} is missing the required key '{}'", what_, key));
  return *n;
}

bool MapReader::has(std::string_view key) {
  valid_.emplace_back(key);
  return std::any_of(entries_.begin(), entries_.end(),
                     [&](const auto& e) { return e.first == key; });
}

std::vector<std::pair<std::string, Node>> MapReader::rest() {
  std::vector<std::pair<std::string, Node>> out;
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    if (!used_[i]) {
      used_[i] = true;
      out.push_back(entries_[i]);
    }
  }
  return out;
}

void MapReader::finish() const {
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    if (used_[i]) continue;
    const std::string& key = entries_[i].first;
    if (std::find(valid_.begin(), valid_.end(), key) != valid_.end()) continue;
    keys_[i].fail(fmt::format("unknown key '{}' in {}{}", key, what_, did_you_mean(key, valid_)));
  }
}

}  // namespace mgsim::sim
