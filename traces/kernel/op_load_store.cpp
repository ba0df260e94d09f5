// load / store via tma or ldst: a transfer between HBM (or L2) and the SM.
//
// Model: a fixed cost, then one flow. Local: over [HBM of r]; peer p: over [the HBM of the GPU
// that owns the memory (p), the SM-driven peer path src -> dst: src's egress, the route, dst's
// ingress, the ports of models::peer_bandwidth(spec, tma | ldst)]. Latency L = for a load, the
// HBM's wait for the latest of the lines it waits for at once (models::HbmSpec::latest_of: an
// ld/st warp's share of its window per round, a TMA message; lines_in), for a store
// hbm.latency (+ route latency for a peer).
//   - tma: fixed = one op's issue (models::TmaSpec::issue_time) + L; messages of `message`
//     bytes (default min(bytes, max_message)); per-CTA rate cap W / L for W bytes in flight:
//     a load lands in shared memory, so the kernel's ring decides: W = `outstanding` (default
//     messages_in_flight) x message, and each message also takes tma.message_interval (a bulk
//     load completes on an mbarrier: 280 ns per message, validate/data/h200-single/
//     tma_local.csv); a store drains from the SM's bulk-copy unit, which holds
//     max_bytes_in_flight() (peer_tma.csv's puts) until they are acknowledged (the cap is W over
//     the store's hold time, below), W = that or `outstanding` x message if less,
//     and is not issue-bound that way (peer_tma_reduce.csv's smem rows move 4 KiB messages at
//     >= 44 GB/s per SM, <= 93 ns each);
//   - ldst: bytes rounded up to sectors (LdStSpec::sectors_bytes), fixed = L for a load; a
//     store is posted: hbm.write_latency locally, none to a peer (the op ends when its bytes are
//     issued; they are acknowledged the route's round trip later, RoleRun::in_flight, which the
//     role's system fences and the kernel's end wait for), cap = the bytes
//     in flight the op declares (ldst_window: threads x vector x unroll) over the time each
//     access holds its slot (Little's law): a local load L (the L2 mix with a working set), a local
//     store hbm.write_latency (until the write is acknowledged), a peer access the route's round
//     trip (a load's request out and data back; a store's data out and its acknowledgement back:
//     posted, but the SM holds the slot until then). A load waits that `rounds` times per `unroll`
//     accesses (default 1): an in-order warp stalls at the first use of a load, so a loop that uses
//     one before issuing the rest waits more than once (scripts/sass_loads.py counts it in a
//     kernel's SASS: mlp.csv's 16 B x 8 loop 3, hbm_l2's read loop 2).
// Everything an SM moves beyond itself (L2 hits, HBM, a peer; TMA and ld/st) crosses its memory
// pipe (models::Gpu::memory_pipe), sm.memory_rate bytes of loads per second; a stored byte takes
// sm.store_cost times a loaded byte's share of it and a store-added byte sm.store_add_cost times
// (the pipe is listed that many times on the flow's path). So one SM loads at memory_rate (245.6
// GB/s from L2, validate/data/h200-single/mlp.csv), stores at memory_rate / store_cost whatever
// it keeps in flight (ld/st and TMA stores 63.0 GB/s), copies at memory_rate / (1 + store_cost)
// each way (50.1-50.5 GB/s by TMA, peer_tma.csv, and ld/st) and store-adds from shared memory
// at memory_rate / store_add_cost (50.5 GB/s, peer_tma_reduce.csv): one datapath, on which a
// stored byte takes four loaded bytes' time (docs/MODELS.md, the SM).
// store with add (TMA store-add, cp.reduce.async.bulk .add): as a TMA store, plus the
// destination's L2 reduction resource (l2.reduction_bandwidth: the read-modify-write) and the
// destination's HBM a second time (the read of the read-modify-write); a peer store-add crosses
// the tma_reduce peer ports (the TMA rate x tma.reduce_efficiency).
// load with a working_set W: h = models::L2Spec::hit_fraction(W) of the bytes hit the owner's L2
// (a peer's data is cached in the peer's L2): a phase over [L2 of the owner (+ the peer path)],
// then the misses as a phase over [HBM of the owner (+ the peer path)] (a warp's loads retire in
// order, so a miss holds up the hits behind it and the two times add; docs/MODELS.md, L2), each
// under the same cap, and L = h x L2 hit latency + (1 - h) x HBM latency (+ route latency).
// Without W, h = 0.
// load via tma with `multicast: n` (cp.async.bulk .multicast::cluster, n CTAs of the kernel's
// cluster): one read lands in n CTAs' shared memory, so this CTA's flow carries 1/n of the
// memory's and the route's bytes (and of its caps) and crosses its SM's memory pipe n times: the
// SM receives every byte, the memory serves each once per n CTAs.
// While the op runs, its warp takes ldst.warp_share_* or tma.warp_share_* of the SM's math pipes
// (models::Gpu::add_comm_warp; intra-SM overlap is not free).
// A store into its own GPU's memory (a plain store, a copy loop's writes) also crosses that
// GPU's L2 (l2.bandwidth, what the L2 serves its SMs), beside the HBM and its write side: every
// store of an SM passes through the L2 and takes its share from the SMs' L2 reads
// (l2_contention.csv, held out: a reader of an L2-resident set beside local stores on the other
// 66 SMs takes 6.34 ms, 3.71 predicted without it, 6.59 with it); a store arriving from a peer
// does not (beside peer stores the same reader keeps its rate within 1 %).
// Ignores: L2 hits other than a load's or a copy loop's declared working set (a store is
// written to HBM too), L2 bandwidth used by misses, the SM clock's effect on the pipe's rate.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string_view>

#include "traces/kernel/ops.hpp"
#include "traces/kernel/phases.hpp"

namespace mgsim::traces::kernel {
namespace {

// The SM-driven peer path of a transfer: a TMA store-add has its own rate over NVLink.
models::PeerPath peer_path_of(Via via, bool add) {
  if (via == Via::ldst) return models::PeerPath::ldst;
  return add ? models::PeerPath::tma_reduce : models::PeerPath::tma;
}

// A transfer's rate cap; for a load whose misses queue at the HBM (hbm.queue_delay), their
// window over the latency the HBM's load adds to (sim/fluid.hpp), in place of the fixed-latency
// cap, and what else caps them.
struct Caps {
  Bandwidth cap;
  std::optional<sim::Window> misses_window;
  std::optional<Bandwidth> misses_cap;
};

// A TMA transfer's message: `message`, else the op's bytes up to tma.max_message.
std::int64_t tma_message(const models::HardwareSpec& spec, const RoleRun& r, const TransferOp& op,
                         std::int64_t bytes) {
  return op.message ? op.message->eval_positive(r.env, "message")
                    : std::min(bytes, spec.tma.max_message.count());
}

// What a TMA transfer's caps depend on besides the op (see the top of this file).
struct TmaTimes {
  Duration latency, held;  // the path's latency, how long a store holds its bytes
  bool is_load, queued;
};
Caps tma_caps(const models::HardwareSpec& spec, const RoleRun& r, const TransferOp& op,
              std::int64_t bytes, const TmaTimes& t) {
  const std::int64_t message = tma_message(spec, r, op, bytes);
  const std::optional<std::int64_t> outstanding =
      op.outstanding ? std::optional(op.outstanding->eval_positive(r.env, "outstanding"))
                     : std::nullopt;
  Caps c;
  if (t.is_load) {
    const std::int64_t window =
        mul(op.bytes, outstanding.value_or(spec.tma.messages_in_flight), message);
    const Bandwidth issue = window_rate(message, spec.tma.message_interval);
    c.cap = std::min(window_rate(window, t.latency), issue);
    if (t.queued) {
      c.misses_window = sim::Window{Bytes(window), t.latency};
      c.misses_cap = issue;
    }
  } else {
    std::int64_t window = spec.tma.max_bytes_in_flight();
    if (outstanding) window = std::min(window, mul(op.bytes, *outstanding, message));
    c.cap = window_rate(window, t.held);
  }
  return c;
}

// One TMA read landing in `n` CTAs of a cluster: this CTA's flow carries a 1/n share of the
// memory's (and route's) bytes and caps, and crosses its SM's memory pipe n times, so the SM
// still receives every byte.
void share_multicast(std::int64_t n, Bytes& moved, Caps& caps, int& pipe_units) {
  if (n == 1) return;
  const auto share = [n](std::int64_t v) { return std::max<std::int64_t>(1, (v + n - 1) / n); };
  moved = Bytes(share(moved.count()));
  caps.cap = Bandwidth::bytes_per_second(share(caps.cap.bytes_per_second()));
  if (caps.misses_window)
    caps.misses_window->bytes = Bytes(share(caps.misses_window->bytes.count()));
  if (caps.misses_cap)
    caps.misses_cap = Bandwidth::bytes_per_second(share(caps.misses_cap->bytes_per_second()));
  pipe_units *= static_cast<int>(n);
}

// An ld/st access's threads (default: the CTA's) and warps, the customers of its closed loop:
// at most the warps an SM holds (sm.max_threads / 32), whatever `threads` says.
std::int64_t ldst_threads(const RoleRun& r, const TransferOp& op) {
  return op.threads ? op.threads->eval_positive(r.env, "threads") : r.cta->launch->threads;
}
std::int64_t ldst_warps(const models::HardwareSpec& spec, const RoleRun& r, const TransferOp& op) {
  const std::int64_t most = std::max(1, spec.sm.max_threads / 32);
  return std::min<std::int64_t>((ldst_threads(r, op) + 31) / 32, most);
}

// The lines of 128 B in `bytes` a load waits for at once, whose latest sets its wait
// (models::HbmSpec::latest_of): an ld/st warp's share of the window per round, or one TMA
// message (complete when its last line lands).
std::int64_t lines_in(std::int64_t bytes) {
  return std::max<std::int64_t>(
      1, (bytes + models::HbmSpec::kLineBytes - 1) / models::HbmSpec::kLineBytes);
}

// An ld/st loop's rate when nothing it waits on queues: `warps` warps each keep window / warps
// bytes in flight, wait `think` for them, then pass them `units` times through the SM's memory
// pipe, where they queue behind the other warps' (sim::closed_loop_rate); the sharp bound
// window / think is reached only far from the pipe's rate.
Bandwidth loop_rate(std::int64_t window, std::int64_t warps, Duration think, int units,
                    Bandwidth pipe) {
  const double per_warp = static_cast<double>(window) / static_cast<double>(warps);
  const double demand = per_warp * units / static_cast<double>(pipe.bytes_per_second());
  const double rate = per_warp * sim::closed_loop_rate(warps, think.seconds(), demand);
  return Bandwidth::bytes_per_second(std::max<std::int64_t>(1, std::llround(std::floor(rate))));
}

// Appends what a store's bytes cross once they reach the memory's HBM: its write side and, for
// a store by an SM into its own GPU (`local`), that GPU's L2 (see the top of this file).
void add_write_side(std::vector<sim::ResourceId>& path, models::Gpu& gpu, bool local) {
  path.push_back(gpu.hbm_write());
  if (local) path.push_back(gpu.l2());
}

// What a transfer moves, the part that hits the owner's L2, and whether it is a load.
struct Moved {
  Bytes bytes;
  double hit;
  bool is_load;
  bool local;  // the issuing SM's own GPU's memory
};

// A transfer's phases once its path after the memory is in r.scratch: its fixed time, then its
// L2 hits as a flow over the owner's L2, then its misses over the owner's HBM (a store's written
// to its write side too), each under `caps`.
void run_hits_and_misses(Runner& x, RoleRun& r, models::Gpu& owner, const Moved& moved,
                         Duration fixed, const Caps& caps) {
  const std::vector<sim::ResourceId>& route = r.scratch;
  const Bytes hits = Bytes(std::llround(moved.hit * static_cast<double>(moved.bytes.count())));
  const Bytes misses = moved.bytes - hits;
  begin_phases(r);
  add_phase(r, fixed);
  if (hits.count() > 0) {
    add_flow(r, owner.l2(), route, hits, caps.cap);
    if (misses.count() > 0) add_phase(r, Duration::zero());
  }
  if (misses.count() > 0 || hits.count() == 0) {
    FlowSpec& f = add_flow(r, owner.hbm(), route, misses, caps.cap);
    if (!moved.is_load) add_write_side(f.path, owner, moved.local);  // a store's misses are written
    if (caps.misses_window) {
      f.window = caps.misses_window;
      f.cap = caps.misses_cap;
    }
  }
  run_phases(x, r);
}

// A load (`load`, with its working set and multicast) or a store (null, with its add) via tma
// or ldst; `bytes_what` names the bytes in messages.
bool start_transfer(Runner& x, RoleRun& r, const TransferOp& op, std::string_view bytes_what,
                    const LoadOp* load, bool add) {
  const bool is_load = load != nullptr;
  const models::HardwareSpec& spec = x.spec;
  const int rank = x.rank_of(r);
  const std::int64_t bytes = eval_transfer_bytes(op.bytes, r.env, bytes_what);
  const int peer = op.peer ? x.check_rank(*op.peer, r.env) : rank;
  r.traced_bytes = bytes;
  if (peer != rank) r.traced_peer = peer;
  // The memory's owner is the peer for a peer access: remote data lives in the owner's HBM and
  // is cached in the owner's L2.
  const double hit =
      is_load && load->working_set
          ? spec.l2.hit_fraction(Bytes(load->working_set->eval_positive(r.env, "load working_set")))
          : 0.0;
  // An ld/st access's window, its warps and the waits per `unroll` accesses (TMA: unused).
  const bool ldst = op.via == Via::ldst;
  const std::int64_t window = ldst ? ldst_window(r, op) : 0;
  const std::int64_t warps = ldst ? ldst_warps(spec, r, op) : 1;
  const std::int64_t rounds = ldst && op.rounds ? op.rounds->eval_positive(r.env, "rounds") : 1;
  Duration latency = spec.hbm.latency;
  if (is_load)
    latency = spec.hbm.latest_of(
        lines_in(ldst ? window / (warps * rounds) : tma_message(spec, r, op, bytes)));
  if (hit > 0.0)
    latency =
        Duration::ps(std::llround(hit * static_cast<double>(spec.l2.hit_latency.picoseconds()) +
                                  (1.0 - hit) * static_cast<double>(latency.picoseconds())));
  std::vector<sim::ResourceId>& route = r.scratch;  // the path after the memory
  route.clear();
  if (peer != rank) {
    const int src = is_load ? peer : rank;
    const int dst = is_load ? rank : peer;
    latency += x.peer_path(src, dst, peer_path_of(op.via, add), route);
  }
  // A store-add is read, added and written back by the destination's L2: the owner's HBM carries
  // its bytes twice (read and write; the path lists it twice).
  models::Gpu& owner = x.gpu(peer);
  if (add) {
    route.push_back(owner.l2_reduce());
    route.push_back(owner.hbm());
  }
  Duration fixed = latency;
  // How long an access holds its slot: a load its latency (an ld/st load from a peer: the
  // route's round trip, its request out and the data back); a store until it is acknowledged,
  // by either path (a peer's: the round trip, its data out and the acknowledgement back; a local
  // one: hbm.write_latency).
  Duration held = latency;
  if (peer != rank && (!is_load || op.via == Via::ldst))
    held = x.fabric.latency(rank, peer) + x.fabric.latency(peer, rank);
  else if (!is_load)
    held = spec.hbm.write_latency;
  Bytes moved;
  Caps caps;
  const bool queued = is_load && spec.hbm.queue_delay > Duration::zero();
  if (op.via == Via::tma) {
    moved = Bytes(bytes);
    caps = tma_caps(spec, r, op, bytes, {latency, held, is_load, queued});
    fixed += spec.tma.issue_time(x.gpu(x.rank_of(r)).sm_clock());
  } else {
    moved = spec.ldst.sectors_bytes(Bytes(bytes));
    if (!is_load && peer == rank) {
      fixed = held;  // posted: the SM goes on once its stores are accepted, not written
    } else if (!is_load) {
      // Posted to a peer: the SM issues at once and goes on when its bytes are issued; they
      // are acknowledged a round trip after the last (what the role's system fences and the
      // kernel's end wait for, walker.cpp's op_done).
      fixed = Duration::zero();
      r.in_flight = held;
    }
    const Duration one_wait = held;
    if (op.rounds) held = Duration::ps(mul(*op.rounds, held.picoseconds(), rounds));
    // A load's warps wait for their data, which then crosses the pipe: a closed loop. A store's
    // do not wait for theirs (posted): the pipe's rate is its only queue.
    caps.cap = is_load ? loop_rate(window, warps, held, 1, spec.sm.memory_rate)
                       : window_rate(window, held);
    if (queued)
      caps.misses_window =
          sim::Window{Bytes(window), one_wait, rounds, warps, x.gpu(rank).memory_pipe(r.cta->sm)};
  }
  if (op.own_warp)
    hold_comm_warp(x, r,
                   op.via == Via::tma ? models::Gpu::CommWarp::tma : models::Gpu::CommWarp::ldst);
  // The SM's memory pipe, once per unit of its share a byte takes (see the top of this file).
  int pipe_units = is_load ? 1 : add ? spec.sm.store_add_cost : spec.sm.store_cost;
  if (is_load && load->multicast)
    share_multicast(multicast_factor(r, load->multicast, "multicast"), moved, caps, pipe_units);
  const sim::ResourceId pipe = x.gpu(rank).memory_pipe(r.cta->sm);
  for (int k = 0; k < pipe_units; ++k) route.push_back(pipe);
  run_hits_and_misses(x, r, owner, {moved, hit, is_load, peer == rank}, fixed, caps);
  return false;
}

// An ld/st store `from` a source: a copy loop. Each warp loads its window's share from the
// source (its latency: the source HBM's wait for the latest of the warp's lines, or the L2's hit
// latency when the L2 keeps the source (`working_set`, models::L2Spec::keeps_copy), plus the
// route's round trip from a peer), then stores it (posted), then loads again: one flow over
// [the source's HBM (or L2), the route from a peer source, the SM's memory pipe 1 + sm.store_cost
// times, the route to a peer destination, the destination's HBM and its write side], a window
// of threads x vector x unroll bytes whose warps wait the load's latency (and the source HBM's
// queue, not the destination's: the stores are posted) and then queue at the pipe
// (sim::closed_loop_rate): a copy that keeps a pipe busy waits there between its loads, so it
// falls short of twice a read's rate (validate/data/h200-single/mlp.csv's copy rows), where
// a load and a store as two roles would overlap freely. The op starts after one load latency;
// stores to a peer are acknowledged a round trip after the last (RoleRun::in_flight).
bool start_copy(Runner& x, RoleRun& r, const StoreOp& op) {
  const models::HardwareSpec& spec = x.spec;
  const int rank = x.rank_of(r);
  const std::int64_t bytes = eval_transfer_bytes(op.bytes, r.env, "store bytes");
  const int src = op.from->peer ? x.check_rank(*op.from->peer, r.env) : rank;
  const int dst = op.peer ? x.check_rank(*op.peer, r.env) : rank;
  r.traced_bytes = bytes;
  if (dst != rank)
    r.traced_peer = dst;
  else if (src != rank)
    r.traced_peer = src;
  // A source the L2 keeps between passes (the working set fits) is read from the source's L2.
  const bool in_l2 =
      op.working_set &&
      spec.l2.keeps_copy(Bytes(op.working_set->eval_positive(r.env, "store working_set")));
  std::vector<sim::ResourceId>& path = r.scratch;
  path.clear();
  path.push_back(in_l2 ? x.gpu(src).l2() : x.gpu(src).hbm());
  const std::int64_t window = ldst_window(r, op);
  const std::int64_t warps = ldst_warps(spec, r, op);
  Duration latency = in_l2 ? spec.l2.hit_latency : spec.hbm.latest_of(lines_in(window / warps));
  Duration think = latency;  // how long a load holds its slot (a peer's: the round trip)
  if (src != rank) {
    latency += x.peer_path(src, rank, models::PeerPath::ldst, path);
    think = x.fabric.latency(rank, src) + x.fabric.latency(src, rank);
  }
  const sim::ResourceId pipe = x.gpu(rank).memory_pipe(r.cta->sm);
  for (int k = 0; k < 1 + spec.sm.store_cost; ++k) path.push_back(pipe);
  const std::size_t waited = path.size();  // the stores beyond the pipe are posted
  if (dst != rank) {
    x.peer_path(rank, dst, models::PeerPath::ldst, path);
    r.in_flight = x.fabric.latency(rank, dst) + x.fabric.latency(dst, rank);
  }
  path.push_back(x.gpu(dst).hbm());
  add_write_side(path, x.gpu(dst), dst == rank);
  if (op.own_warp) hold_comm_warp(x, r, models::Gpu::CommWarp::ldst);
  begin_phases(r);
  add_phase(r, latency);
  FlowSpec& f = add_flow(r);
  f.path.assign(path.begin(), path.end());
  f.bytes = spec.ldst.sectors_bytes(Bytes(bytes));
  f.window = sim::Window{Bytes(window), think, 1, warps, pipe, waited};
  run_phases(x, r);
  return false;
}

}  // namespace

std::int64_t ldst_window(const RoleRun& r, const TransferOp& op) {
  constexpr std::int64_t kVector = 16, kUnroll = 4;  // a 128-bit access, 4 per thread in flight
  const std::int64_t threads = ldst_threads(r, op);
  const std::int64_t vector = op.vector ? op.vector->eval_positive(r.env, "vector") : kVector;
  const std::int64_t unroll = op.unroll ? op.unroll->eval_positive(r.env, "unroll") : kUnroll;
  return mul(op.bytes, mul(op.bytes, threads, vector), unroll);
}

bool start_load_store(Runner& x, RoleRun& r, const LoadOp& load) {
  return start_transfer(x, r, load, "load bytes", &load, false);
}

bool start_load_store(Runner& x, RoleRun& r, const StoreOp& store) {
  if (store.from) return start_copy(x, r, store);
  return start_transfer(x, r, store, "store bytes", nullptr, store.add);
}

}  // namespace mgsim::traces::kernel
