// A compute-bound FMA loop with a known flop count and a result the host can recompute bit for
// bit, shared by sm_share.cu and intra_sm.cu.
//
// Each thread runs kChains independent chains x <- fma(x, a, b) for `iters` steps (kChains FMAs
// in flight per thread, enough to fill the FP32 pipes with 8 warps per SM), then adds the chains
// in order. flops = 2 * kChains * iters per thread.
#pragma once

#include <cmath>

#include "common.cuh"

namespace mgbench {

constexpr int kChains = 8;
constexpr float kFmaA = 0.999999f;
constexpr float kFmaB = 1e-6f;

__host__ __device__ inline float fma_start(int c) { return 1.0f + 0.125f * float(c); }

__device__ inline float fma_loop(int iters) {
  float x[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) x[c] = fma_start(c);
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) x[c] = __fmaf_rn(x[c], kFmaA, kFmaB);
  }
  float s = 0;
#pragma unroll
  for (int c = 0; c < kChains; ++c) s += x[c];
  return s;
}

// The same computation on the host (std::fma rounds once, as __fmaf_rn does).
inline float fma_loop_host(int iters) {
  float x[kChains];
  for (int c = 0; c < kChains; ++c) x[c] = fma_start(c);
  for (int i = 0; i < iters; ++i)
    for (int c = 0; c < kChains; ++c) x[c] = std::fma(x[c], kFmaA, kFmaB);
  float s = 0;
  for (int c = 0; c < kChains; ++c) s += x[c];
  return s;
}

__device__ inline unsigned sm_id() {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

}  // namespace mgbench
