// Data-movement kernels shared by the HBM, L2, peer and interference measurements.
//
// SM count control: the ld/st kernels are launched with kExclusiveSmem bytes of dynamic shared
// memory, more than half of an SM's 228 KB, so no two CTAs fit on one SM and a grid of n CTAs
// runs on exactly n SMs. Each CTA has 1024 threads (the most a CTA may have), and each thread keeps
// UNROLL 16-byte accesses in flight, so one SM has 1024 * UNROLL * 16 B outstanding: enough to
// cover HBM and NVLink latency at the per-SM bandwidth.
//
// The TMA kernel moves data through shared memory with bulk copies (cp.async.bulk, plain sm_90):
// one thread per CTA issues everything, as a real producer warp would; its smem stages (6 x 32 KiB)
// also make it one CTA per SM.
#pragma once

#include <cstdint>

#include "common.cuh"

namespace mgbench {

// Repeats of the peer-transfer sweeps (peer_sm.cu, peer_reduce.cu): the defaults, 100 ms budget.
inline RepeatOpts peer_repeat_opts() {
  RepeatOpts o;
  o.budget_ms = 100;
  return o;
}

constexpr int kThreads = 1024;
constexpr size_t kExclusiveSmem = 160 * KiB;
constexpr int kUnroll = 4;

// Lets `kernel` take kExclusiveSmem (or `bytes`) of dynamic shared memory on the current device.
template <class Kernel>
void allow_dynamic_smem(Kernel kernel, size_t bytes = kExclusiveSmem) {
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
}

// %globaltimer: the GPU's nanosecond clock (each GPU has its own; l2_contention.cu measures the
// offset between two).
__device__ inline unsigned long long globaltimer_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// One thread block spinning for `ns` of %globaltimer: enqueued first, it keeps the stream busy
// while the host enqueues what is timed behind it (small_kernel.cu, event_gap.cu).
__global__ void spin_ns_kernel(unsigned long long ns) {
  const unsigned long long t0 = globaltimer_ns();
  while (globaltimer_ns() - t0 < ns) {
  }
}

// A fence by scope, as the fence-timing loops issue it (sync_prims.cu, sm_groups.cu): 0 none,
// 1 __threadfence_block (cta), 2 __threadfence (gpu), 3 __threadfence_system (system).
__device__ inline void fence_by_scope(int scope) {
  if (scope == 1)
    __threadfence_block();
  else if (scope == 2)
    __threadfence();
  else if (scope == 3)
    __threadfence_system();
}

// A kernel's span over all its CTAs, for kernels that take an optional `span` array (null: not
// recorded): [0] the earliest CTA start (atomicMin; set it to ~0 first), [1] the latest CTA end
// (atomicMax; set it to 0 first), in globaltimer_ns of the kernel's GPU. One thread per CTA calls.
__device__ inline void stamp_start(unsigned long long* span) {
  if (span) atomicMin(&span[0], globaltimer_ns());
}
__device__ inline void stamp_end(unsigned long long* span) {
  if (span) atomicMax(&span[1], globaltimer_ns());
}

// Reads 16-byte words with L1-bypassing loads (ld.global.cg) and adds every 32-bit word into
// *sum, so the read cannot be optimised away and its result can be checked (pattern_sum).
// Virtual index v < total reads word v mod n: with total == n it is one plain pass, with
// total == k * n it re-reads a working set of n words k times in one launch (the L2 measurement).
// The modulo is carried incrementally (one division per thread), keeping the loop to adds.
// The body of read_kernel, shared with l2_contention.cu's timed reader.
__device__ __forceinline__ void read_words(const uint4* __restrict__ p, size_t n, size_t total,
                                           uint32_t* sum) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  const size_t step = stride % n;
  size_t v = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  size_t idx = v % n;
  auto advance = [&](size_t i) {
    i += step;
    return i >= n ? i - n : i;
  };
  uint32_t acc = 0;
  for (; v + (kUnroll - 1) * stride < total; v += kUnroll * stride) {
    uint4 x[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      x[u] = __ldcg(p + idx);
      idx = advance(idx);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) acc += x[u].x + x[u].y + x[u].z + x[u].w;
  }
  for (; v < total; v += stride) {
    uint4 x = __ldcg(p + idx);
    idx = advance(idx);
    acc += x.x + x.y + x.z + x.w;
  }
  acc = __reduce_add_sync(0xffffffffu, acc);
  if ((threadIdx.x & 31) == 0) atomicAdd(sum, acc);
}

__global__ void __launch_bounds__(kThreads)
    read_kernel(const uint4* __restrict__ p, size_t n, size_t total, uint32_t* sum) {
  read_words(p, n, total, sum);
}

// Writes the pattern (seed) into n 16-byte words.
__global__ void __launch_bounds__(kThreads)
    write_kernel(uint4* __restrict__ p, size_t n, uint32_t seed) {
  size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += stride) {
    size_t w = 4 * i;
    p[i] = make_uint4(pattern_word(w, seed), pattern_word(w + 1, seed), pattern_word(w + 2, seed),
                      pattern_word(w + 3, seed));
  }
}

// dst[i] = src[i] for n 16-byte words, `repeats` times over (a persistent transfer that keeps its
// SMs for the whole run); either pointer may be peer memory (a put writes the peer, a get reads
// it). All loads of an unrolled group are issued before any store.
__global__ void __launch_bounds__(kThreads)
    copy_kernel(const uint4* __restrict__ src, uint4* __restrict__ dst, size_t n, int repeats) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (int r = 0; r < repeats; ++r) {
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    for (; i + (kUnroll - 1) * stride < n; i += kUnroll * stride) {
      uint4 x[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) x[u] = __ldcg(src + i + u * stride);
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) dst[i + u * stride] = x[u];
    }
    for (; i < n; i += stride) dst[i] = __ldcg(src + i);
  }
}

// Launches copy_kernel on `sms` SMs (one CTA each).
inline void launch_ldst_copy(const void* src, void* dst, size_t bytes, int sms, cudaStream_t s,
                             int repeats = 1) {
  copy_kernel<<<sms, kThreads, kExclusiveSmem, s>>>(static_cast<const uint4*>(src),
                                                    static_cast<uint4*>(dst), bytes / 16, repeats);
}

// ---------------------------------------------------------------------------------------------
// TMA (bulk async copy) through shared memory.
constexpr int kTmaStages = 6;
constexpr uint32_t kTmaChunk = 32 * 1024;
constexpr size_t kTmaSmem = size_t(kTmaStages) * kTmaChunk;

__device__ inline uint32_t smem_addr(const void* p) {
  return uint32_t(__cvta_generic_to_shared(p));
}

__device__ inline void mbar_init(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count)
               : "memory");
}

// Arms the barrier for `bytes` of incoming bulk-copy data and arrives once.
__device__ inline void mbar_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)),
               "r"(bytes)
               : "memory");
}

__device__ inline void mbar_wait(uint64_t* bar, uint32_t parity) {
  uint32_t done = 0;
  while (!done) {
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, "
        "1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(smem_addr(bar)), "r"(parity)
        : "memory");
  }
}

// global -> shared, completing on `bar` (complete_tx).
__device__ inline void bulk_load(void* smem_dst, const void* gmem_src, uint32_t bytes,
                                 uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::
          "r"(smem_addr(smem_dst)),
      "l"(__cvta_generic_to_global(gmem_src)), "r"(bytes), "r"(smem_addr(bar))
      : "memory");
}

// shared -> global, tracked by the bulk async-group of the issuing thread.
__device__ inline void bulk_store(void* gmem_dst, const void* smem_src, uint32_t bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(
                   __cvta_generic_to_global(gmem_dst)),
               "r"(smem_addr(smem_src)), "r"(bytes)
               : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

// Waits until at most N committed bulk groups are still reading shared memory.
template <int N>
__device__ inline void bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}
__device__ inline void bulk_wait_all() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }

// Copies `bytes` (a multiple of 16) from src to dst in chunks of up to kTmaChunk, `repeats` times
// over; chunk c goes to CTA c % gridDim.x. Per CTA a ring of kTmaStages buffers: kTmaStages-1
// loads are in flight while the store of the oldest buffer drains. One thread does all the work.
__global__ void tma_copy_kernel(const char* __restrict__ src, char* __restrict__ dst, size_t bytes,
                                int repeats) {
  extern __shared__ __align__(128) unsigned char stage_buf[];
  __shared__ __align__(8) uint64_t bar[kTmaStages];
  if (threadIdx.x != 0) return;

  const size_t n_chunks = (bytes + kTmaChunk - 1) / kTmaChunk;
  const size_t per_pass =
      blockIdx.x < n_chunks ? (n_chunks - blockIdx.x + gridDim.x - 1) / gridDim.x : 0;
  const size_t my_n = per_pass * size_t(repeats);  // this CTA's chunk sequence over all passes
  if (my_n == 0) return;
  for (int s = 0; s < kTmaStages; ++s) mbar_init(&bar[s], 1);
  // Make the initialised barriers visible to the async proxy (the bulk-copy unit).
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");

  auto offset = [&](size_t j) {
    return (blockIdx.x + (j % per_pass) * gridDim.x) * size_t(kTmaChunk);
  };
  auto length = [&](size_t j) { return uint32_t(min(size_t(kTmaChunk), bytes - offset(j))); };
  auto load = [&](size_t j) {
    int s = int(j % kTmaStages);
    mbar_expect_tx(&bar[s], length(j));
    bulk_load(stage_buf + s * size_t(kTmaChunk), src + offset(j), length(j), &bar[s]);
  };

  for (size_t j = 0; j < my_n && j < kTmaStages - 1; ++j) load(j);
  for (size_t i = 0; i < my_n; ++i) {
    int s = int(i % kTmaStages);
    mbar_wait(&bar[s], uint32_t((i / kTmaStages) & 1));
    bulk_store(dst + offset(i), stage_buf + s * size_t(kTmaChunk), length(i));
    size_t j = i + kTmaStages - 1;  // goes into the buffer the store of chunk i-1 used
    if (j < my_n) {
      bulk_wait_read<1>();  // all stores but chunk i's have finished reading their buffers
      load(j);
    }
  }
  bulk_wait_all();  // stores complete before the CTA exits
}

inline void launch_tma_copy(const void* src, void* dst, size_t bytes, int sms, cudaStream_t s,
                            int repeats = 1) {
  // One warp per CTA: only lane 0 issues, the rest exit at once.
  tma_copy_kernel<<<sms, 32, kTmaSmem, s>>>(static_cast<const char*>(src), static_cast<char*>(dst),
                                            bytes, repeats);
}

// Call once per device before launching the kernels above.
inline void setup_copy_kernels() {
  allow_dynamic_smem(read_kernel);
  allow_dynamic_smem(write_kernel);
  allow_dynamic_smem(copy_kernel);
  allow_dynamic_smem(tma_copy_kernel, kTmaSmem);
}

}  // namespace mgbench
