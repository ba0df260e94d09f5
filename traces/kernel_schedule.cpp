#include "traces/kernel_schedule.hpp"

#include <algorithm>
#include <set>
#include <type_traits>
#include <utility>

#include <fmt/format.h>

#include "sim/names.hpp"

namespace mgsim::traces {
namespace {

constexpr auto kViaNames = sim::name_table<Via>({
    {Via::tma, "tma"},
    {Via::ldst, "ldst"},
    {Via::multimem, "multimem"},
});

// Names bound inside kernels, which no kernel argument or loop variable may take.
const std::vector<std::string> kReserved = {"min", "max", "rank", "world", "cta", "num_sms"};

bool reserved(const std::string& s) {
  return std::find(kReserved.begin(), kReserved.end(), s) != kReserved.end();
}

class KernelParser {
 public:
  KernelParser(KernelSet& set, const Scope& host) : set_(set), host_(host) {}

  void parse(const sim::Node& node) {
    sim::MapReader reader(node, "kernels");
    for (auto& [name, body] : reader.rest()) {
      if (!is_identifier(name)) body.fail(fmt::format("'{}' cannot name a kernel", name));
      set_.kernels.push_back(parse_kernel(name, body));
    }
    reader.finish();
  }

 private:
  KernelDef parse_kernel(const std::string& name, const sim::Node& node) {
    KernelDef k;
    k.name = name;
    k.where = node.location();
    scope_ = host_;
    k.num_sms_slot = scope_.add("num_sms");  // args' defaults may use it
    sim::MapReader r(node, "kernel");
    if (auto args = r.optional("args")) {
      sim::MapReader ar(*args, "args");
      for (auto& [arg, value] : ar.rest()) {
        if (!is_identifier(arg) || reserved(arg))
          value.fail(fmt::format("'{}' cannot name a kernel argument", arg));
        if (scope_.find(arg) >= 0)
          value.fail(fmt::format("kernel argument '{}' hides a name already defined", arg));
        KernelArg a{arg, 0, Expr::parse(value, scope_)};
        a.slot = scope_.add(arg);
        k.args.push_back(std::move(a));
      }
      ar.finish();
    }
    // The launch shape may use params, rank, world, num_sms and args, not cta.
    k.grid = Expr::parse(r.required("grid"), scope_);
    auto shape = [&](const char* key, std::int64_t fallback) {
      if (auto n = r.optional(key)) return Expr::parse(*n, scope_);
      return Expr::constant(fallback, node.location());
    };
    k.threads = shape("threads", 128);
    k.registers = shape("registers", 32);
    k.shared_memory = shape("shared_memory", 0);
    k.cluster = shape("cluster", 1);
    if (auto p = r.optional("persistent")) k.persistent = p->as_bool();
    k.cta_slot = scope_.add("cta");
    max_slots_ = scope_.size();
    const std::optional<sim::Node> roles = r.optional("roles");
    r.finish();
    if (!roles) node.fail("kernel is missing the required key 'roles'");
    barriers_ = &k.barrier_names;
    std::set<std::string> role_names;
    for (const sim::Node& item : roles->items()) {
      sim::MapReader rr(item, "role");
      RoleDef role;
      role.where = item.location();
      const sim::Node rn = rr.required("name");
      role.name = rn.as_string();
      if (!role_names.insert(role.name).second)
        rn.fail(fmt::format("two roles of kernel '{}' are named '{}'", name, role.name));
      if (auto c = rr.optional("if")) role.condition = Expr::parse(*c, scope_);
      const std::optional<sim::Node> ops = rr.optional("ops");
      rr.finish();
      if (!ops) item.fail("role is missing the required key 'ops'");
      role.ops = parse_ops(*ops);
      k.roles.push_back(std::move(role));
    }
    if (k.roles.empty()) roles->fail("a kernel needs at least one role");
    k.slot_count = max_slots_;
    const int rank = host_.find("rank");
    k.local = (rank < 0 || !scope_.read(rank)) &&
              std::ranges::all_of(k.roles, [](const RoleDef& r) { return names_no_rank(r.ops); });
    return k;
  }

  // Whether `ops` touch only this rank: no peer, no other rank's flag, no multimem.
  static bool names_no_rank(const std::vector<KernelOp>& ops) {
    return std::ranges::all_of(ops, [](const KernelOp& op) {
      return std::visit(
          [](const auto& what) {
            using T = std::decay_t<decltype(what)>;
            if constexpr (std::is_base_of_v<TransferOp, T>)
              return !what.peer && what.via != Via::multimem;
            if constexpr (std::is_same_v<T, MainloopOp>) return !what.peer;
            if constexpr (std::is_base_of_v<FlagRef, T>) return !what.rank;
            if constexpr (std::is_same_v<T, KernelForOp>) return names_no_rank(what.body);
            return true;
          },
          op.what);
    });
  }

  std::vector<KernelOp> parse_ops(const sim::Node& node) {
    std::vector<KernelOp> ops;
    for (const sim::Node& item : node.items()) ops.push_back(parse_op(item));
    return ops;
  }

  KernelOp parse_op(const sim::Node& node) {
    count_parsed_op(node, parsed_ops_);
    enum class Kind {
      load,
      store,
      reduce,
      mma,
      compute,
      mainloop,
      signal,
      wait,
      arrive,
      sync,
      fence,
      for_
    };
    static constexpr std::pair<const char*, Kind> kinds[] = {
        {"load", Kind::load},     {"store", Kind::store},     {"reduce", Kind::reduce},
        {"mma", Kind::mma},       {"compute", Kind::compute}, {"mainloop", Kind::mainloop},
        {"signal", Kind::signal}, {"wait", Kind::wait},       {"arrive", Kind::arrive},
        {"sync", Kind::sync},     {"fence", Kind::fence},     {"for", Kind::for_}};
    sim::MapReader r(node, "kernel op");
    KernelOp op;
    op.where = node.location();
    const auto kind = read_op_kind(r, kinds, "a kernel op");
    if (auto c = r.optional("if")) op.condition = Expr::parse(*c, scope_);
    r.finish();
    if (!kind) fail_no_op_kind(node, kinds, "a kernel op");
    const sim::Node& body = kind->second;
    switch (kind->first) {
      case Kind::load:
        op.what = parse_transfer<LoadOp>(body);
        break;
      case Kind::store:
        op.what = parse_transfer<StoreOp>(body);
        break;
      case Kind::reduce:
        op.what = parse_transfer<ReduceOp>(body);
        break;
      case Kind::mma:
        op.what = parse_mma(body);
        break;
      case Kind::mainloop:
        op.what = parse_mainloop(body);
        break;
      case Kind::compute:
        op.what = parse_compute(body);
        break;
      case Kind::signal:
        op.what = parse_flag<SignalOp>(body);
        break;
      case Kind::wait:
        op.what = parse_flag<FlagWaitOp>(body);
        break;
      case Kind::arrive:
        op.what = ArriveOp{.barrier = parse_barrier(body, nullptr)};
        break;
      case Kind::sync: {
        SyncOp sync;
        sync.barrier = parse_barrier(body, &sync.count);
        op.what = std::move(sync);
        break;
      }
      case Kind::fence: {
        sim::MapReader fr(body, "fence");
        FenceOp fence;
        fence.scope = parse_scope(fr.required("scope"));
        if (auto n = fr.optional("threads")) fence.threads = Expr::parse(*n, scope_);
        if (auto n = fr.optional("in_step")) fence.in_step = Expr::parse(*n, scope_);
        op.what = std::move(fence);
        fr.finish();
        break;
      }
      case Kind::for_:
        op.what = parse_for(body);
        break;
    }
    return op;
  }

  // Load, store or reduce (T): the transfer's keys, and those of its kind.
  template <class T>
  T parse_transfer(const sim::Node& node) {
    constexpr bool is_load = std::is_same_v<T, LoadOp>;
    constexpr bool is_reduce = std::is_same_v<T, ReduceOp>;
    T op;
    sim::MapReader r(node, T::kName);
    op.bytes = Expr::parse(r.required("bytes"), scope_);
    if (auto p = r.optional("peer")) op.peer = Expr::parse(*p, scope_);
    op.via = is_reduce ? Via::multimem : Via::tma;
    if (auto v = r.optional("via")) {
      const std::string text = v->as_string();
      const std::optional<Via> via = kViaNames.parse(text);
      if (is_reduce && via && *via != Via::multimem)
        v->fail(
            fmt::format("a reduce goes through the switch: via must be multimem, not '{}' "
                        "(TMA and plain ld/st cannot reduce in the network)",
                        text));
      if (!via)
        fail_choice(*v, "'via'", text,
                    is_reduce ? std::vector<std::string>{"multimem"} : kViaNames.names());
      op.via = *via;
    }
    op.data = parse_data(r, set_, scope_);
    for (auto [key, field] : {std::pair{"threads", &op.threads}, std::pair{"vector", &op.vector},
                              std::pair{"unroll", &op.unroll}}) {
      auto n = r.optional(key);
      if (!n) continue;
      if (op.via == Via::tma)
        n->fail(
            fmt::format("'{}' sets an ld/st access's parallelism; a TMA transfer's is its "
                        "messages (tma.messages_in_flight of tma.max_message)",
                        key));
      *field = Expr::parse(*n, scope_);
    }
    if (auto n = r.optional("rounds")) {
      if (op.via != Via::ldst || !is_load)
        n->fail(
            "'rounds' counts the latencies an ld/st load's thread waits per `unroll` accesses; "
            "a store is posted and TMA's messages complete on their own");
      op.rounds = Expr::parse(*n, scope_);
    }
    for (auto [key, field] :
         {std::pair{"message", &op.message}, std::pair{"outstanding", &op.outstanding}}) {
      auto n = r.optional(key);
      if (!n) continue;
      if (op.via != Via::tma)
        n->fail(
            fmt::format("'{}' sets a TMA transfer's messages; an ld/st access's parallelism "
                        "is its threads, vector and unroll",
                        key));
      *field = Expr::parse(*n, scope_);
    }
    if (auto o = r.optional("own_warp")) op.own_warp = o->as_bool();
    parse_kind_keys(r, op);
    r.finish();
    if (op.via == Via::multimem && op.peer)
      node.fail("a multimem op addresses the whole multicast group: drop 'peer'");
    if (is_load && op.via == Via::multimem)
      node.fail(
          "a multimem load that reduces is a 'reduce' op; a plain load reads one peer "
          "(via tma or ldst)");
    return op;
  }

  // A transfer's keys that belong to one kind of transfer: a load's multicast and working set,
  // a store's add and copy source; each on another kind is an error that says whose it is.
  template <class T>
  void parse_kind_keys(sim::MapReader& r, T& op) {
    constexpr bool is_load = std::is_same_v<T, LoadOp>;
    constexpr bool is_store = std::is_same_v<T, StoreOp>;
    constexpr bool is_reduce = std::is_same_v<T, ReduceOp>;
    if (auto m = r.optional("multicast")) {
      if constexpr (is_load) {
        if (op.via != Via::tma)
          m->fail(
              fmt::format("'multicast' is a TMA load's (cp.async.bulk .multicast::cluster); "
                          "via must be tma, not '{}'",
                          to_string(op.via)));
        op.multicast = Expr::parse(*m, scope_);
      } else {
        m->fail(
            fmt::format("'multicast' belongs to a TMA load (one read landing in several "
                        "CTAs of a cluster); a {} cannot multicast",
                        T::kName));
      }
    }
    if (auto a = r.optional("add")) {
      if constexpr (is_store) {
        op.add = a->as_bool();
        if (op.add && op.via != Via::tma)
          a->fail(
              fmt::format("a store-add is a TMA bulk reduction (cp.reduce.async.bulk): via must "
                          "be tma, not '{}'",
                          to_string(op.via)));
      } else {
        a->fail(fmt::format("'add' belongs to a store (a TMA store-add); a {} cannot add",
                            is_reduce ? "reduce already reduces: it" : "load"));
      }
    }
    if (auto f = r.optional("from")) {
      if constexpr (is_store) {
        if (op.via != Via::ldst)
          f->fail(
              fmt::format("'from' makes an ld/st store a copy loop (each warp loads, then "
                          "stores); via must be ldst, not '{}' (a TMA copy is a load into shared "
                          "memory and a store from it)",
                          to_string(op.via)));
        op.from = parse_copy_source(*f);
      } else {
        f->fail(
            fmt::format("'from' belongs to an ld/st store (the data a copy loop loads first); "
                        "a {} has its own source",
                        T::kName));
      }
    }
    if (auto w = r.optional("working_set")) {
      if constexpr (is_store) {
        if (!op.from)
          w->fail(
              "'working_set' belongs to a load (the L2 hit model of re-read data) or to a copy "
              "loop (a store with 'from': whether the L2 keeps its source); a plain store "
              "writes through");
      } else if constexpr (!is_load) {
        w->fail(
            fmt::format("'working_set' belongs to a load or a copy loop (a store with 'from'); "
                        "a {} writes through",
                        T::kName));
      }
      op.working_set = Expr::parse(*w, scope_);
    }
  }

  models::Dtype parse_dtype(sim::MapReader& r, models::Dtype fallback) {
    auto d = r.optional("dtype");
    if (!d) return fallback;
    const std::string text = d->as_string();
    models::Dtype out;
    if (!models::parse_dtype(text, out))
      fail_choice(*d, "dtype", text, {"bf16", "fp16", "fp8", "tf32", "fp32"});
    return out;
  }

  // `instr`: the tensor-core instruction (native, the default, or mma_sync).
  models::MmaInstr parse_instr(sim::MapReader& r) {
    auto i = r.optional("instr");
    if (!i) return models::MmaInstr::native;
    const std::string text = i->as_string();
    const std::optional<models::MmaInstr> out = models::kMmaInstrNames.parse(text);
    if (!out) fail_choice(*i, "instr", text, {"native", "mma_sync"});
    return *out;
  }

  void parse_mnk(sim::MapReader& r, MmaShape& op) {
    op.m = Expr::parse(r.required("m"), scope_);
    op.n = Expr::parse(r.required("n"), scope_);
    op.k = Expr::parse(r.required("k"), scope_);
    op.instr = parse_instr(r);
    if (auto a = r.optional("a")) op.a = parse_operand(*a);
    if (auto b = r.optional("b")) op.b = parse_operand(*b);
    if (auto o = r.optional("operands")) op.operands = parse_smem_operands(*o);
  }

  // operands: {a: smem | registers, b: smem | registers, tile_m, tile_n}.
  SmemOperands parse_smem_operands(const sim::Node& node) {
    sim::MapReader r(node, "operands");
    SmemOperands out;
    auto from = [&](const char* key) {
      auto v = r.optional(key);
      if (!v) return false;
      const std::string text = v->as_string();
      if (text != "smem" && text != "registers") fail_choice(*v, key, text, {"smem", "registers"});
      return text == "smem";
    };
    out.a = from("a");
    out.b = from("b");
    out.tile_m = Expr::parse(r.required("tile_m"), scope_);
    out.tile_n = Expr::parse(r.required("tile_n"), scope_);
    r.finish();
    return out;
  }

  // Shared-memory operands go with tensor-core MMAs (an fp32 product runs on the FP32 pipe).
  static void check_operands(const sim::Node& node, const MmaShape& op) {
    if (op.operands && op.dtype == models::Dtype::fp32)
      node.fail("'operands' (reads from shared memory) go with tensor-core types, not fp32");
  }

  // A copy's source: the rank whose memory it reads (an expression), or {peer, buffer, region}.
  CopySource parse_copy_source(const sim::Node& node) {
    CopySource from;
    if (node.is_scalar()) {
      from.peer = Expr::parse(node, scope_);
      return from;
    }
    sim::MapReader r(node, "from");
    if (auto p = r.optional("peer")) from.peer = Expr::parse(*p, scope_);
    from.data = parse_data(r, set_, scope_);
    r.finish();
    return from;
  }

  // An operand's data: a buffer's name, or {buffer, region}.
  BufferRef parse_operand(const sim::Node& node) {
    BufferRef ref;
    if (node.is_scalar()) {
      ref.buffer = set_.buffer(node, node.as_string());
      return ref;
    }
    sim::MapReader r(node, "operand");
    if (!r.has("buffer")) node.fail("operand is missing the required key 'buffer'");
    ref = parse_data(r, set_, scope_);
    r.finish();
    return ref;
  }

  MmaOp parse_mma(const sim::Node& node) {
    sim::MapReader r(node, MmaOp::kName);
    MmaOp op;
    parse_mnk(r, op);
    op.dtype = parse_dtype(r, models::Dtype::bf16);
    r.finish();
    check_operands(node, op);
    return op;
  }

  MainloopOp parse_mainloop(const sim::Node& node) {
    sim::MapReader r(node, MainloopOp::kName);
    MainloopOp op;
    parse_mnk(r, op);
    op.k_tile = Expr::parse(r.required("k_tile"), scope_);
    op.stages = Expr::parse(r.required("stages"), scope_);
    if (auto p = r.optional("peer")) op.peer = Expr::parse(*p, scope_);
    if (auto m = r.optional("multicast")) {
      sim::MapReader mr(*m, "multicast");
      if (auto a = mr.optional("a")) op.multicast_a = Expr::parse(*a, scope_);
      if (auto b = mr.optional("b")) op.multicast_b = Expr::parse(*b, scope_);
      mr.finish();
    }
    op.dtype = parse_dtype(r, models::Dtype::bf16);
    r.finish();
    check_operands(node, op);
    return op;
  }

  ComputeOp parse_compute(const sim::Node& node) {
    sim::MapReader r(node, ComputeOp::kName);
    ComputeOp op;
    if (auto f = r.optional("flops")) op.flops = Expr::parse(*f, scope_);
    if (auto f = r.optional("sfu")) op.sfu = Expr::parse(*f, scope_);
    if (auto f = r.optional("int32")) op.int32 = Expr::parse(*f, scope_);
    if (auto c = r.optional("cycles")) op.cycles = Expr::parse(*c, scope_);
    const bool has_dtype = r.has("dtype");
    const bool has_instr = r.has("instr");
    op.dtype = parse_dtype(r, models::Dtype::fp32);
    op.instr = parse_instr(r);
    r.finish();
    const int given = int(op.flops.has_value()) + int(op.sfu.has_value()) +
                      int(op.int32.has_value()) + int(op.cycles.has_value());
    if (given != 1) node.fail("compute takes exactly one of 'flops', 'sfu', 'int32' and 'cycles'");
    if (has_dtype && !op.flops) node.fail("compute's 'dtype' goes with 'flops' only");
    if (has_instr && (!op.flops || op.dtype == models::Dtype::fp32))
      node.fail("compute's 'instr' goes with tensor-core flops only (a 'dtype' other than fp32)");
    return op;
  }

  // Signal or wait (T).
  template <class T>
  T parse_flag(const sim::Node& node) {
    constexpr bool is_signal = std::is_same_v<T, SignalOp>;
    T op;
    sim::MapReader r(node, T::kName);
    const sim::Node flag = r.required("flag");
    const std::string name = flag.as_string();
    if (!is_identifier(name)) flag.fail(fmt::format("'{}' cannot name a flag array", name));
    op.flag = intern(set_.flag_names, name);
    op.index = Expr::constant(0, node.location());
    if (auto i = r.optional("index")) op.index = Expr::parse(*i, scope_);
    if (auto k = r.optional("rank")) op.rank = Expr::parse(*k, scope_);
    if constexpr (is_signal) {
      auto v = r.optional("value");
      auto a = r.optional("add");
      if (v.has_value() == a.has_value())
        node.fail("signal takes exactly one of 'value' and 'add'");
      op.add = a.has_value();
      op.atomic = op.add;
      op.value = Expr::parse(a ? *a : *v, scope_);
      if (auto at = r.optional("atomic")) op.atomic = op.atomic || at->as_bool();
      if (auto o = r.optional("order")) {
        const std::string order = o->as_string();
        if (order != "relaxed" && order != "release")
          fail_choice(*o, "signal order", order, {"relaxed", "release"});
        if (order == "release") op.release = MemoryScope::system;
      }
      if (auto s = r.optional("scope")) {
        if (!op.release) s->fail("'scope' is the scope of a release: it needs 'order: release'");
        op.release = parse_scope(*s);
      }
    } else {
      op.value = Expr::parse(r.required("value"), scope_);
      if (auto o = r.optional("order")) {
        const std::string order = o->as_string();
        if (order != "relaxed" && order != "acquire")
          fail_choice(*o, "wait order", order, {"relaxed", "acquire"});
        op.acquire = order == "acquire";
      }
    }
    r.finish();
    return op;
  }

  static MemoryScope parse_scope(const sim::Node& node) {
    const std::string s = node.as_string();
    if (s == "cta") return MemoryScope::cta;
    if (s == "gpu") return MemoryScope::gpu;
    if (s != "system") fail_choice(node, "scope", s, {"cta", "gpu", "system"});
    return MemoryScope::system;
  }

  // An arrive (count null) or a sync (its count, default 1, into *count): returns the barrier.
  int parse_barrier(const sim::Node& node, Expr* count) {
    const bool is_sync = count != nullptr;
    sim::Node name = node;
    if (is_sync) *count = Expr::constant(1, node.location());
    if (node.is_map()) {
      sim::MapReader r(node, is_sync ? SyncOp::kName : ArriveOp::kName);
      name = r.required("barrier");
      if (is_sync) {
        if (auto c = r.optional("count")) *count = Expr::parse(*c, scope_);
      }
      r.finish();
    }
    const std::string text = name.as_string();
    if (!is_identifier(text)) name.fail(fmt::format("'{}' cannot name a barrier", text));
    return intern(*barriers_, text);
  }

  KernelForOp parse_for(const sim::Node& node) {
    return traces::parse_for<KernelForOp>(node, scope_, kReserved, max_slots_,
                                          [this](const sim::Node& ops) { return parse_ops(ops); });
  }

  KernelSet& set_;
  std::int64_t parsed_ops_ = 0;
  const Scope& host_;
  Scope scope_;
  int max_slots_ = 0;
  std::vector<std::string>* barriers_ = nullptr;
};

}  // namespace

std::string_view to_string(Via v) { return kViaNames.name(v); }

int KernelSet::find(const std::string& name) const {
  for (std::size_t i = 0; i < kernels.size(); ++i)
    if (kernels[i].name == name) return static_cast<int>(i);
  return -1;
}

BufferRef parse_data(sim::MapReader& r, const KernelSet& set, const Scope& scope) {
  BufferRef ref;
  if (auto b = r.optional("buffer")) ref.buffer = set.buffer(*b, b->as_string());
  if (auto g = r.optional("region")) {
    if (ref.buffer < 0) g->fail("a region is a part of a buffer: name the 'buffer' too");
    ref.region = Expr::parse(*g, scope);
  }
  return ref;
}

int KernelSet::buffer(const sim::Node& at, const std::string& name) const {
  for (std::size_t i = 0; i < buffers.size(); ++i)
    if (buffers[i].name == name) return static_cast<int>(i);
  std::vector<std::string> names;
  for (const BufferDef& b : buffers) names.push_back(b.name);
  if (names.empty())
    at.fail(
        fmt::format("buffer '{}' is not declared: declare it under the top-level "
                    "'buffers:' (docs/LANGUAGE.md, Buffers)",
                    name));
  fail_choice(at, "buffer", name, names);
}

KernelSet parse_kernels(const sim::Node& node, const Scope& host) {
  KernelSet set;
  parse_kernels_into(node, host, set);
  return set;
}

void parse_kernels_into(const sim::Node& node, const Scope& host, KernelSet& set) {
  KernelParser(set, host).parse(node);
}

Env launch_env(const KernelDef& k, const Env& host, int host_slots, std::int64_t num_sms,
               const std::vector<std::pair<int, Expr>>& bound) {
  Env env(static_cast<std::size_t>(k.slot_count), 0);
  std::copy_n(host.begin(), host_slots, env.begin());
  env[static_cast<std::size_t>(k.num_sms_slot)] = num_sms;
  for (std::size_t a = 0; a < k.args.size(); ++a) {
    const auto b = std::find_if(bound.begin(), bound.end(),
                                [&](const auto& x) { return x.first == static_cast<int>(a); });
    env[static_cast<std::size_t>(k.args[a].slot)] =
        b != bound.end() ? b->second.eval(host) : k.args[a].default_value.eval(env);
  }
  return env;
}

}  // namespace mgsim::traces
