#include "models/sm.hpp"

#include <algorithm>

#include "sim/check.hpp"

namespace mgsim::models {
namespace {
constexpr int kWarpSize = 32;
}

bool parse_dtype(std::string_view text, Dtype& out) {
  const std::optional<Dtype> d = kDtypeNames.parse(text);
  if (d) out = *d;
  return d.has_value();
}

std::string_view to_string(Dtype d) { return kDtypeNames.name(d); }

std::int64_t SmSpec::flops_per_cycle(Dtype d, MmaInstr instr) const {
  if (instr == MmaInstr::native || d == Dtype::fp32) return flops_per_cycle(d);
  switch (d) {
    case Dtype::bf16:
    case Dtype::fp16:
      return mma_sync_flops_per_cycle_bf16;
    case Dtype::fp8:
      return mma_sync_flops_per_cycle_fp8;
    case Dtype::tf32:
      return mma_sync_flops_per_cycle_tf32;
    case Dtype::fp32:
      break;
  }
  MGSIM_CHECK(false, "unknown dtype {}", static_cast<int>(d));
}

std::int64_t SmSpec::flops_per_cycle(Dtype d) const {
  switch (d) {
    case Dtype::bf16:
      return flops_per_cycle_bf16;
    case Dtype::fp16:
      return flops_per_cycle_fp16;
    case Dtype::fp8:
      return flops_per_cycle_fp8;
    case Dtype::tf32:
      return flops_per_cycle_tf32;
    case Dtype::fp32:
      return flops_per_cycle_fp32;
  }
  MGSIM_CHECK(false, "unknown dtype {}", static_cast<int>(d));
}

sim::Frequency SmSpec::clock_for(Dtype d) const { return d == Dtype::fp32 ? clock : tensor_clock; }

std::int64_t SmSpec::flops_per_second(Dtype d) const {
  return flops_per_cycle(d) * clock_for(d).hertz();
}

std::int64_t SmSpec::peak_flops_per_second(Dtype d) const { return flops_per_second(d) * count; }

CtaFootprint SmSpec::footprint(const CtaResources& r) const {
  const int warps = (r.threads + kWarpSize - 1) / kWarpSize;
  const int regs_per_warp = (r.registers_per_thread * kWarpSize + register_alloc_unit - 1) /
                            register_alloc_unit * register_alloc_unit;
  return {warps * kWarpSize, regs_per_warp * warps,
          (r.shared_memory + shared_memory_reserved).count()};
}

bool SmSpec::fits(const SmLoad& load, const CtaFootprint& f) const {
  return load.ctas + 1 <= max_ctas && load.threads + f.threads <= max_threads &&
         load.registers + f.registers <= registers &&
         load.shared_memory + f.shared_memory <= shared_memory.count();
}

int SmSpec::ctas_per_sm(const CtaResources& r) const {
  if (r.threads <= 0 || r.registers_per_thread < 0 || r.shared_memory.count() < 0) return 0;
  if (r.threads > max_threads || r.shared_memory > shared_memory_per_cta) return 0;
  const int warps = (r.threads + kWarpSize - 1) / kWarpSize;
  const int by_threads = max_threads / (warps * kWarpSize);

  // Registers are granted per warp, rounded up to whole allocation units.
  const int regs_per_warp = (r.registers_per_thread * kWarpSize + register_alloc_unit - 1) /
                            register_alloc_unit * register_alloc_unit;
  const int by_registers = regs_per_warp == 0 ? max_ctas : (registers / regs_per_warp) / warps;

  const std::int64_t smem_per_cta = (r.shared_memory + shared_memory_reserved).count();
  const std::int64_t by_smem = smem_per_cta == 0 ? max_ctas : shared_memory.count() / smem_per_cta;

  return static_cast<int>(std::min<std::int64_t>(
      {static_cast<std::int64_t>(max_ctas), by_threads, by_registers, by_smem}));
}

}  // namespace mgsim::models
