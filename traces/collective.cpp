#include "traces/collective.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "sim/check.hpp"

namespace mgsim::traces {

CollectiveRun::CollectiveRun(sim::Engine& engine, Transfers& transfers,
                             CollectiveTransport transport, CollectiveKind kind, int ranks,
                             std::int64_t bytes, std::int64_t chunk,
                             std::function<void(int)> on_rank_done)
    : engine_(engine),
      transfers_(transfers),
      kind_(kind),
      n_(ranks),
      bytes_(bytes),
      chunk_(chunk),
      on_rank_done_(std::move(on_rank_done)),
      transport_(transport) {
  MGSIM_CHECK(n_ >= 2 && bytes_ > 0 && chunk_ > 0, "collective of {} ranks, {} bytes, chunk {}", n_,
              bytes_, chunk_);
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
      MGSIM_CHECK(false, "the ideal ring has no {}", to_string(kind_));
  }
  const std::int64_t largest = segment_bytes(0);
  chunks_ = (largest + chunk_ - 1) / chunk_;
  order_size_ = chunks_ * steps_;
  ranks_.resize(static_cast<std::size_t>(n_));
  for (int r = 0; r < n_; ++r) {
    Rank& rank = ranks_[static_cast<std::size_t>(r)];
    rank.sent.assign(static_cast<std::size_t>(order_size_), 0);
    for (std::int64_t idx = 0; idx < order_size_; ++idx) {
      if (send_bytes(r, idx) == 0) continue;
      ++rank.sends_left;
      ++ranks_[static_cast<std::size_t>(send_peer(r, idx))].recvs_left;
    }
    total_sends_ += rank.sends_left;
  }
}

std::int64_t CollectiveRun::segment_bytes(int segment) const {
  return bytes_ / n_ + (segment < bytes_ % n_ ? 1 : 0);
}

int CollectiveRun::send_peer(int r, std::int64_t idx) const {
  if (kind_ == CollectiveKind::all_to_all) return (r + static_cast<int>(idx % steps_) + 1) % n_;
  return (r + 1) % n_;
}

std::int64_t CollectiveRun::send_bytes(int r, std::int64_t idx) const {
  const std::int64_t k = idx / steps_;
  const int s = static_cast<int>(idx % steps_);
  // Ring: the segment rank r holds at step s; all_to_all: the block addressed to the peer.
  const int segment =
      kind_ == CollectiveKind::all_to_all ? send_peer(r, idx) : ((r - s) % n_ + n_) % n_;
  const std::int64_t left = segment_bytes(segment) - k * chunk_;
  return std::clamp<std::int64_t>(left, 0, chunk_);
}

int CollectiveRun::waits_on(int r, std::int64_t idx) const {
  const int dst = send_peer(r, idx);
  if (!ranks_[static_cast<std::size_t>(dst)].joined) return dst + 1;
  if (kind_ == CollectiveKind::all_to_all) return 0;
  const int s = static_cast<int>(idx % steps_);
  if (s == 0) return 0;
  const int up = (r + n_ - 1) % n_;
  // Forward what arrived: the same chunk's previous step, sent by the upstream rank.
  return ranks_[static_cast<std::size_t>(up)].sent[static_cast<std::size_t>(idx - 1)] ? 0 : up + 1;
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
  Rank& rank = ranks_[static_cast<std::size_t>(r)];
  MGSIM_CHECK(!rank.joined, "rank {} joined a collective twice", r);
  rank.joined = true;
  ++joined_;
  // Senders to r may have been waiting for it to post its buffers.
  if (kind_ == CollectiveKind::all_to_all) {
    for (int q = 0; q < n_; ++q) issue(q);
  } else {
    issue((r + n_ - 1) % n_);
  }
  issue(r);
  check_done(r);
}

void CollectiveRun::issue(int r) {
  Rank& rank = ranks_[static_cast<std::size_t>(r)];
  if (!rank.joined) return;
  while (rank.cursor < order_size_) {
    const std::int64_t idx = rank.cursor;
    const std::int64_t bytes = send_bytes(r, idx);
    if (bytes == 0) {
      ++rank.cursor;
      continue;
    }
    if (waits_on(r, idx) != 0) return;
    ++rank.cursor;
    const int dst = send_peer(r, idx);
    const auto hint = static_cast<std::uint64_t>(idx / steps_);
    auto done = [this, r, idx, dst] { send_done(r, idx, dst); };
    if (transport_ == CollectiveTransport::sm_copies) {
      transfers_.sm_copy(r, dst, sim::Bytes(bytes), hint, std::move(done));
    } else {
      transfers_.copy(r, r, dst, sim::Bytes(bytes), hint, to_string(kind_), std::move(done));
    }
  }
}

void CollectiveRun::send_done(int r, std::int64_t idx, int dst) {
  Rank& rank = ranks_[static_cast<std::size_t>(r)];
  rank.sent[static_cast<std::size_t>(idx)] = 1;
  --rank.sends_left;
  --ranks_[static_cast<std::size_t>(dst)].recvs_left;
  // The receiver may be waiting to forward exactly this chunk.
  issue(dst);
  check_done(r);
  check_done(dst);
}

void CollectiveRun::check_done(int r) {
  Rank& rank = ranks_[static_cast<std::size_t>(r)];
  if (rank.done || !rank.joined || rank.sends_left > 0 || rank.recvs_left > 0) return;
  rank.done = true;
  end_ = std::max(end_, engine_.now());
  engine_.schedule_in(sim::Duration::zero(), [this, r] { on_rank_done_(r); });
}

std::string CollectiveRun::blocked_reason(int r) const {
  const Rank& rank = ranks_[static_cast<std::size_t>(r)];
  if (rank.done) return "";
  for (std::int64_t idx = rank.cursor; idx < order_size_; ++idx) {
    if (send_bytes(r, idx) == 0) continue;
    const int w = waits_on(r, idx);
    if (w == 0) break;
    const int dst = send_peer(r, idx);
    if (w - 1 == dst && !ranks_[static_cast<std::size_t>(dst)].joined)
      return fmt::format("rank {} to reach the {}", dst, to_string(kind_));
    return fmt::format("chunk {} of step {} from rank {}", idx / steps_, idx % steps_ - 1, w - 1);
  }
  for (int q = 0; q < n_; ++q) {
    if (!ranks_[static_cast<std::size_t>(q)].joined)
      return fmt::format("rank {} to reach the {} (it sends to this rank)", q, to_string(kind_));
  }
  return fmt::format("{} sends and {} receives in flight", rank.sends_left, rank.recvs_left);
}

}  // namespace mgsim::traces
