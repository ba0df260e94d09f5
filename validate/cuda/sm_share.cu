// Concurrent kernels sharing the SMs of GPU 0 (sm_share.csv), for issue 9's placement model:
// does a kernel launched beside a persistent copy kernel get the remaining SMs, or share them?
//
// copy_first: a persistent ld/st copy kernel on k SMs (k CTAs of 1024 threads with kExclusiveSmem
//   of shared memory, so one per SM; each copies its 4 MiB slice again and again for `hold_us`)
//   is launched on stream A; once all k CTAs run (a counter in mapped host memory), a compute
//   kernel of 132 x m CTAs of 256 threads (fma.cuh, fixed total flops) goes on stream B.
//   compute_us is its span (earliest CTA start to latest CTA end, %globaltimer); compute_us_alone
//   is the same kernel with k = 0 in the same row set. Its CTAs record %smid: `compute_sms_used`
//   distinct SMs, `compute_ctas_on_copy_sms` CTAs that ran on an SM the copy held.
// compute_first: the compute kernel first (once CTA 0 runs), then the copy kernel on k SMs:
//   `copy_start_after_compute_start_us` says when the copy could start, and compute_us how much
//   the compute kernel lost.
// compute_first_carveout100: compute_first with the compute kernel's preferred shared-memory
//   carve-out set to 100 % (cudaFuncAttributePreferredSharedMemoryCarveout; default -1 otherwise).
// copy_gbps: bytes the copy moved (read + write) over its own span.
// Verified: every compute CTA's result equals the host's recomputation bit for bit; every copy
// slice holds the source pattern after the run.
#include <thread>

#include "fma.cuh"
#include "kernels.cuh"

using namespace mgbench;

namespace {

constexpr int kDev = 0;
constexpr uint32_t kSeed = 0x51A2Eu;
constexpr size_t kSlice = 4 * MiB;
constexpr int kComputeThreads = 256;
constexpr int kTotalIters = 240000;  // per thread at m = 1: ~2 ms on 132 SMs

struct Span {
  unsigned long long start, end;
};

__global__ void __launch_bounds__(kThreads)
    hold_copy_kernel(const uint4* __restrict__ src, uint4* __restrict__ dst,
                     unsigned long long hold_ns, volatile int* started, unsigned* sms,
                     unsigned long long* bytes, int* passes_min, Span* span) {
  __shared__ unsigned long long t_start;
  __shared__ int stop;
  const size_t n = kSlice / 16;
  const uint4* s = src + blockIdx.x * n;
  uint4* d = dst + blockIdx.x * n;
  if (threadIdx.x == 0) {
    t_start = globaltimer_ns();
    atomicMin(&span->start, t_start);
    sms[blockIdx.x] = sm_id();
    started[blockIdx.x] = 1;  // one word per CTA: no atomics on host memory
    __threadfence_system();
    stop = 0;
  }
  __syncthreads();
  int passes = 0;
  while (!stop) {
    for (size_t i = threadIdx.x; i < n; i += kUnroll * blockDim.x) {
      uint4 x[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) x[u] = __ldcg(s + i + u * blockDim.x);
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) d[i + u * blockDim.x] = x[u];
    }
    ++passes;
    __syncthreads();
    if (threadIdx.x == 0 && globaltimer_ns() - t_start > hold_ns) stop = 1;
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    atomicAdd(bytes, 2ull * kSlice * passes);
    atomicMin(passes_min, passes);
    atomicMax(&span->end, globaltimer_ns());
  }
}

__global__ void __launch_bounds__(kComputeThreads)
    compute_kernel(int iters, float* out, unsigned* sms, volatile int* started, Span* span) {
  if (threadIdx.x == 0) {
    atomicMin(&span->start, globaltimer_ns());
    sms[blockIdx.x] = sm_id();
    if (blockIdx.x == 0) {
      *started = 1;
      __threadfence_system();
    }
  }
  float r = fma_loop(iters);
  // Every thread stores its result: were only thread 0's used, the compiler would sink the loop
  // into thread 0's branch and the other threads would do no work (seen in the first run).
  out[blockIdx.x * blockDim.x + threadIdx.x] = r;
  __syncthreads();
  if (threadIdx.x == 0) atomicMax(&span->end, globaltimer_ns());
}

struct Ctx {
  char* src;
  char* dst;
  float* out;
  unsigned* compute_sms;
  unsigned* copy_sms;
  unsigned long long* bytes;
  int* passes_min;
  Span* spans;  // [0] compute, [1] copy
  int* flags;   // mapped host memory: [0] compute started, [1 + b] copy CTA b started
  int* flags_dev;
  cudaStream_t a, b;
};

struct Result {
  double compute_us = 0, copy_gbps = 0, copy_start_after_us = 0;
  int sms_used = 0, ctas_on_copy = 0, ok = 1;
};

// Waits until the n words at f are all set (2 s at most).
bool wait_flags(volatile int* f, int n) {
  double t0 = wall_us();
  for (int i = 0; i < n; ++i)
    while (f[i] == 0)
      if (wall_us() - t0 > 2e6) return false;
  return true;
}

Result run_once(Ctx& x, bool copy_first, int k, int m, double hold_us) {
  const int ctas = 132 * m;
  const int iters = kTotalIters / m;
  Span init[2] = {{~0ull, 0}, {~0ull, 0}};
  CUDA_CHECK(cudaMemcpy(x.spans, init, sizeof init, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(x.bytes, 0, sizeof *x.bytes));
  CUDA_CHECK(cudaMemset(x.passes_min, 0x7F, sizeof(int)));
  CUDA_CHECK(cudaMemset(x.out, 0xFF, size_t(ctas) * kComputeThreads * sizeof(float)));
  for (int i = 0; i < 64; ++i) x.flags[i] = 0;
  CUDA_CHECK(cudaDeviceSynchronize());
  Result r;
  auto launch_copy = [&] {
    hold_copy_kernel<<<k, kThreads, kExclusiveSmem, x.a>>>(
        reinterpret_cast<const uint4*>(x.src), reinterpret_cast<uint4*>(x.dst),
        static_cast<unsigned long long>(hold_us * 1e3), x.flags_dev + 1, x.copy_sms, x.bytes,
        x.passes_min, &x.spans[1]);
    LAUNCH_CHECK();
  };
  auto launch_compute = [&] {
    compute_kernel<<<ctas, kComputeThreads, 0, x.b>>>(iters, x.out, x.compute_sms, x.flags_dev,
                                                      &x.spans[0]);
    LAUNCH_CHECK();
  };
  if (copy_first) {
    if (k > 0) {
      launch_copy();
      if (!wait_flags(x.flags + 1, k)) r.ok = 0;
    }
    launch_compute();
  } else {
    launch_compute();
    if (!wait_flags(x.flags, 1)) r.ok = 0;
    if (k > 0) launch_copy();
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  Span sp[2];
  CUDA_CHECK(cudaMemcpy(sp, x.spans, sizeof sp, cudaMemcpyDeviceToHost));
  r.compute_us = double(sp[0].end - sp[0].start) * 1e-3;
  std::vector<float> out(size_t(ctas) * kComputeThreads);
  std::vector<unsigned> csm(ctas), ksm(std::max(k, 1));
  CUDA_CHECK(cudaMemcpy(out.data(), x.out, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(
      cudaMemcpy(csm.data(), x.compute_sms, ctas * sizeof(unsigned), cudaMemcpyDeviceToHost));
  const float want = fma_loop_host(iters);
  for (float v : out)
    if (std::memcmp(&v, &want, sizeof v) != 0) r.ok = 0;
  std::vector<int> used(1024, 0), held(1024, 0);
  for (unsigned s : csm) used[s & 1023] += 1;
  if (k > 0) {
    CUDA_CHECK(cudaMemcpy(ksm.data(), x.copy_sms, k * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (unsigned s : ksm) held[s & 1023] = 1;
    unsigned long long bytes = 0;
    int passes_min = 0;
    CUDA_CHECK(cudaMemcpy(&bytes, x.bytes, sizeof bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&passes_min, x.passes_min, sizeof passes_min, cudaMemcpyDeviceToHost));
    r.copy_gbps = gbps(double(bytes), double(sp[1].end - sp[1].start) * 1e-3);
    r.copy_start_after_us = (double(sp[1].start) - double(sp[0].start)) * 1e-3;
    if (passes_min < 1) r.ok = 0;
  }
  for (int s = 0; s < 1024; ++s) {
    r.sms_used += used[s] > 0;
    if (held[s]) r.ctas_on_copy += used[s];
  }
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  CUDA_CHECK(cudaSetDevice(kDev));
  Csv csv(argc, argv, "sm_share.csv",
          "A persistent copy kernel on k SMs and a compute-bound FMA kernel of 132 x m CTAs on "
          "another stream of GPU 0: compute time and placement; see sm_share.cu",
          {kDev},
          {{"copy_kernel",
            "1024 threads, 160 KiB dynamic smem (one CTA per SM), 16-byte ld.cg/st, "
            "unroll 4, 4 MiB slice per CTA copied repeatedly"},
           {"compute_kernel", "256 threads per CTA, 8 FMA chains per thread, 240000 / m steps"}},
          "order,copy_sms,compute_ctas,m,compute_flops," + stat_cols("compute_us") +
              ",compute_us_alone,slowdown,compute_tflops_median,compute_sms_used,compute_ctas_on_"
              "copy_sms,copy_gbps,copy_start_after_compute_start_us,reps,ok");
  allow_dynamic_smem(hold_copy_kernel);
  Ctx x;
  const int max_k = 32, max_ctas = 132 * 16;
  x.src = static_cast<char*>(device_alloc(kDev, max_k * kSlice));
  x.dst = static_cast<char*>(device_alloc(kDev, max_k * kSlice));
  x.out =
      static_cast<float*>(device_alloc(kDev, size_t(max_ctas) * kComputeThreads * sizeof(float)));
  x.compute_sms = static_cast<unsigned*>(device_alloc(kDev, max_ctas * sizeof(unsigned)));
  x.copy_sms = static_cast<unsigned*>(device_alloc(kDev, max_k * sizeof(unsigned)));
  x.bytes = static_cast<unsigned long long*>(device_alloc(kDev, 8));
  x.passes_min = static_cast<int*>(device_alloc(kDev, sizeof(int)));
  x.spans = static_cast<Span*>(device_alloc(kDev, 2 * sizeof(Span)));
  CUDA_CHECK(cudaHostAlloc(&x.flags, 64 * sizeof(int), cudaHostAllocMapped));
  CUDA_CHECK(cudaHostGetDevicePointer(&x.flags_dev, x.flags, 0));
  CUDA_CHECK(cudaStreamCreateWithFlags(&x.a, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&x.b, cudaStreamNonBlocking));
  fill_pattern(kDev, x.src, max_k * kSlice, kSeed);

  const int reps = 5;
  for (int m : {1, 2, 8}) {
    double alone = 0;
    const double flops = 2.0 * kChains * double(kTotalIters / m) * kComputeThreads * 132 * m;
    // order 2: compute first with the compute kernel's preferred shared-memory carve-out at its
    // maximum, to test whether the carve-out is what keeps the copy off its SMs.
    for (int order : {0, 1, 2}) {
      const bool copy_first = order == 0;
      CUDA_CHECK(cudaFuncSetAttribute(
          compute_kernel, cudaFuncAttributePreferredSharedMemoryCarveout, order == 2 ? 100 : -1));
      for (int k : {0, 4, 8, 16, 32}) {
        if (!copy_first && k == 0) continue;  // the same as copy_first with k = 0
        poison(kDev, x.dst, max_k * kSlice);
        // The copy holds its SMs for 3 x the compute kernel alone (+1 ms), so it outlasts it.
        const double hold_us = alone > 0 ? 3 * alone + 1000 : 8000;
        std::vector<double> t;
        Result last;
        int ok = 1;
        run_once(x, copy_first, k, m, hold_us);  // warm-up
        for (int r = 0; r < reps; ++r) {
          last = run_once(x, copy_first, k, m, hold_us);
          t.push_back(last.compute_us);
          ok &= last.ok;
        }
        if (k > 0)
          ok &= report_check("sm_share copy",
                             count_mismatches(kDev, x.dst, size_t(k) * kSlice, kSeed));
        if (!ok) std::fprintf(stderr, "VERIFY FAILED: sm_share m=%d k=%d\n", m, k);
        Stats st = summarize(t);
        if (k == 0) alone = st.median;
        csv.row("%s,%d,%d,%d,%.4g,%s,%.3f,%.4f,%.2f,%d,%d,%.1f,%.3f,%d,%d",
                order == 0   ? "copy_first"
                : order == 1 ? "compute_first"
                             : "compute_first_carveout100",
                k, 132 * m, m, flops, stat_vals(st).c_str(), alone, st.median / alone,
                flops / st.median * 1e-6, last.sms_used, last.ctas_on_copy, last.copy_gbps,
                last.copy_start_after_us, st.n, ok);
      }
    }
  }
  CUDA_CHECK(cudaStreamDestroy(x.a));
  CUDA_CHECK(cudaStreamDestroy(x.b));
  CUDA_CHECK(cudaFreeHost(x.flags));
  for (void* p :
       {static_cast<void*>(x.src), static_cast<void*>(x.dst), static_cast<void*>(x.out),
        static_cast<void*>(x.compute_sms), static_cast<void*>(x.copy_sms),
        static_cast<void*>(x.bytes), static_cast<void*>(x.passes_min), static_cast<void*>(x.spans)})
    CUDA_CHECK(cudaFree(p));
  return 0;
}
