// TMA bulk reduce-add (cp.reduce.async.bulk ... .add) next to the plain TMA bulk store of the same
// bytes, GPU 0 -> GPU 1 over NVLink and GPU 0 locally, by SM count and by message size
// (peer_tma_reduce.csv).
//
// Why: a fused GEMM + reduce-scatter (ParallelKittens) store-adds each finished tile into its
// owner's buffer with one bulk reduce: a read-modify-write at the destination, where a plain store
// only writes. This measures what that costs.
//
// The kernel runs on GPU 0, one CTA per SM (kRingBytes of shared memory each), one thread issuing.
//   direction  put: the destination is GPU 1's memory; local: GPU 0's own
//   op         store     cp.async.bulk.global.shared::cta.bulk_group (peer_tma.csv's store)
//              add_bf16  cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.bf16
//              add_f32   cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32
//   source     hbm: each message is first bulk-loaded from GPU 0's HBM into a ring of shared-memory
//              stages (mbarrier completion), then stored or reduced out: peer_tma.csv's put path,
//              with the op in place of the store. The ring is kRingBytes whatever the message size
//              (stages = kRingBytes / message_bytes, stages - 1 loads in flight).
//              smem: one message-sized tile written once into shared memory is sent again and
//              again, as a GEMM epilogue sends tiles it computed: no HBM read at the source. The
//              issuing thread never waits between ops; the bulk-copy unit's queue limits how many
//              are in flight.
//   message_bytes  the size of one bulk op; message j of the buffer goes to CTA j % sms.
// Events around one kernel launch (the launch is in the time; at 1 GiB it is < 1 %).
//
// Verification: before every repetition (outside the timed region) the destination is reset to
// dst_value(i) and the source holds src_value(i) (hbm) or src_value(i mod the message's elements)
// (smem); small integers, so old + added is exact in bf16 and f32. After the last repetition every
// element must equal old + added (add ops) or the source (store), bit for bit.
#include <cuda_bf16.h>

#include <type_traits>

#include "kernels.cuh"

using namespace mgbench;

namespace {

enum class Op { kStore, kAddBf16, kAddF32 };
enum class Source { kHbm, kSmem };

const char* op_name(Op op) {
  return op == Op::kStore ? "store" : op == Op::kAddBf16 ? "add_bf16" : "add_f32";
}

// Shared memory per CTA: the hbm source's ring (as peer_tma.csv's kTmaSmem), and more than half an
// SM's, so one CTA per SM whatever the message size.
constexpr uint32_t kRingBytes = 192 * 1024;
constexpr uint32_t kMinMessage = 4 * 1024;
constexpr uint32_t kMaxMessage = 64 * 1024;  // a 128 x 256 bf16 tile
constexpr int kMaxStages = int(kRingBytes / kMinMessage);
constexpr int kBlock = 256;  // threads; only thread 0 issues, the rest help write the smem tile

// Test values: small integers, so every sum of one of each is exact in bf16 (8-bit significand:
// integers up to 256) and f32, and neighbours differ (a shifted or dropped message shows).
__host__ __device__ inline float src_value(size_t i) { return float(int(i % 61) - 30); }
__host__ __device__ inline float dst_value(size_t i) { return float(int(i % 67) - 33); }

// Element type of an op's data: bf16 for add_bf16, 32-bit float for add_f32 and store.
template <Op kOp>
using Elem = std::conditional_t<kOp == Op::kAddBf16, __nv_bfloat16, float>;

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
template <Op kOp>
__device__ inline void bulk_out(char* gmem_dst, const void* smem_src, uint32_t bytes) {
  const uint64_t g = __cvta_generic_to_global(gmem_dst);
  const uint32_t s = smem_addr(smem_src);
  if constexpr (kOp == Op::kStore) {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(g), "r"(s),
                 "r"(bytes)
                 : "memory");
  } else if constexpr (kOp == Op::kAddBf16) {
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

// Sends `bytes` (REQUIRES: a multiple of msg; msg a multiple of 16, kMinMessage..kMaxMessage) to
// dst by the op, in messages of msg bytes; message j goes to CTA j % gridDim.x. `stages` =
// kRingBytes / msg.
template <Op kOp>
__global__ void __launch_bounds__(kBlock)
    tma_reduce_kernel(const char* __restrict__ src, char* __restrict__ dst, size_t bytes,
                      uint32_t msg, int stages, Source source) {
  extern __shared__ __align__(128) unsigned char ring[];
  __shared__ __align__(8) uint64_t bar[kMaxStages];
  const size_t n_msgs = bytes / msg;
  const size_t my_n = blockIdx.x < n_msgs ? (n_msgs - blockIdx.x + gridDim.x - 1) / gridDim.x : 0;
  auto offset = [&](size_t j) { return (blockIdx.x + j * gridDim.x) * size_t(msg); };

  if (source == Source::kSmem) {
    using T = Elem<kOp>;
    T* tile = reinterpret_cast<T*>(ring);
    for (uint32_t e = threadIdx.x; e < msg / sizeof(T); e += blockDim.x)
      tile[e] = to_elem<T>(src_value(e));
    // Ordinary stores that the bulk-copy unit (the async proxy) reads next need this fence.
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x != 0) return;
    for (size_t i = 0; i < my_n; ++i) bulk_out<kOp>(dst + offset(i), tile, msg);
    bulk_wait_all();  // ops complete before the CTA exits
    return;
  }

  if (threadIdx.x != 0 || my_n == 0) return;
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

template <Op kOp>
void fill_values(int device, void* p, size_t bytes, bool is_src) {
  using T = Elem<kOp>;
  DeviceScope ds(device);
  fill_values_kernel<T><<<1024, 256>>>(static_cast<T*>(p), bytes / sizeof(T), is_src);
  LAUNCH_CHECK();
  CUDA_CHECK(cudaDeviceSynchronize());
}

template <Op kOp>
unsigned long long count_wrong(int device, const void* p, size_t bytes, uint32_t msg,
                               Source source) {
  using T = Elem<kOp>;
  DeviceScope ds(device);
  const size_t n = bytes / sizeof(T);
  unsigned long long* bad;
  CUDA_CHECK(cudaMalloc(&bad, sizeof *bad));
  CUDA_CHECK(cudaMemset(bad, 0, sizeof *bad));
  check_values_kernel<T><<<1024, 256>>>(static_cast<const T*>(p), n, kOp != Op::kStore,
                                        source == Source::kSmem ? msg / sizeof(T) : n, bad);
  LAUNCH_CHECK();
  unsigned long long h = 0;
  CUDA_CHECK(cudaMemcpy(&h, bad, sizeof h, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(bad));
  return h;
}

template <Op kOp>
void launch(const void* src, void* dst, size_t bytes, uint32_t msg, int sms, Source source,
            cudaStream_t s) {
  tma_reduce_kernel<kOp><<<sms, kBlock, kRingBytes, s>>>(static_cast<const char*>(src),
                                                         static_cast<char*>(dst), bytes, msg,
                                                         int(kRingBytes / msg), source);
}

struct Ctx {
  void* src0;    // GPU 0: the source
  void* dst[2];  // dst[1] on GPU 1 (put), dst[0] on GPU 0 (local)
  cudaStream_t s0;
  EventPair* ev0;
  Csv* csv;
};

constexpr size_t kBytes = 1 * GiB;

template <Op kOp>
void run_case(Ctx& c, Source source, bool put, int sms, uint32_t msg) {
  const int dst_gpu = put ? 1 : 0;
  void* dst = c.dst[dst_gpu];
  fill_values<kOp>(0, c.src0, kBytes, true);
  Stats st = repeat(
      [&] {
        fill_values<kOp>(dst_gpu, dst, kBytes, false);
        c.ev0->start(c.s0);
        launch<kOp>(c.src0, dst, kBytes, msg, sms, source, c.s0);
        LAUNCH_CHECK();
        c.ev0->stop(c.s0);
        return c.ev0->elapsed_us();
      },
      peer_repeat_opts());
  const char* dir = put ? "put" : "local";
  const char* src_name = source == Source::kHbm ? "hbm" : "smem";
  char what[96];
  std::snprintf(what, sizeof what, "%s %s %s %d SMs %u B", dir, op_name(kOp), src_name, sms, msg);
  int ok = report_check(what, count_wrong<kOp>(dst_gpu, dst, kBytes, msg, source));
  c.csv->row("%s,%s,%s,%d,%u,%u,%zu,%s,%.2f,%.2f,%d,%d", dir, op_name(kOp), src_name, sms, msg,
             kRingBytes / msg, kBytes, stat_vals(st).c_str(), gbps(double(kBytes), st.median),
             gbps(double(kBytes), st.min), st.n, ok);
}

// The three ops back to back, so their comparison is as close in time as the run allows.
void run_ops(Ctx& c, Source source, bool put, int sms, uint32_t msg) {
  run_case<Op::kStore>(c, source, put, sms, msg);
  run_case<Op::kAddBf16>(c, source, put, sms, msg);
  run_case<Op::kAddF32>(c, source, put, sms, msg);
}

}  // namespace

int main(int argc, char** argv) {
  Meta p2p = enable_peer_access(0, 1);
  int num_sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&num_sms, cudaDevAttrMultiProcessorCount, 0));
  Ctx c;
  c.src0 = device_alloc(0, kBytes);
  c.dst[0] = device_alloc(0, kBytes);
  c.dst[1] = device_alloc(1, kBytes);
  CUDA_CHECK(cudaSetDevice(0));
  allow_dynamic_smem(tma_reduce_kernel<Op::kStore>, kRingBytes);
  allow_dynamic_smem(tma_reduce_kernel<Op::kAddBf16>, kRingBytes);
  allow_dynamic_smem(tma_reduce_kernel<Op::kAddF32>, kRingBytes);
  CUDA_CHECK(cudaStreamCreateWithFlags(&c.s0, cudaStreamNonBlocking));
  EventPair ev0(0);
  c.ev0 = &ev0;

  char kernel_cfg[400];
  std::snprintf(kernel_cfg, sizeof kernel_cfg,
                "one CTA of %d threads per SM (%u B of shared memory), thread 0 issues; "
                "source hbm: cp.async.bulk global->smem (mbarrier) into a %u B ring, then the op "
                "smem->global (bulk_group); source smem: one tile written once, sent by the op "
                "with no waits between ops",
                kBlock, kRingBytes, kRingBytes);
  Meta meta = concat(p2p, {{"kernel", kernel_cfg},
                           {"values",
                            "src_value(i) = i mod 61 - 30, dst_value(i) = i mod 67 - 33 (element "
                            "index i; smem source: index within the message); exact in bf16/f32"},
                           {"dst_reset",
                            "every repetition, outside the timed region: destination set to "
                            "dst_value by a kernel on its own GPU, then synchronised"}});
  Csv csv(argc, argv, "peer_tma_reduce.csv",
          "TMA bulk reduce-add (bf16, f32) vs bulk store, GPU0 -> GPU1 (put) and GPU0 local, by "
          "SM count and message size; see peer_reduce.cu",
          {0, 1}, meta,
          "direction,op,source,sms,message_bytes,stages,bytes," + stat_cols("time_us") +
              ",gbps_median,gbps_best,reps,ok");
  c.csv = &csv;

  for (Source source : {Source::kHbm, Source::kSmem}) {
    for (bool put : {true, false}) {
      // By SM count, at peer_tma.csv's message size.
      for (int sms : sm_counts(num_sms)) run_ops(c, source, put, sms, 32 * 1024);
      // By message size, where NVLink just saturates (8 SMs) and on the whole chip; 32 KiB is
      // in the SM sweep.
      for (int sms : {8, num_sms})
        for (uint32_t msg = kMinMessage; msg <= kMaxMessage; msg *= 2)
          if (msg != 32 * 1024) run_ops(c, source, put, sms, msg);
    }
  }
  return 0;
}
