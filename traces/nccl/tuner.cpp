#include "traces/nccl/tuner.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <span>

#include "sim/check.hpp"

namespace mgsim::traces::nccl {

namespace {

// src/device.h and src/include/comm.h.
constexpr int kSteps = 8;                      // NCCL_STEPS: slots of a channel's buffer
constexpr int kMaxChannels = 64;               // MAXCHANNELS
constexpr int kWarp = 32;                      // WARP_SIZE
constexpr int kSimpleMaxThreads = 512;         // NCCL_SIMPLE_MAX_NTHREADS
constexpr int kLlMaxThreads = 512;             // NCCL_LL_MAX_NTHREADS
constexpr int kLl128MaxThreads = 640;          // NCCL_LL128_MAX_NTHREADS
constexpr std::int64_t kSimpleThreshold = 64;  // NCCL_SIMPLE_THREAD_THRESHOLD
constexpr std::int64_t kLlThreshold = 8;       // NCCL_LL_THREAD_THRESHOLD (x ranks for ring)
constexpr std::int64_t kLl128Threshold = 8;    // NCCL_LL128_THREAD_THRESHOLD
// src/init.cc: default buffer sizes per protocol (DEFAULT_LL_BUFFSIZE, DEFAULT_LL128_BUFFSIZE,
// DEFAULT_BUFFSIZE): LL 8 lines x 512 threads x 8 steps x 16 B, LL128 120 x 640 x 8 x 8 B.
constexpr std::int64_t kLlBuffer = std::int64_t{8} * 512 * kSteps * 16;
constexpr std::int64_t kLl128Buffer = std::int64_t{120} * 640 * kSteps * 8;
constexpr std::int64_t kSimpleBuffer = std::int64_t{1} << 22;
// src/include/collectives.h: a Simple ring chunk of all_reduce, all_gather and reduce_scatter is
// NCCL_STEPS / 2 slots, a slice 2 of them; broadcast's and reduce's are one slot each.
bool chained(Collective c) { return c == Collective::broadcast || c == Collective::reduce; }
int chunk_steps(Collective c) { return chained(c) ? 1 : kSteps / 2; }
int slice_steps(Collective c) { return chained(c) ? 1 : kSteps / 4; }

// src/graph/search.cc: the speeds (GB/s per channel) the ring search tries, highest first.
constexpr std::array kSpeedsSm80 = {40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0,
                                    9.0,  7.0,  6.0,  5.0,  4.0,  3.0};
constexpr std::array kSpeedsSm90 = {60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0};
constexpr std::array kSpeedsSm100 = {90.0, 80.0, 70.0, 60.0, 50.0, 40.0,
                                     30.0, 24.0, 20.0, 19.0, 18.0};

// src/graph/topo.h: NCCL's rating of one NVLink link (GB/s).
double nvlink_link_bw(int cc) {
  if (cc >= 100) return 40.1;  // SM100_NVLINK_BW
  if (cc >= 90) return 20.6;   // SM90_NVLINK_BW
  return 20.0;                 // SM80_NVLINK_BW
}

// src/graph/tuning.cc, ncclTunerConstantsDefaults, ring row, NVLink, single node.
// Index: Protocol (LL, LL128, Simple).
constexpr std::array kRingBaseLatency = {6.6, 14.0, 8.4};   // us
constexpr std::array kRingNvlinkLatency = {0.6, 1.9, 3.4};  // us per step
// NVLS, Simple: hwLatencies[NVLINK][NVLS] replaces the base latency on one node (us).
constexpr double kNvlsLatency = 25.0;
// tuning.cc: nvlsEfficiency, Hopper and Blackwell.
double nvls_efficiency(int cc) { return cc >= 100 ? 0.74 : 0.85; }
constexpr int kMaxNvlsArity = 32;            // NCCL_MAX_NVLS_ARITY (src/include/device.h)
constexpr int kMaxThreads = 640;             // NCCL_MAX_NTHREADS
constexpr std::int64_t kNvlsChunk = 131072;  // NCCL_NVLS_CHUNKSIZE's default (transport/nvls.cc)

struct Arch {
  double ll_max_bw;             // llMaxBws[cc][0] (one node), GB/s
  double ll128_max_channel_bw;  // perChMaxRingLL128Bws[cc][0], GB/s
};
Arch arch(int cc) {
  if (cc >= 100) return {2 * 141.0, 2 * 36.7};
  if (cc >= 90) return {141.0, 36.7};
  if (cc >= 80) return {87.7, 20.0};
  return {39.0, 20.0};
}

std::span<const double> speeds(int cc) {
  if (cc >= 100) return kSpeedsSm100;
  if (cc >= 90) return kSpeedsSm90;
  return kSpeedsSm80;
}

// The tuner's steps (tuning.cc: nsteps): broadcast and reduce count every rank.
int ring_steps(int ranks, Collective c) {
  if (c == Collective::all_reduce) return 2 * (ranks - 1);
  return chained(c) ? ranks : ranks - 1;
}

std::size_t index(Protocol p) { return static_cast<std::size_t>(p); }

// search.cc with pattern NVLS on one node (minChannels = maxChannels = heads): each head's
// channel takes speed from every GPU's NVLink and twice from its own, so a GPU's NVLink carries
// (heads + 1) x speed; the first pass lowers the speed until that fits (no solution yet, so no
// 0.49 stop), ncclTopoDupChannels leaves NVLS alone, and the second pass raises only bwInter
// while it is below twice bwIntra. transport/nvls.cc: NVLS_NCHANNELS_SM90 16,
// NVLS_NCHANNELS_SM100_NVL 24 (one NVLink domain).
void search_nvls(Comm& comm) {
  const int heads = std::min(comm.ranks, kMaxNvlsArity);
  const std::span<const double> s = speeds(comm.compute_capability);
  std::size_t i = 0;
  while (i < s.size() && s[i] * (heads + 1) > comm.nvlink_bw) ++i;
  if (i == s.size()) return;  // no speed fits: NCCL disables NVLS
  comm.nvls_heads = heads;
  comm.nvls_speed = s[i];
  comm.nvls_inter = s[i];
  while (i > 0 && comm.nvls_inter < 2 * comm.nvls_speed) comm.nvls_inter = s[--i];
  comm.nvls_channels = comm.compute_capability >= 100 ? 24 : 16;
}

}  // namespace

std::string_view to_string(Algorithm a) { return a == Algorithm::nvls ? "nvls" : "ring"; }

std::string_view to_string(Protocol p) {
  switch (p) {
    case Protocol::ll:
      return "LL";
    case Protocol::ll128:
      return "LL128";
    case Protocol::simple:
      return "Simple";
  }
  return "?";
}

Comm make_comm(int ranks, int compute_capability, int nvlink_links, bool multicast) {
  MGSIM_CHECK(ranks >= 2 && nvlink_links >= 1, "NCCL communicator of {} ranks, {} links", ranks,
              nvlink_links);
  Comm comm;
  comm.ranks = ranks;
  comm.compute_capability = compute_capability;
  comm.nvlink_bw = nvlink_links * nvlink_link_bw(compute_capability);
  constexpr int kRingMaxChannels = kMaxChannels / 2;  // init.cc: ringGraph->maxChannels
  const auto fit = [&](double speed) {
    return std::min(static_cast<int>(std::floor(comm.nvlink_bw / speed)), kRingMaxChannels);
  };
  // Pass 1: from the highest speed that fits, keep the best channels x speed (strictly better
  // replaces), while the next speed is more than 0.49 of the best one's.
  const std::span<const double> s = speeds(compute_capability);
  std::size_t i = 0;
  while (i + 1 < s.size() && s[i] > comm.nvlink_bw) ++i;
  int channels = 0;
  double speed = 0;
  for (std::size_t j = i; j < s.size(); ++j) {
    if (channels > 0 && s[j] / speed <= 0.49) break;
    const int c = fit(s[j]);
    if (c >= 1 && c * s[j] > channels * speed) {
      channels = c;
      speed = s[j];
    }
  }
  MGSIM_CHECK(channels >= 1, "no ring at {} GB/s of NVLink", comm.nvlink_bw);
  // ncclTopoDupChannels.
  const bool dup = speed >= 25.0 && !(compute_capability > 80 && speed < 50.0 && channels > 4);
  if (dup) {
    const int doubled = std::min(channels * 2, kRingMaxChannels);
    const int copies = (doubled + channels - 1) / channels;  // DIVUP(dup, nChannels)
    speed /= copies;
    channels = doubled;
  }
  // Pass 2: a higher speed for the same channels, if the links carry it.
  for (const double faster : s) {
    if (faster > speed && channels * faster <= comm.nvlink_bw) {
      speed = faster;
      break;
    }
  }
  comm.search_channels = channels;
  comm.speed = speed;
  comm.channels = std::min(kMaxChannels, channels * 2);
  if (multicast && compute_capability >= 90) search_nvls(comm);
  return comm;
}

double predicted_us(const Comm& comm, Collective c, Protocol p, std::int64_t bytes) {
  const int steps = ring_steps(comm.ranks, c);
  const Arch a = arch(comm.compute_capability);
  double bus = comm.search_channels * comm.speed;
  if (p == Protocol::ll) bus = std::min(a.ll_max_bw, bus * 0.5);
  if (p == Protocol::ll128)
    bus = std::min(bus * 0.92, comm.search_channels * a.ll128_max_channel_bw);
  const double algo_bw = bus * comm.ranks / steps;
  // Broadcast and reduce over the ring's own channels (sameChannels, as the search keeps them)
  // pay one hop's latency; the others one per step.
  const int hops = chained(c) ? 1 : steps;
  const double latency = kRingBaseLatency[index(p)] + hops * kRingNvlinkLatency[index(p)];
  return latency + static_cast<double>(bytes) / (1000.0 * algo_bw);
}

std::optional<double> nvls_predicted_us(const Comm& comm, Collective c, std::int64_t bytes) {
  // tuning.cc: NVLS needs 2 channels; enqueue.cc (updateCollCostTable): all_gather and
  // reduce_scatter on at most NCCL_MAX_NVLS_ARITY GPUs; no broadcast or reduce.
  if (comm.nvls_heads < 2 || chained(c)) return std::nullopt;
  if (c != Collective::all_reduce && comm.ranks > kMaxNvlsArity) return std::nullopt;
  const int heads = comm.nvls_heads;
  double intra = comm.nvls_speed * nvls_efficiency(comm.compute_capability) * (heads - 1) / heads;
  // All-reduce pipelines its reduction and its multicast; the others move (ppn - 1) / ppn.
  intra *= c == Collective::all_reduce ? 2.0 : (comm.ranks - 1.0) / comm.ranks;
  double bus = heads * std::min(intra, comm.nvls_inter);
  // Bus to algorithm bandwidth: all_reduce only (all_gather and reduce_scatter stay bus).
  if (c == Collective::all_reduce)
    bus *= static_cast<double>(comm.ranks) / ring_steps(comm.ranks, c);
  return kNvlsLatency + static_cast<double>(bytes) / (1000.0 * bus);
}

std::string nvls_unavailable(const Comm& comm, Collective c, const Constraints& k) {
  if (comm.nvls_heads == 0)
    return "NVLS needs the GPUs to share an NVSwitch with multicast and in-network reduction "
           "(nvswitch.multicast, nvswitch.reduction, ldst.multimem), on Hopper or later";
  if (chained(c)) return "NCCL has no NVLS broadcast or reduce (only ring)";
  if (c != Collective::all_reduce && comm.ranks > kMaxNvlsArity)
    return "NCCL runs NVLS all_gather and reduce_scatter on at most 32 GPUs";
  if (c != Collective::all_gather && !k.nvls_type)
    return "NCCL has no NVLS reduction for this data type";
  if (k.protocol && *k.protocol != Protocol::simple) return "NVLS runs only the Simple protocol";
  return {};
}

Choice choose(const Comm& comm, Collective c, std::int64_t bytes, const Constraints& k) {
  MGSIM_CHECK(bytes > 0, "collective of {} bytes", bytes);
  const bool nvls = nvls_unavailable(comm, c, k).empty();
  MGSIM_CHECK(nvls || k.algorithm != Algorithm::nvls, "NVLS forced where NCCL has none");
  Choice out;
  double best = 0;
  if (k.protocol) {
    out.protocol = *k.protocol;
    best = predicted_us(comm, c, out.protocol, bytes);
  } else {
    for (const Protocol p : {Protocol::ll, Protocol::ll128, Protocol::simple}) {
      const double t = predicted_us(comm, c, p, bytes);
      if (p == Protocol::ll || t < best) {
        best = t;
        out.protocol = p;
      }
    }
  }
  // topoGetAlgoInfo: ring comes before NVLS in NCCL's table, so a tie keeps the ring.
  if (nvls && k.algorithm != Algorithm::ring &&
      (k.algorithm == Algorithm::nvls || *nvls_predicted_us(comm, c, bytes) < best)) {
    // NVLS: its own channels and all threads, whatever the size.
    out.algorithm = Algorithm::nvls;
    out.protocol = Protocol::simple;
    out.channels = k.channels ? *k.channels : comm.nvls_channels;
    out.threads = kMaxThreads;
    return out;
  }
  int nt = out.protocol == Protocol::ll128 ? kLl128MaxThreads
           : out.protocol == Protocol::ll  ? kLlMaxThreads
                                           : kSimpleMaxThreads;
  const std::int64_t threshold = out.protocol == Protocol::ll      ? kLlThreshold * comm.ranks
                                 : out.protocol == Protocol::ll128 ? kLl128Threshold
                                                                   : kSimpleThreshold;
  int nc = comm.channels;
  while (bytes < std::int64_t{nc} * nt * threshold && nc >= 2) --nc;
  if (k.channels) nc = *k.channels;
  while (bytes < std::int64_t{nc} * nt * threshold && nt % 128 == 0) nt /= 2;
  if (out.protocol == Protocol::simple) nt += kWarp;  // the sync warp
  out.threads = std::max(nt, 3 * kWarp);
  out.channels = nc;
  return out;
}

RingPlan plan_ring(const Comm& comm, Collective c, const Choice& choice, std::int64_t bytes) {
  MGSIM_CHECK(bytes > 0, "collective of {} bytes", bytes);
  RingPlan plan;
  plan.steps = chained(c) ? 1 : ring_steps(comm.ranks, c) + 1;
  const std::int64_t segment = chained(c) ? bytes : (bytes + comm.ranks - 1) / comm.ranks;
  plan.part = (segment + choice.channels - 1) / choice.channels;
  switch (choice.protocol) {
    case Protocol::simple: {
      // prims_simple.h: a chunk of up to chunk-steps slots is cut into chunk-steps / slice-steps
      // slices, each at least 1/32 of a slice's slots.
      const std::int64_t step = kSimpleBuffer / kSteps;
      const int per_chunk = chunk_steps(c) / slice_steps(c);
      const std::int64_t chunk = std::min(step * chunk_steps(c), plan.part);
      plan.slice = std::max((chunk + per_chunk - 1) / per_chunk, step * slice_steps(c) / 32);
      plan.depth = kSteps / slice_steps(c);
      break;
    }
    case Protocol::ll:
      // Each slot carries half its bytes as data (8-byte lines: 4 data, 4 flag x 2).
      plan.slice = kLlBuffer / kSteps / 2;
      plan.depth = kSteps;
      plan.wire_num = 2;
      plan.fence = false;
      break;
    case Protocol::ll128:
      // 128-byte lines: 120 bytes of data, 8 of flag.
      plan.slice = kLl128Buffer / kSteps / 16 * 15;
      plan.depth = kSteps;
      plan.wire_num = 16;
      plan.wire_den = 15;
      plan.fence = false;
      break;
  }
  plan.slice = std::max<std::int64_t>(1, std::min(plan.slice, plan.part));
  plan.slices = (plan.part + plan.slice - 1) / plan.slice;
  return plan;
}

P2pPlan plan_p2p(const Comm& comm, std::int64_t bytes, bool self) {
  MGSIM_CHECK(bytes > 0, "send of {} bytes", bytes);
  // paths.cc: per peer 2 x (NVLink bandwidth / one link's) channels, at most the communicator's,
  // rounded up to a power of two, as the p2p channel count is.
  const auto pow2_up = [](int v) {
    int p = 1;
    while (p < v) p *= 2;
    return p;
  };
  const int p2p_channels = pow2_up(comm.channels);
  const int per_peer = std::min(
      pow2_up(std::min(comm.channels,
                       2 * std::max(1, static_cast<int>(comm.nvlink_bw /
                                                        nvlink_link_bw(comm.compute_capability))))),
      p2p_channels);
  // enqueue.cc: scheduleP2pTasksToPlan and addP2pToPlan.
  const int max_channels = per_peer;
  int min_channels = per_peer;
  while (min_channels * comm.ranks > p2p_channels && min_channels > 1) min_channels /= 2;
  constexpr std::int64_t kLlThreshold = 16384;            // NCCL_P2P_LL_THRESHOLD
  constexpr std::int64_t kChunk = std::int64_t{1} << 19;  // NCCL_P2P_NVL_CHUNKSIZE
  P2pPlan plan;
  plan.protocol = !self && bytes <= max_channels * kLlThreshold ? Protocol::ll : Protocol::simple;
  const std::int64_t step = plan.protocol == Protocol::ll ? kLlBuffer / kSteps : kChunk;
  const std::int64_t min_part = step / 8, max_part = step * 32;
  int channels =
      static_cast<int>(std::min<std::int64_t>(min_channels, (bytes + min_part - 1) / min_part));
  std::int64_t part = std::max(min_part, (bytes + channels - 1) / channels);
  while (part > max_part && channels <= max_channels / 2) {
    channels *= 2;
    part = (bytes + channels - 1) / channels;
  }
  plan.channels = channels;
  plan.p2p_channels = p2p_channels;
  RingPlan& m = plan.moves;
  m.part = (bytes + channels - 1) / channels;
  m.depth = kSteps;
  if (plan.protocol == Protocol::ll) {
    m.slice = step / 2;  // half of an LL slot is data
    m.wire_num = 2;
    m.fence = false;
  } else {
    m.slice = kChunk;
  }
  m.slice = std::max<std::int64_t>(1, std::min(m.slice, m.part));
  m.slices = (m.part + m.slice - 1) / m.slice;
  m.steps = 2;
  return plan;
}

NvlsPlan plan_nvls(const Comm& comm, Collective c, const Choice& choice, std::int64_t bytes) {
  MGSIM_CHECK(bytes > 0 && choice.algorithm == Algorithm::nvls && comm.nvls_heads >= 2,
              "NVLS plan of {} bytes", bytes);
  NvlsPlan plan;
  plan.heads = comm.nvls_heads;
  const std::int64_t channels = choice.channels;
  // ncclCollCbdPart: all_reduce splits the buffer over channels (then heads), all_gather and
  // reduce_scatter each rank's segment.
  plan.part = c == Collective::all_reduce
                  ? ((bytes + channels - 1) / channels + plan.heads - 1) / plan.heads
                  : ((bytes + comm.ranks - 1) / comm.ranks + channels - 1) / channels;
  // enqueue.cc, calcCollChunking: a Simple slot (512 KiB), at most NVLS_CHUNKSIZE, smaller when
  // the buffer is small against channels x heads chunks.
  std::int64_t chunk = std::min(kSimpleBuffer / kSteps, kNvlsChunk);
  const std::int64_t ops = channels * plan.heads;
  if (bytes < 64 * ops * chunk && chunk > 65536) chunk = 65536;
  if (bytes < 8 * ops * chunk && chunk > 32768) chunk = 32768;
  if (bytes < 2 * ops * chunk && chunk > 16384) chunk = 16384;
  plan.chunk = std::max<std::int64_t>(1, std::min(chunk, plan.part));
  plan.loops = (plan.part + plan.chunk - 1) / plan.chunk;
  plan.depth = kSteps;
  // The groups' warps, one node, no registered buffers.
  constexpr int kWarps = kMaxThreads / kWarp;
  int in = 0, reduce = 0, out = 0;
  switch (c) {
    case Collective::all_reduce:
      reduce = comm.ranks <= 6 ? 7 : 5;
      in = (kWarps - reduce + 1) / 2;
      out = (kWarps - reduce) / 2;
      break;
    case Collective::all_gather:
      out = 8;
      in = kWarps - out;
      break;
    case Collective::reduce_scatter:
      in = 8;
      reduce = kWarps - in;
      break;
    case Collective::broadcast:
    case Collective::reduce:
      MGSIM_CHECK(false, "NCCL has no NVLS {}", static_cast<int>(c));
  }
  plan.in_threads = in * kWarp;
  plan.reduce_threads = reduce * kWarp;
  plan.out_threads = out * kWarp;
  return plan;
}

}  // namespace mgsim::traces::nccl
