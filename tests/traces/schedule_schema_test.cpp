// traces/schedule.schema.json covers the format: every key of every example (host and kernels)
// is allowed by the schema at its place, and enumerated values (via, dtype, ...) are in the
// schema's enums. A structural walk of the YAML beside the schema, following $ref, oneOf,
// properties, additionalProperties and items: enough to catch a key added to the parser but not
// to the schema, without a JSON Schema library.
#include <filesystem>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>
#include <catch2/catch.hpp>

#include "tests/traces/examples.hpp"

namespace {

class KeyChecker {
 public:
  explicit KeyChecker(YAML::Node schema) : root_(std::move(schema)) {}

  // Problems found under `node` against `schema`, each with its path.
  void check(const YAML::Node& node, YAML::Node schema, const std::string& path,
             std::vector<std::string>& errors) const {
    schema = resolve(schema);
    if (schema["oneOf"]) {
      for (const auto& alt : schema["oneOf"]) {
        std::vector<std::string> e;
        check(node, alt, path, e);
        if (e.empty()) return;
      }
      errors.push_back(path + ": matches no alternative of the schema");
      return;
    }
    if (node.IsMap()) {
      const YAML::Node props = schema["properties"];
      const YAML::Node extra = schema["additionalProperties"];
      if (!props && !(extra && extra.IsMap())) {
        errors.push_back(path + ": a mapping where the schema expects none");
        return;
      }
      for (const auto& kv : node) {
        const std::string key = kv.first.as<std::string>();
        if (props && props[key]) {
          check(kv.second, props[key], path + "." + key, errors);
        } else if (extra && extra.IsMap()) {
          check(kv.second, extra, path + "." + key, errors);
        } else {
          errors.push_back(path + ": key '" + key + "' is not in the schema");
        }
      }
    } else if (node.IsSequence()) {
      if (!schema["items"]) {
        errors.push_back(path + ": a list where the schema expects none");
        return;
      }
      for (std::size_t i = 0; i < node.size(); ++i)
        check(node[i], schema["items"], path + "[" + std::to_string(i) + "]", errors);
    } else if (node.IsScalar() && schema["enum"]) {
      for (const auto& v : schema["enum"])
        if (v.as<std::string>() == node.Scalar()) return;
      errors.push_back(path + ": '" + node.Scalar() + "' is not in the schema's enum");
    }
  }

  const YAML::Node& root() const { return root_; }

 private:
  YAML::Node resolve(YAML::Node schema) const {
    while (schema["$ref"]) {
      const std::string ref = schema["$ref"].as<std::string>();  // "#/$defs/name"
      REQUIRE(ref.rfind("#/$defs/", 0) == 0);
      schema = root_["$defs"][ref.substr(8)];
      REQUIRE(schema.IsDefined());
    }
    return schema;
  }

  YAML::Node root_;
};

}  // namespace

TEST_CASE("every example's keys are in the schedule's JSON Schema") {
  const std::filesystem::path src(MGSIM_SOURCE_DIR);
  const KeyChecker checker(YAML::LoadFile((src / "traces/schedule.schema.json").string()));
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(src / "examples")) {
    if (!mgsim::test::is_schedule(entry.path())) continue;
    ++files;
    std::vector<std::string> errors;
    checker.check(YAML::LoadFile(entry.path().string()), checker.root(), "", errors);
    INFO(entry.path().string());
    CHECK(errors == std::vector<std::string>{});
  }
  // Six host-level examples and the kernel examples: the walk found them.
  CHECK(files >= 9);
}

TEST_CASE("the schema checker rejects what the parser rejects") {
  const KeyChecker checker(
      YAML::LoadFile(std::string(MGSIM_SOURCE_DIR) + "/traces/schedule.schema.json"));
  std::vector<std::string> errors;
  // A misspelt op key inside a kernel role and a `via` outside the enum.
  checker.check(YAML::Load(R"(kernels:
  k: {grid: 1, roles: [{name: a, ops: [{mmaa: {m: 1, n: 1, k: 1}}, {load: {bytes: 1, via: dma}}]}]}
streams: [{name: s, ops: [{launch: k}]}]
)"),
                checker.root(), "", errors);
  CHECK(errors == std::vector<std::string>{
                      ".kernels.k.roles[0].ops[0]: key 'mmaa' is not in the schema",
                      ".kernels.k.roles[0].ops[1].load.via: 'dma' is not in the schema's enum"});
}
