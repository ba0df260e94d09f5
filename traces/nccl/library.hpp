// NCCL's kernels (traces/nccl/kernels.yaml, compiled into mgsim) and their launches: which kernel
// one rank runs for one collective and with which arguments, from NCCL's choices (tuner.hpp).
//
// Contract: add_kernels() appends the library's kernels to a schedule's KernelSet, parsed in a
// scope of their own (rank in slot 0, world in slot 1; nothing of the schedule's), so a
// schedule's params cannot collide with the library's names; names starting `nccl_` are the
// library's (kernels and flags; a schedule may not use them: schedule.cpp checks).
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/expr.hpp"
#include "traces/kernel_schedule.hpp"
#include "traces/nccl/tuner.hpp"

namespace mgsim::traces::nccl {

inline constexpr std::string_view kReservedPrefix = "nccl_";
inline constexpr std::string_view kLibraryFile = "traces/nccl/kernels.yaml";

void add_kernels(KernelSet& set);

// One rank's kernel for one collective (every rank runs the same).
struct Launch {
  std::string_view kernel;     // nccl_ring, nccl_chain, nccl_p2p, nccl_sendrecv or nccl_nvls
  std::string_view algorithm;  // ring, nvls, or p2p (all_to_all, send and recv)
  Protocol protocol = Protocol::simple;
  int channels = 1;
  std::vector<std::pair<std::string_view, std::int64_t>> args;  // all but BASE and COMM
  std::int64_t flag_span = 0;  // what the collective advances its flags by (kernels.yaml)
  std::int64_t handovers = 0;  // slices handed to a peer, per rank
};

// all_reduce, all_gather, reduce_scatter (nccl_ring), broadcast and reduce from or to `root`
// (nccl_chain): NCCL's ring, or NVLS where `choice` says so.
Launch ring_launch(const Comm& comm, Collective c, const Choice& choice, std::int64_t bytes,
                   std::int64_t element_bytes, int root = 0);
// all_reduce, all_gather, reduce_scatter with NVLS (nccl_nvls).
Launch nvls_launch(const Comm& comm, Collective c, const Choice& choice, std::int64_t bytes);
// all_to_all: `bytes` to and from each rank.
Launch p2p_launch(const Comm& comm, std::int64_t bytes);

// One direction of a rank's group of sends and receives: the other rank (-1: none), how the
// transfer moves (tuner.hpp, plan_p2p; the same plan on both ranks) and the pair's chunks before
// it (the flags' base: kernels.yaml, nccl_sendrecv).
struct P2pSide {
  int peer = -1;
  const P2pPlan* plan = nullptr;
  std::int64_t base = 0;
};
// Rank `rank`'s kernel for one p2p round of a group (nccl_sendrecv): a send to rank + j, a
// receive from rank - j, or both. REQUIRES: each side with a peer has a plan; both are of one
// round; a send to `rank` comes with a receive from it.
Launch sendrecv_launch(int rank, int world, const P2pSide& send, const P2pSide& recv);

// The env of rank `rank`'s launch of `k` (which must be `launch.kernel`): `base` is the flag
// count its communicator's earlier collectives reached, `comm_index` keeps the flags of
// different communicators apart.
sim::Env launch_env(const KernelDef& k, const Launch& launch, int rank, int world,
                    std::int64_t num_sms, std::int64_t base, int comm_index);

}  // namespace mgsim::traces::nccl
