// What a small memory-bound kernel costs between two events, by what ran before it
// (small_kernel.csv, issues 9 and 15): membound.csv's 1 - 16 MiB kernels take 4.3 - 5.0 us after
// a 256 MiB cudaMemsetAsync where the model gives 2.4 - 2.5; this splits that time into the
// kernel's own span (first CTA's start to last CTA's end, %globaltimer) and the rest (the GPU's
// gap before it and the events around it), and compares priors.
//
// Every repetition: a 200 us spin kernel (so the host has enqueued the rest before the GPU gets
// to it), then the prior, then start event, the kernel, stop event, on one stream:
//   prior memset        cudaMemsetAsync of 256 MiB (membound.cu's L2 flush)
//   prior store_kernel  a kernel storing 256 MiB (the same flush, by a kernel)
//   prior none          nothing: the spin kernel (the arrays stay in L2 and the TLB from the
//                       previous repetition)
// Kernels: membound.cu's flat copy (one 16-byte vector per thread, 256 threads per CTA) over
// 1 MiB (256 CTAs) and 16 MiB (4096 CTAs), and an empty kernel of the same grids (each CTA only
// stamps its start and end). span: max end - min start over the CTAs (thread 0 of each CTA
// stamps after __syncthreads, so a CTA's span includes its loads and stores).
#include <cstring>

#include "common.cuh"
#include "kernels.cuh"

using namespace mgbench;

namespace {

constexpr int kDev = 0;
constexpr int kBlockThreads = 256;
constexpr unsigned long long kSpinNs = 200'000;
constexpr size_t kFlushBytes = 256 * MiB;

// stamps[0] = min CTA start, stamps[1] = max CTA end.
template <bool kCopy>
__global__ void __launch_bounds__(kBlockThreads)
    small_kernel(const float4* __restrict__ a, float4* __restrict__ c, size_t n,
                 unsigned long long* stamps) {
  unsigned long long start = 0;
  if (threadIdx.x == 0) start = globaltimer_ns();
  if constexpr (kCopy) {
    const size_t i = size_t(blockIdx.x) * kBlockThreads + threadIdx.x;
    if (i < n) c[i] = a[i];
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    atomicMin(&stamps[0], start);
    atomicMax(&stamps[1], globaltimer_ns());
  }
}

__global__ void store_kernel(float4* p, size_t n) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    p[i] = make_float4(0.f, 0.f, 0.f, 0.f);
}

__global__ void fill_kernel(float* p, size_t n) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    p[i] = float(i % 1024);
}

}  // namespace

int main(int argc, char** argv) {
  CUDA_CHECK(cudaSetDevice(kDev));
  Csv csv(argc, argv, "small_kernel.csv",
          "A small flat copy or empty kernel between two events on GPU 0, by the prior work on "
          "its stream; the kernel's own span by %globaltimer; see small_kernel.cu",
          {kDev},
          {{"threads_per_cta", std::to_string(kBlockThreads)},
           {"spin_ns", std::to_string(kSpinNs)},
           {"flush_bytes", std::to_string(kFlushBytes)}},
          "prior,kernel,bytes,grid," + stat_cols("time_us") +
              ",span_us_median,rest_us_median,"
              "reps,ok");
  const size_t max_bytes = 16 * MiB;
  float* a = static_cast<float*>(device_alloc(kDev, max_bytes));
  float* c = static_cast<float*>(device_alloc(kDev, max_bytes));
  void* flush = device_alloc(kDev, kFlushBytes);
  auto* stamps = static_cast<unsigned long long*>(device_alloc(kDev, 64));
  fill_kernel<<<1024, 256>>>(a, max_bytes / 4);
  LAUNCH_CHECK();
  CUDA_CHECK(cudaDeviceSynchronize());
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  EventPair ev(kDev);
  constexpr int kWarmup = 3, kReps = 25;
  const unsigned long long init[2] = {~0ull, 0ull};

  for (const char* prior : {"memset", "store_kernel", "none"}) {
    for (const char* kernel : {"copy", "empty"}) {
      const bool copy = kernel[0] == 'c';
      for (size_t bytes : {1 * MiB, 16 * MiB}) {
        const size_t n = bytes / 16;
        const unsigned grid = unsigned(n / kBlockThreads);
        std::vector<double> times, spans;
        int ok = 1;
        for (int rep = 0; rep < kWarmup + kReps; ++rep) {
          CUDA_CHECK(cudaMemcpy(stamps, init, sizeof init, cudaMemcpyHostToDevice));
          CUDA_CHECK(cudaMemset(c, 0xff, bytes));
          CUDA_CHECK(cudaDeviceSynchronize());
          spin_ns_kernel<<<1, 32, 0, s>>>(kSpinNs);
          if (std::strcmp(prior, "memset") == 0)
            CUDA_CHECK(cudaMemsetAsync(flush, 0, kFlushBytes, s));
          if (std::strcmp(prior, "store_kernel") == 0)
            store_kernel<<<132 * 8, 256, 0, s>>>(static_cast<float4*>(flush), kFlushBytes / 16);
          ev.start(s);
          const auto* a4 = reinterpret_cast<const float4*>(a);
          auto* c4 = reinterpret_cast<float4*>(c);
          if (copy)
            small_kernel<true><<<grid, kBlockThreads, 0, s>>>(a4, c4, n, stamps);
          else
            small_kernel<false><<<grid, kBlockThreads, 0, s>>>(a4, c4, n, stamps);
          LAUNCH_CHECK();
          ev.stop(s);
          // Still spinning: the host enqueued the whole repetition ahead of the GPU.
          const bool ahead = cudaStreamQuery(s) == cudaErrorNotReady;
          const double t = ev.elapsed_us();
          unsigned long long host[2];
          CUDA_CHECK(cudaMemcpy(host, stamps, sizeof host, cudaMemcpyDeviceToHost));
          if (!ahead || host[1] < host[0]) ok = 0;
          if (copy) {
            float got = -1;
            CUDA_CHECK(cudaMemcpy(&got, c + bytes / 4 - 1, 4, cudaMemcpyDeviceToHost));
            if (got != float((bytes / 4 - 1) % 1024)) ok = 0;
          }
          if (rep >= kWarmup) {
            times.push_back(t);
            spans.push_back(double(host[1] - host[0]) * 1e-3);
          }
        }
        const Stats st = summarize(times);
        const Stats sp = summarize(spans);
        csv.row("%s,%s,%zu,%u,%s,%.3f,%.3f,%d,%d", prior, kernel, bytes, grid,
                stat_vals(st).c_str(), sp.median, st.median - sp.median, st.n, ok);
      }
    }
  }
  CUDA_CHECK(cudaFree(a));
  CUDA_CHECK(cudaFree(c));
  CUDA_CHECK(cudaFree(flush));
  CUDA_CHECK(cudaFree(stamps));
  CUDA_CHECK(cudaStreamDestroy(s));
  return 0;
}
