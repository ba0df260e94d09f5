// The ideal ring (`algorithm: ideal_ring`): one collective across all ranks of a world, expanded
// into peer copies at the path's rate, with none of NCCL's protocol, buffer or SM costs: the most
// a ring can do. (NCCL's own collectives run as NCCL's kernels: traces/nccl/.)
//
// Transport, an explicit choice of the run (CollectiveTransport):
//   - sm_copies: each rank's part is a kernel: it starts the launch
//     delay its stream computed (launch.latency or launch.gap) after the rank's stream reaches
//     the collective, and moves its sends with SMs (Transfers::sm_copy:
//     the ld/st path's saturated peer rate, the route's latency, no copy-engine setup, no engine
//     queue);
//   - copy_engines: sends are copy-engine copies (Transfers::copy) starting at once, with no
//     kernel (host-driven copies; the unit tests of the algorithms use it).
//
// Ring (all_reduce, all_gather, reduce_scatter), as a ring moves data:
//   - the buffer of `bytes` is cut into one part per ring (bytes / rings, the first bytes % rings
//     parts one byte larger); each ring moves its part independently, as NCCL's channels do;
//   - a ring's part is split into n segments (part / n, the first part % n segments one byte
//     larger), each cut into chunks of at most `chunk` bytes;
//   - steps: all_reduce 2(n-1) (reduce-scatter then all-gather), the others n-1. At step s the
//     rank at position p of the ring sends segment (p - s) mod n to the rank at position p+1,
//     chunk by chunk;
//   - step s > 0 of a chunk waits until the rank has received that chunk's step s-1 from the
//     rank before it (it forwards what it just received: NCCL-like pipelining across ranks and
//     chunks);
//   - a rank issues each ring's sends in NCCL's loop order (chunk-major, then step) and never
//     out of order; the copy engines bound how many are in flight.
// Rings (rail_rings below): one ring in rank order within one NVLink domain; across NVLink
// domains one ring per rail, each crossing every domain boundary through a different NIC.
// all_to_all: rank r sends bytes/n to every other rank (peers r+1, r+2, ... in that order,
// chunk-major), with no dependency between sends.
// Every send also waits until its receiver's part has started (its kernel posted the buffers).
// A rank's part is done when its sends are done and everything addressed to it has arrived.
//
// Ignores: reduction arithmetic and the HBM traffic of the local copies and adds (hidden behind
// the NVLink transfers of the same pipelined pass), NCCL's protocols (LL/LL128/Simple) and their
// per-slot flag handshakes, channels within a ring (their SMs are taken as enough to saturate the
// ld/st path), and the network's proxy threads and NIC work requests (a send to another NVLink
// domain is a flow over its PCIe, NIC and network route). The host side of a call (its launch and
// stream joins) is the executor's.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "sim/units.hpp"
#include "traces/schedule.hpp"
#include "traces/transfers.hpp"

namespace mgsim::traces {

// How a collective's sends move (see above).
enum class CollectiveTransport : std::uint8_t { sm_copies, copy_engines };

// The rings of an ideal ring over ranks 0 .. domain.size() - 1, rank r in NVLink domain
// domain[r]. Where every rank shares one domain, or the domains hold different numbers of ranks:
// one ring, in rank order. Otherwise (G ranks per domain, domains ordered by their first rank,
// a rank's rail its position among its domain's ranks, as on rail-optimised clusters where GPU i
// of every node has NIC i on leaf switch i): G rings; ring c visits the domains in order, the
// even ones from rail c up to rail c - 1 (mod G), the odd ones from rail c - 1 down to rail c, so
// it leaves one domain and enters the next on the same rail, and at every boundary the G rings
// cross on G different rails. (NCCL reaches the same rail alignment with PXN: the last GPU of a
// node's chain hands its data over NVLink to the GPU of the next node's entry rail.) With an
// odd number of domains the last one wraps to the first across rails.
std::vector<std::vector<int>> rail_rings(std::span<const int> domain);

// Whether moving every rank by `period` (r -> (r + period) mod n) moves the ring `order` onto
// itself, turned: what a folded run needs of its rings (the rank standing for another sends where
// the other sends, at the same step). REQUIRES: `order` is a permutation of 0 .. n - 1.
bool ring_turns(std::span<const int> order, int period);

class CollectiveRun {
 public:
  // `rings[c]` is ring c's order of the ranks, a permutation of 0 .. ranks - 1 (all_to_all: one
  // ring, its order unused). `on_rank_done(rank)` runs (as an engine event) when a rank's part
  // is done. REQUIRES: ranks >= 2, bytes > 0, chunk > 0, at least one ring (all_to_all: one).
  // A folded run (transfers.simulated_ranks() < ranks) runs ranks 0 .. period - 1 only, each
  // standing for its translates (r + k * period): what a rank waits for from another it takes
  // from that rank's stand-in. SymmetryBroken when the rings are not symmetric
  // (ring_turns) or the segments differ in size (every send of a translate must be as
  // large).
  CollectiveRun(sim::Engine& engine, Transfers& transfers, CollectiveTransport transport,
                CollectiveKind kind, int ranks, std::int64_t bytes, std::int64_t chunk,
                std::vector<std::vector<int>> rings, std::function<void(int)> on_rank_done);

  // Rank `rank`'s stream reached the collective now; with sm_copies its part (a kernel) starts
  // `launch` later, with copy_engines at once.
  void join(int rank, sim::Duration launch);
  // Who `rank` is waiting on, for deadlock reports ("" when not blocked).
  std::string blocked_reason(int rank) const;

  CollectiveKind kind() const { return kind_; }
  std::int64_t bytes() const { return bytes_; }
  sim::Time begin() const { return begin_; }
  sim::Time end() const { return end_; }
  std::int64_t sends() const { return total_sends_; }
  int rings() const { return static_cast<int>(rings_.size()); }

 private:
  struct Ring {
    std::vector<int> order;  // position -> rank
    std::vector<int> pos;    // rank -> position
    std::int64_t bytes = 0;  // its part of the buffer
  };
  struct Rank {
    bool joined = false;
    bool done = false;
    std::int64_t sends_left = 0;
    std::int64_t recvs_left = 0;
  };
  // One rank's sends on one ring.
  struct Lane {
    std::int64_t cursor = 0;  // next send (index into the lane's send order) to issue
    std::vector<bool> sent;   // per send index: finished
  };

  // The simulated rank standing for r (itself unless the run is folded).
  int stand_in(int r) const { return r % period_; }
  Lane& lane(int c, int r) { return lanes_[static_cast<std::size_t>(c * period_ + stand_in(r))]; }
  const Lane& lane(int c, int r) const {
    return lanes_[static_cast<std::size_t>(c * period_ + stand_in(r))];
  }
  Rank& rank(int r) { return ranks_[static_cast<std::size_t>(stand_in(r))]; }
  const Rank& rank(int r) const { return ranks_[static_cast<std::size_t>(stand_in(r))]; }
  void check_symmetric() const;
  // The rank before r on ring c.
  int upstream(int c, int r) const;
  std::int64_t segment_bytes(int c, int segment) const;
  // Bytes of the send with index `idx` of rank r on ring c (0: that send does not exist), and
  // its peer.
  std::int64_t send_bytes(int c, int r, std::int64_t idx) const;
  int send_peer(int c, int r, std::int64_t idx) const;
  // 0 when send idx of rank r on ring c may start; otherwise the rank it waits for, plus one.
  int waits_on(int c, int r, std::int64_t idx) const;
  void start(int r);  // the rank's part begins: its kernel runs
  void issue(int c, int r);
  void send_done(int c, int r, std::int64_t idx, int dst);
  void check_done(int r);

  sim::Engine& engine_;
  Transfers& transfers_;
  CollectiveKind kind_;
  int n_;
  int period_;  // the simulated ranks: 0 .. period_ - 1 (n_ unless folded)
  std::int64_t bytes_;
  std::int64_t chunk_;
  int steps_;                // ring: steps; all_to_all: n-1 peers
  std::int64_t chunks_;      // chunks of the largest segment
  std::int64_t order_size_;  // chunks_ * steps_
  std::function<void(int)> on_rank_done_;
  CollectiveTransport transport_;
  std::vector<Ring> rings_;
  std::vector<Rank> ranks_;  // simulated ranks
  std::vector<Lane> lanes_;  // ring-major: lanes_[c * period + r]
  std::int64_t total_sends_ = 0;
  int joined_ = 0;
  sim::Time begin_ = sim::Time::max();
  sim::Time end_ = sim::Time::zero();
};

}  // namespace mgsim::traces
