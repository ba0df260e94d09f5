// The flag protocol of flag.cu (flag.csv, put_signal.csv), shared with sync_prims.cu's
// put_signal_local (the same kernel with both sides on one GPU): flag stores and polls by
// synchronisation variant, a bounded spin, the one-thread ping-pong and the put-then-signal kernel.
#pragma once

#include "kernels.cuh"

namespace mgbench::flagproto {

constexpr uint64_t kTimeoutNs = 5'000'000'000ull;

__device__ inline uint64_t now_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

enum Sync : int { kVolatile = 0, kReleaseAcquire = 1, kAtomic = 2 };
inline const char* sync_name(int s) {
  return s == kVolatile ? "volatile" : s == kReleaseAcquire ? "release_acquire" : "atomic";
}

__device__ inline void flag_store(unsigned* p, unsigned v, int sync) {
  if (sync == kVolatile) {
    *reinterpret_cast<volatile unsigned*>(p) = v;
  } else if (sync == kReleaseAcquire) {
    asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
  } else {
    atomicExch_system(p, v);
  }
}

__device__ inline unsigned flag_load(const unsigned* p, int sync) {
  if (sync == kVolatile) return *reinterpret_cast<const volatile unsigned*>(p);
  unsigned v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Spins until *p >= want; returns false after kTimeoutNs.
__device__ inline bool wait_at_least(const unsigned* p, unsigned want, int sync) {
  uint64_t t0 = now_ns();
  for (unsigned n = 0;; ++n) {
    if (flag_load(p, sync) >= want) return true;
    if ((n & 1023) == 1023 && now_ns() - t0 > kTimeoutNs) return false;
  }
}

struct Side {
  unsigned* poll;   // this side waits on it
  unsigned* write;  // this side writes the other side's flag
  int initiator;
};

struct PingResult {
  unsigned long long elapsed_ns;
  int failed;
};

// One thread per side; CTA b plays sides[b] (a cross-GPU launch has one CTA, same_gpu has two).
__global__ void pingpong_kernel(Side s0, Side s1, int iters, int warmup, int sync,
                                PingResult* res) {
  if (threadIdx.x != 0) return;
  Side s = blockIdx.x == 0 ? s0 : s1;
  uint64_t t0 = 0;
  for (int i = 1; i <= warmup + iters; ++i) {
    if (s.initiator && i == warmup + 1) t0 = now_ns();
    if (s.initiator) flag_store(s.write, unsigned(i), sync);
    if (!wait_at_least(s.poll, unsigned(i), sync)) {
      res->failed = 1;
      return;
    }
    if (!s.initiator) flag_store(s.write, unsigned(i), sync);
  }
  if (s.initiator) res->elapsed_ns = now_ns() - t0;
}

// put-then-signal ping-pong; every CTA of both kernels runs this. `out` is the peer's receive
// buffer, `in_counter` this GPU's counter, `out_counter` the peer's.
__global__ void __launch_bounds__(kThreads)
    put_signal_kernel(const uint4* __restrict__ src, uint4* out, size_t n16, unsigned* in_counter,
                      unsigned* out_counter, int iters, int warmup, int initiator,
                      PingResult* res) {
  __shared__ int failed;
  const unsigned ctas = gridDim.x;
  // This CTA's slice of the message.
  const size_t lo = n16 * blockIdx.x / ctas, hi = n16 * (blockIdx.x + 1) / ctas;
  uint64_t t0 = 0;
  if (threadIdx.x == 0) failed = 0;
  __syncthreads();
  for (int i = 1; i <= warmup + iters; ++i) {
    if (initiator && i == warmup + 1 && blockIdx.x == 0 && threadIdx.x == 0) t0 = now_ns();
    if (!initiator) {
      if (threadIdx.x == 0 && !wait_at_least(in_counter, unsigned(i) * ctas, kReleaseAcquire))
        failed = 1;
      __syncthreads();
      if (failed) break;
    }
    for (size_t j = lo + threadIdx.x; j < hi; j += blockDim.x) out[j] = src[j];
    __threadfence_system();  // each thread's stores are visible system-wide before the signal
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd_system(out_counter, 1u);
    if (initiator) {
      if (threadIdx.x == 0 && !wait_at_least(in_counter, unsigned(i) * ctas, kReleaseAcquire))
        failed = 1;
      __syncthreads();
      if (failed) break;
    }
  }
  if (threadIdx.x == 0 && failed) res->failed = 1;
  if (initiator && blockIdx.x == 0 && threadIdx.x == 0) res->elapsed_ns = now_ns() - t0;
}

}  // namespace mgbench::flagproto
