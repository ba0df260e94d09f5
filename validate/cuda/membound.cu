// Memory-bound elementwise kernels on GPU 0 (membound.csv, issue 15): how fast a kernel that does
// nothing but stream HBM runs when it is launched as frameworks launch it, by size.
//
// Kernels (fp32, one 16-byte vector of each array per thread, 256 threads per CTA):
//   copy   c[i] = a[i]               (1 load, 1 store per vector)
//   add    c[i] = a[i] + b[i]        (2 loads, 1 store)
//   triad  c[i] = a[i] + s * b[i]    (2 loads, 1 store, an FMA)
// Launch shapes:
//   flat        one vector per thread, grid = vectors / 256 (PyTorch's elementwise launch: many
//               waves of short CTAs that start and end at their own pace)
//   grid_stride grid = 132 x 8 CTAs (a full wave), each thread loops over vectors with a stride
//               of the whole grid
// Sizes: bytes per array, 1 MiB to 1 GiB. Each repetition first overwrites a 256 MiB scratch
// buffer (so no array is left in the 60 MiB L2 from the previous repetition), then times one
// launch with events (the launch included). bytes_moved = arrays x bytes per array.
// Verified: sampled output words against the inputs' closed form.
#include <cstring>

#include "common.cuh"

using namespace mgbench;

namespace {

constexpr int kDev = 0;
constexpr int kThreads = 256;
constexpr int kGridStrideCtas = 132 * 8;

enum class Op { copy, add, triad };

template <Op op>
__device__ __forceinline__ float4 apply(float4 a, float4 b) {
  if constexpr (op == Op::copy) return a;
  if constexpr (op == Op::add) return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
  return make_float4(fmaf(2.f, b.x, a.x), fmaf(2.f, b.y, a.y), fmaf(2.f, b.z, a.z),
                     fmaf(2.f, b.w, a.w));
}

template <Op op>
__global__ void __launch_bounds__(kThreads)
    flat_kernel(const float4* __restrict__ a, const float4* __restrict__ b, float4* __restrict__ c,
                size_t n) {
  const size_t i = size_t(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= n) return;
  c[i] = apply<op>(a[i], op == Op::copy ? float4{} : b[i]);
}

template <Op op>
__global__ void __launch_bounds__(kThreads)
    grid_stride_kernel(const float4* __restrict__ a, const float4* __restrict__ b,
                       float4* __restrict__ c, size_t n) {
  const size_t stride = size_t(gridDim.x) * kThreads;
  for (size_t i = size_t(blockIdx.x) * kThreads + threadIdx.x; i < n; i += stride)
    c[i] = apply<op>(a[i], op == Op::copy ? float4{} : b[i]);
}

__global__ void fill_kernel(float* p, size_t n, float scale) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    p[i] = scale * float(i % 1024);
}

}  // namespace

int main(int argc, char** argv) {
  CUDA_CHECK(cudaSetDevice(kDev));
  Csv csv(argc, argv, "membound.csv",
          "Elementwise fp32 kernels (copy, add, triad) on GPU 0 by size and launch shape, one "
          "launch between events after an L2 flush; see membound.cu",
          {kDev},
          {{"threads_per_cta", std::to_string(kThreads)},
           {"grid_stride_ctas", std::to_string(kGridStrideCtas)},
           {"l2_flush", "256 MiB cudaMemsetAsync before every repetition"}},
          "op,launch,bytes_per_array,arrays,grid," + stat_cols("time_us") + ",gbps_median,reps,ok");
  const size_t max_bytes = 1 * GiB, flush_bytes = 256 * MiB;
  float* a = static_cast<float*>(device_alloc(kDev, max_bytes));
  float* b = static_cast<float*>(device_alloc(kDev, max_bytes));
  float* c = static_cast<float*>(device_alloc(kDev, max_bytes));
  void* flush = device_alloc(kDev, flush_bytes);
  fill_kernel<<<1024, 256>>>(a, max_bytes / 4, 1.f);
  fill_kernel<<<1024, 256>>>(b, max_bytes / 4, 3.f);
  LAUNCH_CHECK();
  CUDA_CHECK(cudaDeviceSynchronize());
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

  for (const char* launch : {"flat", "grid_stride"}) {
    const bool flat = launch[0] == 'f';
    for (Op op : {Op::copy, Op::add, Op::triad}) {
      const char* name = op == Op::copy ? "copy" : op == Op::add ? "add" : "triad";
      const int arrays = op == Op::copy ? 2 : 3;
      for (size_t bytes = 1 * MiB; bytes <= max_bytes; bytes *= 4) {
        const size_t n = bytes / 16;
        const unsigned grid = flat ? unsigned((n + kThreads - 1) / kThreads) : kGridStrideCtas;
        auto run = [&] {
          const auto* a4 = reinterpret_cast<const float4*>(a);
          const auto* b4 = reinterpret_cast<const float4*>(b);
          auto* c4 = reinterpret_cast<float4*>(c);
          if (flat) {
            if (op == Op::copy) flat_kernel<Op::copy><<<grid, kThreads, 0, s>>>(a4, b4, c4, n);
            if (op == Op::add) flat_kernel<Op::add><<<grid, kThreads, 0, s>>>(a4, b4, c4, n);
            if (op == Op::triad) flat_kernel<Op::triad><<<grid, kThreads, 0, s>>>(a4, b4, c4, n);
          } else {
            if (op == Op::copy)
              grid_stride_kernel<Op::copy><<<grid, kThreads, 0, s>>>(a4, b4, c4, n);
            if (op == Op::add) grid_stride_kernel<Op::add><<<grid, kThreads, 0, s>>>(a4, b4, c4, n);
            if (op == Op::triad)
              grid_stride_kernel<Op::triad><<<grid, kThreads, 0, s>>>(a4, b4, c4, n);
          }
          LAUNCH_CHECK();
        };
        RepeatOpts o;
        o.warmup = 2;
        o.min_reps = 9;
        o.max_reps = 25;
        o.budget_ms = 100;
        const Stats st = time_stream_after(
            kDev, s, [&] { CUDA_CHECK(cudaMemsetAsync(flush, 0, flush_bytes, s)); }, run, o);
        // Sampled check: word w of c against a and b's fill (scale x (w mod 1024)).
        int ok = 1;
        const size_t words = bytes / 4;
        for (size_t w : {size_t(0), words / 3, words - 1}) {
          float got = 0;
          CUDA_CHECK(cudaMemcpy(&got, c + w, 4, cudaMemcpyDeviceToHost));
          const float x = float(w % 1024), want = op == Op::copy  ? x
                                                  : op == Op::add ? x + 3.f * x
                                                                  : x + 2.f * 3.f * x;
          if (got != want) ok = 0;
        }
        CUDA_CHECK(cudaMemset(c, 0xff, bytes));
        csv.row("%s,%s,%zu,%d,%u,%s,%.1f,%d,%d", name, launch, bytes, arrays, grid,
                stat_vals(st).c_str(), gbps(double(bytes) * arrays, st.median), st.n, ok);
      }
    }
  }
  CUDA_CHECK(cudaFree(a));
  CUDA_CHECK(cudaFree(b));
  CUDA_CHECK(cudaFree(c));
  CUDA_CHECK(cudaFree(flush));
  CUDA_CHECK(cudaStreamDestroy(s));
  return 0;
}
