// HBM under reads and writes together, by access pattern, on GPU 0 (hbm_mix.csv, issue 9).
//
// hbm.csv's copy on 132 SMs moves 3.95 TB/s of reads and writes together where its reads alone
// reach 4.35 and its writes alone 4.25 (the model, sharing one peak, predicts the copy ~10 %
// fast), while membound.csv's flat copy (one 16-byte vector per thread, 262,144 CTAs) and a
// device-local cudaMemcpyAsync move 4.24-4.26. This program separates what could set that:
//   copy grid_stride   dst[i] = src[i], each thread striding by the whole grid (hbm.csv's and
//                      mlp.csv's shape), grid 132 x 1 ... 16 CTAs;
//   copy blocked       each CTA copies one contiguous chunk of n / grid vectors, its threads
//                      striding by the CTA (grid 1024 ... 262,144: 256 x 64 ... 1 vectors per
//                      thread, the last membound.csv's flat launch);
//   split              the same grid of 1056 CTAs, a fraction of them (0, 1/4, 1/2, 3/4, 1) only
//                      writing one buffer and the rest only reading another, each CTA the same
//                      number of vectors: reads and writes together without a copy's dependency
//                      or its pairing of addresses.
// Arrays of 1 GiB (src, dst / the read and written buffers); each repetition first overwrites a
// 256 MiB scratch buffer (no array left in the 60 MiB L2), then times one launch with events.
// 256 threads per CTA, 16-byte accesses. Verified: copies and writes word by word against the
// pattern; reads by their sum against the pattern's closed form.
#include <vector>

#include "common.cuh"

using namespace mgbench;

namespace {

constexpr int kDev = 0;
constexpr int kThreads = 256;
constexpr uint32_t kSeedSrc = 0x1234u, kSeedWrite = 0x5678u;
constexpr size_t kBytes = size_t(1) << 30;

__device__ __forceinline__ uint32_t word_sum(uint4 v) { return v.x + v.y + v.z + v.w; }

__global__ void __launch_bounds__(kThreads)
    copy_grid_stride(const uint4* __restrict__ src, uint4* __restrict__ dst, size_t n) {
  const size_t stride = size_t(gridDim.x) * kThreads;
  for (size_t i = size_t(blockIdx.x) * kThreads + threadIdx.x; i < n; i += stride) dst[i] = src[i];
}

__global__ void __launch_bounds__(kThreads)
    copy_blocked(const uint4* __restrict__ src, uint4* __restrict__ dst, size_t n, size_t chunk) {
  const size_t begin = size_t(blockIdx.x) * chunk;
  const size_t end = begin + chunk < n ? begin + chunk : n;
  for (size_t i = begin + threadIdx.x; i < end; i += kThreads) dst[i] = src[i];
}

// CTA b writes when b % 8 < writers8, else reads; each role strides over its own buffer by its
// own CTAs, `per_cta` vectors per CTA. A reader's sum goes to sink[its global thread].
__global__ void __launch_bounds__(kThreads)
    split(const uint4* __restrict__ rd, uint4* __restrict__ wr, uint32_t* __restrict__ sink,
          size_t per_cta, int writers8, uint32_t write_seed) {
  const int b = blockIdx.x, group = b / 8, slot = b % 8;
  const bool writer = slot < writers8;
  const size_t role_ctas = size_t(gridDim.x / 8) * (writer ? writers8 : 8 - writers8);
  const size_t rank =
      size_t(group) * (writer ? writers8 : 8 - writers8) + (writer ? slot : slot - writers8);
  const size_t n = role_ctas * per_cta, stride = role_ctas * kThreads;
  if (writer) {
    for (size_t i = rank * kThreads + threadIdx.x; i < n; i += stride) {
      const size_t w = 4 * i;
      wr[i] = make_uint4(pattern_word(w, write_seed), pattern_word(w + 1, write_seed),
                         pattern_word(w + 2, write_seed), pattern_word(w + 3, write_seed));
    }
  } else {
    uint32_t acc = 0;
    for (size_t i = rank * kThreads + threadIdx.x; i < n; i += stride) acc += word_sum(rd[i]);
    sink[rank * kThreads + threadIdx.x] = acc;
  }
}

}  // namespace

int main(int argc, char** argv) {
  CUDA_CHECK(cudaSetDevice(kDev));
  Csv csv(argc, argv, "hbm_mix.csv",
          "HBM under reads and writes together by access pattern on GPU 0: copies grid-stride "
          "and blocked by grid, and CTAs split between reading and writing; see hbm_mix.cu",
          {kDev},
          {{"threads_per_cta", std::to_string(kThreads)},
           {"l2_flush", "256 MiB cudaMemsetAsync before every repetition"}},
          "kernel,grid,vectors_per_thread,write_ctas_fraction,bytes_read,bytes_written," +
              stat_cols("time_us") + ",gbps_median,reps,ok");
  const size_t n = kBytes / 16, flush_bytes = 256 * MiB;
  void* src = device_alloc(kDev, kBytes);
  void* dst = device_alloc(kDev, kBytes);
  void* flush = device_alloc(kDev, flush_bytes);
  uint32_t* sink = static_cast<uint32_t*>(device_alloc(kDev, 1056 * kThreads * 4));
  fill_pattern(kDev, src, kBytes, kSeedSrc);
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  RepeatOpts o;
  o.warmup = 2;
  o.min_reps = 9;
  o.max_reps = 25;
  o.budget_ms = 150;
  auto time = [&](const auto& launch) {
    return time_stream_after(
        kDev, s, [&] { CUDA_CHECK(cudaMemsetAsync(flush, 0, flush_bytes, s)); }, launch, o);
  };
  const auto* s4 = static_cast<const uint4*>(src);
  auto* d4 = static_cast<uint4*>(dst);
  auto row = [&](const char* kernel, size_t grid, double per_thread, double wfrac, size_t rd,
                 size_t wr, const Stats& st, int ok) {
    csv.row("%s,%zu,%.0f,%.2f,%zu,%zu,%s,%.1f,%d,%d", kernel, grid, per_thread, wfrac, rd, wr,
            stat_vals(st).c_str(), gbps(double(rd + wr), st.median), st.n, ok);
  };
  auto copied = [&](const char* what) {
    const int ok = report_check(what, count_mismatches(kDev, dst, kBytes, kSeedSrc));
    poison(kDev, dst, kBytes);
    return ok;
  };

  for (unsigned per_sm : {1u, 2u, 4u, 8u, 16u}) {
    const unsigned grid = 132 * per_sm;
    const Stats st = time([&] { copy_grid_stride<<<grid, kThreads, 0, s>>>(s4, d4, n); });
    row("copy_grid_stride", grid, double(n) / (double(grid) * kThreads), 0, kBytes, kBytes, st,
        copied("copy_grid_stride"));
  }
  for (size_t per_thread : {1, 4, 16, 64, 256}) {
    const size_t chunk = per_thread * kThreads, grid = (n + chunk - 1) / chunk;
    const Stats st =
        time([&] { copy_blocked<<<unsigned(grid), kThreads, 0, s>>>(s4, d4, n, chunk); });
    row("copy_blocked", grid, double(per_thread), 0, kBytes, kBytes, st, copied("copy_blocked"));
  }
  // Split: 1056 CTAs, per_cta vectors each, so the whole grid moves n vectors.
  const unsigned grid = 1056;
  const size_t per_cta = n / grid;
  for (int writers8 : {0, 2, 4, 6, 8}) {
    const size_t wr = size_t(grid / 8) * writers8 * per_cta * 16,
                 rd = size_t(grid / 8) * (8 - writers8) * per_cta * 16;
    const Stats st =
        time([&] { split<<<grid, kThreads, 0, s>>>(s4, d4, sink, per_cta, writers8, kSeedWrite); });
    int ok = 1;
    if (wr) ok &= report_check("split write", count_mismatches(kDev, dst, wr, kSeedWrite));
    if (rd) {
      const size_t sums = size_t(grid / 8) * (8 - writers8) * kThreads;
      std::vector<uint32_t> h(sums);
      CUDA_CHECK(cudaMemcpy(h.data(), sink, sums * 4, cudaMemcpyDeviceToHost));
      uint32_t total = 0;
      for (uint32_t v : h) total += v;
      const uint32_t want = pattern_sum(rd / 4, kSeedSrc);
      if (total != want) {
        std::fprintf(stderr, "VERIFY FAILED: split read: sum %u, want %u\n", total, want);
        ok = 0;
      }
    }
    poison(kDev, dst, kBytes);
    row("split", grid, double(per_cta) / kThreads, writers8 / 8.0, rd, wr, st, ok);
  }
  CUDA_CHECK(cudaFree(src));
  CUDA_CHECK(cudaFree(dst));
  CUDA_CHECK(cudaFree(flush));
  CUDA_CHECK(cudaFree(sink));
  CUDA_CHECK(cudaStreamDestroy(s));
  return 0;
}
