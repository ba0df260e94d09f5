// Reads a topology YAML file (format in topologies/README.md) through sim::MapReader, expands
// its generators and checks the result (see topology.hpp for what is guaranteed).
#include <algorithm>
#include <cctype>
#include <functional>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>
#include <boost/range/iterator_range.hpp>

#include "sim/check.hpp"
#include "topologies/expression.hpp"
#include "topologies/presets.hpp"
#include "topologies/topology.hpp"

namespace mgsim::topologies {
namespace {

template <typename Kind, std::size_t N>
Kind parse_kind(const sim::Node& node, std::string_view what,
                const sim::NameTable<Kind, N>& kinds) {
  const std::string s = node.as_string();
  if (const std::optional<Kind> k = kinds.parse(s)) return *k;
  const std::vector<std::string> names = kinds.names();
  node.fail(fmt::format("unknown {} kind '{}'{}; valid kinds: {}", what, s,
                        sim::did_you_mean(s, names), fmt::join(names, ", ")));
}

bool is_identifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// Required keys are read as optional and checked after MapReader::finish(), so that a typo
// ("kinds:") is reported as an unknown key with its suggestion rather than as a missing "kind".
sim::Node need(const sim::MapReader& m, const std::optional<sim::Node>& n, std::string_view what,
               std::string_view key) {
  if (!n) m.fail(fmt::format("{} is missing the required key '{}'", what, key));
  return *n;
}

struct Loop {
  std::string var;
  sim::Node count;
};

// The `repeat:` and `where:` of one vertex or link entry.
struct Generator {
  std::vector<Loop> loops;
  std::optional<sim::Node> where;
};

Generator read_generator(sim::MapReader& m) {
  Generator g;
  if (auto repeat = m.optional("repeat")) {
    sim::MapReader r(*repeat, "repeat");
    for (auto& [var, count] : r.rest()) {
      if (!is_identifier(var)) count.fail(fmt::format("loop variable '{}' is not a name", var));
      g.loops.push_back({var, count});
    }
    r.finish();
  }
  g.where = m.optional("where");
  return g;
}

// A rate or a latency: a literal ("400Gb/s", "300ns"), or an integer expression over the params and
// loop variables, a space and its unit ("nic_gbps Gb/s", "(cable_ns + 50) ns"), so that a
// topology param sets it (-T name=value, a sweep's topo.name axis). Returns the value in the
// unit's base (bytes/s, ps); `what` and `example` word the error.
// How a quantity is named in an error: "duration", "300ns", "ns".
struct QuantityWords {
  std::string_view what, example, unit;
};

template <class Q>
std::int64_t quantity(const sim::Node& node, const Scope& scope, const QuantityWords& words,
                      bool (*parse)(std::string_view, Q&, std::string&),
                      std::int64_t (*base)(const Q&)) {
  const std::string text = node.as_string();
  Q value;
  std::string error;
  if (parse(text, value, error)) return base(value);
  const std::size_t space = text.find_last_of(' ');
  Q unit;
  if (space == std::string::npos || !parse("1" + text.substr(space + 1), unit, error))
    node.fail(
        fmt::format("expected a {} such as {} or 'EXPR {}' (an integer expression over the "
                    "params, a space, a unit), got '{}'",
                    words.what, words.example, words.unit, text));
  const std::int64_t k = evaluate(std::string_view(text).substr(0, space), scope, node);
  const sim::Int128 v = static_cast<sim::Int128>(k) * base(unit);
  if (v > std::numeric_limits<std::int64_t>::max() || v < std::numeric_limits<std::int64_t>::min())
    node.fail(fmt::format("{} = {} x {} overflows", text, k, text.substr(space + 1)));
  return static_cast<std::int64_t>(v);
}

sim::Duration duration_of(const sim::Node& node, const Scope& scope) {
  const sim::Duration d = sim::Duration::ps(
      quantity<sim::Duration>(node, scope, {"duration", "300ns", "ns"}, sim::parse_duration,
                              [](const sim::Duration& x) { return x.picoseconds(); }));
  if (d < sim::Duration::zero())
    node.fail(fmt::format("latency must not be negative, got {} ps", d.picoseconds()));
  return d;
}

sim::Bandwidth bandwidth_of(const sim::Node& node, const Scope& scope, std::string_view what) {
  const std::int64_t bps =
      quantity<sim::Bandwidth>(node, scope, {"bandwidth", "400Gb/s", "Gb/s"}, sim::parse_bandwidth,
                               [](const sim::Bandwidth& x) { return x.bytes_per_second(); });
  if (bps <= 0) node.fail(fmt::format("{} must be positive, got {} B/s", what, bps));
  return sim::Bandwidth::bytes_per_second(bps);
}

class Loader {
 public:
  Loader(const sim::Node& root, const std::string& default_name,
         const std::map<std::string, std::int64_t>& overrides) {
    sim::MapReader m(root, "topology");
    topo_.source = root.file();
    topo_.name = default_name;
    if (auto n = m.optional("name")) topo_.name = n->as_string();
    const std::optional<sim::Node> gpu = m.optional("gpu");
    m.optional("description");
    const std::optional<sim::Node> params = m.optional("params");
    const std::optional<sim::Node> vertices_node = m.optional("vertices");
    const std::optional<sim::Node> links = m.optional("links");
    m.finish();
    topo_.gpu_model = need(m, gpu, "topology", "gpu").as_string();
    // A hardware file named by path is found next to the topology file, as `base:` is.
    if (sim::looks_like_path(topo_.gpu_model))
      topo_.gpu_model = sim::relative_to_file(topo_.gpu_model, root.file());
    const sim::Node vertices = need(m, vertices_node, "topology", "vertices");
    read_params(params, root, overrides);
    for (const sim::Node& v : vertices.items()) read_vertex(v);
    if (links) {
      for (const sim::Node& l : links->items()) read_link(l);
    }
    if (topo_.gpus.empty()) vertices.fail("the topology has no vertex of kind gpu");
    check_connected();
  }

  Topology take() { return std::move(topo_); }

 private:
  void read_params(const std::optional<sim::Node>& params, const sim::Node& root,
                   const std::map<std::string, std::int64_t>& overrides) {
    if (params) {
      sim::MapReader p(*params, "params");
      for (auto& [name, value] : p.rest()) {
        if (!is_identifier(name)) value.fail(fmt::format("parameter '{}' is not a name", name));
        topo_.params[name] = value.as_int();
      }
      p.finish();
    }
    for (const auto& [name, value] : overrides) {
      auto it = topo_.params.find(name);
      if (it == topo_.params.end()) {
        std::vector<std::string> declared;
        for (const auto& [k, _] : topo_.params) declared.push_back(k);
        (params ? *params : root)
            .fail(fmt::format(
                "{}={} (a topology param given on the command line): the topology has no parameter "
                "'{}'{} (declared: {})",
                name, value, name, sim::did_you_mean(name, declared),
                declared.empty() ? "none" : fmt::format("{}", fmt::join(declared, ", "))));
      }
      it->second = value;
    }
    for (const auto& [name, value] : topo_.params) scope_.push(name, value);
  }

  // Calls `body` once per combination of the loop variables (the last loop innermost) for
  // which `where` holds, with the variables bound in scope_.
  void expand(const Generator& g, std::size_t depth, const std::function<void()>& body) {
    if (depth == g.loops.size()) {
      // A bound on the whole file's expansion, so that a mistyped count (-D nodes=1000000) is a
      // message instead of minutes of work and gigabytes: nvl576 needs about 12,000.
      if (++instances_ > kMaxInstances)
        g.loops.front().count.fail(
            fmt::format("the generators expand to more than {} vertices and links", kMaxInstances));
      if (!g.where || evaluate(*g.where, scope_) != 0) body();
      return;
    }
    const Loop& loop = g.loops[depth];
    const std::int64_t count = evaluate(loop.count, scope_);
    if (count <= 0)
      loop.count.fail(
          fmt::format("repeat count of '{}' must be positive, got {}", loop.var, count));
    if (instances_ + count > kMaxInstances)
      loop.count.fail(
          fmt::format("repeat count of '{}' is {}: the generators would expand to more "
                      "than {} vertices and links",
                      loop.var, count, kMaxInstances));
    scope_.push(loop.var, 0);
    for (std::int64_t i = 0; i < count; ++i) {
      scope_.set_last(i);
      expand(g, depth + 1, body);
    }
    scope_.pop();
  }

  void read_vertex(const sim::Node& node) {
    sim::MapReader m(node, "vertex");
    const std::optional<sim::Node> name_node = m.optional("name");
    const std::optional<sim::Node> kind_node = m.optional("kind");
    const Generator gen = read_generator(m);
    const std::optional<sim::Node> node_index = m.optional("node");
    const std::optional<sim::Node> group = m.optional("group");
    const std::optional<sim::Node> latency = m.optional("latency");
    m.finish();
    const sim::Node name = need(m, name_node, "vertex", "name");
    const VertexKind kind =
        parse_kind(need(m, kind_node, "vertex", "kind"), "vertex", kVertexKindNames);
    const std::string pattern = name.as_string();
    const std::string group_pattern = group ? group->as_string() : "";
    expand(gen, 0, [&] {
      VertexInfo v;
      v.name = expand_pattern(pattern, scope_, name);
      v.kind = kind;
      if (latency) v.latency = duration_of(*latency, scope_);
      v.where = node.location();
      if (node_index) {
        const std::int64_t n = evaluate(*node_index, scope_);
        if (n < 0 || n > 1'000'000) node_index->fail(fmt::format("node index {} out of range", n));
        v.node = static_cast<int>(n);
        v.in_node = true;
      }
      if (group) v.group = expand_pattern(group_pattern, scope_, *group);
      if (by_name_.count(v.name) != 0) {
        const auto& first = topo_.graph[by_name_.at(v.name)].where;
        name.fail(fmt::format("vertex '{}' is defined twice (first at {}:{}:{})", v.name,
                              first.file, first.line, first.column));
      }
      // add_vertex(g) then assign: add_vertex(property, g) goes through named_graph code that
      // GCC 12 flags as maybe-uninitialized under -fsanitize (a false positive, fatal with
      // -Werror).
      const VertexId id = boost::add_vertex(topo_.graph);
      topo_.graph[id] = std::move(v);
      by_name_.emplace(topo_.graph[id].name, id);
      if (kind == VertexKind::gpu) topo_.gpus.push_back(id);
    });
  }

  VertexId find_vertex(const std::string& name, const sim::Node& where, std::string_view end) {
    auto it = by_name_.find(name);
    if (it != by_name_.end()) return it->second;
    std::vector<std::string> names;
    names.reserve(by_name_.size());
    for (const auto& [n, _] : by_name_) names.push_back(n);
    std::sort(names.begin(), names.end());
    where.fail(fmt::format("link {} '{}': no vertex has that name{}", end, name,
                           sim::did_you_mean(name, names)));
  }

  void read_link(const sim::Node& node) {
    sim::MapReader m(node, "link");
    const std::optional<sim::Node> from_node = m.optional("from");
    const std::optional<sim::Node> to_node = m.optional("to");
    const std::optional<sim::Node> kind_node = m.optional("kind");
    const Generator gen = read_generator(m);
    const std::optional<sim::Node> lanes_node = m.optional("lanes");
    const std::optional<sim::Node> per_lane = m.optional("bandwidth_per_lane");
    const std::optional<sim::Node> total = m.optional("bandwidth");
    const std::optional<sim::Node> latency_opt = m.optional("latency");
    m.finish();
    const sim::Node from = need(m, from_node, "link", "from");
    const sim::Node to = need(m, to_node, "link", "to");
    const LinkKind kind = parse_kind(need(m, kind_node, "link", "kind"), "link", kLinkKindNames);
    const sim::Node latency_node = need(m, latency_opt, "link", "latency");
    if (per_lane && total)
      total->fail(
          "give either bandwidth (per direction, all lanes) or bandwidth_per_lane, not both");
    // Without a rate an NVLink link of a GPU runs at the GPU's (resolve_gpu_links).
    const bool gpu_rate = !per_lane && !total;
    if (gpu_rate && kind != LinkKind::nvlink)
      node.fail(
          "link needs bandwidth (per direction, all lanes) or bandwidth_per_lane (only an "
          "NVLink link of a GPU may leave it out: it then runs at the GPU's rate)");
    const std::string from_pattern = from.as_string();
    const std::string to_pattern = to.as_string();
    expand(gen, 0, [&] {
      const VertexId a = find_vertex(expand_pattern(from_pattern, scope_, from), from, "from");
      const VertexId b = find_vertex(expand_pattern(to_pattern, scope_, to), to, "to");
      if (a == b) node.fail(fmt::format("link from '{}' to itself", topo_.graph[a].name));
      std::int64_t lanes = 1;
      if (lanes_node) {
        lanes = evaluate(*lanes_node, scope_);
        if (lanes <= 0 || lanes > 1'000'000)
          lanes_node->fail(fmt::format("lanes must be positive, got {}", lanes));
      }
      if (gpu_rate && topo_.graph[a].kind != VertexKind::gpu &&
          topo_.graph[b].kind != VertexKind::gpu)
        node.fail(
            fmt::format("link '{}' - '{}' needs bandwidth or bandwidth_per_lane (only an "
                        "NVLink link of a GPU may leave it out)",
                        topo_.graph[a].name, topo_.graph[b].name));
      const sim::Bandwidth bw = per_lane ? bandwidth_of(*per_lane, scope_, "bandwidth_per_lane")
                                : total  ? bandwidth_of(*total, scope_, "bandwidth")
                                         : sim::Bandwidth();
      LinkInfo l;
      l.kind = kind;
      l.lanes = static_cast<int>(lanes);
      l.gpu_rate = gpu_rate;
      if (gpu_rate) {
        l.bandwidth = sim::Bandwidth();
      } else if (per_lane) {
        if (bw.bytes_per_second() > std::numeric_limits<std::int64_t>::max() / lanes)
          per_lane->fail("bandwidth_per_lane x lanes overflows");
        l.bandwidth = bw * lanes;
      } else {
        l.bandwidth = bw;
      }
      l.latency = duration_of(latency_node, scope_);
      l.where = node.location();
      const std::uint64_t key = pair_key(a, b);
      if (auto it = links_.find(key); it != links_.end()) {
        const auto& first = topo_.graph[it->second].where;
        node.fail(fmt::format(
            "second link between '{}' and '{}' (first at {}:{}:{}); use lanes for parallel links",
            topo_.graph[a].name, topo_.graph[b].name, first.file, first.line, first.column));
      }
      links_.emplace(key, boost::add_edge(a, b, l, topo_.graph).first);
    });
  }

  static std::uint64_t pair_key(VertexId a, VertexId b) {
    if (a > b) std::swap(a, b);
    return (static_cast<std::uint64_t>(a) << 32) | static_cast<std::uint64_t>(b);
  }

  // Every GPU must reach GPU 0 through switches, NICs, CPUs: GPUs do not forward traffic.
  void check_connected() const {
    const Graph& g = topo_.graph;
    std::vector<char> seen(boost::num_vertices(g), 0);
    std::vector<VertexId> stack{topo_.gpus.front()};
    seen[topo_.gpus.front()] = 1;
    while (!stack.empty()) {
      const VertexId v = stack.back();
      stack.pop_back();
      if (g[v].kind == VertexKind::gpu && v != topo_.gpus.front()) continue;
      for (auto [it, end] = boost::adjacent_vertices(v, g); it != end; ++it) {
        if (!seen[*it]) {
          seen[*it] = 1;
          stack.push_back(*it);
        }
      }
    }
    for (VertexId v : topo_.gpus) {
      if (!seen[v])
        throw sim::ConfigError(
            g[v].where, fmt::format("{} is not connected to {} (GPUs do not forward traffic)",
                                    g[v].name, g[topo_.gpus.front()].name));
    }
  }

  static constexpr std::int64_t kMaxInstances = 1'000'000;
  std::int64_t instances_ = 0;
  Topology topo_;
  Scope scope_;
  std::unordered_map<std::string, VertexId> by_name_;
  std::unordered_map<std::uint64_t, Graph::edge_descriptor> links_;
};

std::string stem(const std::string& path) {
  std::string base = path.substr(path.find_last_of('/') + 1);
  return base.substr(0, base.find('.'));
}

}  // namespace

Topology load_topology_text(const std::string& text, const std::string& file,
                            const std::map<std::string, std::int64_t>& overrides) {
  return Loader(sim::Node::load_string(text, file), stem(file), overrides).take();
}

Topology load_topology(const std::string& preset_or_path,
                       const std::map<std::string, std::int64_t>& overrides) {
  if (sim::looks_like_path(preset_or_path))
    return Loader(sim::Node::load_file(preset_or_path), stem(preset_or_path), overrides).take();
  const auto& presets = embedded_presets();
  auto it = presets.find(preset_or_path);
  if (it == presets.end()) {
    const std::vector<std::string> names = preset_names();
    throw sim::ConfigError(
        {preset_or_path, 0, 0},
        fmt::format("unknown topology preset '{}'{}; valid presets: {} (or give a path to a "
                    ".yaml file)",
                    preset_or_path, sim::did_you_mean(preset_or_path, names),
                    fmt::join(names, ", ")));
  }
  return load_topology_text(it->second.text, it->second.file, overrides);
}

std::vector<std::string> preset_names() {
  std::vector<std::string> out;
  for (const auto& [name, _] : embedded_presets()) out.push_back(name);
  return out;
}

}  // namespace mgsim::topologies

namespace mgsim::topologies {

void resolve_gpu_links(Topology& topo, sim::Bandwidth per_link, int links,
                       const std::string& hardware) {
  MGSIM_CHECK(per_link > sim::Bandwidth(), "a GPU link rate of {}", sim::to_string(per_link));
  Graph& g = topo.graph;
  for (VertexId gpu : topo.gpus) {
    int lanes = 0;
    bool from_gpu = false;
    for (const auto& e : boost::make_iterator_range(boost::out_edges(gpu, g))) {
      LinkInfo& l = g[e];
      if (l.kind != LinkKind::nvlink) continue;
      lanes += l.lanes;
      from_gpu |= l.gpu_rate;
      if (l.gpu_rate) l.bandwidth = per_link * l.lanes;
    }
    if (from_gpu && lanes != links)
      throw sim::ConfigError(g[gpu].where,
                             fmt::format("{} has {} NVLink lanes here and hardware {} has {} links "
                                         "(nvlink.links): the wiring and the GPU disagree",
                                         g[gpu].name, lanes, hardware, links));
  }
}

bool links_resolved(const Topology& topo) {
  for (const auto& e : boost::make_iterator_range(boost::edges(topo.graph)))
    if (topo.graph[e].bandwidth <= sim::Bandwidth()) return false;
  return true;
}

}  // namespace mgsim::topologies
