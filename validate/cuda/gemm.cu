// cuBLAS bf16 GEMM rate by shape on GPU 0 (gemm.csv).
//
// C[M x N] = A[M x K] * B[N x K]^T, bf16 in and out, fp32 accumulation (cublasGemmEx, TN in
// column-major terms). Inputs are random in [-1, 1) (never zeros: a product on zeros ran 13 %
// faster on an H200 here); C is poisoned with NaN before the warm-up and 48 sampled entries are
// compared with a float64 reference after the timed runs. Small shapes fit in L2 and are timed
// that way on purpose: that is how they run inside real kernels' loops. Shapes run back to back,
// so large ones reach the board's power cap; the SM clock and power read right after each case
// are recorded with it.
//
// --probe: the same shapes and timing into gemm_cu_probe.csv, with the SM clock the GEMM ran at:
// beside every call a one-thread kernel on a second stream, started with it, spins for 80 % of the
// call's time and divides its clock64() cycles by its %globaltimer nanoseconds (NVML's reading
// after the call is the idle GPU's, not the running one's: validate/torch/gemm_clock.py).
#include <set>
#include <tuple>

#include "cases.hpp"
#include "clock_probe.cuh"
#include "gemm_util.cuh"

using namespace mgbench;

namespace {

constexpr int kDev = 0;

std::vector<std::tuple<int, int, int>> shapes() {
  std::set<std::tuple<int, int, int>> s;
  for (int n : {1024, 2048, 4096, 8192, 16384}) s.insert({n, n, n});
  s.insert({16384, 8192, 8192});
  for (int k : {512, 1024, 2048, 4096, 8192}) s.insert({32768, 32768, k});
  for (int k : {512, 1024, 2048}) s.insert({8192, 8192, k});
  // Skinny (decode-like) shapes: few rows against a large weight.
  for (int m : {16, 64, 128, 256, 512}) s.insert({m, 8192, 8192});
  s.insert({128, 28672, 8192});
  s.insert({8192, 128, 8192});
  // Every GEMM the overlap cases run, whole and per chunk.
  for (auto c : ag_gemm_cases()) {
    s.insert({c.m_total, c.n_local, c.k});
    for (int ch : overlap_chunks()) s.insert({c.m_total / kWorld / ch, c.n_local, c.k});
  }
  for (auto c : gemm_rs_cases()) {
    s.insert({c.m_total, c.n, c.k_total / kWorld});
    for (int ch : overlap_chunks()) s.insert({c.m_total / kWorld / ch, c.n, c.k_total / kWorld});
  }
  return {s.begin(), s.end()};
}

}  // namespace

int main(int argc, char** argv) {
  CUDA_CHECK(cudaSetDevice(kDev));
  cublasHandle_t h;
  CUBLAS_CHECK(cublasCreate(&h));
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  bool probe = false;
  for (int i = 1; i < argc; ++i) probe |= std::string(argv[i]) == "--probe";
  Csv csv(
      argc, argv, probe ? "gemm_cu_probe.csv" : "gemm.csv",
      std::string("cuBLAS bf16 GEMM on GPU 0: C[MxN] = A[MxK] * B[NxK]^T, bf16 in/out, fp32 "
                  "accumulate, random inputs") +
          (probe ? "; the SM clock each call ran at by a probe kernel beside it (--probe)" : ""),
      {kDev},
      {{"cublas_version", cublas_version_string(h)},
       {"layout", "row-major A[MxK], B[NxK], C[MxN] (cuBLAS TN)"},
       {"api", "cublasGemmEx CUBLAS_COMPUTE_32F CUBLAS_GEMM_DEFAULT, default workspace"}},
      "m,n,k,dtype,flop," + stat_cols("time_us") +
          ",tflops_median,tflops_best,reps,sm_clock_mhz_end,power_w_end" +
          (probe ? ",sm_clock_probe_mhz_median,sm_clock_probe_mhz_min,sm_clock_probe_mhz_max"
                 : "") +
          ",ok");
  Nvml nvml;
  ClockProbe clock_probe;

  auto list = shapes();
  const GemmBuffers g = alloc_gemm_buffers(kDev, list);
  bf16 *A = g.a, *B = g.b, *C = g.c;

  for (auto [m_, n_, k_] : list) {
    const int m = m_, n = n_, k = k_;  // lambdas cannot capture structured bindings in C++17
    GemmRef ref{size_t(k), 11u + uint32_t(k), 977u + uint32_t(m)};
    fill_bf16(kDev, A, m, k, 0, 0, k, ref.seed_a);
    fill_bf16(kDev, B, n, k, 0, 0, k, ref.seed_b);
    poison(kDev, C, size_t(m) * n * sizeof(bf16));
    double flop = 2.0 * m * n * k;
    RepeatOpts o;
    o.warmup = 3;
    o.min_reps = 7;
    o.max_reps = 50;
    o.budget_ms = 250;
    auto call = [&] { gemm_bf16(h, s, m, n, k, A, B, C, n); };
    if (probe) {  // the probe's length: 80 % of one warm call's time
      RepeatOpts once{3, 1, 1, 0};
      clock_probe.reset(0.8 * time_stream(kDev, s, call, once).median);
    }
    Stats st = time_stream_after(
        kDev, s,
        [&] {
          if (probe) clock_probe.beside(s);
        },
        call, o);
    CUDA_CHECK(cudaStreamSynchronize(s));
    const long clock = nvml.clock_mhz(kDev, 1, false),
               power = nvml.power_w(kDev);  // read while still hot
    std::string probed;
    if (probe) {
      const Stats mhz = summarize(clock_probe.clocks(o.warmup));
      char buf[64];
      snprintf(buf, sizeof buf, ",%.0f,%.0f,%.0f", mhz.median, mhz.min, mhz.max);
      probed = buf;
    }
    int ok = check_gemm(kDev, C, m, n, n, 0, 0, ref);
    csv.row("%d,%d,%d,bf16,%.0f,%s,%.1f,%.1f,%d,%ld,%ld%s,%d", m, n, k, flop, stat_vals(st).c_str(),
            flop / st.median * 1e-6, flop / st.min * 1e-6, st.n, clock, power, probed.c_str(), ok);
  }
  free_gemm_buffers(g);
  CUBLAS_CHECK(cublasDestroy(h));
  CUDA_CHECK(cudaStreamDestroy(s));
  return 0;
}
