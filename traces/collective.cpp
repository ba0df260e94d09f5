#include "traces/collective.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "sim/check.hpp"

namespace mgsim::traces {

std::vector<std::vector<int>> rail_rings(std::span<const int> domain) {
  const int n = static_cast<int>(domain.size());
  std::vector<int> identity(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) identity[static_cast<std::size_t>(r)] = r;
  // The domains in order of their first rank, each with its ranks in rank order.
  std::vector<std::vector<int>> domains;
  std::map<int, std::size_t> index;
  for (int r = 0; r < n; ++r) {
    const auto [it, added] = index.try_emplace(domain[static_cast<std::size_t>(r)], domains.size());
    if (added) domains.emplace_back();
    domains[it->second].push_back(r);
  }
  const std::size_t g = domains.front().size();
  const bool equal = std::ranges::all_of(domains, [g](const auto& d) { return d.size() == g; });
  if (domains.size() == 1 || !equal || g == 1) return {identity};
  const int rails = static_cast<int>(g);
  std::vector<std::vector<int>> rings(g);
  for (int c = 0; c < rails; ++c) {
    std::vector<int>& ring = rings[static_cast<std::size_t>(c)];
    ring.reserve(static_cast<std::size_t>(n));
    for (std::size_t d = 0; d < domains.size(); ++d) {
      for (int i = 0; i < rails; ++i) {
        // Even domains: rails c, c + 1, ..., c - 1; odd ones: c - 1, c - 2, ..., c.
        const int rail = d % 2 == 0 ? (c + i) % rails : ((c - 1 - i) % rails + rails) % rails;
        ring.push_back(domains[d][static_cast<std::size_t>(rail)]);
      }
    }
  }
  return rings;
}

bool ring_turns(std::span<const int> order, int period) {
  const auto n = static_cast<int>(order.size());
  std::vector<int> pos(order.size());
  for (int p = 0; p < n; ++p) pos[static_cast<std::size_t>(order[static_cast<std::size_t>(p)])] = p;
  // The turn that takes position 0's rank to its translate, then every position by it.
  const int turn = pos[static_cast<std::size_t>((order.front() + period) % n)];
  for (int p = 0; p < n; ++p) {
    if (order[static_cast<std::size_t>((p + turn) % n)] !=
        (order[static_cast<std::size_t>(p)] + period) % n)
      return false;
  }
  return true;
}

CollectiveRun::CollectiveRun(sim::Engine& engine, Transfers& transfers,
                             CollectiveTransport transport, CollectiveKind kind, int ranks,
                             std::int64_t bytes, std::int64_t chunk,
                             std::vector<std::vector<int>> rings,
                             std::function<void(int)> on_rank_done)
    : engine_(engine),
      transfers_(transfers),
      kind_(kind),
      n_(ranks),
      period_(std::min(ranks, transfers.simulated_ranks())),
      bytes_(bytes),
      chunk_(chunk),
      on_rank_done_(std::move(on_rank_done)),
      transport_(transport) {
  MGSIM_CHECK(n_ >= 2 && bytes_ > 0 && chunk_ > 0, "collective of {} ranks, {} bytes, chunk {}", n_,
              bytes_, chunk_);
  MGSIM_CHECK(!rings.empty() && (kind_ != CollectiveKind::all_to_all || rings.size() == 1),
              "{} rings for a {}", rings.size(), to_string(kind_));
  switch (kind_) {
    case CollectiveKind::all_reduce:
      steps_ = 2 * (n_ - 1);
      break;
    case CollectiveKind::all_gather:
    case CollectiveKind::reduce_scatter:
    case CollectiveKind::all_to_all:
      steps_ = n_ - 1;
      break;
    case CollectiveKind::broadcast:
    case CollectiveKind::reduce:
    case CollectiveKind::send:
    case CollectiveKind::recv:
      MGSIM_CHECK(false, "the ideal ring has no {}", to_string(kind_));
  }
  const auto count = static_cast<std::int64_t>(rings.size());
  for (std::size_t c = 0; c < rings.size(); ++c) {
    Ring& ring = rings_.emplace_back();
    ring.order = std::move(rings[c]);
    MGSIM_CHECK(static_cast<int>(ring.order.size()) == n_, "ring {} of {} ranks in a world of {}",
                c, ring.order.size(), n_);
    ring.pos.assign(static_cast<std::size_t>(n_), -1);
    for (int p = 0; p < n_; ++p) {
      const int r = ring.order[static_cast<std::size_t>(p)];
      MGSIM_CHECK(r >= 0 && r < n_ && ring.pos[static_cast<std::size_t>(r)] < 0,
                  "ring {} is not a permutation of the ranks", c);
      ring.pos[static_cast<std::size_t>(r)] = p;
    }
    ring.bytes = bytes_ / count + (static_cast<std::int64_t>(c) < bytes_ % count ? 1 : 0);
  }
  if (period_ < n_) check_symmetric();
  const std::int64_t largest = segment_bytes(0, 0);
  chunks_ = (largest + chunk_ - 1) / chunk_;
  order_size_ = chunks_ * steps_;
  ranks_.resize(static_cast<std::size_t>(period_));
  lanes_.resize(rings_.size() * static_cast<std::size_t>(period_));
  for (int c = 0; c < static_cast<int>(rings_.size()); ++c) {
    for (int r = 0; r < period_; ++r) {
      lane(c, r).sent.assign(static_cast<std::size_t>(order_size_), false);
      for (std::int64_t idx = 0; idx < order_size_; ++idx) {
        if (send_bytes(c, r, idx) == 0) continue;
        ++rank(r).sends_left;
        ++rank(send_peer(c, r, idx)).recvs_left;
        total_sends_ += n_ / period_;  // its translates' too
      }
    }
  }
}

void CollectiveRun::check_symmetric() const {
  MGSIM_CHECK(n_ % period_ == 0, "{} ranks folded by {}", n_, period_);
  for (const Ring& ring : rings_) {
    if (kind_ != CollectiveKind::all_to_all && !ring_turns(ring.order, period_))
      throw SymmetryBroken(
          fmt::format("the rings do not turn onto themselves by {} ranks", period_));
    if (ring.bytes % n_ != 0)
      throw SymmetryBroken(fmt::format(
          "a ring's {} bytes make segments of unequal sizes over {} ranks", ring.bytes, n_));
  }
}

int CollectiveRun::upstream(int c, int r) const {
  const Ring& ring = rings_[static_cast<std::size_t>(c)];
  return ring
      .order[static_cast<std::size_t>((ring.pos[static_cast<std::size_t>(r)] + n_ - 1) % n_)];
}

std::int64_t CollectiveRun::segment_bytes(int c, int segment) const {
  const std::int64_t part = rings_[static_cast<std::size_t>(c)].bytes;
  return part / n_ + (segment < part % n_ ? 1 : 0);
}

int CollectiveRun::send_peer(int c, int r, std::int64_t idx) const {
  if (kind_ == CollectiveKind::all_to_all) return (r + static_cast<int>(idx % steps_) + 1) % n_;
  const Ring& ring = rings_[static_cast<std::size_t>(c)];
  return ring.order[static_cast<std::size_t>((ring.pos[static_cast<std::size_t>(r)] + 1) % n_)];
}

std::int64_t CollectiveRun::send_bytes(int c, int r, std::int64_t idx) const {
  const std::int64_t k = idx / steps_;
  const int s = static_cast<int>(idx % steps_);
  // Ring: the segment the rank holds at step s; all_to_all: the block addressed to the peer.
  const int p = rings_[static_cast<std::size_t>(c)].pos[static_cast<std::size_t>(r)];
  const int segment =
      kind_ == CollectiveKind::all_to_all ? send_peer(c, r, idx) : ((p - s) % n_ + n_) % n_;
  const std::int64_t left = segment_bytes(c, segment) - k * chunk_;
  return std::clamp<std::int64_t>(left, 0, chunk_);
}

int CollectiveRun::waits_on(int c, int r, std::int64_t idx) const {
  const int dst = send_peer(c, r, idx);
  if (!rank(dst).joined) return dst + 1;
  if (kind_ == CollectiveKind::all_to_all) return 0;
  const int s = static_cast<int>(idx % steps_);
  if (s == 0) return 0;
  const int up = upstream(c, r);
  // Forward what arrived: the same chunk's previous step, sent by the upstream rank.
  return lane(c, up).sent[static_cast<std::size_t>(idx - 1)] ? 0 : up + 1;
}

void CollectiveRun::join(int r, sim::Duration launch) {
  begin_ = std::min(begin_, engine_.now());
  if (transport_ == CollectiveTransport::sm_copies && launch > sim::Duration::zero()) {
    engine_.schedule_in(launch, [this, r] { start(r); });
  } else {
    start(r);
  }
}

void CollectiveRun::start(int r) {
  Rank& me = rank(r);
  MGSIM_CHECK(!me.joined, "rank {} joined a collective twice", r);
  me.joined = true;
  ++joined_;
  // Senders to r may have been waiting for it to post its buffers.
  for (int c = 0; c < static_cast<int>(rings_.size()); ++c) {
    if (kind_ == CollectiveKind::all_to_all) {
      for (int q = 0; q < period_; ++q) issue(c, q);
    } else {
      issue(c, upstream(c, r));
    }
    issue(c, r);
  }
  check_done(r);
}

void CollectiveRun::issue(int c, int r) {
  r = stand_in(r);
  if (!rank(r).joined) return;
  Lane& mine = lane(c, r);
  while (mine.cursor < order_size_) {
    const std::int64_t idx = mine.cursor;
    const std::int64_t bytes = send_bytes(c, r, idx);
    if (bytes == 0) {
      ++mine.cursor;
      continue;
    }
    if (waits_on(c, r, idx) != 0) return;
    ++mine.cursor;
    const int dst = send_peer(c, r, idx);
    // One route class per (chunk, ring): a ring's chunks spread over equal-cost paths.
    const auto hint =
        static_cast<std::uint64_t>(idx / steps_) * rings_.size() + static_cast<std::uint64_t>(c);
    auto done = [this, c, r, idx, dst] { send_done(c, r, idx, dst); };
    if (transport_ == CollectiveTransport::sm_copies) {
      transfers_.sm_copy(r, dst, sim::Bytes(bytes), hint, std::move(done));
    } else {
      transfers_.copy(r, {r, dst, sim::Bytes(bytes), hint, to_string(kind_), std::move(done)});
    }
  }
}

void CollectiveRun::send_done(int c, int r, std::int64_t idx, int dst) {
  lane(c, r).sent[static_cast<std::size_t>(idx)] = true;
  --rank(r).sends_left;
  --rank(dst).recvs_left;
  // The receiver may be waiting to forward exactly this chunk.
  issue(c, dst);
  check_done(r);
  check_done(dst);
}

void CollectiveRun::check_done(int r) {
  r = stand_in(r);
  Rank& me = rank(r);
  if (me.done || !me.joined || me.sends_left > 0 || me.recvs_left > 0) return;
  me.done = true;
  end_ = std::max(end_, engine_.now());
  engine_.schedule_in(sim::Duration::zero(), [this, r] { on_rank_done_(r); });
}

std::string CollectiveRun::blocked_reason(int r) const {
  const Rank& me = rank(r);
  if (me.done) return "";
  for (int c = 0; c < static_cast<int>(rings_.size()); ++c) {
    for (std::int64_t idx = lane(c, r).cursor; idx < order_size_; ++idx) {
      if (send_bytes(c, r, idx) == 0) continue;
      const int w = waits_on(c, r, idx);
      if (w == 0) break;
      const int dst = send_peer(c, r, idx);
      if (w - 1 == dst && !rank(dst).joined)
        return fmt::format("rank {} to reach the {}", dst, to_string(kind_));
      return fmt::format("chunk {} of step {} from rank {}", idx / steps_, idx % steps_ - 1, w - 1);
    }
  }
  for (int q = 0; q < period_; ++q) {
    if (!rank(q).joined)
      return fmt::format("rank {} to reach the {} (it sends to this rank)", q, to_string(kind_));
  }
  return fmt::format("{} sends and {} receives in flight", me.sends_left, me.recvs_left);
}

}  // namespace mgsim::traces
