#include "traces/executor.hpp"

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <variant>

#include <fmt/format.h>

#include "sim/check.hpp"
#include "sim/trace.hpp"
#include "traces/collective.hpp"
#include "traces/kernel_exec.hpp"
#include "traces/nccl/library.hpp"
#include "traces/sync_table.hpp"
#include "traces/walker.hpp"

namespace mgsim::traces {
namespace {

// An op enqueued on a stream by its host call, waiting for the GPU: its values were evaluated when
// the call was made (the walker has moved on since).
struct Command {
  const Op* op = nullptr;
  sim::Time ready;            // when the call that enqueued it returned
  bool kernel = false;        // starts after launch.latency, launch.gap or launch.graph_node
  bool graph_node = false;    // a kernel node of a graph after its first
  bool event = false;         // a timing event: written launch.event after the op before it
  sim::Duration wake;         // a kernel's extra start latency after its host slept
  std::optional<Clock> host;  // the data check: what its host thread knew at the call
  int call = -1;              // the critical path's step of the call that enqueued it
  int group = -1;             // a collective's id (Entry::id), for the critical path
  // Begins it on the GPU, `launch` after now if it is a kernel; true when it finished at once.
  std::function<bool(sim::Duration launch)> start;
};

// One collective across the ranks: an ideal ring (`run`) or NCCL's kernels (the rest).
struct Entry {
  CollectiveKind kind = CollectiveKind::all_reduce;
  std::int64_t bytes = 0;
  Dtype dtype;
  std::vector<int> streams;  // rank -> stream index
  std::unique_ptr<CollectiveRun> run;
  nccl::Launch launch;
  int kernel = -1;                   // launch.kernel's index in the schedule's kernel set
  int root = 0;                      // broadcast, reduce
  std::int64_t base = 0;             // the communicator's flag count before it (nccl/kernels.yaml)
  std::pair<int, int> key;           // stream definition, its number in the stream
  int id = 0;                        // its place in collective_order_
  const CollectiveOp* op = nullptr;  // its data, for the data check
  const sim::SourceLocation* where = nullptr;
  sim::Time begin = sim::Time::max();
  sim::Time end = sim::Time::zero();
  // A send and the receive it matches (kind send): the pair, the transfer's number between them
  // (in the ranks' stream), how it moves, each side's op (null until that rank calls it).
  int src = -1, dst = -1, index = 0;
  nccl::P2pPlan p2p;
  const Op* sides[2] = {nullptr, nullptr};  // send, recv
  std::int64_t regions[2] = {-1, -1};       // of each side's buffer (-1: all)
};
struct Ordered {
  const Entry* entry;
  std::string stream;
};

struct StreamRun {
  int rank = 0;
  int def = 0;
  int thread = 0;  // index into Executor::threads_
  Env env;
  Walker<Op> walker;
  // The host side: the calls.
  const Op* calling = nullptr;  // the op whose call is being made (or that syncs)
  bool syncing = false;         // blocked in a sync op (`calling`)
  bool host_done = false;
  sim::Time host_end;
  int collectives_seen = 0;
  // The GPU side: what was enqueued, and the op running.
  std::deque<Command> queue;
  const Op* running = nullptr;
  std::string waiting;  // set while blocked on an event
  // When its last kernel, collective or timing event ended, or one that an event it waited
  // for followed (a timing event is written launch.event after it); none before the first.
  std::optional<sim::Time> work_end;
  CollectiveRun* collective = nullptr;
  const Entry* nccl = nullptr;    // the NCCL collective whose kernel it runs
  std::vector<const Entry*> p2p;  // the sends and receives whose kernel it runs
  int launch = -1;                // the kernel launch it is in, for reports
  DataCheck::Agent agent = 0;     // in the data check, when the run is checked
  bool done = false;
  sim::Time end;
  // The critical path's steps (when recorded): its last host call, its last GPU op.
  int last_call = -1, step = -1;
};

// A host thread serves API calls one at a time, in the order they are made (models/host.hpp).
struct HostThread {
  std::int64_t id = 0;
  sim::Time free;                             // when its last call returns
  int blocked_by = -1;                        // the stream whose sync holds it
  std::deque<std::function<void()>> pending;  // calls made while it was blocked
  sim::Duration slept;         // asleep this long since its last API call (sleep ops; 0: awake)
  DataCheck::Agent agent = 0;  // in the data check, when the run is checked
  int last_call = -1;          // the critical path's step of its last call
};

using EventKey = std::tuple<int, int, std::int64_t>;  // rank, name, index
// Recorded at 1; the waiters are stream indices.
using Events = SyncTable<EventKey, int>;

class Executor {
 public:
  Executor(const Schedule& s, const Env& params, sim::Engine& engine, sim::FluidNetwork& net,
           Interconnect& fabric, const models::HardwareSpec& hw, models::ResourceCatalog* catalog,
           const ExecuteOptions& options)
      : s_(s),
        engine_(engine),
        fabric_(fabric),
        hw_(hw),
        transport_(options.transport),
        budget_(options.max_ops) {
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
    // A folded run (FoldedInterconnect) simulates ranks 0 .. ranks_ - 1, each standing for its
    // translates; its world is the whole fabric.
    const bool folded = fabric.simulated_gpus() < fabric.gpu_count();
    ranks_ = folded ? fabric.simulated_gpus() : world_;
    MGSIM_CHECK(!folded || (world_ == fabric.gpu_count() && !options.check &&
                            !options.critical_path && s.same_program),
                "a folded run of {} ranks in a world of {}", ranks_, world_);
    if (options.check) check_ = std::make_unique<DataCheck>(s.kernels, base, s.rank_slot, world_);
    if (options.critical_path) path_.emplace();
    gpus_.reserve(static_cast<std::size_t>(ranks_));
    for (int r = 0; r < ranks_; ++r) gpus_.emplace_back(r, hw, net, catalog);
    set_clocks(base, engine);
    transfers_ = std::make_unique<Transfers>(engine, net, fabric, gpus_);
    if (!s.kernels.kernels.empty()) {
      // Kernels give every GPU they run on a tensor pipe per SM, and a memory pipe per SM that
      // loads or stores: room for them at once, not growing the network GPU by GPU.
      net.reserve_resources(static_cast<std::size_t>(ranks_) * 2 *
                            static_cast<std::size_t>(hw.sm.count));
      kernels_ = std::make_unique<KernelRunner>(s.kernels, engine, net, fabric, gpus_, budget_,
                                                check_.get());
    }
    rank_streams_.resize(static_cast<std::size_t>(ranks_));
    for (int r = 0; r < ranks_; ++r) {
      base[static_cast<std::size_t>(s.rank_slot)] = r;
      for (std::size_t d = 0; d < s.streams.size(); ++d) {
        const StreamDef& def = s.streams[d];
        if (def.condition && def.condition->eval(base) == 0) continue;
        StreamRun run;
        run.rank = r;
        run.def = static_cast<int>(d);
        run.thread = thread_index(def.host ? def.host->eval(base) : r);
        run.env = base;
        run.walker = Walker<Op>(def.ops);
        if (check_) run.agent = check_->stream_agent(r, def.name);
        rank_streams_[static_cast<std::size_t>(r)].push_back(static_cast<int>(streams_.size()));
        streams_.push_back(std::move(run));
      }
    }
    began_.assign(streams_.size(), sim::Time::zero());
  }

  // `power:` (models/power.hpp): every GPU's SM clock locked where the schedule says so, else a
  // governor per GPU when the hardware has a power limit.
  void set_clocks(Env env, sim::Engine& engine) {
    const PowerSetting& p = s_.power;
    if (p.start && !hw_.power.governed())
      throw sim::ConfigError(p.start_where,
                             fmt::format("power start needs a power limit, and hardware '{}' "
                                         "has none (power.limit): its SMs run at sm.clock",
                                         hw_.name));
    for (int r = 0; r < ranks_; ++r) {
      models::Gpu& gpu = gpus_[static_cast<std::size_t>(r)];
      if (p.clock) {
        env[static_cast<std::size_t>(s_.rank_slot)] = r;
        const std::int64_t mhz = p.clock->eval_positive(env, "power clock (MHz)");
        const std::int64_t max = hw_.sm.clock.hertz();
        if (mhz > max / 1'000'000)
          p.clock->fail(fmt::format("power clock {} MHz is above sm.clock ({})", mhz,
                                    sim::to_string(hw_.sm.clock)));
        gpu.set_clock_scale(static_cast<double>(mhz) * 1e6 / static_cast<double>(max));
      } else if (hw_.power.governed()) {
        governors_.push_back(std::make_unique<models::PowerGovernor>(
            gpu, engine, p.start.value_or(models::PowerStart::idle)));
        gpu.set_governor(governors_.back().get());
      }
    }
  }

  RunResult run() {
    for (std::size_t i = 0; i < streams_.size(); ++i)
      engine_.schedule_in(sim::Duration::zero(), [this, i] { issue(static_cast<int>(i)); });
    engine_.run();
    RunResult out;
    out.world = world_;
    for (std::size_t r = 0; r < governors_.size(); ++r) {
      const models::PowerGovernor::Summary g = governors_[r]->finish();
      out.clocks.push_back({static_cast<int>(r), hw_.sm.clock, g.min_clock, g.mean_clock, g.capped,
                            g.busy, g.energy_joules});
    }
    out.kernels = std::move(kernel_results_);
    out.recorded = std::move(event_results_);
    // The last event that was not a power governor's step: the same as now() unless the run
    // deadlocked, when the governors stepped on a while before they saw nothing else could happen.
    out.end = engine_.last_foreground();
    out.events = engine_.events_processed();
    if (check_) out.check = CheckResult{check_->finish(), check_->flops()};
    for (const StreamRun& st : streams_) {
      const std::string& name = s_.streams[static_cast<std::size_t>(st.def)].name;
      if (st.done) {
        out.streams.push_back({st.rank, name, st.end, st.host_end, st.walker.ops()});
        continue;
      }
      out.blocked.push_back({st.rank, name, blocked_reason(st), blocked_where(st)});
    }
    for (const auto& [e, name] : collective_order_) {
      CollectiveResult c;
      c.kind = e->kind;
      c.stream = name;
      c.bytes = e->bytes;
      c.dtype = e->dtype;
      c.ranks = e->src < 0 ? world_ : e->src == e->dst ? 1 : 2;
      if (e->run) {
        c.begin = e->run->begin();
        c.end = e->run->end();
        c.sends = e->run->sends();
        c.algorithm = "ideal_ring";
        c.channels = e->run->rings();  // its rings: one per rail across NVLink domains
      } else {
        c.begin = e->begin;
        c.end = e->end;
        c.sends = e->launch.handovers * (e->src < 0 ? world_ : 1);  // a send: its sender's
        c.algorithm = std::string(e->launch.algorithm);
        c.protocol = std::string(nccl::to_string(e->launch.protocol));
        c.channels = e->launch.channels;
        if (e->kind == CollectiveKind::broadcast || e->kind == CollectiveKind::reduce)
          c.root = e->root;
      }
      out.collectives.push_back(std::move(c));
    }
    if (out.blocked.empty()) check_matched();
    if (path_ && out.blocked.empty()) out.critical_path = critical_path(*path_);
    out.simulated = ranks_;
    if (ranks_ < world_) unfold(out);
    return out;
  }

  // A folded run's results for every rank: rank r + k * ranks_ did what rank r did, when r did.
  void unfold(RunResult& out) const {
    const auto copy = [this](auto& items) {
      const std::size_t simulated = items.size();
      for (int k = 1; k < world_ / ranks_; ++k) {
        for (std::size_t i = 0; i < simulated; ++i) {
          auto item = items[i];
          item.rank += k * ranks_;
          items.push_back(std::move(item));
        }
      }
    };
    copy(out.streams);
    copy(out.kernels);
    copy(out.recorded);
    copy(out.clocks);
    std::ranges::stable_sort(out.kernels, {}, &KernelResult::end);
    std::ranges::stable_sort(out.recorded, {}, &EventResult::at);
  }

 private:
  StreamRun& stream(int i) { return streams_[static_cast<std::size_t>(i)]; }
  const std::string& stream_name(const StreamRun& st) const {
    return s_.streams[static_cast<std::size_t>(st.def)].name;
  }

  int thread_index(std::int64_t id) {
    const auto it = std::find_if(threads_.begin(), threads_.end(),
                                 [id](const HostThread& t) { return t.id == id; });
    if (it != threads_.end()) return static_cast<int>(it - threads_.begin());
    threads_.push_back({id,
                        sim::Time::zero(),
                        -1,
                        {},
                        sim::Duration::zero(),
                        check_ ? check_->thread_agent(id) : 0});
    return static_cast<int>(threads_.size()) - 1;
  }

  // ---- The host side: each stream's calls, on its thread.

  // Makes stream i's next call (or finishes its host side).
  void issue(int i) {
    StreamRun& st = stream(i);
    const Op* op = st.walker.next(st.env, budget_);
    st.calling = op;
    if (!op) {
      st.host_done = true;
      st.host_end = engine_.now();
      maybe_finish(i);
      return;
    }
    std::visit([&](const auto& what) { call(i, *op, what); }, op->what);
  }

  // Holds stream i's thread for `cost` from when it is free, then enqueues `commands` on the GPU
  // side and makes the stream's next call. An API call (`api`) right after the thread slept pays
  // the wake-up (models::wake_cost): host.wake_* on the thread, launch.wake_* before its kernels.
  void host_call(int i, sim::Duration cost, std::string_view label, std::vector<Command> commands,
                 bool api = true) {
    HostThread& t = threads_[static_cast<std::size_t>(stream(i).thread)];
    if (t.blocked_by >= 0) {
      t.pending.push_back([this, i, cost, label, api, commands = std::move(commands)]() mutable {
        host_call(i, cost, label, std::move(commands), api);
      });
      return;
    }
    if (api && t.slept > sim::Duration::zero()) {
      cost += models::wake_cost(t.slept, hw_.host.wake_1ms, hw_.host.wake_100ms);
      const sim::Duration gpu =
          models::wake_cost(t.slept, hw_.launch.wake_1ms, hw_.launch.wake_100ms);
      for (Command& c : commands) c.wake = gpu;
      t.slept = sim::Duration::zero();
    }
    if (check_ && !commands.empty()) {
      const Clock known = check_->publish(t.agent);
      for (Command& c : commands) c.host = known;
    }
    const sim::Time begin = std::max(engine_.now(), t.free);
    if (cost > sim::Time::max() - begin)
      throw sim::ConfigError(stream(i).calling->where,
                             fmt::format("this {} would end past the simulator's clock (2^63 ps, "
                                         "about 106 days of simulated time)",
                                         label));
    t.free = begin + cost;
    engine_.schedule_at(t.free, [this, i, begin, label, commands = std::move(commands)]() mutable {
      trace_host(i, label, begin);
      const int call = record_call(i, label, begin, -1);
      for (Command& c : commands) {
        c.call = call;
        c.ready = engine_.now();
        stream(i).queue.push_back(std::move(c));
      }
      run_gpu(i);
      issue(i);
    });
  }

  void call(int, const Op& op, const ForOp&) {
    throw sim::InternalError(
        fmt::format("{}:{}: the walker enters for loops itself", op.where.file, op.where.line));
  }

  void call(int i, const Op& op, const RecordOp& record) {
    StreamRun& st = stream(i);
    const EventKey key = event_key(st, record.event, st.rank);
    check_event_count(op);
    const bool timing = record.timing;
    Command c = only(op, false, [this, i, key, timing](sim::Duration) {
      if (check_) check_->release(stream(i).agent, event_check_key(key));
      const int recorded = stream(i).step;
      // What a wait on it carries: the end of the work before it, a timing event's own write.
      const std::optional<sim::Time> work =
          timing ? std::optional(engine_.now()) : stream(i).work_end;
      event_work_[key] = work;
      events_.set(key, 1, false, [this, key, recorded, work](int waiter) {
        if (check_) check_->acquire(stream(waiter).agent, event_check_key(key));
        if (path_ && stream(waiter).step >= 0)
          (*path_)[static_cast<std::size_t>(stream(waiter).step)].cause = recorded;
        joined(waiter, work);
        resume_later(waiter);
      });
      event_results_.push_back({std::get<0>(key),
                                s_.event_names[static_cast<std::size_t>(std::get<1>(key))],
                                std::get<2>(key), engine_.now()});
      return true;
    });
    c.event = timing;
    host_call(i, timing ? hw_.host.event_record : hw_.host.event_record_untimed, "cudaEventRecord",
              {std::move(c)});
  }

  void call(int i, const Op& op, const WaitOp& wait) {
    StreamRun& st = stream(i);
    const int rank = wait.event.rank ? check_rank(*wait.event.rank, st.env) : st.rank;
    const EventKey key = event_key(st, wait.event, rank);
    check_event_count(op);
    host_call(i, hw_.host.stream_wait, "cudaStreamWaitEvent",
              {only(op, false, [this, i, key, rank](sim::Duration) {
                if (events_.wait(key, 1, i)) {
                  if (check_) check_->acquire(stream(i).agent, event_check_key(key));
                  joined(i, event_work_[key]);
                  return true;
                }
                stream(i).waiting =
                    fmt::format("event '{}' (index {}) on rank {}",
                                s_.event_names[static_cast<std::size_t>(std::get<1>(key))],
                                std::get<2>(key), rank);
                return false;
              })});
  }

  // A delay keeps the thread busy; a sleep leaves it idle, to wake up at its next API call.
  void call(int i, const Op&, const DelayOp& delay) {
    if (delay.idle) threads_[static_cast<std::size_t>(stream(i).thread)].slept += delay.duration;
    host_call(i, delay.duration, delay.idle ? "sleep" : "delay", {}, false);
  }

  // Blocks the thread until the work enqueued before is done: calls made after this one wait
  // behind it (check_sync releases them), it starts when the thread's last call has returned.
  void call(int i, const Op& op, const SynchronizeOp& sync) {
    HostThread& t = threads_[static_cast<std::size_t>(stream(i).thread)];
    if (t.blocked_by >= 0) {
      t.pending.push_back([this, i, &op, &sync] { call(i, op, sync); });
      return;
    }
    t.blocked_by = i;
    engine_.schedule_at(std::max(engine_.now(), t.free), [this, i] {
      stream(i).syncing = true;
      check_sync(i);
    });
  }

  void call(int i, const Op& op, const MemcpyOp& copy) {
    host_call(i, hw_.host.memcpy, "cudaMemcpyAsync", {memcpy_command(i, op, copy, stream(i).env)});
  }

  void call(int i, const Op& op, const LaunchOp& launch) {
    host_call(i, hw_.host.launch, "cudaLaunchKernel",
              {launch_command(i, op, launch, stream(i).env)});
  }

  // One cudaGraphLaunch enqueues the body's nodes (expanded now, with the stream's values).
  void call(int i, const Op&, const GraphOp& graph) {
    StreamRun& st = stream(i);
    std::vector<Command> nodes;
    Env env = st.env;
    Walker<Op> body(graph.body);
    bool first_kernel = true;
    while (const Op* node = body.next(env, budget_)) {
      if (const auto* l = std::get_if<LaunchOp>(&node->what)) {
        nodes.push_back(launch_command(i, *node, *l, env));
        nodes.back().graph_node = !first_kernel;
        first_kernel = false;
      } else {
        nodes.push_back(memcpy_command(i, *node, std::get<MemcpyOp>(node->what), env));
      }
    }
    host_call(i, hw_.host.graph_launch, "cudaGraphLaunch", std::move(nodes));
  }

  // NCCL's calls for one GPU (models/host.hpp): join the caller's stream to NCCL's (an untimed
  // event record and a stream wait), launch the kernel, join back, and (NCCL's kernels, not the
  // ideal ring) the rest of NCCL's host work; with copy_engines, the algorithms' idealised
  // transport, no host cost.
  void call(int i, const Op& op, const CollectiveOp& c) {
    StreamRun& st = stream(i);
    if (c.kind == CollectiveKind::send || c.kind == CollectiveKind::recv) {
      P2pCall g;
      add_p2p(i, g, op, c, st.env);
      call_p2p(i, op, g);
      return;
    }
    const std::int64_t bytes = collective_bytes(c, st.env);
    const int seen = st.collectives_seen++;
    const bool sm = transport_ == CollectiveTransport::sm_copies;
    const bool ideal = c.algorithm == CollectiveAlgorithm::ideal_ring || !sm;
    // all_to_all is a grouped send and receive with every rank, itself included: a pair each.
    const std::int64_t extra_pairs = c.kind == CollectiveKind::all_to_all ? world_ - 1 : 0;
    const sim::Duration cost =
        !sm ? sim::Duration::zero()
            : hw_.host.launch + (hw_.host.event_record_untimed + hw_.host.stream_wait) * 2 +
                  (ideal ? sim::Duration::zero()
                         : hw_.host.nccl_enqueue + hw_.host.nccl_p2p_pair * extra_pairs);
    if (world_ < 2) {  // nothing to exchange with one rank
      host_call(i, cost, "ncclCollective", {});
      return;
    }
    Entry* entry = collective_entry(i, op, c, bytes, seen, ideal);
    if (!entry->run) {
      Command kernel = nccl_command(i, op, entry);
      kernel.group = entry->id;
      host_call(i, cost, "ncclCollective", {std::move(kernel)});
      return;
    }
    Command join = only(op, sm, [this, i, entry](sim::Duration launch) {
      StreamRun& s = stream(i);
      entry->streams[static_cast<std::size_t>(s.rank)] = i;
      collective_data(i, *entry, false);
      s.collective = entry->run.get();
      s.collective->join(s.rank, launch);
      return false;
    });
    join.group = entry->id;
    host_call(i, cost, "ncclCollective", {std::move(join)});
  }

  static std::int64_t collective_bytes(const CollectiveOp& c, const Env& env) {
    const std::int64_t bytes = eval_transfer_bytes(c.bytes, env, "collective bytes");
    if (bytes % c.dtype.size != 0)
      c.bytes.fail(fmt::format("{} bytes is not a whole number of {} elements ({} bytes each)",
                               bytes, c.dtype.name, c.dtype.size));
    return bytes;
  }

  // A run that ended with a send or a receive whose other side was never called (when it
  // deadlocked, the blocked streams say why instead).
  void check_matched() const {
    for (const auto& transfer : p2p_) {
      const Entry& e = transfer.second;
      const bool sent = e.sides[0] != nullptr;
      if (sent && e.sides[1] != nullptr) continue;
      throw sim::ConfigError(
          e.sides[sent ? 0 : 1]->where,
          fmt::format("rank {}'s {} {} bytes {} rank {} (their transfer #{}) has no matching {} "
                      "on rank {}",
                      sent ? e.src : e.dst, sent ? "send of" : "receive of", e.bytes,
                      sent ? "to" : "from", sent ? e.dst : e.src, e.index, sent ? "recv" : "send",
                      sent ? e.dst : e.src));
    }
  }

  // ---- NCCL's sends and receives (docs/NCCL.md): a group's, or one alone, is one NCCL call;
  // each p2p round of it (a send to rank + j and a receive from rank - j) one nccl_sendrecv
  // kernel, the rounds' kernels started at once (NCCL's one kernel gives each round its own
  // channels). A send and a receive match as NCCL matches them on one communicator (the world):
  // the k-th send rank a calls to rank b with the k-th receive b calls from a, whatever their
  // streams.

  // A group's sends and receives as stream i calls them, by p2p round.
  struct P2pRound {
    int round = 0;
    Entry* sides[2] = {nullptr, nullptr};  // send, recv
  };
  struct P2pCall {
    std::vector<P2pRound> rounds;
    int parts = 0;
  };

  // ncclGroupStart .. ncclGroupEnd: the body's sends and receives, with the stream's values.
  void call(int i, const Op& op, const GroupOp& group) {
    Env env = stream(i).env;
    Walker<Op> body(group.body);
    P2pCall g;
    while (const Op* part = body.next(env, budget_))
      add_p2p(i, g, *part, std::get<CollectiveOp>(part->what), env);
    if (g.parts == 0) {  // nothing to launch: ncclGroupEnd returns
      host_call(i, sim::Duration::zero(), "ncclGroupEnd", {}, false);
      return;
    }
    call_p2p(i, op, g);
  }

  void add_p2p(int i, P2pCall& g, const Op& op, const CollectiveOp& c, const Env& env) {
    const bool send = c.kind == CollectiveKind::send;
    const int rank = stream(i).rank;
    const int peer = check_rank(*c.peer, env);
    const int round = ((send ? peer - rank : rank - peer) + world_) % world_;
    auto it = std::find_if(g.rounds.begin(), g.rounds.end(),
                           [round](const P2pRound& r) { return r.round == round; });
    if (it == g.rounds.end()) it = g.rounds.insert(g.rounds.end(), P2pRound{round});
    Entry*& side = it->sides[send ? 0 : 1];
    if (side != nullptr)
      throw sim::ConfigError(
          op.where,
          fmt::format("a second {} {} rank {} in one group: NCCL runs them one after the other "
                      "on the same channels, which is not modelled yet (use two groups)",
                      to_string(c.kind), send ? "to" : "from", peer));
    side = p2p_entry(i, op, c, collective_bytes(c, env), peer);
    side->regions[send ? 0 : 1] = c.region ? c.region->eval(env) : -1;
    ++g.parts;
  }

  // The transfer stream i's send to (or receive from) `peer` is a side of: made by whichever
  // side calls first, checked by the other.
  Entry* p2p_entry(int i, const Op& op, const CollectiveOp& c, std::int64_t bytes, int peer) {
    StreamRun& st = stream(i);
    const bool send = c.kind == CollectiveKind::send;
    const int src = send ? st.rank : peer, dst = send ? peer : st.rank;
    const int k = p2p_calls_[{st.rank, send, peer}]++;
    const auto key = std::make_tuple(src, dst, k);
    auto it = p2p_.find(key);
    if (it == p2p_.end()) {
      it = p2p_.emplace(key, p2p_transfer(op, c, bytes, src, dst)).first;
      it->second.index = k;
      it->second.id = static_cast<int>(collective_order_.size());
      collective_order_.push_back({&it->second, stream_name(st)});
    }
    Entry& e = it->second;
    if (e.bytes != bytes)
      throw sim::ConfigError(
          op.where, fmt::format("rank {} {} {} bytes {} rank {}, where rank {} {} {} bytes (their "
                                "transfer #{})",
                                st.rank, send ? "sends" : "receives", bytes, send ? "to" : "from",
                                peer, peer, send ? "receives" : "sends", e.bytes, k));
    e.sides[send ? 0 : 1] = &op;
    return &e;
  }

  // A new transfer from src to dst: NCCL's plan for its bytes (tuner.hpp, plan_p2p), its flags
  // counted on from the pair's earlier transfers on as many channels.
  Entry p2p_transfer(const Op& op, const CollectiveOp& c, std::int64_t bytes, int src, int dst) {
    Entry e;
    e.kind = CollectiveKind::send;
    e.bytes = bytes;
    e.dtype = c.dtype;
    e.op = &c;
    e.where = &op.where;
    e.streams.assign(static_cast<std::size_t>(world_), -1);
    e.src = src;
    e.dst = dst;
    e.p2p = nccl::plan_p2p(comm(op), bytes, src == dst);
    std::int64_t& chunks = p2p_chunks_[{src, dst, e.p2p.channels}];
    e.base = chunks;
    chunks += e.p2p.moves.slices;
    e.launch.kernel = "nccl_sendrecv";
    e.launch.algorithm = "p2p";
    e.launch.protocol = e.p2p.protocol;
    e.launch.channels = e.p2p.channels;
    e.launch.handovers = src == dst ? 0 : e.p2p.moves.slices * e.p2p.channels;
    if (e.launch.handovers > kMaxTransfers)
      c.bytes.fail(fmt::format("NCCL sends {} bytes in {} chunk handovers, more than {}", bytes,
                               e.launch.handovers, kMaxTransfers));
    e.kernel = s_.kernels.find("nccl_sendrecv");
    return e;
  }

  // One NCCL call for stream i's group: its host cost (a pair more per p2p round beyond the
  // first), then a kernel per round.
  void call_p2p(int i, const Op& op, const P2pCall& g) {
    const int rank = stream(i).rank;
    for (const P2pRound& r : g.rounds) {
      if (r.round != 0 || r.sides[0] == r.sides[1]) continue;
      const bool sends = r.sides[0] != nullptr;
      throw sim::ConfigError(
          op.where,
          fmt::format("rank {} {} itself without the matching {} in the same "
                      "group (NCCL refuses it)",
                      rank, sends ? "sends to" : "receives from", sends ? "recv" : "send"));
    }
    const auto extra = static_cast<std::int64_t>(g.rounds.size()) - 1;
    const sim::Duration cost =
        transport_ != CollectiveTransport::sm_copies
            ? sim::Duration::zero()
            : hw_.host.launch + (hw_.host.event_record_untimed + hw_.host.stream_wait) * 2 +
                  hw_.host.nccl_enqueue + hw_.host.nccl_p2p_pair * extra;
    const P2pRound& first = g.rounds.front();
    const Entry* send = first.sides[0];
    Command kernel = p2p_command(i, op, g);
    kernel.group = (send ? send : first.sides[1])->id;
    host_call(i, cost,
              g.parts > 1 ? "ncclGroupEnd"
              : send      ? "ncclSend"
                          : "ncclRecv",
              {std::move(kernel)});
  }

  // Rank i's nccl_sendrecv kernels for the group, one per round, started together; a send's
  // data is read when its kernel begins, a receive's written when the group's last kernel ends.
  Command p2p_command(int i, const Op& op, const P2pCall& g) {
    return only(op, true, [this, i, g](sim::Duration start) {
      StreamRun& st = stream(i);
      std::vector<std::pair<int, Env>> launches;
      bool sends = false, receives = false;
      for (const P2pRound& r : g.rounds) {
        nccl::P2pSide sides[2];
        for (int d = 0; d < 2; ++d) {
          Entry* e = r.sides[d];
          if (e == nullptr) continue;
          e->streams[static_cast<std::size_t>(st.rank)] = i;
          e->begin = std::min(e->begin, engine_.now());
          if (d == 0 || e != r.sides[0]) st.p2p.push_back(e);
          sides[d] = {d == 0 ? e->dst : e->src, &e->p2p, e->base};
          if (d == 0) p2p_data(i, *e, false);
          (d == 0 ? sends : receives) = true;
        }
        const int kernel = (r.sides[0] ? r.sides[0] : r.sides[1])->kernel;
        const KernelDef& k = s_.kernels.kernels[static_cast<std::size_t>(kernel)];
        launches.emplace_back(
            kernel, nccl::launch_env(k, nccl::sendrecv_launch(st.rank, world_, sides[0], sides[1]),
                                     st.rank, world_, hw_.sm.count, 0, 0));
      }
      const std::string_view label = sends && receives ? "sendrecv" : sends ? "send" : "recv";
      run_kernels(
          i, std::move(launches), start, label,
          [this, i, g] {
            stream(i).p2p.clear();
            for (const P2pRound& r : g.rounds)
              for (int d = 0; d < 2; ++d) {
                if (r.sides[d] == nullptr) continue;
                r.sides[d]->end = std::max(r.sides[d]->end, engine_.now());
                if (d == 1) p2p_data(i, *r.sides[d], true);
              }
          },
          false);
      return false;
    });
  }

  // The data of a send, read when the sender's kernel begins, and of the receive it matches,
  // written when the receiver's ends (which happens after the send began).
  void p2p_data(int i, const Entry& e, bool end) {
    if (!check_) return;
    const StreamRun& st = stream(i);
    const DataCheck::SyncKey key{DataCheck::p2p, 0, std::int64_t{e.src} * world_ + e.dst, e.index};
    const Op& side = *e.sides[end ? 1 : 0];
    const int buffer = std::get<CollectiveOp>(side.what).buffer;
    if (!end) {
      check_->read(st.agent, st.rank, buffer, e.regions[0], e.bytes, side.where, "send");
      check_->release(st.agent, key);
      return;
    }
    check_->acquire(st.agent, key);
    check_->write(st.agent, st.rank, buffer, e.regions[1], e.bytes, side.where, "recv");
  }

  // NCCL's communicator, made on first use; within one NVLink domain, of 2 ranks or more (a
  // collective of one rank has nothing to exchange; its channels are not modelled).
  const nccl::Comm& comm(const Op& op) {
    if (world_ < 2)
      throw sim::ConfigError(op.where,
                             "NCCL's sends and receives need a world of 2 or more ranks "
                             "here (a one-rank communicator is not modelled)");
    if (nccl_comm_) return *nccl_comm_;  // the world was checked when it was made
    for (int r = 1; r < world_; ++r)
      if (fabric_.nvlink_domain(r) != fabric_.nvlink_domain(0))
        throw sim::ConfigError(
            op.where,
            fmt::format("ranks 0 and {} are in different NVLink domains: NCCL across a network "
                        "(its network transport and proxy thread) is not modelled yet; "
                        "`algorithm: ideal_ring` runs an idealised ring",
                        r));
    nccl_comm_ =
        nccl::make_comm(world_, hw_.sm.compute_capability, hw_.nvlink.links, multicast_group());
    return *nccl_comm_;
  }

  // The collective `seen` of stream i's definition: made by the first rank to call it (which
  // decides how it runs), checked against it by the others.
  Entry* collective_entry(int i, const Op& op, const CollectiveOp& c, std::int64_t bytes, int seen,
                          bool ideal) {
    const StreamRun& st = stream(i);
    auto key = std::make_pair(st.def, seen);
    if (auto it = collectives_.find(key); it != collectives_.end()) {
      Entry& e = it->second;
      if (e.kind != c.kind || e.bytes != bytes)
        throw sim::ConfigError(
            op.where, fmt::format("rank {} calls {} of {} bytes where rank(s) before it "
                                  "called {} of {} bytes (collective #{} of stream '{}')",
                                  st.rank, to_string(c.kind), bytes, to_string(e.kind), e.bytes,
                                  seen, stream_name(st)));
      return &e;
    }
    Entry e;
    e.kind = c.kind;
    e.bytes = bytes;
    e.key = key;
    e.op = &c;
    e.where = &op.where;
    e.dtype = c.dtype;
    e.streams.assign(static_cast<std::size_t>(world_), -1);
    if (ideal) {
      e.run = ideal_ring(c, bytes, st.env, key);
    } else {
      plan_nccl(op, c, st, e);
    }
    e.id = static_cast<int>(collective_order_.size());
    Entry* entry = &collectives_.emplace(key, std::move(e)).first->second;
    collective_order_.push_back({entry, stream_name(st)});
    return entry;
  }

  // A collective's simulated transfers per rank (ideal ring chunks, NCCL slice handovers) are
  // bounded before anything is sized or run by them.
  static constexpr std::int64_t kMaxTransfers = 1'000'000;

  std::unique_ptr<CollectiveRun> ideal_ring(const CollectiveOp& c, std::int64_t bytes,
                                            const Env& env, std::pair<int, int> key) {
    if (c.kind == CollectiveKind::broadcast || c.kind == CollectiveKind::reduce)
      c.bytes.fail(fmt::format("the ideal ring has no {}: NCCL's runs it", to_string(c.kind)));
    const std::int64_t chunk = c.chunk ? c.chunk->eval_positive(env, "chunk") : bytes;
    // Each chunk of each step (at most 2 x (world - 1) steps) is a simulated transfer of every
    // rank: bound them before the collective's bookkeeping is sized by them.
    const std::int64_t chunks = ((bytes + world_ - 1) / world_ + chunk - 1) / chunk;
    if (chunks > kMaxTransfers / (2 * std::int64_t{world_ - 1}))
      c.bytes.fail(
          fmt::format("{} bytes in chunks of {} over {} ranks make more than {} chunk "
                      "transfers per rank: use a larger chunk",
                      bytes, chunk, world_, kMaxTransfers));
    std::vector<int> domains(static_cast<std::size_t>(world_));
    for (int r = 0; r < world_; ++r)
      domains[static_cast<std::size_t>(r)] = fabric_.nvlink_domain(r);
    std::vector<std::vector<int>> rings = rail_rings(domains);
    if (c.kind == CollectiveKind::all_to_all) rings.resize(1);
    return std::make_unique<CollectiveRun>(
        engine_, *transfers_, transport_, c.kind, world_, bytes, chunk, std::move(rings),
        [this, key](int rank) { collective_rank_done(key, rank); });
  }

  static nccl::Collective nccl_collective(CollectiveKind k) {
    switch (k) {
      case CollectiveKind::all_reduce:
        return nccl::Collective::all_reduce;
      case CollectiveKind::all_gather:
        return nccl::Collective::all_gather;
      case CollectiveKind::reduce_scatter:
        return nccl::Collective::reduce_scatter;
      case CollectiveKind::broadcast:
        return nccl::Collective::broadcast;
      case CollectiveKind::reduce:
        return nccl::Collective::reduce;
      case CollectiveKind::all_to_all:
      case CollectiveKind::send:
      case CollectiveKind::recv:
        break;
    }
    MGSIM_CHECK(false, "{} is not one of NCCL's ring collectives", to_string(k));
    return nccl::Collective::all_reduce;
  }

  // NCCL's choices for this call (traces/nccl/tuner.hpp), within one NVLink domain.
  void plan_nccl(const Op& op, const CollectiveOp& c, const StreamRun& st, Entry& e) {
    comm(op);
    if (c.kind == CollectiveKind::all_to_all) {
      e.launch = nccl::p2p_launch(*nccl_comm_, e.bytes / world_);
    } else {
      nccl::Constraints k;
      k.protocol = c.protocol;
      if (c.algorithm == CollectiveAlgorithm::ring) k.algorithm = nccl::Algorithm::ring;
      if (c.algorithm == CollectiveAlgorithm::nvls) k.algorithm = nccl::Algorithm::nvls;
      // ncclNvlsSupported: NVLS reduces 16-bit floats and wider, not 8-bit types.
      k.nvls_type = c.dtype.size >= 2;
      if (c.channels) {
        const std::int64_t n = c.channels->eval_positive(st.env, "channels");
        if (n > 64) c.channels->fail(fmt::format("{} channels: NCCL runs at most 64", n));
        k.channels = static_cast<int>(n);
      }
      if (c.root) e.root = check_rank(*c.root, st.env);
      const nccl::Collective coll = nccl_collective(c.kind);
      if (k.algorithm == nccl::Algorithm::nvls) {
        const std::string why = nccl::nvls_unavailable(*nccl_comm_, coll, k);
        if (!why.empty()) throw sim::ConfigError(op.where, why);
      }
      const nccl::Choice choice = nccl::choose(*nccl_comm_, coll, e.bytes, k);
      e.launch = nccl::ring_launch(*nccl_comm_, coll, choice, e.bytes, c.dtype.size, e.root);
    }
    if (e.launch.handovers > kMaxTransfers)
      c.bytes.fail(
          fmt::format("NCCL moves {} bytes over {} ranks in {} slice handovers per "
                      "rank, more than {}",
                      e.bytes, world_, e.launch.handovers, kMaxTransfers));
    e.kernel = s_.kernels.find(std::string(e.launch.kernel));
    std::int64_t& base = nccl_flags_[st.def];
    e.base = base;
    base += e.launch.flag_span;
  }

  // Whether the world's GPUs share an NVSwitch with multicast and in-network reduction, as NCCL's
  // NVLS needs (the same conditions as a kernel's multimem ops: traces/kernel/op_multimem.cpp).
  bool multicast_group() {
    if (!hw_.nvswitch.multicast || !hw_.nvswitch.reduction || !hw_.ldst.multimem) return false;
    for (int r = 1; r < world_; ++r)
      if (fabric_.route(0, r, 0).resources.size() < 2) return false;  // a direct link
    return true;
  }

  // One rank's NCCL kernel, as the entry planned it.
  Command nccl_command(int i, const Op& op, Entry* entry) {
    return only(op, true, [this, i, entry](sim::Duration start) {
      StreamRun& st = stream(i);
      entry->streams[static_cast<std::size_t>(st.rank)] = i;
      entry->begin = std::min(entry->begin, engine_.now());
      st.nccl = entry;
      collective_data(i, *entry, false);
      const KernelDef& k = s_.kernels.kernels[static_cast<std::size_t>(entry->kernel)];
      run_kernel(
          i, entry->kernel,
          nccl::launch_env(k, entry->launch, st.rank, world_, hw_.sm.count, entry->base, st.def),
          start, to_string(entry->kind),
          [this, i, entry] {
            stream(i).nccl = nullptr;
            entry->end = std::max(entry->end, engine_.now());
            collective_data(i, *entry, true);
          },
          false);
      return false;
    });
  }

  Command memcpy_command(int i, const Op& op, const MemcpyOp& copy, const Env& env) {
    const int rank = stream(i).rank;
    const std::int64_t bytes = eval_transfer_bytes(copy.bytes, env, "memcpy bytes");
    const int src = copy.src ? check_rank(*copy.src, env) : rank;
    const int dst = copy.dst ? check_rank(*copy.dst, env) : rank;
    if (src != rank && dst != rank)
      throw sim::ConfigError(op.where, fmt::format("rank {} issues a memcpy from rank {} to "
                                                   "rank {}: a copy engine copies to or from "
                                                   "its own GPU",
                                                   rank, src, dst));
    bool in_l2 = false;
    if (copy.working_set) {
      if (src != dst)
        throw sim::ConfigError(op.where,
                               fmt::format("'working_set' belongs to a local copy (its source read "
                                           "from the L2); rank {} copies from rank {} to rank {}, "
                                           "and a peer copy is bound by its route",
                                           rank, src, dst));
      in_l2 =
          hw_.l2.keeps_copy(sim::Bytes(copy.working_set->eval_positive(env, "memcpy working_set")));
    }
    const int buffer = copy.data.buffer;
    const std::int64_t region = copy.data.region ? copy.data.region->eval(env) : -1;
    return only(
        op, false, [this, i, rank, src, dst, bytes, buffer, region, in_l2, &op](sim::Duration) {
          if (check_) check_->read(stream(i).agent, src, buffer, region, bytes, op.where, "memcpy");
          auto done = [this, i, dst, bytes, buffer, region, &op] {
            if (check_)
              check_->write(stream(i).agent, dst, buffer, region, bytes, op.where, "memcpy");
            op_done(i, "memcpy");
          };
          transfers_->copy(
              rank, {src, dst, sim::Bytes(bytes), copy_hint_++, "memcpy", std::move(done), in_l2});
          return false;
        });
  }

  // Runs a kernel: its env holds the stream's params, rank and world, then the kernel's args
  // (bound by the launch, evaluated over the stream, or their defaults).
  Command launch_command(int i, const Op& op, const LaunchOp& launch, const Env& host) {
    const KernelDef& k = s_.kernels.kernels[static_cast<std::size_t>(launch.kernel)];
    Env env = launch_env(k, host, s_.world_slot + 1, hw_.sm.count, launch.args);
    const int kernel = launch.kernel;
    return only(op, true, [this, i, kernel, env = std::move(env)](sim::Duration start) mutable {
      // The launch's slice is named by its kernel.
      run_kernel(i, kernel, std::move(env), start,
                 s_.kernels.kernels[static_cast<std::size_t>(kernel)].name, {}, true);
      return false;
    });
  }

  // Launches `kernel` for stream i `start` from now; when its last CTA ends, `after` (if any)
  // runs, the launch is recorded and the stream's op ends with a slice named `label` (which must
  // outlive the run). `checked`: the data check follows the launch (the schedule's kernels; a
  // collective's are checked as the collective).
  void run_kernel(int i, int kernel, Env env, sim::Duration start, std::string_view label,
                  std::function<void()> after, bool checked) {
    std::vector<std::pair<int, Env>> one;
    one.emplace_back(kernel, std::move(env));
    run_kernels(i, std::move(one), start, label, std::move(after), checked);
  }

  // As run_kernel, for several launches (kernel, env) started together: each is recorded as it
  // ends, and `after` and the op's end come with the last.
  void run_kernels(int i, std::vector<std::pair<int, Env>> launches, sim::Duration start,
                   std::string_view label, std::function<void()> after, bool checked) {
    StreamRun& st = stream(i);
    const sim::Time begin = engine_.now();
    // The ids of the launches still running (-1: ended), and `after`, shared by their ends.
    auto running = std::make_shared<std::vector<int>>(launches.size(), -1);
    auto last = std::make_shared<std::function<void()>>(std::move(after));
    for (std::size_t n = 0; n < launches.size(); ++n) {
      const int kernel = launches[n].first;
      (*running)[n] = kernels_->launch(
          st.rank, kernel, std::move(launches[n].second), start,
          [this, i, kernel, label, begin, running, last, n] {
            StreamRun& done = stream(i);
            const int id = (*running)[n];
            (*running)[n] = -1;
            kernel_results_.push_back(
                {done.rank, stream_name(done),
                 std::string(s_.kernels.kernels[static_cast<std::size_t>(kernel)].name), begin,
                 engine_.now(), kernels_->role_times(id)});
            const auto other =
                std::find_if(running->begin(), running->end(), [](int r) { return r >= 0; });
            done.launch = other == running->end() ? -1 : *other;
            if (done.launch >= 0) return;
            if (*last) (*last)();
            op_done(i, label);
          },
          checked && check_ ? std::optional(st.agent) : std::nullopt);
    }
    st.launch = running->front();
  }

  // Events are keyed by name, index and rank: a loop-dependent index adds one per value. Bounded
  // so that memory is, well before the op budget would stop such a loop.
  void check_event_count(const Op& op) const {
    constexpr std::size_t kMaxEvents = 1'000'000;
    if (events_.size() >= kMaxEvents)
      throw sim::ConfigError(op.where,
                             fmt::format("the schedule uses more than {} events (name, index and "
                                         "rank); is an event index wrong?",
                                         kMaxEvents));
  }

  static Command only(const Op& op, bool kernel, std::function<bool(sim::Duration)> start) {
    Command c;
    c.op = &op;
    c.kernel = kernel;
    c.start = std::move(start);
    return c;
  }

  // A sync of stream i returns host.sync after what it waits for is done; its thread then
  // serves the calls that queued behind it.
  void check_sync(int i) {
    StreamRun& st = stream(i);
    if (!st.syncing) return;
    const bool device = std::get<SynchronizeOp>(st.calling->what).device;
    if (device) {
      for (int j : rank_streams_[static_cast<std::size_t>(st.rank)])
        if (!drained(j)) return;
    } else if (!drained(i)) {
      return;
    }
    st.syncing = false;
    HostThread& t = threads_[static_cast<std::size_t>(st.thread)];
    if (check_) {  // the thread now knows what the streams it waited for did
      if (device) {
        for (int j : rank_streams_[static_cast<std::size_t>(st.rank)])
          check_->acquire(t.agent, check_->publish(stream(j).agent));
      } else {
        check_->acquire(t.agent, check_->publish(st.agent));
      }
    }
    const sim::Time begin = engine_.now();
    t.free = begin + hw_.host.sync;
    t.blocked_by = -1;
    std::deque<std::function<void()>> pending = std::move(t.pending);
    t.pending.clear();
    int drained_by = st.step;  // the GPU op the sync waited for last
    if (device && path_)
      for (int j : rank_streams_[static_cast<std::size_t>(st.rank)]) {
        const int q = stream(j).step;
        if (q >= 0 && (drained_by < 0 || (*path_)[static_cast<std::size_t>(q)].end >
                                             (*path_)[static_cast<std::size_t>(drained_by)].end))
          drained_by = q;
      }
    engine_.schedule_at(t.free, [this, i, begin, drained_by] {
      trace_host(i, "synchronize", begin);
      record_call(i, "synchronize", begin, drained_by);
      issue(i);
    });
    for (auto& f : pending) f();
  }

  bool drained(int i) {
    const StreamRun& st = stream(i);
    return st.queue.empty() && st.running == nullptr;
  }

  // ---- The GPU side: each stream's enqueued ops, in order.

  void run_gpu(int i) {
    StreamRun& st = stream(i);
    while (st.running == nullptr && !st.queue.empty()) {
      Command c = std::move(st.queue.front());
      st.queue.pop_front();
      sim::Duration launch = sim::Duration::zero();
      if (c.kernel) {
        // Queued behind the previous op (it waited): the GPU pipelines it; else it is isolated.
        launch = (c.graph_node              ? hw_.launch.graph_node
                  : c.ready < engine_.now() ? hw_.launch.gap
                                            : hw_.launch.latency) +
                 c.wake;
      }
      st.running = c.op;
      if (c.host) check_->acquire(st.agent, *c.host);
      began_[static_cast<std::size_t>(i)] = engine_.now();
      record_gpu_step(i, c);
      if (c.event && st.work_end && *st.work_end + hw_.launch.event > engine_.now()) {
        // The front end's turn on a timing event queued behind work (models/launch.hpp).
        engine_.schedule_at(*st.work_end + hw_.launch.event, [this, i, start = std::move(c.start)] {
          start(sim::Duration::zero());
          op_done(i, "event");
        });
        return;
      }
      if (c.start(launch)) {
        st.running = nullptr;
        work_ended(i, *c.op);
        end_step(i, {});
      }
    }
    if (st.running != nullptr) return;
    for (int j : rank_streams_[static_cast<std::size_t>(st.rank)]) check_sync(j);
    maybe_finish(i);
  }

  void maybe_finish(int i) {
    StreamRun& st = stream(i);
    if (st.done || !st.host_done || !drained(i)) return;
    st.done = true;
    st.end = engine_.now();
  }

  void collective_rank_done(std::pair<int, int> key, int rank) {
    const Entry& e = collectives_.at(key);
    const int i = e.streams[static_cast<std::size_t>(rank)];
    collective_data(i, e, true);
    StreamRun& st = stream(i);
    const std::string_view label = to_string(st.collective->kind());
    st.collective = nullptr;
    op_done(i, label);
  }

  // The data a collective reads when rank i's part begins and writes when it ends (its `buffer`,
  // in place, or into `output`), and its synchronisation: every rank's end happens-after every
  // rank's begin (each rank's part needs data from all of them).
  //   all_reduce, all_to_all: read the input, write the output, all of them;
  //   all_gather: read region `rank` of the buffer in place (the whole input out of place),
  //               write all of the output;
  //   reduce_scatter: read all of the input, write region `rank` in place (all of the output
  //               out of place);
  //   broadcast: the root reads the input, every rank writes the output;
  //   reduce: every rank reads the input, the root writes the output.
  // An in-place all_gather or reduce_scatter needs its buffer in `world` regions.
  void collective_data(int i, const Entry& e, bool end) {
    if (!check_) return;
    const StreamRun& st = stream(i);
    const DataCheck::SyncKey key{DataCheck::collective, e.key.first, e.key.second, 0};
    const int in = e.op->buffer;
    const int out = e.op->output >= 0 ? e.op->output : in;
    const bool in_place = e.op->output < 0;
    const bool root = st.rank == e.root;
    std::int64_t mine = -1;  // the region of an in-place all_gather's input or reduce_scatter's
    if (in >= 0 && in_place &&
        (e.kind == CollectiveKind::all_gather || e.kind == CollectiveKind::reduce_scatter)) {
      if (check_->regions(st.rank, in) != world_)
        throw sim::ConfigError(
            *e.where,
            fmt::format("an in-place {} has rank r's part in region r of buffer '{}': declare it "
                        "with `regions: world` ({} regions), or name an `output`",
                        to_string(e.kind), s_.kernels.buffers[static_cast<std::size_t>(in)].name,
                        world_));
      mine = st.rank;
    }
    const char* kind = to_string(e.kind).data();
    if (!end) {
      const bool reads = e.kind != CollectiveKind::broadcast || root;
      if (reads)
        check_->read(st.agent, st.rank, in, e.kind == CollectiveKind::all_gather ? mine : -1, -1,
                     *e.where, kind);
      check_->release(st.agent, key);
      return;
    }
    check_->acquire(st.agent, key);
    if (e.kind != CollectiveKind::reduce || root)
      check_->write(st.agent, st.rank, out, e.kind == CollectiveKind::reduce_scatter ? mine : -1,
                    -1, *e.where, kind);
  }

  static DataCheck::SyncKey event_check_key(const EventKey& key) {
    return {DataCheck::event, std::get<0>(key), std::get<1>(key), std::get<2>(key)};
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
      stream(i).waiting.clear();
      op_done(i, "wait");
    });
  }

  // `label` names the op's slice on the stream's track; it must outlive the run.
  void op_done(int i, std::string_view label) {
    trace_slice(i, label);
    end_step(i, label);
    if (const Op* op = stream(i).running) work_ended(i, *op);
    stream(i).running = nullptr;
    run_gpu(i);
  }

  // The work a timing event waits for (models/launch.hpp): kernels, collectives and timing
  // events. A timing event after a copy is written about as late (event_gap.csv), but
  // copy_engine.setup, fitted on events around one copy, holds that time already.
  void work_ended(int i, const Op& op) {
    const auto* record = std::get_if<RecordOp>(&op.what);
    if (std::holds_alternative<WaitOp>(op.what) || std::holds_alternative<MemcpyOp>(op.what) ||
        (record && !record->timing))
      return;
    stream(i).work_end = engine_.now();
  }

  // Stream i waited for an event: a timing event after it waits for the work the event followed
  // too (stream_wake.csv: across streams it is written as late as in one).
  void joined(int i, std::optional<sim::Time> work) {
    std::optional<sim::Time>& end = stream(i).work_end;
    if (work && (!end || *end < *work)) end = work;
  }

  std::string blocked_reason(const StreamRun& st) const {
    if (st.nccl) {
      for (int r = 0; r < world_; ++r)
        if (st.nccl->streams[static_cast<std::size_t>(r)] < 0)
          return fmt::format("{} (the {} of stream '{}'): waiting for rank {} to reach the {}",
                             to_string(st.nccl->kind), ordinal(st.collectives_seen - 1),
                             stream_name(st), r, to_string(st.nccl->kind));
    }
    for (const Entry* e : st.p2p) {
      const bool sending = e->src == st.rank;
      const int other = sending ? e->dst : e->src;
      const std::string what = fmt::format("the {} {} bytes {} rank {} (their transfer #{})",
                                           sending ? "send of" : "receive of", e->bytes,
                                           sending ? "to" : "from", other, e->index);
      if (e->sides[sending ? 1 : 0] == nullptr)
        return fmt::format("{}: rank {} has not called the matching {}", what, other,
                           sending ? "recv" : "send");
      if (e->streams[static_cast<std::size_t>(other)] < 0)
        return fmt::format(
            "{}: rank {}'s matching {} is called but not started, its stream busy before it (a "
            "send and a recv that wait on each other's stream belong in one `group`)",
            what, other, sending ? "recv" : "send");
    }
    if (st.launch >= 0) return kernels_->blocked_reason(st.launch);
    if (st.collective) {
      return fmt::format("{} (the {} of stream '{}'): waiting for {}",
                         to_string(st.collective->kind()), ordinal(st.collectives_seen - 1),
                         stream_name(st), st.collective->blocked_reason(st.rank));
    }
    if (!st.waiting.empty()) return st.waiting;
    if (st.syncing) return fmt::format("its host thread, blocked in a sync");
    return "its host thread, blocked in another stream's sync";
  }
  static sim::SourceLocation blocked_where(const StreamRun& st) {
    if (st.running) return st.running->where;
    return st.calling ? st.calling->where : sim::SourceLocation{};
  }
  static std::string ordinal(int n) { return fmt::format("collective #{}", n); }

  // ---- The critical path's steps (critical_path.hpp), when the run records them.

  // A host call of stream i that began at `begin` and returns now; returns its step (or -1).
  int record_call(int i, std::string_view label, sim::Time begin, int cause) {
    if (!path_) return -1;
    StreamRun& st = stream(i);
    HostThread& t = threads_[static_cast<std::size_t>(st.thread)];
    Step s;
    s.host = true;
    s.rank = st.rank;
    s.thread = static_cast<int>(t.id);
    s.where = stream_name(st);
    s.what = label;
    s.begin = begin;
    s.end = engine_.now();
    s.prev = t.last_call;
    s.call = st.last_call;
    s.cause = cause;
    path_->push_back(s);
    t.last_call = st.last_call = static_cast<int>(path_->size()) - 1;
    return t.last_call;
  }

  void record_gpu_step(int i, const Command& c) {
    if (!path_) return;
    StreamRun& st = stream(i);
    Step s;
    s.rank = st.rank;
    s.where = stream_name(st);
    s.what = op_name(*c.op);
    s.begin = engine_.now();
    s.prev = st.step;
    s.call = c.call;
    s.group = c.group;
    path_->push_back(s);
    st.step = static_cast<int>(path_->size()) - 1;
  }

  // Stream i's GPU op ends now; `label`, when given, names it (a kernel's name).
  void end_step(int i, std::string_view label) {
    if (!path_ || stream(i).step < 0) return;
    Step& s = (*path_)[static_cast<std::size_t>(stream(i).step)];
    s.end = engine_.now();
    if (!label.empty()) s.what = label;
  }

  static std::string_view op_name(const Op& op) {
    return std::visit(
        [](const auto& what) -> std::string_view {
          using T = std::decay_t<decltype(what)>;
          if constexpr (std::is_same_v<T, RecordOp>) return "record";
          if constexpr (std::is_same_v<T, WaitOp>) return "wait";
          if constexpr (std::is_same_v<T, MemcpyOp>) return "memcpy";
          if constexpr (std::is_same_v<T, CollectiveOp>) return "collective";
          if constexpr (std::is_same_v<T, GroupOp>) return "group";
          return "launch";
        },
        op.what);
  }

  void trace_slice(int i, std::string_view label) {
    sim::TraceSink* trace = engine_.trace();
    if (!trace) return;
    const StreamRun& st = stream(i);
    const sim::TrackId track = trace->track(fmt::format("rank {}", st.rank), stream_name(st));
    trace->slice(track, label, began_[static_cast<std::size_t>(i)], engine_.now());
  }

  // A host call's slice, on its thread's track.
  void trace_host(int i, std::string_view label, sim::Time begin) {
    sim::TraceSink* trace = engine_.trace();
    if (!trace || begin == engine_.now()) return;
    const HostThread& t = threads_[static_cast<std::size_t>(stream(i).thread)];
    const sim::TrackId track = trace->track("host", fmt::format("thread {}", t.id));
    trace->slice(track, label, begin, engine_.now());
  }

  const Schedule& s_;
  sim::Engine& engine_;
  Interconnect& fabric_;
  const models::HardwareSpec& hw_;
  CollectiveTransport transport_;
  int world_ = 0;
  int ranks_ = 0;  // simulated: world_, or a folded run's stand-ins (Interconnect::simulated_gpus)
  std::vector<models::Gpu> gpus_;                                  // by rank
  std::vector<std::unique_ptr<models::PowerGovernor>> governors_;  // by rank, when governed
  std::unique_ptr<Transfers> transfers_;
  OpBudget budget_;                        // host streams' and kernel roles' ops together
  std::unique_ptr<KernelRunner> kernels_;  // only when the schedule has kernels
  std::vector<StreamRun> streams_;
  std::vector<std::vector<int>> rank_streams_;  // rank -> its stream indices
  std::vector<HostThread> threads_;
  std::vector<sim::Time> began_;  // per stream: when its running op began on the GPU
  Events events_;
  std::map<EventKey, std::optional<sim::Time>> event_work_;  // what waits on each event carry
  std::map<std::pair<int, int>, Entry> collectives_;
  // Sends and their receives: (sender, receiver, their number) -> the transfer; (rank, send?,
  // peer) -> the calls so far; (sender, receiver, channels) -> the chunks the pair's transfers on
  // that many channels moved through each so far (nccl_sendrecv's flags).
  std::map<std::tuple<int, int, int>, Entry> p2p_;
  std::map<std::tuple<int, bool, int>, int> p2p_calls_;
  std::map<std::tuple<int, int, int>, std::int64_t> p2p_chunks_;
  std::vector<Ordered> collective_order_;
  std::optional<nccl::Comm> nccl_comm_;     // NCCL's communicator, made on first use
  std::map<int, std::int64_t> nccl_flags_;  // stream definition -> its flag count so far
  std::vector<KernelResult> kernel_results_;
  std::vector<EventResult> event_results_;
  std::uint64_t copy_hint_ = 0;
  std::unique_ptr<DataCheck> check_;       // `mgsim check`'s, when the run is checked
  std::optional<std::vector<Step>> path_;  // the critical path's steps, when recorded
};

}  // namespace

RunResult execute(const Schedule& schedule, const Env& params, sim::Engine& engine,
                  sim::FluidNetwork& net, Interconnect& fabric,
                  const models::HardwareSpec& hardware, models::ResourceCatalog* catalog,
                  const ExecuteOptions& options) {
  Executor ex(schedule, params, engine, net, fabric, hardware, catalog, options);
  return ex.run();
}

}  // namespace mgsim::traces
