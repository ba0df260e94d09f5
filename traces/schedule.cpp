#include "traces/schedule.hpp"

#include <algorithm>
#include <array>
#include <set>

#include <fmt/format.h>

#include "sim/names.hpp"
#include "traces/nccl/library.hpp"

namespace mgsim::traces {
namespace {

constexpr auto kCollectiveNames = sim::name_table<CollectiveKind>({
    {CollectiveKind::all_reduce, "all_reduce"},
    {CollectiveKind::all_gather, "all_gather"},
    {CollectiveKind::reduce_scatter, "reduce_scatter"},
    {CollectiveKind::all_to_all, "all_to_all"},
    {CollectiveKind::broadcast, "broadcast"},
    {CollectiveKind::reduce, "reduce"},
    {CollectiveKind::send, "send"},
    {CollectiveKind::recv, "recv"},
});

constexpr auto kAlgorithmNames = sim::name_table<CollectiveAlgorithm>({
    {CollectiveAlgorithm::automatic, "auto"},
    {CollectiveAlgorithm::ring, "ring"},
    {CollectiveAlgorithm::nvls, "nvls"},
    {CollectiveAlgorithm::ideal_ring, "ideal_ring"},
});

constexpr auto kProtocolNames = sim::name_table<nccl::Protocol>({
    {nccl::Protocol::ll, "ll"},
    {nccl::Protocol::ll128, "ll128"},
    {nccl::Protocol::simple, "simple"},
});

// Names nccl-tests prints in its `type` column, with the aliases people write.
struct DtypeName {
  const char* alias;
  const char* printed;
  std::int64_t size;
};
constexpr DtypeName kDtypes[] = {
    {"float", "float", 4},   {"fp32", "float", 4},  {"f32", "float", 4},
    {"half", "half", 2},     {"fp16", "half", 2},   {"bfloat16", "bfloat16", 2},
    {"bf16", "bfloat16", 2}, {"int8", "int8", 1},   {"uint8", "uint8", 1},
    {"fp8", "fp8", 1},       {"int32", "int32", 4}, {"int64", "int64", 8},
    {"double", "double", 8}, {"fp64", "double", 8},
};

// Whether `ops` never name a rank: no copy to or from a peer, no wait on another rank's event, no
// rooted or point-to-point collective (an expression reading `rank`, and a kernel that is not
// local, are caught apart).
bool addresses_no_rank(const std::vector<Op>& ops) {
  return std::ranges::all_of(ops, [](const Op& op) {
    return std::visit(
        [](const auto& what) {
          using T = std::decay_t<decltype(what)>;
          if constexpr (std::is_same_v<T, MemcpyOp>) return !what.src && !what.dst;
          if constexpr (std::is_same_v<T, WaitOp>) return !what.event.rank;
          if constexpr (std::is_same_v<T, CollectiveOp>)
            return what.kind == CollectiveKind::all_reduce ||
                   what.kind == CollectiveKind::all_gather ||
                   what.kind == CollectiveKind::reduce_scatter ||
                   what.kind == CollectiveKind::all_to_all;
          if constexpr (std::is_same_v<T, GroupOp>) return false;
          if constexpr (std::is_same_v<T, ForOp> || std::is_same_v<T, GraphOp>)
            return addresses_no_rank(what.body);
          return true;
        },
        op.what);
  });
}

class Parser {
 public:
  explicit Parser(Schedule& s) : s_(s) {}

  void parse(const sim::Node& root, const sim::Node* given_buffers) {
    if (root.is_null()) root.fail("the schedule is empty");
    sim::MapReader top(root, "schedule");
    s_.params_where = root.location();
    if (auto params = top.optional("params")) parse_params(*params);
    // `world` may use params only: it decides what `rank` ranges over.
    if (auto world = top.optional("world")) s_.world = Expr::parse(*world, scope_);
    if (auto sweep = top.optional("sweep")) parse_sweep(*sweep);
    s_.rank_slot = scope_.add("rank");
    s_.world_slot = scope_.add("world");
    max_slots_ = scope_.size();
    if (auto power = top.optional("power")) parse_power(*power);
    // Buffers before the ops that name them; a problem's before the schedule's own.
    if (given_buffers) parse_buffers(*given_buffers, true);
    if (auto buffers = top.optional("buffers")) parse_buffers(*buffers, false);
    // Kernels before streams, so that a launch can check the kernel's name and arguments.
    if (auto kernels = top.optional("kernels")) {
      parse_kernels_into(*kernels, scope_, s_.kernels);
      check_reserved(*kernels);
    }
    parse_streams(top.required("streams"));
    if (s_.nccl) nccl::add_kernels(s_.kernels);
    top.finish();
    s_.slot_count = max_slots_;
    s_.same_program =
        !scope_.read(s_.rank_slot) &&
        std::ranges::all_of(s_.kernels.kernels, [](const KernelDef& k) { return k.local; }) &&
        std::ranges::all_of(s_.streams,
                            [](const StreamDef& d) { return !d.host && addresses_no_rank(d.ops); });
    for (const auto& [name, where] : waited_) {
      if (recorded_.count(name)) continue;
      std::vector<std::string> candidates;
      for (int r : recorded_) candidates.push_back(s_.event_names[static_cast<std::size_t>(r)]);
      const std::string near =
          sim::nearest_name(s_.event_names[static_cast<std::size_t>(name)], candidates);
      throw sim::ConfigError(
          where, fmt::format("no stream records event '{}'{}",
                             s_.event_names[static_cast<std::size_t>(name)],
                             near.empty() ? "" : fmt::format("; did you mean '{}'?", near)));
    }
  }

 private:
  // NCCL's kernels join the schedule's (nccl/library.hpp): their names are the library's.
  void check_reserved(const sim::Node& kernels) const {
    const auto reserved = [](const std::string& name) {
      return name.starts_with(nccl::kReservedPrefix);
    };
    for (const KernelDef& k : s_.kernels.kernels)
      if (reserved(k.name))
        throw sim::ConfigError(k.where, fmt::format("kernel name '{}': names starting '{}' are "
                                                    "NCCL's kernels (docs/NCCL.md)",
                                                    k.name, nccl::kReservedPrefix));
    for (const std::string& flag : s_.kernels.flag_names)
      if (reserved(flag))
        throw sim::ConfigError(kernels.location(),
                               fmt::format("flag name '{}': names starting '{}' are NCCL's "
                                           "flags (docs/NCCL.md)",
                                           flag, nccl::kReservedPrefix));
  }

  // `power: {start: idle | limit, clock: MHz}` (models/power.hpp).
  void parse_power(const sim::Node& node) {
    sim::MapReader r(node, "power");
    if (auto start = r.optional("start")) {
      const std::string text = start->as_string();
      const auto parsed = models::kPowerStartNames.parse(text);
      if (!parsed) fail_choice(*start, "power start", text, models::kPowerStartNames.names());
      s_.power.start = *parsed;
      s_.power.start_where = start->location();
    }
    if (auto clock = r.optional("clock")) s_.power.clock = Expr::parse(*clock, scope_);
    r.finish();
  }

  // `buffers: {NAME: {bytes, regions, input, output}}`; `given`: a problem's (traces/problem.hpp),
  // which replace the schedule's own of the same name (so a schedule that runs alone can serve a
  // problem), and beside which its other buffers are scratch: no `input` (what a schedule says
  // is valid at the start is not evidence).
  void parse_buffers(const sim::Node& node, bool given) {
    sim::MapReader reader(node, "buffers");
    std::vector<std::pair<std::size_t, sim::Node>> needs;
    for (auto& [name, body] : reader.rest()) {
      if (!is_identifier(name) || scope_.find(name) >= 0)
        body.fail(
            fmt::format("'{}' cannot name a buffer (an identifier that is not a param, "
                        "rank or world)",
                        name));
      const std::string wanted = name;  // clang 14 cannot capture a structured binding
      const auto same = std::find_if(s_.kernels.buffers.begin(), s_.kernels.buffers.end(),
                                     [&](const BufferDef& b) { return b.name == wanted; });
      if (same != s_.kernels.buffers.end()) {
        if (same->given) continue;
        body.fail(fmt::format("buffer '{}' is declared twice", name));
      }
      sim::MapReader r(body, "buffer");
      BufferDef b;
      b.name = name;
      b.where = body.location();
      b.given = given;
      b.bytes = Expr::parse(r.required("bytes"), scope_);
      b.regions = Expr::constant(1, body.location());
      if (auto n = r.optional("regions")) b.regions = Expr::parse(*n, scope_);
      const int outer = scope_.size();
      b.region_slot = scope_.add("region");
      max_slots_ = std::max(max_slots_, scope_.size());
      for (auto [key, field] : {std::pair{"input", &b.input}, std::pair{"output", &b.output}}) {
        auto n = r.optional(key);
        if (!n) continue;
        if (field == &b.input && !given &&
            std::any_of(s_.kernels.buffers.begin(), s_.kernels.buffers.end(),
                        [](const BufferDef& d) { return d.given; }))
          n->fail(
              fmt::format("under a problem only its buffers hold inputs: '{}' is scratch", name));
        *field = Expr::parse(*n, scope_);
      }
      scope_.truncate(outer);
      if (auto n = r.optional("needs")) needs.emplace_back(s_.kernels.buffers.size(), *n);
      r.finish();
      s_.kernels.buffers.push_back(std::move(b));
    }
    reader.finish();
    // `needs: {NAME: all | own}`, once every buffer is known.
    for (const auto& [index, node] : needs) {
      BufferDef& b = s_.kernels.buffers[index];
      if (!b.output) node.fail("'needs' says what an output comes from: add 'output'");
      sim::MapReader nr(node, "needs");
      for (auto& [name, which] : nr.rest()) {
        const int from = s_.kernels.buffer(which, name);
        const std::string w = which.as_string();
        if (w != "all" && w != "own") fail_choice(which, "needs", w, {"all", "own"});
        b.needs.emplace_back(from, w == "all");
      }
      nr.finish();
    }
  }

  void parse_params(const sim::Node& node) {
    s_.params_where = node.location();
    sim::MapReader reader(node, "params");
    for (auto& [name, value] : reader.rest()) {
      if (!is_identifier(name) || name == "rank" || name == "world" || name == "min" ||
          name == "max")
        value.fail(
            fmt::format("'{}' cannot name a param (letters, digits and _; not rank, world, "
                        "min or max)",
                        name));
      Param p{name, Expr::parse(value, scope_), value.location()};
      scope_.add(name);
      s_.params.push_back(std::move(p));
    }
    reader.finish();
  }

  void parse_sweep(const sim::Node& node) {
    sim::MapReader r(node, "sweep");
    Sweep sw;
    sw.where = node.location();
    const sim::Node param = r.required("param");
    sw.param = param.as_string();
    if (scope_.find(sw.param) < 0) {
      std::vector<std::string> names(scope_.names().begin(), scope_.names().end());
      fail_choice(param, "param", sw.param, names);
    }
    const Scope empty;
    const Env none;
    auto constant = [&](const char* key) {
      const sim::Node n = r.required(key);
      return Expr::parse(n, empty).eval_positive(none, fmt::format("sweep {}", key));
    };
    sw.from = constant("from");
    sw.to = constant("to");
    if (auto f = r.optional("factor")) sw.factor = f->as_int();
    r.finish();
    if (sw.factor < 2) node.fail(fmt::format("sweep factor must be at least 2, got {}", sw.factor));
    if (sw.to < sw.from) node.fail("sweep 'to' is smaller than 'from'");
    s_.sweep = sw;
  }

  void parse_streams(const sim::Node& node) {
    std::set<std::string> names;
    for (const sim::Node& item : node.items()) {
      sim::MapReader r(item, "stream");
      StreamDef def;
      def.where = item.location();
      const sim::Node name = r.required("name");
      def.name = name.as_string();
      if (!names.insert(def.name).second)
        name.fail(fmt::format("two streams are named '{}'", def.name));
      if (auto c = r.optional("if")) def.condition = Expr::parse(*c, scope_);
      if (auto h = r.optional("host")) def.host = Expr::parse(*h, scope_);
      const std::optional<sim::Node> ops = r.optional("ops");
      r.finish();  // a misspelt 'ops' is reported as such, not as a missing key
      if (!ops) item.fail("stream is missing the required key 'ops'");
      def.ops = parse_ops(*ops);
      s_.streams.push_back(std::move(def));
    }
    if (s_.streams.empty()) node.fail("a schedule needs at least one stream");
  }

  std::vector<Op> parse_ops(const sim::Node& node) {
    std::vector<Op> ops;
    for (const sim::Node& item : node.items()) ops.push_back(parse_op(item));
    return ops;
  }

  Op parse_op(const sim::Node& node) {
    count_parsed_op(node, parsed_ops_);
    sim::MapReader r(node, "op");
    Op op;
    op.where = node.location();
    enum class Kind {
      memcpy,
      record,
      wait,
      collective,
      delay,
      sleep,
      for_loop,
      launch,
      sync,
      graph,
      group
    };
    static constexpr std::pair<const char*, Kind> kinds[] = {
        {"memcpy", Kind::memcpy},         {"record", Kind::record}, {"wait", Kind::wait},
        {"collective", Kind::collective}, {"delay", Kind::delay},   {"sleep", Kind::sleep},
        {"for", Kind::for_loop},          {"launch", Kind::launch}, {"sync", Kind::sync},
        {"graph", Kind::graph},           {"group", Kind::group}};
    const auto kind = read_op_kind(r, kinds, "an op");
    if (auto c = r.optional("if")) op.condition = Expr::parse(*c, scope_);
    r.finish();
    if (!kind) fail_no_op_kind(node, kinds, "an op");
    const sim::Node& body = kind->second;
    switch (kind->first) {
      case Kind::memcpy:
        op.what = parse_memcpy(body);
        break;
      case Kind::record:
        op.what = parse_record(body);
        break;
      case Kind::wait:
        op.what = WaitOp{parse_event(body, true)};
        break;
      case Kind::collective:
        op.what = parse_collective(body);
        break;
      case Kind::delay:
      case Kind::sleep: {
        const bool idle = kind->first == Kind::sleep;
        const sim::Duration d = body.as_duration();
        if (d < sim::Duration::zero())
          body.fail(fmt::format("a {} cannot be negative", idle ? "sleep" : "delay"));
        op.what = DelayOp{d, idle};
        break;
      }
      case Kind::for_loop:
        op.what = parse_for(body);
        break;
      case Kind::launch:
        op.what = parse_launch(body);
        break;
      case Kind::sync: {
        const std::string what = body.as_string();
        if (what != "stream" && what != "device")
          fail_choice(body, "sync", what, {"stream", "device"});
        op.what = SynchronizeOp{what == "device"};
        break;
      }
      case Kind::graph:
        op.what = GraphOp{parse_graph_body(body)};
        break;
      case Kind::group:
        op.what = GroupOp{parse_group_body(body)};
        break;
    }
    return op;
  }

  // A graph holds what cudaStreamBeginCapture can record and the executor replays as nodes.
  std::vector<Op> parse_graph_body(const sim::Node& node) {
    return parse_body(
        node, "graph", "launch, memcpy, for",
        [](const Op& op) {
          return std::holds_alternative<LaunchOp>(op.what) ||
                 std::holds_alternative<MemcpyOp>(op.what);
        },
        "a graph holds launch, memcpy and for ops only (record, wait, collective, delay, sleep, "
        "sync and nested graphs are not captured)");
  }

  // A group holds NCCL's point-to-point calls (what ncclGroupStart .. ncclGroupEnd fuses here).
  std::vector<Op> parse_group_body(const sim::Node& node) {
    const int collectives = s_.collective_count;
    std::vector<Op> body = parse_body(
        node, "group", "collective send and recv, for",
        [](const Op& op) {
          const auto* c = std::get_if<CollectiveOp>(&op.what);
          return c != nullptr &&
                 (c->kind == CollectiveKind::send || c->kind == CollectiveKind::recv);
        },
        "a group holds collective send and recv ops and for loops of them (other collectives are "
        "not grouped yet)");
    s_.collective_count = collectives + 1;  // one NCCL call
    return body;
  }

  // The ops of a graph or a group: a non-empty list whose ops, in for loops too, `allowed` takes
  // (else `refused`, at the op).
  std::vector<Op> parse_body(const sim::Node& node, const char* what, const char* kinds,
                             bool (*allowed)(const Op&), const char* refused) {
    if (!node.is_sequence()) node.fail(fmt::format("a {} is a list of ops ({})", what, kinds));
    std::vector<Op> body = parse_ops(node);
    if (body.empty()) node.fail(fmt::format("a {} needs at least one op", what));
    check_body(body, allowed, refused);
    return body;
  }
  static void check_body(const std::vector<Op>& ops, bool (*allowed)(const Op&),
                         const char* refused) {
    for (const Op& op : ops) {
      if (const auto* loop = std::get_if<ForOp>(&op.what)) {
        check_body(loop->body, allowed, refused);
      } else if (!allowed(op)) {
        throw sim::ConfigError(op.where, refused);
      }
    }
  }

  LaunchOp parse_launch(const sim::Node& node) {
    LaunchOp l;
    sim::Node name = node;
    std::optional<sim::Node> args;
    if (node.is_map()) {
      sim::MapReader r(node, "launch");
      name = r.required("kernel");
      args = r.optional("args");
      r.finish();
    }
    const std::string text = name.as_string();
    l.kernel = s_.kernels.find(text);
    if (l.kernel < 0) {
      std::vector<std::string> names;
      for (const auto& k : s_.kernels.kernels) names.push_back(k.name);
      if (names.empty())
        name.fail(
            fmt::format("unknown kernel '{}': the schedule has no "
                        "'kernels:' section",
                        text));
      fail_choice(name, "kernel", text, names);
    }
    if (!args) return l;
    const KernelDef& k = s_.kernels.kernels[static_cast<std::size_t>(l.kernel)];
    sim::MapReader ar(*args, "args");
    for (auto& [arg, value] : ar.rest()) {
      const std::string& wanted = arg;  // clang 14 cannot capture a structured binding
      const auto it = std::find_if(k.args.begin(), k.args.end(),
                                   [&](const KernelArg& a) { return a.name == wanted; });
      if (it == k.args.end()) {
        std::vector<std::string> names;
        for (const auto& a : k.args) names.push_back(a.name);
        if (names.empty()) value.fail(fmt::format("kernel '{}' takes no arguments", k.name));
        fail_choice(value, fmt::format("argument of kernel '{}'", k.name), arg, names);
      }
      l.args.emplace_back(static_cast<int>(it - k.args.begin()), Expr::parse(value, scope_));
    }
    ar.finish();
    return l;
  }

  MemcpyOp parse_memcpy(const sim::Node& node) {
    MemcpyOp m;
    sim::MapReader r(node, "memcpy");
    m.bytes = Expr::parse(r.required("bytes"), scope_);
    if (auto n = r.optional("src")) m.src = Expr::parse(*n, scope_);
    if (auto n = r.optional("dst")) m.dst = Expr::parse(*n, scope_);
    if (auto n = r.optional("working_set")) m.working_set = Expr::parse(*n, scope_);
    m.data = parse_data(r, s_.kernels, scope_);
    r.finish();
    return m;
  }

  RecordOp parse_record(const sim::Node& node) {
    RecordOp record;
    record.event = parse_event(node, false, &record.timing);
    return record;
  }

  // `timing`: a record's, when the op is a map (left as it is otherwise).
  EventRef parse_event(const sim::Node& node, bool is_wait, bool* timing = nullptr) {
    EventRef e;
    sim::Node name = node;
    if (node.is_map()) {
      sim::MapReader r(node, is_wait ? "wait" : "record");
      name = r.required("event");
      if (auto n = r.optional("index")) e.index = Expr::parse(*n, scope_);
      if (is_wait) {
        if (auto n = r.optional("rank")) e.rank = Expr::parse(*n, scope_);
      } else if (auto n = r.optional("timing")) {
        *timing = n->as_bool();
      }
      r.finish();
    }
    const std::string text = name.as_string();
    if (!is_identifier(text)) name.fail(fmt::format("'{}' cannot name an event", text));
    e.name = intern(text);
    if (is_wait) {
      waited_.emplace_back(e.name, name.location());
    } else {
      recorded_.insert(e.name);
    }
    return e;
  }

  static Dtype parse_dtype(const std::optional<sim::Node>& n) {
    if (!n) return {"float", 4};
    const std::string d = n->as_string();
    const auto* found = std::find_if(std::begin(kDtypes), std::end(kDtypes),
                                     [&](const DtypeName& x) { return d == x.alias; });
    if (found == std::end(kDtypes)) {
      std::vector<std::string> names;
      for (const auto& x : kDtypes) names.emplace_back(x.alias);
      fail_choice(*n, "dtype", d, names);
    }
    return {found->printed, found->size};
  }

  // A collective's `algorithm`, `protocol` and `channels` (each checked alone); returns the
  // algorithm's node, if given.
  std::optional<sim::Node> parse_nccl_choice(sim::MapReader& r, CollectiveOp& c) {
    std::optional<sim::Node> algorithm = r.optional("algorithm");
    if (const auto& n = algorithm) {
      const std::string a = n->as_string();
      const auto parsed_algorithm = kAlgorithmNames.parse(a);
      if (!parsed_algorithm) fail_choice(*n, "algorithm", a, kAlgorithmNames.names());
      c.algorithm = *parsed_algorithm;
    }
    const bool ideal = c.algorithm == CollectiveAlgorithm::ideal_ring;
    if (auto n = r.optional("protocol")) {
      if (ideal) n->fail("an ideal_ring has no protocol: it moves bytes at the path's rate");
      const std::string p = n->as_string();
      if (p != "auto") {
        const auto parsed_protocol = kProtocolNames.parse(p);
        if (!parsed_protocol) {
          std::vector<std::string> names = kProtocolNames.names();
          names.insert(names.begin(), "auto");
          fail_choice(*n, "protocol", p, names);
        }
        c.protocol = *parsed_protocol;
      }
    }
    if (auto n = r.optional("channels")) {
      if (ideal) n->fail("an ideal_ring has no channels: it moves bytes at the path's rate");
      if (n->as_string() != "auto") c.channels = Expr::parse(*n, scope_);
    }
    return algorithm;
  }

  CollectiveOp parse_collective(const sim::Node& node) {
    CollectiveOp c;
    sim::MapReader r(node, "collective");
    const sim::Node kind = r.required("op");
    const std::string k = kind.as_string();
    const std::optional<CollectiveKind> parsed = kCollectiveNames.parse(k);
    if (!parsed) fail_choice(kind, "collective", k, kCollectiveNames.names());
    c.kind = *parsed;
    c.bytes = Expr::parse(r.required("bytes"), scope_);
    const std::optional<sim::Node> chunk = r.optional("chunk");
    if (chunk) c.chunk = Expr::parse(*chunk, scope_);
    c.dtype = parse_dtype(r.optional("dtype"));
    const std::optional<sim::Node> algorithm = parse_nccl_choice(r, c);
    const bool ideal = c.algorithm == CollectiveAlgorithm::ideal_ring;
    if (c.kind == CollectiveKind::all_to_all && c.algorithm == CollectiveAlgorithm::ring)
      algorithm->fail("all_to_all is not a ring: NCCL runs it as sends and receives (`auto`)");
    const bool rooted = c.kind == CollectiveKind::broadcast || c.kind == CollectiveKind::reduce;
    if (c.algorithm == CollectiveAlgorithm::nvls) {
      if (c.kind == CollectiveKind::all_to_all || rooted)
        algorithm->fail(fmt::format("NCCL has no NVLS {}: {} runs it", to_string(c.kind),
                                    rooted ? "`auto` or `ring`" : "`auto`"));
      if (c.protocol && *c.protocol != nccl::Protocol::simple)
        algorithm->fail("NVLS runs only the Simple protocol: drop `protocol` or use `ring`");
    }
    const bool p2p = c.kind == CollectiveKind::send || c.kind == CollectiveKind::recv;
    if ((c.kind == CollectiveKind::all_to_all || p2p) && (c.protocol || c.channels))
      node.fail("NCCL's sends and receives choose their own protocol and channels");
    if (p2p && algorithm && c.algorithm != CollectiveAlgorithm::automatic)
      algorithm->fail(fmt::format("a {} runs NCCL's point-to-point kernel: drop `algorithm`",
                                  to_string(c.kind)));
    if (chunk && !ideal)
      chunk->fail(
          "chunk sets an ideal_ring's pipelining; NCCL's chunks follow its buffers "
          "(docs/NCCL.md): add `algorithm: ideal_ring` or drop chunk");
    if (auto n = r.optional("root")) {
      if (!rooted) n->fail("only broadcast and reduce have a root");
      c.root = Expr::parse(*n, scope_);
    }
    if (rooted && ideal)
      algorithm->fail("the ideal ring has no broadcast or reduce: `auto` runs NCCL's");
    if (auto n = r.optional("peer")) {
      if (!p2p) n->fail("only send and recv have a peer");
      c.peer = Expr::parse(*n, scope_);
    } else if (p2p) {
      node.fail(fmt::format("a {} needs `peer`: the rank it {}", to_string(c.kind),
                            c.kind == CollectiveKind::send ? "sends to" : "receives from"));
    }
    if (auto b = r.optional("buffer")) c.buffer = s_.kernels.buffer(*b, b->as_string());
    if (auto n = r.optional("region")) {
      if (!p2p) n->fail("only send and recv name a region (a collective's regions are its own)");
      if (c.buffer < 0) n->fail("a region of what: name the `buffer` too");
      c.region = Expr::parse(*n, scope_);
    }
    if (auto o = r.optional("output")) {
      if (p2p)
        o->fail(fmt::format("a {} has one buffer: `buffer` ({})", to_string(c.kind),
                            c.kind == CollectiveKind::send ? "read" : "written"));
      c.output = s_.kernels.buffer(*o, o->as_string());
      if (c.buffer < 0) o->fail("an output buffer needs the input 'buffer' too");
    }
    if (!ideal) s_.nccl = true;
    r.finish();
    ++s_.collective_count;
    return c;
  }

  ForOp parse_for(const sim::Node& node) {
    return traces::parse_for<ForOp>(node, scope_, {"min", "max"}, max_slots_,
                                    [this](const sim::Node& ops) { return parse_ops(ops); });
  }

  int intern(const std::string& name) { return traces::intern(s_.event_names, name); }

  Schedule& s_;
  std::int64_t parsed_ops_ = 0;
  Scope scope_;
  int max_slots_ = 0;
  std::set<int> recorded_;
  std::vector<std::pair<int, sim::SourceLocation>> waited_;
};

}  // namespace

std::string_view to_string(CollectiveKind k) { return kCollectiveNames.name(k); }
std::string_view to_string(CollectiveAlgorithm a) { return kAlgorithmNames.name(a); }

Schedule load_schedule(const sim::Node& root, const sim::Node* given_buffers) {
  Schedule s;
  s.file = root.file();
  Parser(s).parse(root, given_buffers);
  return s;
}

Schedule load_schedule_file(const std::string& path) {
  return load_schedule(sim::Node::load_file(path));
}

Env param_values(const Schedule& s,
                 const std::vector<std::pair<std::string, std::string>>& overrides) {
  std::vector<std::optional<std::int64_t>> forced(s.params.size());
  const Scope empty;
  for (const auto& [name, text] : overrides) {
    const std::string& wanted = name;  // clang 14 cannot capture a structured binding
    const auto it = std::find_if(s.params.begin(), s.params.end(),
                                 [&](const Param& p) { return p.name == wanted; });
    if (it == s.params.end()) {
      std::vector<std::string> names;
      for (const auto& p : s.params) names.push_back(p.name);
      const std::string near = sim::nearest_name(name, names);
      throw sim::ConfigError(
          s.params_where,
          fmt::format("-D {}: the schedule has no param '{}'{}", name, name,
                      near.empty()
                          ? (names.empty() ? std::string(" (it declares none)")
                                           : fmt::format(" (params: {})", fmt::join(names, ", ")))
                          : fmt::format("; did you mean '{}'?", near)));
    }
    const Expr e = Expr::parse(text, empty, {fmt::format("-D {}={}", name, text), 0, 0});
    forced[static_cast<std::size_t>(it - s.params.begin())] = e.eval({});
  }
  Env env(static_cast<std::size_t>(s.slot_count), 0);
  for (std::size_t i = 0; i < s.params.size(); ++i)
    env[i] = forced[i] ? *forced[i] : s.params[i].default_value.eval(env);
  return env;
}

std::vector<std::int64_t> sweep_values(const Sweep& sweep) {
  std::vector<std::int64_t> out;
  for (std::int64_t v = sweep.from; v <= sweep.to;) {
    out.push_back(v);
    if (__builtin_mul_overflow(v, sweep.factor, &v)) break;
  }
  return out;
}

}  // namespace mgsim::traces
