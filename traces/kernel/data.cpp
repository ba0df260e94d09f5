// What a kernel op reads and writes, for the run's data check (traces/data_check.hpp), told when
// the op starts: a load reads its buffer region on `peer` (default this rank); a store writes
// it (a store `from` a source reads that first, on the source's rank); a multimem store writes the
// region on every rank of the world and a multimem reduce reads it on every rank; mma and mainloop
// read their operands `a` (m x k elements) and `b` (k x n) on `peer` (mainloop) or this rank, and
// count 2 x m x n x k flops for the rank; a multicast load's data, and a mainloop's multicast
// operands, are told as shared within the CTA's cluster (DataCheck::multicast_read: the CTAs that
// share a read must read the same data). Flags and barriers are told by their units (op_signal.cpp,
// op_wait.cpp, op_arrive.cpp, op_sync.cpp).
#include "traces/kernel/ops.hpp"

namespace mgsim::traces::kernel {
namespace {

struct Data {
  Runner& x;
  RoleRun& r;
  const KernelOp& op;
  DataCheck& check;
  DataCheck::Agent agent;
  int rank;

  int peer_of(const std::optional<Expr>& peer) const {
    return peer ? x.check_rank(*peer, r.env) : rank;
  }
  std::int64_t region(const BufferRef& ref) const {
    return ref.region ? ref.region->eval(r.env) : -1;
  }
  void read(int q, const BufferRef& ref, std::int64_t b, const char* kind) const {
    check.read(agent, q, ref.buffer, region(ref), b, op.where, kind);
  }
  void write(int q, const BufferRef& ref, std::int64_t b, const char* kind) const {
    check.write(agent, q, ref.buffer, region(ref), b, op.where, kind);
  }
  std::int64_t bytes(const TransferOp& t, const char* what) const {
    return eval_transfer_bytes(t.bytes, r.env, what);
  }
  // A multimem op's region on every rank of the world.
  template <class Access>
  void everywhere(const TransferOp& t, Access access) const {
    const std::int64_t b = bytes(t, "multimem bytes");
    for (int q = 0; q < x.world; ++q) access(q, b);
  }

  // A read that a multicast of `n` shares among CTAs of this CTA's cluster.
  void shared(std::int64_t n, int q, const BufferRef& ref, std::int64_t b) const {
    if (n == 1 || r.cta->launch->check < 0) return;
    check.multicast_read(r.cta->launch->check, r.cta->index / r.cta->launch->cluster, n, q,
                         ref.buffer, region(ref), b, op.where);
  }
  void operator()(const LoadOp& o) const {
    const std::int64_t b = bytes(o, "load bytes");
    read(peer_of(o.peer), o.data, b, o.kName);
    shared(multicast_factor(r, o.multicast, "multicast"), peer_of(o.peer), o.data, b);
  }
  void operator()(const StoreOp& o) const {
    if (o.via == Via::multimem) {
      everywhere(o, [&](int q, std::int64_t b) { write(q, o.data, b, "multimem store"); });
      return;
    }
    const std::int64_t b = bytes(o, "store bytes");
    if (o.from) read(peer_of(o.from->peer), o.from->data, b, "copy (store from)");
    write(peer_of(o.peer), o.data, b, o.kName);
  }
  void operator()(const ReduceOp& o) const {
    everywhere(o, [&](int q, std::int64_t b) { read(q, o.data, b, "multimem reduce"); });
  }
  // A multicast's operands (share_a, share_b > 1) must be the same on the CTAs that share them.
  void mma(const MmaShape& o, const std::optional<Expr>& peer, const char* kind,
           std::int64_t share_a = 1, std::int64_t share_b = 1) const {
    const std::int64_t m = o.m.eval_positive(r.env, "m");
    const std::int64_t n = o.n.eval_positive(r.env, "n");
    const std::int64_t k = o.k.eval_positive(r.env, "k");
    check.add_flops(rank, mul(o.k, mul(o.n, 2 * m, n), k));
    const std::int64_t e = models::element_bytes(o.dtype);
    const int from = peer_of(peer);
    const std::int64_t a = mul(o.k, mul(o.m, m, e), k), b = mul(o.k, mul(o.n, n, e), k);
    read(from, o.a, a, kind);
    read(from, o.b, b, kind);
    if (o.a.buffer >= 0) shared(share_a, from, o.a, a);
    if (o.b.buffer >= 0) shared(share_b, from, o.b, b);
  }
  void operator()(const MmaOp& o) const { mma(o, std::nullopt, o.kName); }
  void operator()(const MainloopOp& o) const {
    mma(o, o.peer, o.kName, multicast_factor(r, o.multicast_a, "multicast a"),
        multicast_factor(r, o.multicast_b, "multicast b"));
  }
  template <class Other>
  void operator()(const Other&) const {}
};

}  // namespace

void check_data(Runner& x, RoleRun& r, const KernelOp& op) {
  std::visit(Data{x, r, op, *x.check, *r.agent, x.rank_of(r)}, op.what);
}

}  // namespace mgsim::traces::kernel
