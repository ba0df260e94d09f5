// A copy warp beside math warps in the same CTA on GPU 0 (intra_sm.csv), for issue 9's intra-SM
// overlap model: what does a communication role take from the math roles of its SM?
//
// One CTA per SM on all SMs (kExclusiveSmem of shared memory), 8 math warps + 1 copy warp
// (288 threads). Math warps run fma.cuh's loop (known flops, result checked bit for bit). The copy
// warp moves HBM -> HBM, its CTA's 4 MiB slice `passes` times:
//   ldst  32 lanes, 16-byte ld.global.cg loads, 8 in flight per lane (4 KiB per SM), then stores;
//   tma   lane 0 issues bulk copies through a ring of 4 x 16 KiB shared-memory buffers
//         (tma_local.cu's copy op: global -> shared on an mbarrier, shared -> global bulk_group).
// Modes: math_only (the copy warp exits at once), copy_only (the math warps exit at once),
// math_and_copy. Spans (%globaltimer, earliest start to latest end over all CTAs) of the math
// warps and of the copy warps are separate: math_us, copy_us; copy_gbps = bytes read + written
// over copy_us. `passes` is chosen so that copy_only lasts about as long as math_only.
// Verified: math results; copy destinations (poisoned first) hold the source pattern.
#include "fma.cuh"
#include "kernels.cuh"

using namespace mgbench;

namespace {

constexpr int kDev = 0;
constexpr uint32_t kSeed = 0x1A75Au;
constexpr size_t kSlice = 4 * MiB;
constexpr int kMathWarps = 8;
constexpr int kMathIters = 240000;
constexpr int kCopyUnroll = 8;
constexpr int kRing = 4;
constexpr uint32_t kMsg = 16 * 1024;

struct Span {
  unsigned long long start, end;
};

enum Kind : int { kLdst = 0, kTma = 1 };

__device__ void copy_ldst(const uint4* __restrict__ s, uint4* __restrict__ d, int passes) {
  const int lane = threadIdx.x & 31;
  const size_t n = kSlice / 16;
  for (int p = 0; p < passes; ++p) {
    for (size_t i = lane; i < n; i += 32 * kCopyUnroll) {
      uint4 x[kCopyUnroll];
#pragma unroll
      for (int u = 0; u < kCopyUnroll; ++u) x[u] = __ldcg(s + i + u * 32);
#pragma unroll
      for (int u = 0; u < kCopyUnroll; ++u) d[i + u * 32] = x[u];
    }
  }
}

__device__ void copy_tma(const char* s, char* d, int passes, unsigned char* ring, uint64_t* bar) {
  if ((threadIdx.x & 31) != 0) return;
  const size_t per_pass = kSlice / kMsg;
  const size_t total = per_pass * size_t(passes);
  for (int i = 0; i < kRing; ++i) mbar_init(&bar[i], 1);
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  auto off = [&](size_t k) { return (k % per_pass) * size_t(kMsg); };
  auto buf = [&](size_t k) { return ring + (k % kRing) * size_t(kMsg); };
  auto load = [&](size_t k) {
    mbar_expect_tx(&bar[k % kRing], kMsg);
    bulk_load(buf(k), s + off(k), kMsg, &bar[k % kRing]);
  };
  for (size_t k = 0; k < total && k < size_t(kRing); ++k) load(k);
  for (size_t k = 0; k < total; ++k) {
    mbar_wait(&bar[k % kRing], uint32_t((k / kRing) & 1));
    bulk_store(d + off(k), buf(k), kMsg);
    if (k >= 1 && k - 1 + kRing < total) {
      bulk_wait_read<1>();
      load(k - 1 + kRing);
    }
  }
  bulk_wait_all();
}

__global__ void __launch_bounds__((kMathWarps + 1) * 32)
    intra_kernel(int do_math, int do_copy, int kind, int passes, const char* src, char* dst,
                 float* out, Span* spans) {
  extern __shared__ __align__(128) unsigned char ring[];
  __shared__ __align__(8) uint64_t bar[kRing];
  const int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
  if (warp < kMathWarps) {
    if (!do_math) return;
    if (threadIdx.x == 0) atomicMin(&spans[0].start, globaltimer_ns());
    float r = fma_loop(kMathIters);
    // Every math thread stores its result, so the compiler cannot sink the loop into one thread.
    out[blockIdx.x * (kMathWarps * 32) + threadIdx.x] = r;
    if (lane == 0) atomicMax(&spans[0].end, globaltimer_ns());
    return;
  }
  if (!do_copy) return;
  if (lane == 0) atomicMin(&spans[1].start, globaltimer_ns());
  const char* s = src + blockIdx.x * kSlice;
  char* d = dst + blockIdx.x * kSlice;
  if (kind == kLdst)
    copy_ldst(reinterpret_cast<const uint4*>(s), reinterpret_cast<uint4*>(d), passes);
  else
    copy_tma(s, d, passes, ring, bar);
  __syncwarp();
  if (lane == 0) atomicMax(&spans[1].end, globaltimer_ns());
}

struct Ctx {
  char* src;
  char* dst;
  float* out;
  Span* spans;
  int sms;
};

struct Run {
  double math_us, copy_us;
};

Run run_once(Ctx& x, bool math, bool copy, int kind, int passes) {
  Span init[2] = {{~0ull, 0}, {~0ull, 0}};
  CUDA_CHECK(cudaMemcpy(x.spans, init, sizeof init, cudaMemcpyHostToDevice));
  intra_kernel<<<x.sms, (kMathWarps + 1) * 32, kExclusiveSmem>>>(math, copy, kind, passes, x.src,
                                                                 x.dst, x.out, x.spans);
  LAUNCH_CHECK();
  CUDA_CHECK(cudaDeviceSynchronize());
  Span sp[2];
  CUDA_CHECK(cudaMemcpy(sp, x.spans, sizeof sp, cudaMemcpyDeviceToHost));
  return {math ? double(sp[0].end - sp[0].start) * 1e-3 : 0,
          copy ? double(sp[1].end - sp[1].start) * 1e-3 : 0};
}

}  // namespace

int main(int argc, char** argv) {
  CUDA_CHECK(cudaSetDevice(kDev));
  Ctx x;
  CUDA_CHECK(cudaDeviceGetAttribute(&x.sms, cudaDevAttrMultiProcessorCount, kDev));
  Csv csv(argc, argv, "intra_sm.csv",
          "8 FMA math warps and 1 HBM->HBM copy warp in one CTA per SM on all SMs of GPU 0: math "
          "time and copy rate, together and alone; see intra_sm.cu",
          {kDev},
          {{"math", "8 warps x 32 threads, 8 FMA chains per thread, 240000 steps"},
           {"copy_ldst", "1 warp, 16-byte ld.cg loads, 8 in flight per lane"},
           {"copy_tma", "lane 0 of 1 warp, ring of 4 x 16 KiB bulk copies"},
           {"slice", "4 MiB per CTA, copied `passes` times"}},
          "mode,copy_kind,ctas,passes,math_flops,copy_bytes_moved," + stat_cols("math_us") + "," +
              stat_cols("copy_us") + ",math_tflops_median,copy_gbps_median,reps,ok");
  allow_dynamic_smem(intra_kernel);
  const size_t total = size_t(x.sms) * kSlice;
  x.src = static_cast<char*>(device_alloc(kDev, total));
  x.dst = static_cast<char*>(device_alloc(kDev, total));
  x.out = static_cast<float*>(device_alloc(kDev, size_t(x.sms) * kMathWarps * 32 * sizeof(float)));
  x.spans = static_cast<Span*>(device_alloc(kDev, 2 * sizeof(Span)));
  fill_pattern(kDev, x.src, total, kSeed);
  const double flops = 2.0 * kChains * kMathIters * kMathWarps * 32 * x.sms;
  const float want = fma_loop_host(kMathIters);
  const int reps = 7;

  run_once(x, true, false, kLdst, 1);  // warm-up
  double math_alone = run_once(x, true, false, kLdst, 1).math_us;
  for (int kind : {kLdst, kTma}) {
    // Passes so that copy_only lasts about as long as math_only.
    double one = run_once(x, false, true, kind, 1).copy_us;
    int passes = std::max(1, int(math_alone / one + 0.5));
    for (int mode = 0; mode < 3; ++mode) {      // math_only, copy_only, math_and_copy
      if (mode == 0 && kind == kTma) continue;  // math_only does not depend on the copy kind
      const bool math = mode != 1, copy = mode != 0;
      poison(kDev, x.dst, total);
      CUDA_CHECK(cudaMemset(x.out, 0xFF, size_t(x.sms) * kMathWarps * 32 * sizeof(float)));
      std::vector<double> tm, tc;
      for (int r = 0; r < reps; ++r) {
        Run t = run_once(x, math, copy, kind, passes);
        tm.push_back(t.math_us);
        tc.push_back(t.copy_us);
      }
      int ok = 1;
      if (math) {
        std::vector<float> out(size_t(x.sms) * kMathWarps * 32);
        CUDA_CHECK(
            cudaMemcpy(out.data(), x.out, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
        for (float v : out) ok &= std::memcmp(&v, &want, sizeof v) == 0;
        if (!ok) std::fprintf(stderr, "VERIFY FAILED: intra_sm math result\n");
      }
      if (copy) ok &= report_check("intra_sm copy", count_mismatches(kDev, x.dst, total, kSeed));
      Stats sm = summarize(tm), sc = summarize(tc);
      const double moved = copy ? 2.0 * double(total) * passes : 0;
      const char* mode_name = mode == 0 ? "math_only" : mode == 1 ? "copy_only" : "math_and_copy";
      csv.row("%s,%s,%d,%d,%.4g,%.4g,%s,%s,%.2f,%.1f,%d,%d", mode_name,
              mode == 0       ? "none"
              : kind == kLdst ? "ldst"
                              : "tma",
              x.sms, passes, math ? flops : 0.0, moved, stat_vals(sm).c_str(),
              stat_vals(sc).c_str(), math ? flops / sm.median * 1e-6 : 0.0,
              copy ? gbps(moved, sc.median) : 0.0, reps, ok);
    }
  }
  CUDA_CHECK(cudaFree(x.src));
  CUDA_CHECK(cudaFree(x.dst));
  CUDA_CHECK(cudaFree(x.out));
  CUDA_CHECK(cudaFree(x.spans));
  return 0;
}
