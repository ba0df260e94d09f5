#include "traces/executor.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <tuple>
#include <variant>

#include <fmt/format.h>

#include "sim/check.hpp"
#include "sim/trace.hpp"
#include "traces/collective.hpp"
#include "traces/kernel_exec.hpp"
#include "traces/sync_table.hpp"
#include "traces/walker.hpp"

namespace mgsim::traces {
namespace {

struct StreamRun {
  int rank = 0;
  int def = 0;
  Env env;
  Walker<Op> walker;
  bool done = false;
  sim::Time end;
  int collectives_seen = 0;
  const Op* current = nullptr;  // the op it is in, for reports
  std::string waiting;          // set while blocked on an event
  CollectiveRun* collective = nullptr;
  int launch = -1;  // the kernel launch it is in, for reports
};

using EventKey = std::tuple<int, int, std::int64_t>;  // rank, name, index
// Recorded at 1; the waiters are stream indices.
using Events = SyncTable<EventKey, int>;

class Executor {
 public:
  Executor(const Schedule& s, const Env& params, sim::Engine& engine, sim::FluidNetwork& net,
           Interconnect& fabric, const models::HardwareSpec& hw, models::ResourceCatalog* catalog,
           CollectiveTransport transport, std::int64_t max_ops)
      : s_(s), engine_(engine), hw_(hw), transport_(transport), budget_(max_ops) {
    Env base = params;
    base.resize(static_cast<std::size_t>(s.slot_count), 0);
    world_ = fabric.gpu_count();
    if (s.world) {
      const std::int64_t w = s.world->eval_positive(base, "world");
      if (w > fabric.gpu_count())
        s.world->fail(
            fmt::format("world {} is larger than the topology's {} GPUs", w, fabric.gpu_count()));
      world_ = static_cast<int>(w);
    }
    base[static_cast<std::size_t>(s.world_slot)] = world_;
    gpus_.reserve(static_cast<std::size_t>(world_));
    for (int r = 0; r < world_; ++r) gpus_.emplace_back(r, hw, net, catalog);
    transfers_ = std::make_unique<Transfers>(engine, net, fabric, gpus_);
    if (!s.kernels.kernels.empty())
      kernels_ = std::make_unique<KernelRunner>(s.kernels, engine, net, fabric, gpus_, budget_);
    for (int r = 0; r < world_; ++r) {
      base[static_cast<std::size_t>(s.rank_slot)] = r;
      for (std::size_t d = 0; d < s.streams.size(); ++d) {
        const StreamDef& def = s.streams[d];
        if (def.condition && def.condition->eval(base) == 0) continue;
        StreamRun run;
        run.rank = r;
        run.def = static_cast<int>(d);
        run.env = base;
        run.walker = Walker<Op>(def.ops);
        streams_.push_back(std::move(run));
      }
    }
    began_.assign(streams_.size(), sim::Time::zero());
  }

  RunResult run() {
    for (std::size_t i = 0; i < streams_.size(); ++i)
      engine_.schedule_in(sim::Duration::zero(), [this, i] { advance(static_cast<int>(i)); });
    engine_.run();
    RunResult out;
    out.world = world_;
    out.kernels = std::move(kernel_results_);
    out.end = engine_.now();
    out.events = engine_.events_processed();
    for (const StreamRun& st : streams_) {
      const std::string& name = s_.streams[static_cast<std::size_t>(st.def)].name;
      if (st.done) {
        out.streams.push_back({st.rank, name, st.end, st.walker.ops()});
        continue;
      }
      std::string why = st.waiting;
      if (st.launch >= 0) why = kernels_->blocked_reason(st.launch);
      if (st.collective) {
        why = fmt::format("{} (the {} of stream '{}'): waiting for {}",
                          to_string(st.collective->kind()), ordinal(st.collectives_seen - 1), name,
                          st.collective->blocked_reason(st.rank));
      }
      out.blocked.push_back(
          {st.rank, name, why, st.current ? st.current->where : sim::SourceLocation{}});
    }
    for (const auto& c : collective_order_) {
      out.collectives.push_back({c.run->kind(), c.stream, c.run->bytes(), c.dtype, world_,
                                 c.run->begin(), c.run->end(), c.run->sends()});
    }
    return out;
  }

 private:
  static std::string ordinal(int n) { return fmt::format("collective #{}", n); }

  // Walks stream `i` until an op has to wait (for time, bytes, an event or other ranks).
  void advance(int i) {
    StreamRun& st = streams_[static_cast<std::size_t>(i)];
    while (const Op* op = st.walker.next(st.env, budget_)) {
      st.current = op;
      const bool finished =
          std::visit([&](const auto& what) { return start(i, *op, what); }, op->what);
      if (!finished) return;  // the op finishes later and calls advance(i) again
    }
    st.done = true;
    st.end = engine_.now();
    st.current = nullptr;
  }

  // Each start() begins an op on stream i and returns true when it finished at once.
  bool start(int, const Op& op, const ForOp&) {
    throw sim::InternalError(
        fmt::format("{}:{}: the walker enters for loops itself", op.where.file, op.where.line));
  }

  bool start(int i, const Op&, const RecordOp& record) {
    StreamRun& st = streams_[static_cast<std::size_t>(i)];
    events_.set(event_key(st, record.event, st.rank), 1, false,
                [this](int waiter) { resume_later(waiter); });
    return true;
  }

  bool start(int i, const Op&, const WaitOp& wait) {
    StreamRun& st = streams_[static_cast<std::size_t>(i)];
    const int rank = wait.event.rank ? check_rank(*wait.event.rank, st.env) : st.rank;
    const EventKey key = event_key(st, wait.event, rank);
    if (events_.wait(key, 1, i)) return true;
    st.waiting = fmt::format("event '{}' (index {}) on rank {}",
                             s_.event_names[static_cast<std::size_t>(wait.event.name)],
                             std::get<2>(key), rank);
    began_[static_cast<std::size_t>(i)] = engine_.now();
    return false;
  }

  bool start(int i, const Op&, const DelayOp& delay) {
    finish_later(i, delay.duration, "delay");
    return false;
  }

  bool start(int i, const Op& op, const MemcpyOp& copy) {
    StreamRun& st = streams_[static_cast<std::size_t>(i)];
    const std::int64_t bytes = copy.bytes.eval_positive(st.env, "memcpy bytes");
    const int src = copy.src ? check_rank(*copy.src, st.env) : st.rank;
    const int dst = copy.dst ? check_rank(*copy.dst, st.env) : st.rank;
    if (src != st.rank && dst != st.rank)
      throw sim::ConfigError(op.where, fmt::format("rank {} issues a memcpy from rank {} to "
                                                   "rank {}: a copy engine copies to or from "
                                                   "its own GPU",
                                                   st.rank, src, dst));
    began_[static_cast<std::size_t>(i)] = engine_.now();
    transfers_->copy(st.rank, src, dst, sim::Bytes(bytes), copy_hint_++, "memcpy",
                     [this, i] { op_done(i, "memcpy"); });
    return false;
  }

  bool start(int i, const Op& op, const CollectiveOp& c) {
    StreamRun& st = streams_[static_cast<std::size_t>(i)];
    const std::int64_t bytes = c.bytes.eval_positive(st.env, "collective bytes");
    if (bytes % c.dtype.size != 0)
      c.bytes.fail(fmt::format("{} bytes is not a whole number of {} elements ({} bytes each)",
                               bytes, c.dtype.name, c.dtype.size));
    const std::int64_t chunk = c.chunk ? c.chunk->eval_positive(st.env, "chunk") : bytes;
    const int seen = st.collectives_seen++;
    began_[static_cast<std::size_t>(i)] = engine_.now();
    if (world_ < 2) return true;  // nothing to exchange with one rank
    auto key = std::make_pair(st.def, seen);
    auto it = collectives_.find(key);
    if (it == collectives_.end()) {
      auto run = std::make_unique<CollectiveRun>(
          engine_, *transfers_, transport_, hw_.launch.kernel, c.kind, world_, bytes, chunk,
          [this, key](int rank) { collective_rank_done(key, rank); });
      collective_order_.push_back(
          {run.get(), s_.streams[static_cast<std::size_t>(st.def)].name, c.dtype});
      it = collectives_.emplace(key, Entry{std::move(run), {}}).first;
      it->second.streams.assign(static_cast<std::size_t>(world_), -1);
    } else if (it->second.run->kind() != c.kind || it->second.run->bytes() != bytes) {
      throw sim::ConfigError(
          op.where, fmt::format("rank {} calls {} of {} bytes where rank(s) before it "
                                "called {} of {} bytes (collective #{} of stream '{}')",
                                st.rank, to_string(c.kind), bytes,
                                to_string(it->second.run->kind()), it->second.run->bytes(), seen,
                                s_.streams[static_cast<std::size_t>(st.def)].name));
    }
    it->second.streams[static_cast<std::size_t>(st.rank)] = i;
    st.collective = it->second.run.get();
    it->second.run->join(st.rank);
    return false;
  }

  // Runs a kernel: its env holds the stream's params, rank and world, then the kernel's args
  // (bound by the launch, evaluated over the stream, or their defaults).
  bool start(int i, const Op&, const LaunchOp& launch) {
    StreamRun& st = streams_[static_cast<std::size_t>(i)];
    const KernelDef& k = s_.kernels.kernels[static_cast<std::size_t>(launch.kernel)];
    Env env = launch_env(k, st.env, s_.world_slot + 1, hw_.sm.count, launch.args);
    const sim::Time begin = engine_.now();
    began_[static_cast<std::size_t>(i)] = begin;
    // The launch's slice is named by its kernel.
    const std::string_view name = k.name;
    st.launch = kernels_->launch(st.rank, launch.kernel, std::move(env), [this, i, name, begin] {
      StreamRun& done = streams_[static_cast<std::size_t>(i)];
      done.launch = -1;
      kernel_results_.push_back({done.rank, s_.streams[static_cast<std::size_t>(done.def)].name,
                                 std::string(name), begin, engine_.now()});
      op_done(i, name);
    });
    return false;
  }

  void collective_rank_done(std::pair<int, int> key, int rank) {
    const int i = collectives_.at(key).streams[static_cast<std::size_t>(rank)];
    StreamRun& st = streams_[static_cast<std::size_t>(i)];
    trace_slice(i, to_string(st.collective->kind()));
    st.collective = nullptr;
    advance(i);
  }

  int check_rank(const Expr& e, const Env& env) const {
    const std::int64_t r = e.eval(env);
    if (r < 0 || r >= world_)
      e.fail(fmt::format("rank {} is outside the world (ranks 0 to {})", r, world_ - 1));
    return static_cast<int>(r);
  }

  EventKey event_key(const StreamRun& st, const EventRef& ref, int rank) const {
    return {rank, ref.name, ref.index ? ref.index->eval(st.env) : 0};
  }

  void resume_later(int i) {
    engine_.schedule_in(sim::Duration::zero(), [this, i] {
      streams_[static_cast<std::size_t>(i)].waiting.clear();
      trace_slice(i, "wait");
      advance(i);
    });
  }

  void finish_later(int i, sim::Duration d, const char* label) {
    began_[static_cast<std::size_t>(i)] = engine_.now();
    engine_.schedule_in(d, [this, i, label] { op_done(i, label); });
  }

  // `label` names the op's slice on the stream's track; it must outlive the run.
  void op_done(int i, std::string_view label) {
    trace_slice(i, label);
    advance(i);
  }

  void trace_slice(int i, std::string_view label) {
    sim::TraceSink* trace = engine_.trace();
    if (!trace) return;
    const StreamRun& st = streams_[static_cast<std::size_t>(i)];
    const sim::TrackId track = trace->track(fmt::format("rank {}", st.rank),
                                            s_.streams[static_cast<std::size_t>(st.def)].name);
    trace->slice(track, label, began_[static_cast<std::size_t>(i)], engine_.now());
  }

  struct Entry {
    std::unique_ptr<CollectiveRun> run;
    std::vector<int> streams;  // rank -> stream index
  };
  struct Ordered {
    CollectiveRun* run;
    std::string stream;
    Dtype dtype;
  };

  const Schedule& s_;
  sim::Engine& engine_;
  const models::HardwareSpec& hw_;
  CollectiveTransport transport_;
  int world_ = 0;
  std::vector<models::Gpu> gpus_;  // by rank
  std::unique_ptr<Transfers> transfers_;
  OpBudget budget_;                        // host streams' and kernel roles' ops together
  std::unique_ptr<KernelRunner> kernels_;  // only when the schedule has kernels
  std::vector<StreamRun> streams_;
  std::vector<sim::Time> began_;  // per stream: when its current op began
  Events events_;
  std::map<std::pair<int, int>, Entry> collectives_;
  std::vector<Ordered> collective_order_;
  std::vector<KernelResult> kernel_results_;
  std::uint64_t copy_hint_ = 0;
};

}  // namespace

RunResult execute(const Schedule& schedule, const Env& params, sim::Engine& engine,
                  sim::FluidNetwork& net, Interconnect& fabric,
                  const models::HardwareSpec& hardware, models::ResourceCatalog* catalog,
                  CollectiveTransport transport, std::int64_t max_ops) {
  Executor ex(schedule, params, engine, net, fabric, hardware, catalog, transport, max_ops);
  return ex.run();
}

}  // namespace mgsim::traces
