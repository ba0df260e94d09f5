// One GPU of a simulation: the one owner of its fluid resources. It creates, names and registers
// (in the run's ResourceCatalog, when there is one) every unit of that GPU; the host copies
// (traces/transfers.hpp) and the kernel runner (traces/kernel_exec.hpp) only ask it for them.
//
// Resources, with their names ("gpu<rank>.<name>") and catalog groups ("gpu<rank>.<group>"):
//   created with the Gpu, in this order:
//     ce<i> (copy_engine)       one per copy engine, copy_engine.bandwidth each
//     hbm (hbm)                 hbm.bandwidth, reads and writes together
//     peer.out, peer.in         the copy engines' NVLink egress and ingress after protocol
//       (peer.out, peer.in)     efficiency: peer_bandwidth(spec, copy_engine)
//   created on first use (a simulation that never needs one never has it):
//     sm<s>.tensor (tensor)     every SM's tensor pipe, all at once by create_sm_pipes():
//                               flops_per_second(bf16) of one SM; amounts are bf16-equivalent flops
//     sm<s>.fp32                one SM's FP32 pipe, flops_per_second(fp32) (not catalogued: the
//                               roofline's compute term is the tensor pipes)
//     sm<s>.sfu, sm<s>.int32    one SM's special-function unit and INT32 pipe, in ops per second
//                               (sfu_ops_per_cycle, int32_ops_per_cycle x the clock; not
//                               catalogued)
//     sm<s>.memory              one SM's memory pipe, sm.memory_rate in loaded bytes (a store
//                               crosses it sm.store_cost times; not catalogued)
//     l2 (l2)                   l2.bandwidth
//     l2.reduce (l2.reduce)     l2.reduction_bandwidth: store-adds' read-modify-writes
//     hbm.write (hbm.write)     hbm.write_bandwidth: what writes to HBM cross besides hbm (the
//                               write side alone is slower than reads and writes together)
//     tma.peer.out/in, ldst.peer.out/in, tma_add.peer.out/in
//                               SM-driven NVLink egress and ingress per path: peer_bandwidth(spec,
//                               tma | ldst | tma_reduce)
// Resource ids follow creation order, and ids and names feed the solver's tie-breaks and the
// trace: the order above is part of every result. The SM pipes' trace counters are GFLOP/s.
// A GPU without NVLink (nvlink.links == 0) has no peer ports: its peer traffic is bounded by the
// topology's links alone.
//
// Thread-safety: none; one Gpu per rank per simulation, like the FluidNetwork it adds to.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "models/hardware_spec.hpp"
#include "models/power.hpp"
#include "models/resource_catalog.hpp"
#include "sim/fluid.hpp"
#include "sim/units.hpp"

namespace mgsim::models {

enum class PortDirection : std::uint8_t { out, in };

class Gpu {
 public:
  // Creates the copy engines, HBM and the copy engines' peer ports. `spec` and `net` (and
  // `catalog`, when given) must outlive the Gpu. REQUIRES: rank >= 0, copy_engine.count > 0.
  Gpu(int rank, const HardwareSpec& spec, sim::FluidNetwork& net, ResourceCatalog* catalog);

  int rank() const { return rank_; }
  const HardwareSpec& spec() const { return *spec_; }

  std::span<const sim::ResourceId> copy_engines() const { return copy_engines_; }
  sim::ResourceId hbm() const { return hbm_; }
  // The NVLink port of `path` in direction `dir`; nullopt without NVLink.
  std::optional<sim::ResourceId> peer_port(PeerPath path, PortDirection dir);

  // Creates every SM's tensor pipe (idempotent): the kernel runner calls it when a launch is
  // placed, so pipes exist from a GPU's first kernel on.
  void create_sm_pipes();
  // The pipe an op of `d` runs on in SM `sm`: fp32 on the FP32 pipe, the rest on the tensor pipe.
  // REQUIRES: create_sm_pipes() was called; 0 <= sm < spec().sm.count.
  sim::ResourceId pipe(int sm, Dtype d) {
    const auto i = static_cast<std::size_t>(sm);
    if (d != Dtype::fp32) return tensor_[i];
    return fp32_[i] ? *fp32_[i] : create_fp32_pipe(sm);
  }
  // SM `sm`'s special-function unit (sm.sfu_ops_per_cycle x the clock, in ops) and INT32 pipe
  // (sm.int32_ops_per_cycle), each on first use; not catalogued (the roofline's compute term is
  // the tensor pipes). REQUIRES: create_sm_pipes() was called; 0 <= sm < spec().sm.count.
  enum class Pipe { sfu, int32 };
  sim::ResourceId pipe(int sm, Pipe p) {
    auto& id = (p == Pipe::sfu ? sfu_ : int32_)[static_cast<std::size_t>(sm)];
    return id ? *id : create_op_pipe(sm, p);
  }

  // `flops` of `d` issued as `instr` in the units of its pipe: bf16-equivalent flops of the
  // native instruction (flops x native bf16 rate / the rate of d as instr, rounded up) on the
  // tensor pipe, so an instruction or type that is slower holds the pipe longer; flops on the
  // FP32 pipe. The pipe's capacity runs at sm.tensor_clock (the native instruction's rate, with
  // the issue efficiency of the GEMMs it is fitted to); mma.sync's rates are per SM cycle
  // (measured with clock64), so its amount is also scaled by tensor_clock / sm.clock.
  sim::Bytes pipe_amount(std::int64_t flops, Dtype d, MmaInstr instr = MmaInstr::native) const {
    if (d == Dtype::fp32) return sim::Bytes(flops);
    const SmSpec& sm = spec_->sm;
    sim::Int128 scaled = static_cast<sim::Int128>(flops) * sm.flops_per_cycle_bf16;
    sim::Int128 rate = sm.flops_per_cycle(d, instr);
    if (instr == MmaInstr::mma_sync) {
      scaled *= sm.tensor_clock.hertz();
      rate *= sm.clock.hertz();
    }
    return sim::Bytes(static_cast<std::int64_t>((scaled + rate - 1) / rate));
  }

  // The tensor-pipe amount of an MMA whose operands read `smem_bytes` from shared memory on the
  // way (ldmatrix, or wgmma's shared-memory descriptors): the pipe amount p = pipe_amount(flops,
  // d, instr) and the shared-memory time in the same units, s = smem_bytes x the pipe's rate /
  // shared memory's rate (sm.smem_bytes_per_cycle at sm.clock), rounded up after combining:
  //  - mma_sync: (p^(1/q) + s^(1/q))^q, q = sm.smem_serialisation. A warp's ldmatrix and MMA
  //    instructions take turns in its one instruction stream, and overlap imperfectly
  //    (tensor_pipes_run17.csv);
  //  - native (wgmma): max(p, s). The warp group's MMA reads its operands from shared memory
  //    itself, asynchronously: wgmma from shared memory at 62 % of shared memory's rate runs at
  //    99.8 % of the pipe's (tensor_pipes.csv).
  // Both rates follow the SM clock, so the combination holds at any clock. smem_bytes == 0 gives
  // pipe_amount exactly.
  // REQUIRES: d is a tensor type (not fp32); smem_bytes >= 0.
  sim::Bytes mma_amount(std::int64_t flops, Dtype d, MmaInstr instr, std::int64_t smem_bytes) const;

  // SM `sm`'s memory pipe (all its loads and stores, TMA and ld/st, sm.memory_rate), on first
  // use.
  // REQUIRES: create_sm_pipes() was called; 0 <= sm < spec().sm.count.
  sim::ResourceId memory_pipe(int sm) {
    auto& id = memory_[static_cast<std::size_t>(sm)];
    return id ? *id : create_memory_pipe(sm);
  }

  // Communication warps on SM `sm` (ld/st or TMA) take shares of its math pipes while they move
  // data (ldst.warp_share_*, tma.warp_share_*): `delta` = +1 when one starts, -1 when it ends.
  // The tensor and FP32 pipes run at (1 - the shares held) of their peak, at least
  // kMinMathShare of it; with none held, at their peak exactly.
  // REQUIRES: create_sm_pipes() was called; 0 <= sm < spec().sm.count; counts stay >= 0.
  enum class CommWarp { ldst, tma };
  void add_comm_warp(int sm, CommWarp kind, int delta);
  static constexpr double kMinMathShare = 0.01;

  // The SM clock as a fraction of sm.clock (1 unless a power governor lowered it): it scales
  // every tensor and FP32 pipe's capacity and the cycle-counted costs of ops started after it.
  // REQUIRES: 0 < scale <= 1.
  void set_clock_scale(double scale);
  double clock_scale() const { return clock_scale_; }
  // sm.clock x clock_scale(): what cycle-counted costs run at now.
  sim::Frequency sm_clock() const;
  // Tensor-pipe work carried so far over all SMs (bf16-equivalent flops), and HBM bytes.
  double tensor_flops_carried();
  std::int64_t hbm_bytes_carried();

  // The power governor of this GPU, if its hardware has a power limit and the run did not lock
  // the clock; kernels starting and ending on the GPU are told to it.
  void set_governor(PowerGovernor* g) { governor_ = g; }
  void kernel_started() {
    if (governor_) governor_->kernel_started();
  }
  void kernel_ended() {
    if (governor_) governor_->kernel_ended();
  }

  sim::ResourceId l2() { return l2_ ? *l2_ : create_l2(); }
  // Where a store-add's read-modify-write happens: this GPU's L2 as the destination.
  sim::ResourceId l2_reduce();
  // What a write to this GPU's HBM crosses besides hbm(): the write side's own limit.
  sim::ResourceId hbm_write();

 private:
  sim::ResourceId create_fp32_pipe(int sm);
  sim::ResourceId create_op_pipe(int sm, Pipe p);
  // The capacity of an SFU or INT32 pipe at the current clock.
  sim::Bandwidth op_capacity(Pipe p) const;
  // The capacity of SM `sm`'s pipe for `d` with its communication warps' shares taken.
  sim::Bandwidth math_capacity(int sm, Dtype d) const;
  sim::ResourceId create_memory_pipe(int sm);
  sim::ResourceId create_l2();
  sim::ResourceId add(std::string_view unit, sim::Bandwidth capacity);
  // `group` is the unit's name within the GPU ("tensor"); the catalog's is gpu_group(rank, group).
  sim::ResourceId add(std::string_view unit, sim::Bandwidth capacity, UnitKind kind,
                      std::string_view group);
  sim::ResourceId add_to_group(std::string_view unit, sim::Bandwidth capacity, UnitKind kind,
                               const std::string& catalog_group);

  int rank_;
  const HardwareSpec* spec_;
  double clock_scale_ = 1.0;
  PowerGovernor* governor_ = nullptr;
  sim::FluidNetwork* net_;
  ResourceCatalog* catalog_;
  std::vector<sim::ResourceId> copy_engines_;
  sim::ResourceId hbm_;
  std::vector<sim::ResourceId> tensor_;               // per SM, empty until create_sm_pipes()
  std::vector<std::optional<sim::ResourceId>> fp32_;  // per SM, each on first use
  std::vector<std::optional<sim::ResourceId>> sfu_, int32_;  // per SM, each on first use
  std::vector<std::optional<sim::ResourceId>> memory_;       // per SM, each on first use
  // Communication warps running per SM, by CommWarp.
  std::vector<std::array<int, 2>> comm_warps_;
  std::optional<sim::ResourceId> l2_, l2_reduce_, hbm_write_;
  // By PeerPath (copy_engine, tma, ldst, tma_reduce) and PortDirection.
  std::array<std::array<std::optional<sim::ResourceId>, 2>, 4> peer_;
};

}  // namespace mgsim::models
