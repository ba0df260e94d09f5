// NCCL's own choices for a collective: what its initialisation finds in the topology (rings and
// channels) and what its tuner picks per call (protocol, channels, threads), as NCCL 2.28.9 does
// them (src/graph/search.cc, src/graph/connect.cc, src/graph/tuning.cc, src/enqueue.cc). The
// numbers below are NCCL's constants, quoted from that source; they describe the library, not the
// hardware. The hardware enters through the GPU's NVLink link count and compute capability, as
// it does in NCCL.
//
// Models, for one NVLink domain (NCCL's single node; an NVL72 rack is one, as NCCL's MNNVL):
//   - the ring search (ncclTopoCompute): the GPU's NVLink bandwidth as NCCL rates it (links x
//     SM90_NVLINK_BW 20.6 GB/s, SM100 40.1), the speeds of NCCL's table tried from the highest
//     that fits, channels = floor(bandwidth / speed) (at most 32), the best channels x speed kept
//     (ties keep the faster speed), down to half the best speed; then ncclTopoDupChannels
//     doubles the channels at half the speed when the speed is at least 50 GB/s (25 before
//     Hopper); then no higher speed fits those channels. The communicator then runs twice the
//     search's channels (connect.cc: ncclTopoPostset), at most 64.
//   - the tuner (ncclTopoTuneModel, ncclTopoGetAlgoTime): per protocol a latency (base + steps
//     x NVLink hop latency) and a bus bandwidth (search channels x speed; LL half of it, at
//     most llMaxBw; LL128 0.92 of it, at most 36.7 GB/s per channel on Hopper), turned into
//     algorithm bandwidth by ranks / steps; time = latency + bytes / bandwidth; the fastest wins.
//   - channels and threads per call (topoGetAlgoInfo): while bytes < channels x threads x the
//     protocol's threshold, first drop a channel, then halve the threads; Simple adds a warp.
//   - NVLS (NVSwitch multicast and in-network reduction; init.cc, search.cc with pattern NVLS,
//     transport/nvls.cc, tuning.cc): where the GPUs share an NVSwitch with multicast, a graph
//     of min(ranks, NCCL_MAX_NVLS_ARITY 32) heads, each channel of it pulling speed through
//     every GPU's NVLink and twice through its head's, so speed x (heads + 1) fits one GPU's
//     NVLink; the kernel runs NVLS_NCHANNELS CTAs (16 on SM90, 24 on SM100 in one NVLink
//     domain) of 640 threads, Simple only, on chunks of NVLS_CHUNKSIZE (128 KiB) cut down for
//     small buffers (enqueue.cc: calcCollChunking).
// Ignores: the tree, NVLS-tree, CollNet and PAT algorithms (see choose()), the network (more
// than one NVLink domain is refused by the caller), tuner plugins, user buffer registration
// (NVLS then skips its copies), and NCCL's environment variables other than the ones a schedule
// can force (algorithm, protocol, channels).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mgsim::traces::nccl {

enum class Protocol { ll, ll128, simple };
std::string_view to_string(Protocol p);

enum class Collective { all_reduce, all_gather, reduce_scatter, broadcast, reduce };

enum class Algorithm { ring, nvls };
std::string_view to_string(Algorithm a);

// What a communicator's initialisation found.
struct Comm {
  int ranks = 0;
  int compute_capability = 90;
  double nvlink_bw = 0;     // GB/s, NCCL's rating of one GPU's NVLink
  int search_channels = 0;  // the ring search's channels, after duplication
  double speed = 0;         // GB/s per search channel (graph->bwIntra)
  int channels = 0;         // channels the communicator runs (comm->nChannels)
  // NVLS, all 0 where the GPUs have no NVSwitch multicast (comm->nvlsSupport = 0):
  int nvls_heads = 0;     // the NVLS graph's channels: GPUs that reduce a part each
  double nvls_speed = 0;  // its bwIntra, GB/s per head
  double nvls_inter = 0;  // its bwInter after the search's second pass, GB/s
  int nvls_channels = 0;  // CTAs of an NVLS kernel (comm->nvlsChannels)
};

// `multicast`: the GPUs share an NVSwitch with multicast and in-network reduction.
// REQUIRES: ranks >= 2, nvlink_links >= 1.
Comm make_comm(int ranks, int compute_capability, int nvlink_links, bool multicast = false);

// NCCL's predicted time (us) of `bytes` (nccl-tests' size) with the ring and protocol `p`, from
// its latency and bandwidth tables.
double predicted_us(const Comm& comm, Collective c, Protocol p, std::int64_t bytes);
// The same for NVLS (Simple); nullopt where NCCL has no NVLS for `c` on this communicator.
std::optional<double> nvls_predicted_us(const Comm& comm, Collective c, std::int64_t bytes);

struct Choice {
  Protocol protocol = Protocol::simple;
  int channels = 1;
  int threads = 0;  // per CTA, the sync warp of Simple included
  Algorithm algorithm = Algorithm::ring;
};

// What a call may not leave to NCCL: `algorithm`, `protocol` and `channels` force those (as
// NCCL_ALGO, NCCL_PROTO and NCCL_MIN_NCHANNELS = NCCL_MAX_NCHANNELS do); `nvls_type` says
// whether NCCL has NVLS kernels for the data type (ncclNvlsSupported: not for fp8).
struct Constraints {
  std::optional<Algorithm> algorithm;
  std::optional<Protocol> protocol;
  std::optional<int> channels;
  bool nvls_type = true;
};

// Whether NCCL can run `c` with NVLS here, and if not, why (empty when it can).
std::string nvls_unavailable(const Comm& comm, Collective c, const Constraints& k);

// NCCL's choice for `bytes`. REQUIRES: bytes > 0, k.channels in [1, 64], and a forced NVLS
// available (nvls_unavailable() empty).
Choice choose(const Comm& comm, Collective c, std::int64_t bytes, const Constraints& k = {});

// How one rank's ring kernel moves the data (the arguments of nccl_ring in kernels.yaml).
struct RingPlan {
  int steps = 0;                   // ring steps a slice goes through
  std::int64_t part = 0;           // bytes per channel of each rank's segment
  std::int64_t slice = 0;          // bytes handed over per step (the last slice may be shorter)
  std::int64_t slices = 0;         // per channel
  int depth = 0;                   // slices in flight in a channel's buffer
  int wire_num = 1, wire_den = 1;  // bytes on the wire per data byte (the protocol's lines)
  bool fence = true;               // Simple: a system fence before the flag
};

// REQUIRES: bytes > 0.
RingPlan plan_ring(const Comm& comm, Collective c, const Choice& choice, std::int64_t bytes);

// How one rank's grouped sends and receives of `bytes` to and from each rank move (the arguments
// of nccl_p2p): NCCL's p2p channels per peer (paths.cc: ncclTopoComputeP2pChannels, enqueue.cc:
// addP2pToPlan), LL up to 16 KiB per channel (NCCL_P2P_LL_THRESHOLD), else Simple in chunks of
// NCCL_P2P_NVL_CHUNKSIZE (512 KiB), 8 in flight; 640 threads per CTA (NCCL_MAX_NTHREADS).
struct P2pPlan {
  Protocol protocol = Protocol::simple;
  int p2p_channels = 1;  // the communicator's p2p channels (CTAs of the kernel)
  int channels = 1;      // per peer
  int threads = 640;
  RingPlan moves;  // part (bytes per channel per peer), slice (a chunk), slices, depth, wire
};
// `self`: a send to the rank itself, a local copy, never LL (addP2pToPlan). REQUIRES: bytes > 0.
P2pPlan plan_p2p(const Comm& comm, std::int64_t bytes, bool self = false);

// How one rank's NVLS kernel moves the data (the arguments of nccl_nvls). Each channel takes an
// equal part of the buffer (all_reduce) or of each rank's segment (all_gather, reduce_scatter)
// and moves it in loops of one chunk per head: all_reduce copies its input into the NVLS buffer
// (scatter), each head reduces its chunk from all GPUs through the switch and multicasts the sum
// (reduce), and every GPU copies the sums out (gather); all_gather multicasts its own chunk and
// gathers everyone's; reduce_scatter scatters and each head reduces its own.
struct NvlsPlan {
  int heads = 0;
  std::int64_t part = 0;   // bytes per channel per head
  std::int64_t chunk = 0;  // bytes per head per loop (the last may be shorter)
  std::int64_t loops = 0;
  int depth = 0;  // loops in flight (NCCL_STEPS slots)
  // Warps of the kernel's groups (all_reduce.h, all_gather.h, reduce_scatter.h, one node):
  // in (scatter, or all_gather's multicast), reduce (heads), out (gather).
  int in_threads = 0, reduce_threads = 0, out_threads = 0;
};
// REQUIRES: bytes > 0, choice.algorithm == nvls.
NvlsPlan plan_nvls(const Comm& comm, Collective c, const Choice& choice, std::int64_t bytes);

}  // namespace mgsim::traces::nccl
