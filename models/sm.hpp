// The streaming multiprocessor (SM): how fast it computes and how many CTAs it holds at once.
//
// Models: dense tensor-core throughput per data type in flops per cycle per SM, for the GPU's
// native (asynchronous) MMA instruction and for the warp-level mma.sync, the FP32
// (non-tensor) rate, the clocks those rates run at, the per-SM budgets that decide occupancy
// (CTA slots, threads, registers, shared memory) and the cycle cost of CTA barriers and
// mbarrier round trips.
// Ignores: structured sparsity (rates are dense), warp scheduling and instruction mix inside a
// role, L1 cache behaviour, and register-file bank conflicts. The clocks below are the SMs' at
// their maximum; a power governor (models/power.hpp) lowers both together.
// The ld/st bytes in flight of an SM live in LdStSpec (models/ldst.hpp), with the rest of that
// path.
#pragma once

#include <cstdint>
#include <string_view>

#include "sim/names.hpp"
#include "sim/units.hpp"

namespace mgsim::models {

enum class Dtype { bf16, fp16, fp8, tf32, fp32 };
// The `dtype` names of schedules, in the order error messages list them.
inline constexpr auto kDtypeNames = sim::name_table<Dtype>({{Dtype::bf16, "bf16"},
                                                            {Dtype::fp16, "fp16"},
                                                            {Dtype::fp8, "fp8"},
                                                            {Dtype::tf32, "tf32"},
                                                            {Dtype::fp32, "fp32"}});

// Bytes of one element of `d` (an operand's size in memory).
constexpr std::int64_t element_bytes(Dtype d) {
  switch (d) {
    case Dtype::fp8:
      return 1;
    case Dtype::bf16:
    case Dtype::fp16:
      return 2;
    case Dtype::tf32:
    case Dtype::fp32:
      return 4;
  }
  return 2;
}

// "bf16" -> Dtype::bf16; returns false for an unknown name.
bool parse_dtype(std::string_view text, Dtype& out);
std::string_view to_string(Dtype d);

// The tensor-core instruction a kernel's MMAs are: the GPU's native asynchronous one (Hopper's
// wgmma, operands from shared memory; Blackwell's tcgen05.mma), whose rates are the
// datasheet's, or the warp-level mma.sync (every operand in registers), slower on Hopper.
enum class MmaInstr { native, mma_sync };
inline constexpr auto kMmaInstrNames =
    sim::name_table<MmaInstr>({{MmaInstr::native, "native"}, {MmaInstr::mma_sync, "mma_sync"}});

// What one CTA asks of an SM, for occupancy.
struct CtaResources {
  int threads = 128;                         // threads per CTA
  int registers_per_thread = 32;             // as compiled (ptxas -v)
  sim::Bytes shared_memory = sim::Bytes(0);  // dynamic + static shared memory per CTA
};

// What one CTA takes of an SM while it runs (SmSpec::footprint): what the occupancy limits count.
struct CtaFootprint {
  int threads = 0;                 // whole warps
  int registers = 0;               // whole allocation units per warp
  std::int64_t shared_memory = 0;  // with the per-CTA reservation
};

// What an SM's resident CTAs take together.
struct SmLoad {
  int ctas = 0;
  int threads = 0;
  int registers = 0;
  std::int64_t shared_memory = 0;
};

struct SmSpec {
  int count = 132;  // SMs per GPU
  sim::Frequency clock =
      sim::Frequency::mhz(1980);  // max boost; times cycle-counted costs and FP32
  sim::Frequency tensor_clock = sim::Frequency::mhz(
      1830);  // the tensor pipes' clock with the SMs at `clock` (datasheet peak)
  std::int64_t flops_per_cycle_bf16 = 4096;  // dense tensor-core flops per cycle per SM
  std::int64_t flops_per_cycle_fp16 = 4096;  // dense, FP32 accumulate
  std::int64_t flops_per_cycle_fp8 = 8192;   // dense
  std::int64_t flops_per_cycle_tf32 = 2048;  // dense
  std::int64_t flops_per_cycle_fp32 = 256;   // non-tensor: 128 FP32 lanes x 2 flops per FMA
  // mma.sync's dense rates (the ones above are the native instruction's): bf16 and fp16, fp8
  // (not an instruction on Hopper: unpacked to fp16 MMAs), tf32.
  std::int64_t mma_sync_flops_per_cycle_bf16 = 2678;
  std::int64_t mma_sync_flops_per_cycle_fp8 = 1345;
  std::int64_t mma_sync_flops_per_cycle_tf32 = 1339;
  // Shared memory's read rate per SM (ldmatrix, wgmma's shared-memory operands), and how an
  // MMA's pipe time and its operands' shared-memory time combine: t = (t_pipe^(1/q) +
  // t_smem^(1/q))^q with q = smem_serialisation (towards 0 the slower alone binds, at 1 the two
  // times add).
  std::int64_t smem_bytes_per_cycle = 128;
  double smem_serialisation = 0.333;
  std::int64_t sfu_ops_per_cycle = 16;    // special functions (MUFU: ex2, rcp, rsqrt, sin)
  std::int64_t int32_ops_per_cycle = 64;  // 32-bit integer multiply-adds (IMAD)
  int max_ctas = 32;                      // resident CTA slots per SM
  int max_threads = 2048;                 // resident threads per SM
  int registers = 65536;                  // 32-bit registers per SM
  int register_alloc_unit = 256;          // registers are allocated per warp in units of this
  sim::Bytes shared_memory = sim::Bytes::KiB(228);  // shared memory per SM (carve-out maximum)
  sim::Bytes shared_memory_per_cta = sim::Bytes::KiB(227);  // largest opt-in allocation per CTA
  sim::Bytes shared_memory_reserved = sim::Bytes::KiB(1);   // reserved by the system per CTA
  std::int64_t barrier_cycles = 24;   // __syncthreads / named barrier, all warps arrived
  std::int64_t mbarrier_cycles = 50;  // mbarrier arrive -> waiting warp released
  // CUDA compute capability x 10 (90: Hopper, 100: Blackwell): what libraries such as NCCL key
  // their own tuning tables on (traces/nccl/tuner.cpp).
  int compute_capability = 90;
  // One SM's memory pipe: everything it moves beyond itself (L2 hits, HBM, a peer), TMA and
  // ld/st together, in bytes of loads per second; a stored byte takes store_cost times a loaded
  // byte's share, a store-added byte store_add_cost times (traces/kernel/op_load_store.cpp).
  sim::Bandwidth memory_rate = sim::Bandwidth::GBps(250);
  int store_cost = 4;
  int store_add_cost = 5;

  // Dense flops per cycle per SM for `d` (the native instruction's for a tensor type).
  std::int64_t flops_per_cycle(Dtype d) const;
  // ... issued as `instr` (fp32 is not an MMA: `instr` does not change it).
  std::int64_t flops_per_cycle(Dtype d, MmaInstr instr) const;
  // The clock `d` runs at: tensor_clock for tensor-core types, clock for fp32.
  sim::Frequency clock_for(Dtype d) const;
  // One SM's dense peak in flops per second: flops_per_cycle x clock_for (exact integer); the
  // capacity of its tensor pipe (bf16) and FP32 pipe (fp32) in models::Gpu.
  std::int64_t flops_per_second(Dtype d) const;
  // Whole-GPU dense peak in flops per second: flops_per_second x count (exact integer).
  std::int64_t peak_flops_per_second(Dtype d) const;
  // Resident CTAs per SM for a CTA asking `r`: the smallest of the CTA-slot, thread, register
  // and shared-memory limits, as the CUDA occupancy calculator computes them (registers per
  // warp rounded up to register_alloc_unit; shared memory plus the per-CTA reservation).
  // Returns 0 when one CTA does not fit at all.
  int ctas_per_sm(const CtaResources& r) const;
  // What one CTA of `r` takes of an SM, in the units of the limits above.
  // REQUIRES: ctas_per_sm(r) > 0.
  CtaFootprint footprint(const CtaResources& r) const;
  // Whether an SM already holding `load` has room for one more CTA of footprint `f` (several
  // kernels' CTAs share an SM this way).
  bool fits(const SmLoad& load, const CtaFootprint& f) const;
};

}  // namespace mgsim::models
