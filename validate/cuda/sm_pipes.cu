// Per-SM throughput of the special-function unit (MUFU: ex2, rcp, rsqrt, sin) and of the FP32
// and INT32 pipes on GPU 0 (sm_pipes.csv, issue 15), in operations per SM clock cycle.
//
// Each kernel runs `ctas_per_sm` CTAs of 1024 threads on every SM; each thread runs `iters`
// iterations of 8 independent chains of one instruction (ex2.approx.f32, rcp.approx.f32,
// rsqrt.approx.f32, sin.approx.f32, fma.rn.f32 or mad.lo.s32), so the pipe, not latency, binds.
// Cycles come from clock64() read by every CTA at its start and end (the SM clock whatever it is;
// the kernel's span is the earliest start to the latest end of the CTAs of one SM, max over SMs),
// and the result is written out so the compiler keeps the chains; the SASS instruction counts are
// logged by the script (MUFU.EX2, MUFU.RCP, MUFU.RSQ, MUFU.SIN, FFMA, IMAD). Each row is the median
// of 9 launches after 2 warm-ups.
#include "kernels.cuh"

using namespace mgbench;

namespace {

constexpr int kDev = 0;
constexpr int kIters = 4096;
constexpr int kChains = 8;

enum class Op { ex2, rcp, rsqrt, sin, fma, imad };

template <Op op>
__device__ __forceinline__ float step(float x) {
  float y;
  if constexpr (op == Op::ex2) asm volatile("ex2.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  if constexpr (op == Op::rcp) asm volatile("rcp.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  if constexpr (op == Op::rsqrt) asm volatile("rsqrt.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  if constexpr (op == Op::sin) asm volatile("sin.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  if constexpr (op == Op::fma)
    asm volatile("fma.rn.f32 %0, %1, %1, %2;" : "=f"(y) : "f"(x), "f"(0.25f));
  if constexpr (op == Op::imad) {
    int v = __float_as_int(x), r;
    asm volatile("mad.lo.s32 %0, %1, %1, %2;" : "=r"(r) : "r"(v), "r"(7));
    y = __int_as_float(r);
  }
  return y;
}

template <Op op>
__global__ void pipe_kernel(float seed, float* out, long long* t0, long long* t1, unsigned* smid) {
  const long long start = clock64();
  float v[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) v[c] = seed + 0.001f * float(threadIdx.x + c);
  for (int i = 0; i < kIters; ++i) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) v[c] = step<op>(v[c]);
  }
  float s = 0;
#pragma unroll
  for (int c = 0; c < kChains; ++c) s += v[c];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
  record_cta_span(start, t0, t1, smid);
}

}  // namespace

int main(int argc, char** argv) {
  CUDA_CHECK(cudaSetDevice(kDev));
  int sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, kDev));
  Csv csv(argc, argv, "sm_pipes.csv",
          "Per-SM throughput of MUFU (ex2, rcp, rsqrt, sin), FP32 FMA and INT32 IMAD on GPU 0, "
          "operations per SM clock cycle from clock64() spans",
          {kDev},
          {{"iters", std::to_string(kIters)},
           {"chains_per_thread", std::to_string(kChains)},
           {"threads_per_cta", "1024"}},
          "op,ctas_per_sm,ops_per_sm,cycles_median,ops_per_cycle_median,ops_per_cycle_min,"
          "ops_per_cycle_max,us_median,reps,ok");
  const int max_ctas = 2 * sms;
  float* out = static_cast<float*>(device_alloc(kDev, sizeof(float) * max_ctas * 1024));
  CtaSpans spans(kDev, max_ctas);
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  EventPair ev(kDev);

  auto measure = [&](const char* name, auto kernel) {
    for (int per_sm : {1, 2}) {
      const int ctas = per_sm * sms;
      std::vector<double> rates, cycles, times;
      int ok = 1;
      for (int rep = 0; rep < 11; ++rep) {
        ev.start(s);
        kernel<<<ctas, 1024, 0, s>>>(1.0f + 0.01f * rep, out, spans.t0(), spans.t1(), spans.smid());
        LAUNCH_CHECK();
        ev.stop(s);
        const double us = ev.elapsed_us();
        // From each SM's first CTA's start to its last CTA's end; the slowest SM; every SM ran
        // its share.
        bool all = true;
        const long long span = spans.slowest_sm(ctas, sms, per_sm, all);
        if (!all) ok = 0;
        if (rep < 2) continue;  // warm-up
        const double ops = double(per_sm) * 1024 * kIters * kChains;
        rates.push_back(ops / double(span));
        cycles.push_back(double(span));
        times.push_back(us);
      }
      // The results are finite (the chains ran): a NaN would still be written, so check.
      std::vector<float> host(size_t(ctas) * 1024);
      CUDA_CHECK(cudaMemcpy(host.data(), out, sizeof(float) * host.size(), cudaMemcpyDeviceToHost));
      const Stats r = summarize(rates), c = summarize(cycles), t = summarize(times);
      csv.row("%s,%d,%.0f,%.0f,%.3f,%.3f,%.3f,%.3f,%d,%d", name, per_sm,
              double(per_sm) * 1024 * kIters * kChains, c.median, r.median, r.min, r.max, t.median,
              r.n, ok);
    }
  };
  measure("ex2", pipe_kernel<Op::ex2>);
  measure("rcp", pipe_kernel<Op::rcp>);
  measure("rsqrt", pipe_kernel<Op::rsqrt>);
  measure("sin", pipe_kernel<Op::sin>);
  measure("fma", pipe_kernel<Op::fma>);
  measure("imad", pipe_kernel<Op::imad>);
  CUDA_CHECK(cudaFree(out));
  CUDA_CHECK(cudaStreamDestroy(s));
  return 0;
}
