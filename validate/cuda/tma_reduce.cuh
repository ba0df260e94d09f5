// TMA bulk store and bulk reduce-add (store-add) kernels, shared by peer_reduce.cu (their rates,
// peer_tma_reduce.csv) and l2_contention.cu (their effect on the receiving GPU's L2 reads).
//
// One CTA per SM (kTmaRingBytes of shared memory each); thread 0 issues every op.
//   op       store     cp.async.bulk.global.shared::cta.bulk_group
//            add_bf16  cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.bf16
//            add_f32   cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32
//   source   hbm: each message is first bulk-loaded from the issuing GPU's memory into a ring of
//            shared-memory stages (mbarrier completion), then stored or reduced out.
//            smem: one message-sized tile written once into shared memory is sent again and
//            again, as a GEMM epilogue sends tiles it computed: no read at the source. The issuing
//            thread never waits between ops; the bulk-copy unit's queue limits how many are in
//            flight.
//
// Test values are small integers, so old + added is exact in bf16 and f32 and a shifted or
// dropped message shows: the destination starts at dst_value(i), the source holds src_value(i)
// (hbm) or src_value(i mod the message's elements) (smem), and afterwards every element must equal
// old + added (add ops) or the source (store), bit for bit.
#pragma once

#include <cuda_bf16.h>

#include <type_traits>

#include "kernels.cuh"

namespace mgbench {

enum class TmaOp { kStore, kAddBf16, kAddF32 };
enum class TmaSource { kHbm, kSmem };

inline const char* op_name(TmaOp op) {
  return op == TmaOp::kStore ? "store" : op == TmaOp::kAddBf16 ? "add_bf16" : "add_f32";
}

// Shared memory per CTA: the hbm source's ring (as peer_tma.csv's kTmaSmem), and more than half an
// SM's, so one CTA per SM whatever the message size.
constexpr uint32_t kTmaRingBytes = 192 * 1024;
constexpr uint32_t kTmaMinMessage = 4 * 1024;
constexpr uint32_t kTmaMaxMessage = 64 * 1024;  // a 128 x 256 bf16 tile
constexpr int kTmaMaxStages = int(kTmaRingBytes / kTmaMinMessage);
constexpr int kTmaReduceBlock = 256;  // threads; thread 0 issues, the rest help write smem tiles

// Test values: small integers, so every sum of one of each is exact in bf16 (8-bit significand:
// integers up to 256) and f32, and neighbours differ (a shifted or dropped message shows).
__host__ __device__ inline float src_value(size_t i) { return float(int(i % 61) - 30); }
__host__ __device__ inline float dst_value(size_t i) { return float(int(i % 67) - 33); }

// Element type of an op's data: bf16 for add_bf16, 32-bit float for add_f32 and store.
template <TmaOp kOp>
using Elem = std::conditional_t<kOp == TmaOp::kAddBf16, __nv_bfloat16, float>;

template <class T>
__host__ __device__ inline T to_elem(float v) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __float2bfloat16(v);
  } else {
    return v;
  }
}

template <class T>
__device__ inline uint32_t bits(T v) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __bfloat16_as_ushort(v);
  } else {
    return __float_as_uint(v);
  }
}

// shared -> global by the op, tracked by the issuing thread's bulk async-group.
template <TmaOp kOp>
__device__ inline void bulk_out(char* gmem_dst, const void* smem_src, uint32_t bytes) {
  const uint64_t g = __cvta_generic_to_global(gmem_dst);
  const uint32_t s = smem_addr(smem_src);
  if constexpr (kOp == TmaOp::kStore) {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(g), "r"(s),
                 "r"(bytes)
                 : "memory");
  } else if constexpr (kOp == TmaOp::kAddBf16) {
    asm volatile(
        "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.bf16 [%0], [%1], %2;" ::"l"(
            g),
        "r"(s), "r"(bytes)
        : "memory");
  } else {
    asm volatile(
        "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], %2;" ::"l"(g),
        "r"(s), "r"(bytes)
        : "memory");
  }
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

// Sends `bytes` (REQUIRES: a multiple of msg; msg a multiple of 16, kTmaMinMessage..
// kTmaMaxMessage) to dst by the op, in messages of msg bytes; message j goes to CTA j % gridDim.x.
// `stages` = kTmaRingBytes / msg.
// `passes` (smem source only; REQUIRES: odd, and 1 for the hbm source) sends the whole buffer that
// many times, pass p from a tile of (-1)^p * src_value: the adds of two passes cancel, so the
// destination ends as after one pass and every partial sum stays a small exact integer.
// `span` (may be null; on the issuing GPU): [0] atomicMin of the CTAs' start, [1] atomicMax of
// their end (after their ops completed), in %globaltimer nanoseconds.
template <TmaOp kOp>
__global__ void __launch_bounds__(kTmaReduceBlock)
    tma_reduce_kernel(const char* __restrict__ src, char* __restrict__ dst, size_t bytes,
                      uint32_t msg, int stages, TmaSource source, int passes,
                      unsigned long long* span) {
  extern __shared__ __align__(128) unsigned char ring[];
  __shared__ __align__(8) uint64_t bar[kTmaMaxStages];
  if (threadIdx.x == 0) stamp_start(span);
  const size_t n_msgs = bytes / msg;
  const size_t my_n = blockIdx.x < n_msgs ? (n_msgs - blockIdx.x + gridDim.x - 1) / gridDim.x : 0;
  auto offset = [&](size_t j) { return (blockIdx.x + j * gridDim.x) * size_t(msg); };

  if (source == TmaSource::kSmem) {
    using T = Elem<kOp>;
    T* tile = reinterpret_cast<T*>(ring);
    T* neg_tile = reinterpret_cast<T*>(ring + msg);  // used only when passes > 1
    for (uint32_t e = threadIdx.x; e < msg / sizeof(T); e += blockDim.x) {
      tile[e] = to_elem<T>(src_value(e));
      if (passes > 1) neg_tile[e] = to_elem<T>(-src_value(e));
    }
    // Ordinary stores that the bulk-copy unit (the async proxy) reads next need this fence.
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x != 0) return;
    for (int p = 0; p < passes; ++p) {
      const T* t = (p & 1) ? neg_tile : tile;
      for (size_t i = 0; i < my_n; ++i) bulk_out<kOp>(dst + offset(i), t, msg);
    }
    bulk_wait_all();  // ops complete before the CTA exits
    stamp_end(span);
    return;
  }

  if (threadIdx.x != 0) return;
  if (my_n == 0) {
    stamp_end(span);
    return;
  }
  for (int s = 0; s < stages; ++s) mbar_init(&bar[s], 1);
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  auto buf = [&](size_t j) { return ring + (j % stages) * size_t(msg); };
  auto load = [&](size_t j) {
    int s = int(j % stages);
    mbar_expect_tx(&bar[s], msg);
    bulk_load(buf(j), src + offset(j), msg, &bar[s]);
  };
  for (size_t j = 0; j < my_n && j < size_t(stages - 1); ++j) load(j);
  for (size_t i = 0; i < my_n; ++i) {
    mbar_wait(&bar[i % stages], uint32_t((i / stages) & 1));
    bulk_out<kOp>(dst + offset(i), buf(i), msg);
    size_t j = i + stages - 1;  // goes into the buffer the op of message i-1 read
    if (j < my_n) {
      bulk_wait_read<1>();  // every op but message i's has finished reading its buffer
      load(j);
    }
  }
  bulk_wait_all();
  stamp_end(span);
}

template <class T>
__global__ void fill_values_kernel(T* p, size_t n, bool is_src) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    p[i] = to_elem<T>(is_src ? src_value(i) : dst_value(i));
}

// Counts elements that differ from (add ? dst_value(i) : 0) + src_value(i % period), bit for bit.
template <class T>
__global__ void check_values_kernel(const T* p, size_t n, bool add, size_t period,
                                    unsigned long long* bad) {
  unsigned long long local = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    float want = (add ? dst_value(i) : 0.0f) + src_value(i % period);
    local += bits(p[i]) != bits(to_elem<T>(want));
  }
  if (local) atomicAdd(bad, local);
}

// Sets `bytes` at p (on `device`) to src_value(i) (is_src) or dst_value(i) in the op's type.
template <TmaOp kOp>
void fill_values(int device, void* p, size_t bytes, bool is_src) {
  using T = Elem<kOp>;
  DeviceScope ds(device);
  fill_values_kernel<T><<<1024, 256>>>(static_cast<T*>(p), bytes / sizeof(T), is_src);
  LAUNCH_CHECK();
  CUDA_CHECK(cudaDeviceSynchronize());
}

// Elements of the destination that do not hold what one pass of the op leaves (see above).
template <TmaOp kOp>
unsigned long long count_wrong(int device, const void* p, size_t bytes, uint32_t msg,
                               TmaSource source) {
  using T = Elem<kOp>;
  DeviceScope ds(device);
  const size_t n = bytes / sizeof(T);
  unsigned long long* bad;
  CUDA_CHECK(cudaMalloc(&bad, sizeof *bad));
  CUDA_CHECK(cudaMemset(bad, 0, sizeof *bad));
  check_values_kernel<T><<<1024, 256>>>(static_cast<const T*>(p), n, kOp != TmaOp::kStore,
                                        source == TmaSource::kSmem ? msg / sizeof(T) : n, bad);
  LAUNCH_CHECK();
  unsigned long long h = 0;
  CUDA_CHECK(cudaMemcpy(&h, bad, sizeof h, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(bad));
  return h;
}

// Launches tma_reduce_kernel on `sms` SMs of the current device (one CTA each).
template <TmaOp kOp>
void launch_tma_reduce(const void* src, void* dst, size_t bytes, uint32_t msg, int sms,
                       TmaSource source, cudaStream_t s, int passes = 1,
                       unsigned long long* span = nullptr) {
  tma_reduce_kernel<kOp><<<sms, kTmaReduceBlock, kTmaRingBytes, s>>>(
      static_cast<const char*>(src), static_cast<char*>(dst), bytes, msg, int(kTmaRingBytes / msg),
      source, passes, span);
}

// Call once per device before launching tma_reduce_kernel there.
inline void setup_tma_reduce_kernels() {
  allow_dynamic_smem(tma_reduce_kernel<TmaOp::kStore>, kTmaRingBytes);
  allow_dynamic_smem(tma_reduce_kernel<TmaOp::kAddBf16>, kTmaRingBytes);
  allow_dynamic_smem(tma_reduce_kernel<TmaOp::kAddF32>, kTmaRingBytes);
}

}  // namespace mgbench
