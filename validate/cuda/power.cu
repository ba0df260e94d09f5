// Board power, SM clock and throughput of sustained work on GPU 0 (power.csv, power_trace.csv),
// for the power and clock model of issue 15.
//
// Each case runs its work back to back for kSeconds (two batches in flight, so the GPU never
// idles between them) while a host thread samples NVML every kSampleMs: board power (the
// driver's moving average), SM and memory clocks, temperature and the clock-event reasons.
// The steady window is every batch that starts after kSettleSeconds: its throughput comes from
// events around those batches, its mean power from the energy counter read at its two ends.
// Between cases the GPU idles kIdleSeconds, so every case starts cool.
//
// Cases: idle; cuBLAS bf16 GEMMs of several shapes (C[MxN] = A[MxK] * B[NxK]^T, fp32 accumulate,
// random inputs, checked against a float64 reference afterwards); one GEMM on fewer SMs (a
// blocker kernel holds the others: one CTA per SM with 160 KiB of shared memory, one warp
// sleeping until the case ends, its SMs counted), so the board draws less than its cap and the
// clock can stay high; an HBM copy kernel on every SM (1 GiB -> 1 GiB, 16-byte accesses,
// checked); and one GEMM with the copy kernel on CTAs of a second stream beside it (both
// throughputs recorded). Nothing changes clocks or power limits.
//
// power_fp8.csv (`--fp8`, instead of the cases above): bf16 (cuBLAS) against fp8 e4m3 GEMMs
// (cuBLASLt, bf16 out, fp32 accumulate, no fast accumulation, unit scales) of the same shapes,
// each from a cool start (after kIdleSeconds, up to kCoolOps back to back within about 20 ms:
// the boost clock) and
// sustained as above, and fp8 on fewer SMs (below the cap): what fp8 costs in power per flop,
// and the clock it then gets.
//
// power_ramp.csv (`--ramp`, instead of the cases above): how fast the clock comes down. After
// kIdleSeconds of idle, one shape's GEMMs run back to back for kRampMs with an event between every
// two, so each GEMM's time from a cool start is known (NVML refreshes its readings only every ~100
// ms, too slowly for this).
#include <cublasLt.h>
#include <cuda_fp8.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <thread>
#include <tuple>

#include "cases.hpp"
#include "clock_probe.cuh"
#include "gemm_util.cuh"

using namespace mgbench;

namespace {

constexpr int kDev = 0;
constexpr double kSeconds = 3.0;
constexpr double kSettleSeconds = 1.0;
constexpr double kIdleSeconds = 2.0;
constexpr int kSampleMs = 10;
constexpr size_t kCopyBytes = size_t(1) << 30;
constexpr double kRampMs = 1000;
constexpr int kCoolOps = 8;
constexpr size_t kLtWorkspace = size_t(32) << 20;

using fp8 = __nv_fp8_e4m3;

__global__ void fill_fp8_kernel(fp8* p, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    p[i] = fp8(hash_unit(i, seed));
}

// The logical A[rows x cols] (contiguous) as e4m3, element i = hash(i, seed) as fill_bf16's.
void fill_fp8(void* p, size_t rows, size_t cols, uint32_t seed) {
  fill_fp8_kernel<<<2048, 256>>>(static_cast<fp8*>(p), rows * cols, seed);
  LAUNCH_CHECK();
  CUDA_CHECK(cudaDeviceSynchronize());
}

float host_fp8_round(float f) { return float(fp8(f)); }

#define LT_CHECK(call) CUBLAS_CHECK(call)

// C[M x N] bf16 = A[M x K] * B[N x K]^T with A, B e4m3 (cuBLASLt's "TN" layout, the one fp8
// needs: column-major C^T = B^T' * A with B transposed), fp32 accumulate, alpha 1, beta 0.
class Fp8Gemm {
 public:
  Fp8Gemm(cublasLtHandle_t lt, int m, int n, int k, void* workspace) : lt_(lt), ws_(workspace) {
    LT_CHECK(cublasLtMatmulDescCreate(&desc_, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t t = CUBLAS_OP_T, nn = CUBLAS_OP_N;
    LT_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t));
    LT_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &nn, sizeof nn));
    LT_CHECK(cublasLtMatrixLayoutCreate(&a_, CUDA_R_8F_E4M3, k, n, k));
    LT_CHECK(cublasLtMatrixLayoutCreate(&b_, CUDA_R_8F_E4M3, k, m, k));
    LT_CHECK(cublasLtMatrixLayoutCreate(&c_, CUDA_R_16BF, n, m, n));
    cublasLtMatmulPreference_t pref;
    LT_CHECK(cublasLtMatmulPreferenceCreate(&pref));
    LT_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                  &kLtWorkspace, sizeof kLtWorkspace));
    int found = 0;
    LT_CHECK(cublasLtMatmulAlgoGetHeuristic(lt_, desc_, a_, b_, c_, c_, pref, 1, &algo_, &found));
    LT_CHECK(cublasLtMatmulPreferenceDestroy(pref));
    if (found == 0) {
      std::fprintf(stderr, "cuBLASLt has no fp8 algorithm for %d x %d x %d\n", m, n, k);
      std::exit(2);
    }
  }
  ~Fp8Gemm() {
    cublasLtMatrixLayoutDestroy(a_);
    cublasLtMatrixLayoutDestroy(b_);
    cublasLtMatrixLayoutDestroy(c_);
    cublasLtMatmulDescDestroy(desc_);
  }
  Fp8Gemm(const Fp8Gemm&) = delete;
  Fp8Gemm& operator=(const Fp8Gemm&) = delete;
  void run(cudaStream_t s, const void* A, const void* B, bf16* C) const {
    const float one = 1.0f, zero = 0.0f;
    LT_CHECK(cublasLtMatmul(lt_, desc_, &one, B, a_, A, b_, &zero, C, c_, C, c_, &algo_.algo, ws_,
                            kLtWorkspace, s));
  }

 private:
  cublasLtHandle_t lt_;
  void* ws_;
  cublasLtMatmulDesc_t desc_{};
  cublasLtMatrixLayout_t a_{}, b_{}, c_{};
  cublasLtMatmulHeuristicResult_t algo_{};
};

__global__ void copy_kernel(const int4* __restrict__ src, int4* __restrict__ dst, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    dst[i] = src[i];
}

// Holds its SM until *release is set (host-mapped memory), sleeping; records which SM.
__global__ void blocker_kernel(const volatile int* release, unsigned* sm_of_cta) {
  extern __shared__ unsigned char hold[];
  if (threadIdx.x == 0) {
    unsigned sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    sm_of_cta[blockIdx.x] = sm;
    hold[0] = 1;
  }
  while (*release == 0) __nanosleep(20000);
}

struct Sample {
  double t_ms;
  long power_mw, sm_mhz, mem_mhz, temp_c;
  unsigned long long reasons;
};

// Samples NVML on its own thread into the current case's list.
class Sampler {
 public:
  explicit Sampler(const Nvml& nvml) : nvml_(nvml), thread_([this] { loop(); }) {}
  ~Sampler() {
    stop_ = true;
    thread_.join();
  }
  void begin_case() {
    std::lock_guard<std::mutex> lock(mu_);
    samples_.clear();
    t0_ = wall_us();
  }
  std::vector<Sample> take() {
    std::lock_guard<std::mutex> lock(mu_);
    return samples_;
  }

 private:
  void loop() {
    while (!stop_) {
      Sample s{0,
               nvml_.power_mw(kDev),
               nvml_.clock_mhz(kDev, 1, false),
               nvml_.clock_mhz(kDev, 2, false),
               nvml_.temperature_c(kDev),
               nvml_.clock_event_reasons(kDev)};
      {
        std::lock_guard<std::mutex> lock(mu_);
        s.t_ms = (wall_us() - t0_) * 1e-3;
        samples_.push_back(s);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(kSampleMs));
    }
  }
  const Nvml& nvml_;
  std::mutex mu_;
  std::vector<Sample> samples_;
  double t0_ = wall_us();
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// One stream's work in batches: `enqueue` puts one op on the stream; a batch is `per_batch` ops
// between two events.
struct Work {
  cudaStream_t stream;
  std::function<void()> enqueue;
  int per_batch = 1;
  long ops = 0;          // in the steady window
  double steady_us = 0;  // event time of the steady window's batches
};

struct Window {
  double seconds = 0;  // wall time of the steady window
  long long energy_mj = -1;
  std::vector<double> probe_mhz;  // the clock probe beside each steady batch of the first Work
};

// A batch lasts about this long (batch_for); the clock probe beside one spins for 80 % of it.
constexpr double kBatchUs = 20e3;

// Runs every Work's batches for kSeconds, two batches in flight per stream, with the clock probe
// beside each batch of the first.
Window run_for(const Nvml& nvml, std::vector<Work*> work, ClockProbe& probe) {
  struct Batch {
    cudaEvent_t a, b;
    double host_start_us;
    int probe = -1;  // its clock probe's index
  };
  probe.reset(0.8 * kBatchUs);
  std::vector<std::vector<Batch>> batches(work.size());
  const double t0 = wall_us();
  double steady_t = -1;
  long long steady_e = -1;
  auto enqueue_batch = [&](size_t w) {
    Batch b{};
    CUDA_CHECK(cudaEventCreate(&b.a));
    CUDA_CHECK(cudaEventCreate(&b.b));
    b.host_start_us = wall_us();
    if (w == 0) {
      b.probe = probe.calls();
      probe.beside(work[w]->stream);
    }
    CUDA_CHECK(cudaEventRecord(b.a, work[w]->stream));
    for (int i = 0; i < work[w]->per_batch; ++i) work[w]->enqueue();
    LAUNCH_CHECK();
    CUDA_CHECK(cudaEventRecord(b.b, work[w]->stream));
    batches[w].push_back(b);
  };
  for (size_t w = 0; w < work.size(); ++w) enqueue_batch(w), enqueue_batch(w);
  std::vector<size_t> done(work.size(), 0);
  while (wall_us() - t0 < kSeconds * 1e6) {
    for (size_t w = 0; w < work.size(); ++w) {
      // The oldest unfinished batch of this stream: when it ends, queue another.
      if (cudaEventQuery(batches[w][done[w]].b) == cudaSuccess) {
        ++done[w];
        enqueue_batch(w);
      }
    }
    if (steady_t < 0 && wall_us() - t0 >= kSettleSeconds * 1e6) {
      steady_t = wall_us();
      steady_e = nvml.energy_mj(kDev);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  for (Work* w : work) CUDA_CHECK(cudaStreamSynchronize(w->stream));
  Window win;
  win.seconds = (wall_us() - steady_t) * 1e-6;
  const long long e1 = nvml.energy_mj(kDev);
  win.energy_mj = steady_e >= 0 && e1 >= 0 ? e1 - steady_e : -1;
  const std::vector<double> mhz = probe.clocks(0);
  for (size_t w = 0; w < work.size(); ++w) {
    // Batches started after the settling time: their ops, event time and clock.
    for (Batch& b : batches[w]) {
      if (b.host_start_us >= steady_t) {
        if (b.probe >= 0 && b.probe < int(mhz.size())) win.probe_mhz.push_back(mhz[b.probe]);
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, b.a, b.b));
        work[w]->ops += work[w]->per_batch;
        work[w]->steady_us += double(ms) * 1e3;
      }
      CUDA_CHECK(cudaEventDestroy(b.a));
      CUDA_CHECK(cudaEventDestroy(b.b));
    }
  }
  return win;
}

// Batch size so that one batch takes about kBatchUs.
int batch_for(cudaStream_t s, const std::function<void()>& enqueue) {
  EventPair ev(kDev);
  enqueue();  // warm-up (cuBLAS's heuristics, first launch)
  ev.start(s);
  enqueue();
  ev.stop(s);
  const double us = ev.elapsed_us();
  return std::max(1, int(kBatchUs / std::max(us, 1.0)));
}

}  // namespace

static int run_ramp(int argc, char** argv) {
  cublasHandle_t h;
  CUBLAS_CHECK(cublasCreate(&h));
  cudaStream_t s0;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking));
  const std::vector<std::tuple<int, int, int>> shapes = {
      {2048, 8192, 8192}, {8192, 8192, 8192}, {4096, 4096, 4096}, {16384, 16384, 16384}};
  const GemmBuffers g = alloc_gemm_buffers(kDev, shapes);
  bf16 *A = g.a, *B = g.b, *C = g.c;
  auto idle = [] { std::this_thread::sleep_for(std::chrono::duration<double>(kIdleSeconds)); };
  Csv ramp(argc, argv, "power_ramp.csv",
           "cuBLAS bf16 GEMMs back to back on GPU 0 after 2 s idle, each between two events: "
           "time per GEMM from a cool start",
           {kDev},
           {{"cublas_version", cublas_version_string(h)}, {"ramp_ms", std::to_string(kRampMs)}},
           "m,n,k,index,t_start_us,us,tflops");
  for (auto [m, n, k] : shapes) {
    fill_bf16(kDev, A, m, k, 0, 0, k, 5u);
    fill_bf16(kDev, B, n, k, 0, 0, k, 6u);
    gemm_bf16(h, s0, m, n, k, A, B, C, n);  // cuBLAS's first call (heuristics, module load)
    float ms = 0;
    {
      EventPair ev(kDev);
      ev.start(s0);
      gemm_bf16(h, s0, m, n, k, A, B, C, n);
      ev.stop(s0);
      ms = float(ev.elapsed_us() * 1e-3);
    }
    const int count = std::max(8, int(kRampMs / std::max(ms, 0.01f)));
    std::vector<cudaEvent_t> ev(size_t(count) + 1);
    for (auto& e : ev) CUDA_CHECK(cudaEventCreate(&e));
    CUDA_CHECK(cudaStreamSynchronize(s0));
    idle();
    for (int i = 0; i < count; ++i) {
      CUDA_CHECK(cudaEventRecord(ev[size_t(i)], s0));
      gemm_bf16(h, s0, m, n, k, A, B, C, n);
    }
    CUDA_CHECK(cudaEventRecord(ev[size_t(count)], s0));
    CUDA_CHECK(cudaStreamSynchronize(s0));
    const double flop = 2.0 * m * n * k;
    for (int i = 0; i < count; ++i) {
      float t0 = 0, d = 0;
      CUDA_CHECK(cudaEventElapsedTime(&t0, ev[0], ev[size_t(i)]));
      CUDA_CHECK(cudaEventElapsedTime(&d, ev[size_t(i)], ev[size_t(i) + 1]));
      ramp.row("%d,%d,%d,%d,%.1f,%.3f,%.1f", m, n, k, i, double(t0) * 1e3, double(d) * 1e3,
               flop / (double(d) * 1e3) * 1e-6);
    }
    for (auto& e : ev) CUDA_CHECK(cudaEventDestroy(e));
  }

  free_gemm_buffers(g);
  CUBLAS_CHECK(cublasDestroy(h));
  CUDA_CHECK(cudaStreamDestroy(s0));
  return 0;
}

// `fp8`: power_fp8.csv's cases instead of power.csv's.
static int run_cases(int argc, char** argv, bool fp8) {
  cublasHandle_t h;
  CUBLAS_CHECK(cublasCreate(&h));
  cublasLtHandle_t lt;
  LT_CHECK(cublasLtCreate(&lt));
  void* lt_workspace = device_alloc(kDev, kLtWorkspace);
  cudaStream_t s0, s1;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  Nvml nvml;
  Csv csv(argc, argv, fp8 ? "power_fp8.csv" : "power.csv",
          fp8 ? "bf16 and fp8 GEMMs on GPU 0, from a cool start (cool rows: up to kCoolOps back to "
                "back "
                "after 2 s idle) and sustained (steady window): throughput, board power and clocks"
              : "Sustained work on GPU 0 (cuBLAS bf16 GEMMs, an HBM copy kernel, both): "
                "throughput, board power and clocks in the steady window",
          {kDev},
          {{"cublas_version", cublas_version_string(h)},
           {"power_limit_w", std::to_string(nvml.power_limit_w(kDev))},
           {"seconds_per_case", std::to_string(kSeconds)},
           {"settle_seconds", std::to_string(kSettleSeconds)},
           {"sample_ms", std::to_string(kSampleMs)},
           {"copy_bytes", std::to_string(kCopyBytes)},
           {"cool_ops", std::to_string(kCoolOps)},
           {"api",
            "bf16: cublasGemmEx CUBLAS_COMPUTE_32F CUBLAS_GEMM_DEFAULT, bf16 in/out, TN; "
            "fp8: cublasLtMatmul e4m3 x e4m3 -> bf16, CUBLAS_COMPUTE_32F, TN, unit scales, "
            "fast accumulation off, 32 MiB workspace, the first heuristic"}},
          "case,m,n,k,dtype,gemm_sms,copy_ctas,gemm_ops,gemm_us_per_op,gemm_tflops,copy_ops,"
          "copy_us_per_op,copy_gbps,steady_s,power_w_energy,power_w_median,sm_mhz_median,"
          "sm_mhz_p10,sm_mhz_p90,sm_mhz_min,sm_mhz_max,mem_mhz_median,temp_c_max,reasons_or,"
          "samples,sm_mhz_probe_median,sm_mhz_probe_p10,sm_mhz_probe_p90,probes,ok");
  Csv trace(argc, argv, fp8 ? "power_fp8_trace.csv" : "power_trace.csv",
            "NVML samples during each case of power.csv (t from the case's start)", {kDev}, {},
            "case,t_ms,power_w,sm_mhz,mem_mhz,temp_c,reasons");
  Sampler sampler(nvml);
  ClockProbe probe;

  // The largest GEMM's operands, and the copy's buffers.
  const std::vector<std::tuple<int, int, int>> shapes = {
      {16384, 16384, 16384}, {8192, 8192, 8192}, {4096, 4096, 4096},  {2048, 8192, 8192},
      {8192, 8192, 2048},    {512, 8192, 8192},  {32768, 32768, 4096}};
  const GemmBuffers g = alloc_gemm_buffers(kDev, shapes);
  bf16 *A = g.a, *B = g.b, *C = g.c;
  void* src = device_alloc(kDev, kCopyBytes);
  void* dst = device_alloc(kDev, kCopyBytes);
  fill_pattern(kDev, src, kCopyBytes, 4242u);
  const size_t n16 = kCopyBytes / 16;
  int sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, kDev));

  auto report = [&](const char* name, const char* dtype, int m, int n, int k, int gemm_sms,
                    int copy_ctas, const Work* gemm, const Work* copy, const Window& win, int ok) {
    std::vector<Sample> all = sampler.take();
    std::vector<double> power, sm, mem;
    long temp = -1;
    unsigned long long reasons = 0;
    for (const Sample& x : all) {
      trace.row("%s,%.1f,%.3f,%ld,%ld,%ld,0x%llx", name, x.t_ms, x.power_mw * 1e-3, x.sm_mhz,
                x.mem_mhz, x.temp_c, x.reasons);
      if (x.t_ms < kSettleSeconds * 1e3) continue;
      power.push_back(x.power_mw * 1e-3);
      sm.push_back(double(x.sm_mhz));
      mem.push_back(double(x.mem_mhz));
      temp = std::max(temp, x.temp_c);
      reasons |= x.reasons;
    }
    const Stats p = summarize(power), c = summarize(sm), mm = summarize(mem),
                pr = summarize(win.probe_mhz);
    const double flop = 2.0 * m * n * k;
    const double g_us = gemm && gemm->ops ? gemm->steady_us / gemm->ops : 0;
    const double c_us = copy && copy->ops ? copy->steady_us / copy->ops : 0;
    csv.row(
        "%s,%d,%d,%d,%s,%d,%d,%ld,%.3f,%.1f,%ld,%.3f,%.1f,%.3f,%.1f,%.1f,%.0f,%.0f,%.0f,%.0f,%.0f,"
        "%.0f,%ld,0x%llx,%zu,%.0f,%.0f,%.0f,%zu,%d",
        name, m, n, k, gemm ? dtype : "-", gemm_sms, copy_ctas, gemm ? gemm->ops : 0L, g_us,
        g_us > 0 ? flop / g_us * 1e-6 : 0.0, copy ? copy->ops : 0L, c_us,
        c_us > 0 ? 2.0 * kCopyBytes / c_us * 1e-3 : 0.0, win.seconds,
        win.energy_mj >= 0 ? win.energy_mj * 1e-3 / win.seconds : -1.0, p.median, c.median, c.p10,
        c.p90, c.min, c.max, mm.median, temp, reasons, power.size(), pr.median, pr.p10, pr.p90,
        win.probe_mhz.size(), ok);
  };
  auto idle = [&] { std::this_thread::sleep_for(std::chrono::duration<double>(kIdleSeconds)); };

  // Idle: what the board draws doing nothing.
  idle();
  sampler.begin_case();
  {
    const double t0 = wall_us();
    const long long e0 = nvml.energy_mj(kDev);
    std::this_thread::sleep_for(std::chrono::duration<double>(kSeconds));
    Window win;
    win.seconds = (wall_us() - t0) * 1e-6;
    const long long e1 = nvml.energy_mj(kDev);
    win.energy_mj = e0 >= 0 && e1 >= 0 ? e1 - e0 : -1;
    report("idle", "-", 0, 0, 0, 0, 0, nullptr, nullptr, win, 1);
  }

  std::unique_ptr<Fp8Gemm> lt_gemm;  // the fp8 case's plan
  auto gemm_work = [&](bool use_fp8, int m, int n, int k, cudaStream_t s) {
    Work w;
    w.stream = s;
    if (use_fp8) {
      lt_gemm = std::make_unique<Fp8Gemm>(lt, m, n, k, lt_workspace);
      const Fp8Gemm* plan = lt_gemm.get();
      w.enqueue = [=] { plan->run(s, A, B, C); };
    } else {
      w.enqueue = [=] { gemm_bf16(h, s, m, n, k, A, B, C, n); };
    }
    return w;
  };
  auto copy_work = [&](int ctas, cudaStream_t s) {
    Work w;
    w.stream = s;
    w.enqueue = [=] {
      copy_kernel<<<ctas, 1024, 0, s>>>(static_cast<const int4*>(src), static_cast<int4*>(dst),
                                        n16);
    };
    return w;
  };
  // Host-mapped release flag and the blockers' SM ids.
  int* release = nullptr;
  CUDA_CHECK(cudaHostAlloc(&release, sizeof(int), cudaHostAllocMapped));
  int* release_dev = nullptr;
  CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&release_dev), release, 0));
  unsigned* sm_of_cta = static_cast<unsigned*>(device_alloc(kDev, sizeof(unsigned) * 1024));
  CUDA_CHECK(cudaFuncSetAttribute(blocker_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  160 * 1024));
  cudaStream_t s2;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));

  // gemm_sms < sms: blockers hold the other SMs for the whole case (and its batch sizing).
  // `cool`: kCoolOps GEMMs back to back after the idle instead of the sustained window.
  auto gemm_case = [&](const char* name, bool use_fp8, int m, int n, int k, int gemm_sms,
                       int copy_ctas, bool cool = false) {
    const int blockers = sms - gemm_sms;
    GemmRef ref{size_t(k), 11u + uint32_t(k), 977u + uint32_t(m)};
    if (use_fp8) {
      ref.round = host_fp8_round;
      fill_fp8(A, size_t(m), size_t(k), ref.seed_a);
      fill_fp8(B, size_t(n), size_t(k), ref.seed_b);
    } else {
      fill_bf16(kDev, A, m, k, 0, 0, k, ref.seed_a);
      fill_bf16(kDev, B, n, k, 0, 0, k, ref.seed_b);
    }
    poison(kDev, C, size_t(m) * n * sizeof(bf16));
    poison(kDev, dst, kCopyBytes);
    // After the fills (they synchronise the device): nothing below may wait for the blockers.
    if (blockers > 0) {
      *release = 0;
      blocker_kernel<<<blockers, 32, 160 * 1024, s2>>>(release_dev, sm_of_cta);
      LAUNCH_CHECK();
      std::this_thread::sleep_for(std::chrono::milliseconds(50));  // all resident
    }
    Work g = gemm_work(use_fp8, m, n, k, s0);
    g.per_batch = batch_for(s0, g.enqueue);
    Work c = copy_work(copy_ctas > 0 ? copy_ctas : 1, s1);
    if (copy_ctas > 0) c.per_batch = batch_for(s1, c.enqueue);
    CUDA_CHECK(cudaStreamSynchronize(s0));
    CUDA_CHECK(cudaStreamSynchronize(s1));
    idle();
    sampler.begin_case();
    std::vector<Work*> work = {&g};
    if (copy_ctas > 0) work.push_back(&c);
    Window win;
    if (cool) {  // the mean of at most kCoolOps GEMMs within about 20 ms: the boost clock
      const int ops = std::min(kCoolOps, std::max(2, g.per_batch));
      cudaEvent_t ev[2];
      for (auto& e : ev) CUDA_CHECK(cudaEventCreate(&e));
      const double t0 = wall_us();
      probe.reset(0.8 * kBatchUs * ops / g.per_batch);  // 80 % of the ops' time
      probe.beside(s0);
      CUDA_CHECK(cudaEventRecord(ev[0], s0));
      for (int i = 0; i < ops; ++i) g.enqueue();
      CUDA_CHECK(cudaEventRecord(ev[1], s0));
      CUDA_CHECK(cudaStreamSynchronize(s0));
      win.seconds = (wall_us() - t0) * 1e-6;
      float ms = 0;
      CUDA_CHECK(cudaEventElapsedTime(&ms, ev[0], ev[1]));
      g.ops = ops;
      g.steady_us = double(ms) * 1e3;
      win.probe_mhz = probe.clocks(0);
      for (auto& e : ev) CUDA_CHECK(cudaEventDestroy(e));
    } else {
      win = run_for(nvml, work, probe);
    }
    int ok = 1;
    if (blockers > 0) {
      *release = 1;
      CUDA_CHECK(cudaStreamSynchronize(s2));
      std::vector<unsigned> ids(size_t(blockers), 0);
      CUDA_CHECK(
          cudaMemcpy(ids.data(), sm_of_cta, sizeof(unsigned) * ids.size(), cudaMemcpyDeviceToHost));
      std::sort(ids.begin(), ids.end());
      const bool distinct = std::unique(ids.begin(), ids.end()) == ids.end();
      if (!distinct) std::fprintf(stderr, "%s: blockers shared an SM\n", name);
      ok &= distinct ? 1 : 0;
    }
    ok &= check_gemm(kDev, C, m, n, n, 0, 0, ref);
    if (copy_ctas > 0) ok &= report_check(name, count_mismatches(kDev, dst, kCopyBytes, 4242u));
    report(name, use_fp8 ? "fp8" : "bf16", m, n, k, gemm_sms, copy_ctas, &g,
           copy_ctas > 0 ? &c : nullptr, win, ok);
  };

  if (fp8) {
    const std::vector<std::tuple<int, int, int>> fp8_shapes = {{8192, 8192, 8192},
                                                               {4096, 4096, 4096},
                                                               {2048, 8192, 8192},
                                                               {8192, 8192, 2048},
                                                               {16384, 16384, 16384}};
    for (auto [m, n, k] : fp8_shapes)
      for (bool f : {false, true}) {
        gemm_case("cool", f, m, n, k, sms, 0, true);
        gemm_case("gemm", f, m, n, k, sms, 0);
      }
    // fp8 on fewer SMs, below the cap: its power per flop at the boost clock.
    for (int g : {16, 33, 66}) gemm_case("gemm_on_sms", true, 8192, 8192, 8192, g, 0);
    gemm_case("gemm_on_sms", false, 8192, 8192, 8192, 33, 0);
  } else {
    for (auto [m, n, k] : shapes) gemm_case("gemm", false, m, n, k, sms, 0);
    // The 8192^3 GEMM on fewer SMs: power below the cap, and the clock it then keeps.
    for (int g : {16, 33, 66, 99}) gemm_case("gemm_on_sms", false, 8192, 8192, 8192, g, 0);
  }

  // HBM alone: the copy on every SM (4 CTAs of 1024 threads each would not fit; 2 per SM do).
  if (!fp8) {
    poison(kDev, dst, kCopyBytes);
    Work c = copy_work(2 * sms, s1);
    c.per_batch = batch_for(s1, c.enqueue);
    CUDA_CHECK(cudaDeviceSynchronize());
    idle();
    sampler.begin_case();
    const Window win = run_for(nvml, {&c}, probe);
    const int ok = report_check("copy", count_mismatches(kDev, dst, kCopyBytes, 4242u));
    report("copy", "-", 0, 0, 0, 0, 2 * sms, nullptr, &c, win, ok);
  }

  // A GEMM beside the copy on 16 and on 66 CTAs of another stream.
  if (!fp8) {
    gemm_case("gemm_beside_copy", false, 8192, 8192, 8192, sms, 16);
    gemm_case("gemm_beside_copy", false, 8192, 8192, 8192, sms, 66);
  }

  lt_gemm.reset();
  free_gemm_buffers(g);
  CUDA_CHECK(cudaFree(src));
  CUDA_CHECK(cudaFree(dst));
  CUDA_CHECK(cudaFree(lt_workspace));
  LT_CHECK(cublasLtDestroy(lt));
  CUBLAS_CHECK(cublasDestroy(h));
  CUDA_CHECK(cudaStreamDestroy(s0));
  CUDA_CHECK(cudaStreamDestroy(s1));
  CUDA_CHECK(cudaStreamDestroy(s2));
  CUDA_CHECK(cudaFree(sm_of_cta));
  CUDA_CHECK(cudaFreeHost(release));
  return 0;
}

int main(int argc, char** argv) {
  CUDA_CHECK(cudaSetDevice(kDev));
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--ramp") == 0) return run_ramp(argc, argv);
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--fp8") == 0) return run_cases(argc, argv, true);
  return run_cases(argc, argv, false);
}
