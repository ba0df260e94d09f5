// A copy warp beside math warps in the same CTA on GPU 0 (intra_sm.csv), for issue 9's intra-SM
// overlap model: what does a communication role take from the math roles of its SM?
//
// One CTA per SM on all SMs (kExclusiveSmem of shared memory), 8 math warps + 1 copy warp
// (288 threads). Math warps run either fma.cuh's loop on the FP32 pipes (math_kind fma; known
// flops, result checked bit for bit) or a loop of tensor-core mma.sync m16n8k16 bf16 -> f32 on
// register operands (math_kind mma: 8 independent accumulators per warp, all-ones operands, so
// every accumulator element ends at exactly 16 x steps, checked). The copy warp moves HBM -> HBM,
// its CTA's 4 MiB slice `passes` times:
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
constexpr int kMmaIters = 30000;
constexpr int kMmaChains = 8;
constexpr double kMmaFlops = 2.0 * 16 * 8 * 16;  // one m16n8k16
constexpr int kCopyUnroll = 8;
constexpr int kRing = 4;
constexpr uint32_t kMsg = 16 * 1024;

struct Span {
  unsigned long long start, end;
};

enum Kind : int { kLdst = 0, kTma = 1 };
enum Math : int { kFma = 0, kMma = 1 };

// kMmaChains independent accumulators, each D = A x B + D per step with A, B all ones (bf16
// 0x3F80 pairs, passed in so nothing folds): every element of D grows by 16 per step. Returns 1
// when every element of every accumulator of this thread is exactly 16 x iters, else 0.
__device__ float mma_loop(int iters, uint32_t one_pair) {
  float d[kMmaChains][4];
#pragma unroll
  for (int c = 0; c < kMmaChains; ++c) d[c][0] = d[c][1] = d[c][2] = d[c][3] = 0.0f;
  const uint32_t a = one_pair, b = one_pair;
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int c = 0; c < kMmaChains; ++c)
      asm volatile(
          "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
          "{%8,%9}, {%0,%1,%2,%3};"
          : "+f"(d[c][0]), "+f"(d[c][1]), "+f"(d[c][2]), "+f"(d[c][3])
          : "r"(a), "r"(a), "r"(a), "r"(a), "r"(b), "r"(b));
  }
  const float want = 16.0f * float(iters);
  bool ok = true;
#pragma unroll
  for (int c = 0; c < kMmaChains; ++c)
    ok &= d[c][0] == want && d[c][1] == want && d[c][2] == want && d[c][3] == want;
  return ok ? 1.0f : 0.0f;
}

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
    intra_kernel(int do_math, int math_kind, uint32_t one_pair, int do_copy, int kind, int passes,
                 const char* src, char* dst, float* out, Span* spans) {
  extern __shared__ __align__(128) unsigned char ring[];
  __shared__ __align__(8) uint64_t bar[kRing];
  const int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
  if (warp < kMathWarps) {
    if (!do_math) return;
    if (threadIdx.x == 0) atomicMin(&spans[0].start, globaltimer_ns());
    float r = math_kind == kFma ? fma_loop(kMathIters) : mma_loop(kMmaIters, one_pair);
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

Run run_once(Ctx& x, bool math, int math_kind, bool copy, int kind, int passes) {
  Span init[2] = {{~0ull, 0}, {~0ull, 0}};
  CUDA_CHECK(cudaMemcpy(x.spans, init, sizeof init, cudaMemcpyHostToDevice));
  intra_kernel<<<x.sms, (kMathWarps + 1) * 32, kExclusiveSmem>>>(
      math, math_kind, 0x3F803F80u, copy, kind, passes, x.src, x.dst, x.out, x.spans);
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
  Csv csv(
      argc, argv, "intra_sm.csv",
      "8 math warps (FP32 FMA or tensor-core mma.sync) and 1 HBM->HBM copy warp in one CTA per "
      "SM on all SMs of GPU 0: math time and copy rate, together and alone; see intra_sm.cu",
      {kDev},
      {{"math_fma", "8 warps x 32 threads, 8 FMA chains per thread, 240000 steps"},
       {"math_mma", "8 warps, 8 accumulators per warp, mma.sync m16n8k16 bf16 -> f32, 30000 steps"},
       {"copy_ldst", "1 warp, 16-byte ld.cg loads, 8 in flight per lane"},
       {"copy_tma", "lane 0 of 1 warp, ring of 4 x 16 KiB bulk copies"},
       {"slice", "4 MiB per CTA, copied `passes` times"}},
      "mode,math_kind,copy_kind,ctas,passes,math_flops,copy_bytes_moved," + stat_cols("math_us") +
          "," + stat_cols("copy_us") + ",math_tflops_median,copy_gbps_median,reps,ok");
  allow_dynamic_smem(intra_kernel);
  const size_t total = size_t(x.sms) * kSlice;
  x.src = static_cast<char*>(device_alloc(kDev, total));
  x.dst = static_cast<char*>(device_alloc(kDev, total));
  x.out = static_cast<float*>(device_alloc(kDev, size_t(x.sms) * kMathWarps * 32 * sizeof(float)));
  x.spans = static_cast<Span*>(device_alloc(kDev, 2 * sizeof(Span)));
  fill_pattern(kDev, x.src, total, kSeed);
  const double fma_flops = 2.0 * kChains * kMathIters * kMathWarps * 32 * x.sms;
  const double mma_flops = kMmaFlops * kMmaChains * kMmaIters * kMathWarps * x.sms;
  const float fma_want = fma_loop_host(kMathIters);
  const int reps = 7;

  for (int math_kind : {kFma, kMma}) {
    const double flops = math_kind == kFma ? fma_flops : mma_flops;
    const float want = math_kind == kFma ? fma_want : 1.0f;
    run_once(x, true, math_kind, false, kLdst, 1);  // warm-up
    const double math_alone = run_once(x, true, math_kind, false, kLdst, 1).math_us;
    for (int kind : {kLdst, kTma}) {
      // Passes so that copy_only lasts about as long as math_only.
      const double one = run_once(x, false, math_kind, true, kind, 1).copy_us;
      const int passes = std::max(1, int(math_alone / one + 0.5));
      for (int mode = 0; mode < 3; ++mode) {      // math_only, copy_only, math_and_copy
        if (mode == 0 && kind == kTma) continue;  // math_only does not depend on the copy kind
        const bool math = mode != 1, copy = mode != 0;
        poison(kDev, x.dst, total);
        CUDA_CHECK(cudaMemset(x.out, 0xFF, size_t(x.sms) * kMathWarps * 32 * sizeof(float)));
        std::vector<double> tm, tc;
        for (int r = 0; r < reps; ++r) {
          Run t = run_once(x, math, math_kind, copy, kind, passes);
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
        csv.row("%s,%s,%s,%d,%d,%.4g,%.4g,%s,%s,%.2f,%.1f,%d,%d", mode_name,
                math_kind == kFma ? "fma" : "mma",
                mode == 0       ? "none"
                : kind == kLdst ? "ldst"
                                : "tma",
                x.sms, passes, math ? flops : 0.0, moved, stat_vals(sm).c_str(),
                stat_vals(sc).c_str(), math ? flops / sm.median * 1e-6 : 0.0,
                copy ? gbps(moved, sc.median) : 0.0, reps, ok);
      }
    }
  }
  CUDA_CHECK(cudaFree(x.src));
  CUDA_CHECK(cudaFree(x.dst));
  CUDA_CHECK(cudaFree(x.out));
  CUDA_CHECK(cudaFree(x.spans));
  return 0;
}
