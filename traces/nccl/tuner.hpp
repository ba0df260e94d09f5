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
// Ignores: the tree, NVLS, CollNet and PAT algorithms (only ring is run: see choose()), the
// network (more than one NVLink domain is refused by the caller), tuner plugins, and NCCL's
// environment variables other than the three a schedule can force (algorithm, protocol,
// channels).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace mgsim::traces::nccl {

enum class Protocol { ll, ll128, simple };
std::string_view to_string(Protocol p);

enum class Collective { all_reduce, all_gather, reduce_scatter, broadcast, reduce };

// What a communicator's initialisation found.
struct Comm {
  int ranks = 0;
  int compute_capability = 90;
  double nvlink_bw = 0;     // GB/s, NCCL's rating of one GPU's NVLink
  int search_channels = 0;  // the ring search's channels, after duplication
  double speed = 0;         // GB/s per search channel (graph->bwIntra)
  int channels = 0;         // channels the communicator runs (comm->nChannels)
};

// REQUIRES: ranks >= 2, nvlink_links >= 1.
Comm make_comm(int ranks, int compute_capability, int nvlink_links);

// NCCL's predicted time (us) of `bytes` (nccl-tests' size) with protocol `p`, from its latency
// and bandwidth tables.
double predicted_us(const Comm& comm, Collective c, Protocol p, std::int64_t bytes);

struct Choice {
  Protocol protocol = Protocol::simple;
  int channels = 1;
  int threads = 0;  // per CTA, the sync warp of Simple included
};

// NCCL's choice for `bytes`; `protocol` and `channels` force those (as NCCL_PROTO and
// NCCL_MIN_NCHANNELS = NCCL_MAX_NCHANNELS do). REQUIRES: bytes > 0, channels in [1, 64].
Choice choose(const Comm& comm, Collective c, std::int64_t bytes,
              std::optional<Protocol> protocol = std::nullopt,
              std::optional<int> channels = std::nullopt);

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
P2pPlan plan_p2p(const Comm& comm, std::int64_t bytes);

}  // namespace mgsim::traces::nccl
