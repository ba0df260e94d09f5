// Helpers shared by the mgsim H200 measurement programs: error checks, the one timing loop
// (warm-up, repeats, median/min/max/p10/p90), CSV files with a metadata header, data patterns
// that let every program verify what it moved, and peer-access setup.
//
// These are stand-alone measurement programs, not library code: a failed CUDA call prints where
// and exits with status 2, so a broken run can never be mistaken for a slow one.
#pragma once

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <utility>
#include <vector>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t err_ = (call);                                                  \
    if (err_ != cudaSuccess) {                                                  \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, \
                   cudaGetErrorString(err_));                                   \
      std::exit(2);                                                             \
    }                                                                           \
  } while (0)

// After every kernel launch: catches bad launch configurations at once.
#define LAUNCH_CHECK() CUDA_CHECK(cudaGetLastError())

namespace mgbench {

constexpr size_t KiB = 1024;
constexpr size_t MiB = 1024 * KiB;
constexpr size_t GiB = 1024 * MiB;

// ---------------------------------------------------------------------------------------------
// Statistics over repeated timings.
struct Stats {
  double median = 0, min = 0, max = 0, p10 = 0, p90 = 0;
  int n = 0;
};

inline double quantile_sorted(const std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  double pos = q * double(v.size() - 1);
  size_t lo = size_t(pos);
  size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - double(lo));
}

inline Stats summarize(std::vector<double> v) {
  Stats s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.n = int(v.size());
  s.min = v.front();
  s.max = v.back();
  s.median = quantile_sorted(v, 0.5);
  s.p10 = quantile_sorted(v, 0.1);
  s.p90 = quantile_sorted(v, 0.9);
  return s;
}

// How many times to run a case. Repeats stop at max_reps or once budget_ms of measured time has
// passed, but never before min_reps: small cases get many repeats, a 50 ms case gets a few.
struct RepeatOpts {
  int warmup = 2;
  int min_reps = 5;
  int max_reps = 30;
  double budget_ms = 200;
};

// The one timing loop. `once` runs one repetition and returns its time in microseconds.
template <class F>
Stats repeat(F&& once, RepeatOpts o = {}) {
  for (int i = 0; i < o.warmup; ++i) once();
  std::vector<double> t;
  double total_us = 0;
  while (int(t.size()) < o.max_reps &&
         (int(t.size()) < o.min_reps || total_us < o.budget_ms * 1e3)) {
    double us = once();
    t.push_back(us);
    total_us += us;
  }
  return summarize(t);
}

// Runs on `device` and restores the caller's current device.
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    CUDA_CHECK(cudaGetDevice(&prev_));
    if (prev_ != device) CUDA_CHECK(cudaSetDevice(device));
    switched_ = prev_ != device;
  }
  ~DeviceScope() {
    if (switched_) cudaSetDevice(prev_);
  }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int prev_ = 0;
  bool switched_ = false;
};

// A start/stop pair of CUDA events on one device. Events belong to the device that is current
// when they are created, so the constructor switches to `device`.
class EventPair {
 public:
  explicit EventPair(int device) : device_(device) {
    DeviceScope ds(device);
    CUDA_CHECK(cudaEventCreate(&start_));
    CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~EventPair() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;

  // `s` must be a stream of this pair's device.
  void start(cudaStream_t s) {
    DeviceScope ds(device_);
    CUDA_CHECK(cudaEventRecord(start_, s));
  }
  void stop(cudaStream_t s) {
    DeviceScope ds(device_);
    CUDA_CHECK(cudaEventRecord(stop_, s));
  }
  cudaEvent_t start_event() const { return start_; }
  // Waits for the stop event and returns stop - start in microseconds.
  double elapsed_us() {
    CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return double(ms) * 1e3;
  }

 private:
  int device_;
  cudaEvent_t start_{}, stop_{};
};

// Times work that `enqueue` puts on one stream, between events, with repeat(); `before` is
// enqueued ahead of the start event in every repetition (an L2 flush), untimed.
template <class B, class F>
Stats time_stream_after(int device, cudaStream_t s, B&& before, F&& enqueue, RepeatOpts o = {}) {
  EventPair ev(device);
  return repeat(
      [&] {
        before();
        ev.start(s);
        enqueue();
        LAUNCH_CHECK();
        ev.stop(s);
        return ev.elapsed_us();
      },
      o);
}

template <class F>
Stats time_stream(int device, cudaStream_t s, F&& enqueue, RepeatOpts o = {}) {
  return time_stream_after(
      device, s, [] {}, enqueue, o);
}

inline double wall_us() {
  using namespace std::chrono;
  return double(duration_cast<nanoseconds>(steady_clock::now().time_since_epoch()).count()) * 1e-3;
}

// ---------------------------------------------------------------------------------------------
// Clocks and driver version through NVML, loaded at run time so that the programs build and link
// without the NVML library (CI has nvcc but no driver). Missing NVML reads as "unknown".
class Nvml {
 public:
  Nvml() {
    lib_ = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    if (!lib_) return;
    init_ = reinterpret_cast<int (*)()>(dlsym(lib_, "nvmlInit_v2"));
    by_pci_ = reinterpret_cast<int (*)(const char*, void**)>(
        dlsym(lib_, "nvmlDeviceGetHandleByPciBusId_v2"));
    clock_ =
        reinterpret_cast<int (*)(void*, int, unsigned*)>(dlsym(lib_, "nvmlDeviceGetClockInfo"));
    max_clock_ =
        reinterpret_cast<int (*)(void*, int, unsigned*)>(dlsym(lib_, "nvmlDeviceGetMaxClockInfo"));
    driver_ = reinterpret_cast<int (*)(char*, unsigned)>(dlsym(lib_, "nvmlSystemGetDriverVersion"));
    power_ = reinterpret_cast<int (*)(void*, unsigned*)>(dlsym(lib_, "nvmlDeviceGetPowerUsage"));
    energy_ = reinterpret_cast<int (*)(void*, unsigned long long*)>(
        dlsym(lib_, "nvmlDeviceGetTotalEnergyConsumption"));
    temperature_ =
        reinterpret_cast<int (*)(void*, int, unsigned*)>(dlsym(lib_, "nvmlDeviceGetTemperature"));
    reasons_ = reinterpret_cast<int (*)(void*, unsigned long long*)>(
        dlsym(lib_, "nvmlDeviceGetCurrentClocksEventReasons"));
    if (!reasons_)  // the older name of the same call
      reasons_ = reinterpret_cast<int (*)(void*, unsigned long long*)>(
          dlsym(lib_, "nvmlDeviceGetCurrentClocksThrottleReasons"));
    power_limit_ =
        reinterpret_cast<int (*)(void*, unsigned*)>(dlsym(lib_, "nvmlDeviceGetEnforcedPowerLimit"));
    ok_ = init_ && by_pci_ && clock_ && max_clock_ && driver_ && init_() == 0;
  }
  std::string driver_version() const {
    char buf[96] = {0};
    if (!ok_ || driver_(buf, sizeof buf) != 0) return "unknown";
    return buf;
  }
  // kind: 1 = SM clock, 2 = memory clock (NVML_CLOCK_SM, NVML_CLOCK_MEM). Returns MHz or -1.
  long clock_mhz(int cuda_device, int kind, bool max) const {
    void* h = handle(cuda_device);
    unsigned v = 0;
    if (!h) return -1;
    int rc = max ? max_clock_(h, kind, &v) : clock_(h, kind, &v);
    return rc == 0 ? long(v) : -1;
  }
  // Board power draw in watts, or -1. Large GEMMs run into the 700 W cap and lower the SM clock,
  // so the files that time them record clock and power right after each case.
  long power_w(int cuda_device) const {
    void* h = handle(cuda_device);
    unsigned mw = 0;
    if (!h || !power_ || power_(h, &mw) != 0) return -1;
    return long(mw / 1000);
  }
  // Board power in milliwatts (a moving average the driver keeps), or -1.
  long power_mw(int cuda_device) const {
    void* h = handle(cuda_device);
    unsigned mw = 0;
    if (!h || !power_ || power_(h, &mw) != 0) return -1;
    return long(mw);
  }
  // Energy since the driver loaded, in millijoules, or -1: the mean power over an interval is
  // exact from two readings, where a power sample is an average over the driver's own window.
  long long energy_mj(int cuda_device) const {
    void* h = handle(cuda_device);
    unsigned long long mj = 0;
    if (!h || !energy_ || energy_(h, &mj) != 0) return -1;
    return static_cast<long long>(mj);
  }
  // GPU die temperature in degrees C (NVML_TEMPERATURE_GPU), or -1.
  long temperature_c(int cuda_device) const {
    void* h = handle(cuda_device);
    unsigned c = 0;
    if (!h || !temperature_ || temperature_(h, 0, &c) != 0) return -1;
    return long(c);
  }
  // Why the clocks are below their maximum now (nvmlClocksEventReason bits: 0x4 software power
  // cap, 0x20 software thermal, 0x40 hardware thermal, 0x80 hardware power brake, 0x1 idle), or
  // ~0 when unknown.
  unsigned long long clock_event_reasons(int cuda_device) const {
    void* h = handle(cuda_device);
    unsigned long long r = 0;
    if (!h || !reasons_ || reasons_(h, &r) != 0) return ~0ull;
    return r;
  }
  // The power limit the driver enforces, in watts, or -1.
  long power_limit_w(int cuda_device) const {
    void* h = handle(cuda_device);
    unsigned mw = 0;
    if (!h || !power_limit_ || power_limit_(h, &mw) != 0) return -1;
    return long(mw / 1000);
  }

 private:
  void* handle(int cuda_device) const {
    if (!ok_) return nullptr;
    char pci[64];
    if (cudaDeviceGetPCIBusId(pci, sizeof pci, cuda_device) != cudaSuccess) return nullptr;
    void* h = nullptr;
    return by_pci_(pci, &h) == 0 ? h : nullptr;
  }
  void* lib_ = nullptr;
  bool ok_ = false;
  int (*init_)() = nullptr;
  int (*by_pci_)(const char*, void**) = nullptr;
  int (*clock_)(void*, int, unsigned*) = nullptr;
  int (*max_clock_)(void*, int, unsigned*) = nullptr;
  int (*driver_)(char*, unsigned) = nullptr;
  int (*power_)(void*, unsigned*) = nullptr;
  int (*energy_)(void*, unsigned long long*) = nullptr;
  int (*temperature_)(void*, int, unsigned*) = nullptr;
  int (*reasons_)(void*, unsigned long long*) = nullptr;
  int (*power_limit_)(void*, unsigned*) = nullptr;
};

// ---------------------------------------------------------------------------------------------
// CSV output: `# key: value` metadata lines, one header row with units in the column names, then
// one row per case, flushed at once so a run cut short still leaves every finished case.
using Meta = std::vector<std::pair<std::string, std::string>>;

inline std::string command_line(int argc, char** argv) {
  std::string cmd;
  const char* base = std::strrchr(argv[0], '/');
  cmd = base ? base + 1 : argv[0];
  for (int i = 1; i < argc; ++i) cmd += std::string(" ") + argv[i];
  return cmd;
}

inline std::string utc_now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

// Reads --out DIR (default "."), the folder the CSV files are written to.
inline std::string out_dir(int argc, char** argv) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--out") == 0) return argv[i + 1];
  return ".";
}

inline Meta device_meta(const std::vector<int>& devices) {
  Meta m;
  Nvml nvml;
  int driver = 0, runtime = 0, count = 0;
  CUDA_CHECK(cudaDriverGetVersion(&driver));
  CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  CUDA_CHECK(cudaGetDeviceCount(&count));
  m.push_back({"driver_version", nvml.driver_version()});
  m.push_back({"cuda_driver_api_version", std::to_string(driver)});
  m.push_back({"cuda_runtime_version", std::to_string(runtime)});
  m.push_back({"visible_gpus", std::to_string(count)});
  // Set by scripts/measure_h200.sh, so each file names the script that produced it.
  if (const char* by = std::getenv("MGSIM_LAUNCHED_BY")) m.push_back({"launched_by", by});
  for (const char* var : {"NCCL_NVLS_ENABLE", "CUDA_VISIBLE_DEVICES"})
    if (const char* v = std::getenv(var)) m.push_back({std::string("env_") + var, v});
  for (int d : devices) {
    cudaDeviceProp p;
    CUDA_CHECK(cudaGetDeviceProperties(&p, d));
    std::string g = "gpu" + std::to_string(d) + "_";
    m.push_back({g + "name", p.name});
    m.push_back({g + "sm_count", std::to_string(p.multiProcessorCount)});
    m.push_back({g + "l2_bytes", std::to_string(p.l2CacheSize)});
    m.push_back({g + "memory_bytes", std::to_string(p.totalGlobalMem)});
    m.push_back({g + "memory_bus_bits", std::to_string(p.memoryBusWidth)});
    m.push_back({g + "smem_per_block_optin_bytes", std::to_string(p.sharedMemPerBlockOptin)});
    m.push_back({g + "sm_clock_mhz_at_start", std::to_string(nvml.clock_mhz(d, 1, false))});
    m.push_back({g + "mem_clock_mhz_at_start", std::to_string(nvml.clock_mhz(d, 2, false))});
    m.push_back({g + "sm_clock_mhz_max", std::to_string(nvml.clock_mhz(d, 1, true))});
    m.push_back({g + "mem_clock_mhz_max", std::to_string(nvml.clock_mhz(d, 2, true))});
  }
  return m;
}

class Csv {
 public:
  // `what` is one line saying what the file measures; `extra` adds program-specific metadata.
  Csv(int argc, char** argv, const std::string& name, const std::string& what,
      const std::vector<int>& devices, const Meta& extra, const std::string& columns)
      : name_(name) {
    std::string path = out_dir(argc, argv) + "/" + name;
    f_ = std::fopen(path.c_str(), "w");
    if (!f_) {
      std::fprintf(stderr, "cannot write %s\n", path.c_str());
      std::exit(2);
    }
    std::fprintf(f_, "# file: %s\n# what: %s\n", name.c_str(), what.c_str());
    for (auto& kv : device_meta(devices))
      std::fprintf(f_, "# %s: %s\n", kv.first.c_str(), kv.second.c_str());
    for (auto& kv : extra) std::fprintf(f_, "# %s: %s\n", kv.first.c_str(), kv.second.c_str());
    std::fprintf(f_, "# date_utc: %s\n# command: %s\n", utc_now().c_str(),
                 command_line(argc, argv).c_str());
    std::fprintf(f_, "%s\n", columns.c_str());
    std::fflush(f_);
    std::printf("[%s] %s\n", name_.c_str(), columns.c_str());
  }
  ~Csv() {
    if (f_) std::fclose(f_);
  }
  Csv(const Csv&) = delete;
  Csv& operator=(const Csv&) = delete;

  void row(const char* fmt, ...) __attribute__((format(printf, 2, 3))) {
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    std::fprintf(f_, "%s\n", buf);
    std::fflush(f_);
    std::printf("[%s] %s\n", name_.c_str(), buf);
    std::fflush(stdout);
  }

 private:
  std::string name_;
  FILE* f_ = nullptr;
};

// The statistics columns every file uses for a time: "<prefix>_median,_min,_max,_p10,_p90".
inline std::string stat_cols(const std::string& prefix) {
  return prefix + "_median," + prefix + "_min," + prefix + "_max," + prefix + "_p10," + prefix +
         "_p90";
}
inline std::string stat_vals(const Stats& s) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%.3f,%.3f,%.3f,%.3f,%.3f", s.median, s.min, s.max, s.p10, s.p90);
  return buf;
}
// Bytes per microsecond is MB/s; divided by 1e3 it is GB/s (decimal, as bandwidths are quoted).
inline double gbps(double bytes, double us) { return us > 0 ? bytes / us * 1e-3 : 0; }

// ---------------------------------------------------------------------------------------------
// Data patterns. Word i of a buffer filled with seed s holds i * 2654435761 + s (mod 2^32): every
// word differs from its neighbours, so a copy that drops, repeats or shifts data is caught, and
// the sum of all words has a closed form, so a read kernel's result can be checked too.
__host__ __device__ inline uint32_t pattern_word(size_t i, uint32_t seed) {
  return uint32_t(i) * 2654435761u + seed;
}

// Sum over words 0..n-1 of pattern_word, mod 2^32.
inline uint32_t pattern_sum(size_t n_words, uint32_t seed) {
  uint64_t n = n_words;
  uint64_t tri = (n % 2 == 0) ? (n / 2) * (n - 1) : n * ((n - 1) / 2);  // n(n-1)/2 without overflow
  return uint32_t(uint32_t(tri) * 2654435761u + uint32_t(n) * seed);
}

__global__ void fill_pattern_kernel(uint32_t* p, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    p[i] = pattern_word(i, seed);
}

__global__ void count_mismatch_kernel(const uint32_t* p, size_t n, uint32_t seed,
                                      unsigned long long* bad) {
  unsigned long long local = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    local += p[i] != pattern_word(i, seed);
  if (local) atomicAdd(bad, local);
}

inline void fill_pattern(int device, void* p, size_t bytes, uint32_t seed) {
  DeviceScope ds(device);
  fill_pattern_kernel<<<1024, 256>>>(static_cast<uint32_t*>(p), bytes / 4, seed);
  LAUNCH_CHECK();
  CUDA_CHECK(cudaDeviceSynchronize());
}

// Zeroes a repetition's timestamps between idle moments of the current device: the work before
// has ended, and nothing of the repetition starts before they are clear.
inline void clear_stamps(void* p, size_t bytes) {
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaMemset(p, 0, bytes));
  CUDA_CHECK(cudaDeviceSynchronize());
}

// Poison: 0xFF bytes, which no pattern word of a small seed and no finite bf16/float value equals.
inline void poison(int device, void* p, size_t bytes) {
  DeviceScope ds(device);
  CUDA_CHECK(cudaMemset(p, 0xFF, bytes));
  CUDA_CHECK(cudaDeviceSynchronize());
}

// Number of 4-byte words in [p, p+bytes) that do not hold the pattern (word index from p).
inline unsigned long long count_mismatches(int device, const void* p, size_t bytes, uint32_t seed) {
  DeviceScope ds(device);
  unsigned long long* bad;
  CUDA_CHECK(cudaMalloc(&bad, sizeof *bad));
  CUDA_CHECK(cudaMemset(bad, 0, sizeof *bad));
  count_mismatch_kernel<<<1024, 256>>>(static_cast<const uint32_t*>(p), bytes / 4, seed, bad);
  LAUNCH_CHECK();
  unsigned long long h = 0;
  CUDA_CHECK(cudaMemcpy(&h, bad, sizeof h, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(bad));
  return h;
}

// Prints a failed check; returns 1 for the `ok` column when nothing mismatched.
inline int report_check(const char* what, unsigned long long bad) {
  if (bad) std::fprintf(stderr, "VERIFY FAILED: %s: %llu bad words\n", what, bad);
  return bad == 0;
}

inline void* device_alloc(int device, size_t bytes) {
  DeviceScope ds(device);
  void* p = nullptr;
  CUDA_CHECK(cudaMalloc(&p, bytes));
  return p;
}

// ---------------------------------------------------------------------------------------------
// Peer access between GPU 0 and GPU 1 (ld/st and TMA to peer memory need it; copy-engine peer
// copies use the direct path only with it). Returns metadata describing the link.
// NCCL's kind of launch, for host-cost rows: a launch-counting kernel with a 256-byte argument
// struct (NCCL's kernel arguments hold up to 4 KiB; one collective's work inline is about this),
// launched by cudaLaunchKernelEx with the memory synchronisation domain attribute NCCL sets.
struct Args256 {
  unsigned long long* counter;
  unsigned long long pad[31];
};
__global__ void tick_args_kernel(Args256 a) {
  if (blockIdx.x == 0 && threadIdx.x == 0) atomicAdd(a.counter, 1ull);
}
class NcclStyleLaunch {
 public:
  explicit NcclStyleLaunch(unsigned long long* counter) {
    args_.counter = counter;
    attr_[0].id = cudaLaunchAttributeMemSyncDomain;
    attr_[0].val.memSyncDomain = cudaLaunchMemSyncDomainRemote;
    config_.gridDim = dim3(1);
    config_.blockDim = dim3(128);
    config_.attrs = attr_;
    config_.numAttrs = 1;
  }
  NcclStyleLaunch(const NcclStyleLaunch&) = delete;
  NcclStyleLaunch& operator=(const NcclStyleLaunch&) = delete;
  void operator()(cudaStream_t s) {
    config_.stream = s;
    CUDA_CHECK(cudaLaunchKernelEx(&config_, tick_args_kernel, args_));
  }
  const Args256& args() const { return args_; }

 private:
  Args256 args_{};
  cudaLaunchAttribute attr_[1] = {};
  cudaLaunchConfig_t config_ = {};
};

// ---------------------------------------------------------------------------------------------
// Per-SM cycle spans of a kernel (rates per SM clock cycle, whatever the clock): every CTA calls
// record_cta_span at its end with the clock64() it read at its start; CtaSpans then gives the
// slowest SM's span, from its first CTA's start to its last CTA's end.
__device__ inline void record_cta_span(long long start, long long* t0, long long* t1,
                                       unsigned* smid) {
  __syncthreads();
  if (threadIdx.x == 0) {
    t0[blockIdx.x] = start;
    t1[blockIdx.x] = clock64();
    unsigned sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    smid[blockIdx.x] = sm;
  }
}

class CtaSpans {
 public:
  CtaSpans(int device, int max_ctas)
      : t0_(static_cast<long long*>(device_alloc(device, sizeof(long long) * max_ctas))),
        t1_(static_cast<long long*>(device_alloc(device, sizeof(long long) * max_ctas))),
        smid_(static_cast<unsigned*>(device_alloc(device, sizeof(unsigned) * max_ctas))) {}
  ~CtaSpans() {
    cudaFree(t0_);
    cudaFree(t1_);
    cudaFree(smid_);
  }
  CtaSpans(const CtaSpans&) = delete;
  CtaSpans& operator=(const CtaSpans&) = delete;
  long long* t0() const { return t0_; }
  long long* t1() const { return t1_; }
  unsigned* smid() const { return smid_; }

  // The slowest SM's span in cycles over the last launch of `ctas` CTAs; `ok` becomes false unless
  // every one of the `sms` SMs ran exactly `per_sm` of them.
  long long slowest_sm(int ctas, int sms, int per_sm, bool& ok) const {
    const auto n = static_cast<size_t>(ctas);
    std::vector<long long> a(n), b(n);
    std::vector<unsigned> id(n);
    CUDA_CHECK(cudaMemcpy(a.data(), t0_, sizeof(long long) * n, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(b.data(), t1_, sizeof(long long) * n, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(id.data(), smid_, sizeof(unsigned) * n, cudaMemcpyDeviceToHost));
    const auto m_count = static_cast<size_t>(sms);
    std::vector<long long> lo(m_count, -1), hi(m_count, -1);
    std::vector<int> count(m_count, 0);
    for (size_t c = 0; c < n; ++c) {
      const unsigned m = id[c];
      if (m >= unsigned(sms)) {
        ok = false;
        continue;
      }
      lo[m] = lo[m] < 0 ? a[c] : std::min(lo[m], a[c]);
      hi[m] = std::max(hi[m], b[c]);
      ++count[m];
    }
    long long span = 0;
    for (size_t m = 0; m < m_count; ++m) {
      if (count[m] != per_sm) ok = false;
      span = std::max(span, hi[m] - lo[m]);
    }
    return span;
  }

 private:
  long long* t0_;
  long long* t1_;
  unsigned* smid_;
};

inline Meta enable_peer_access(int a, int b) {
  Meta m;
  int ab = 0, ba = 0, rank = 0, atomics = 0;
  CUDA_CHECK(cudaDeviceCanAccessPeer(&ab, a, b));
  CUDA_CHECK(cudaDeviceCanAccessPeer(&ba, b, a));
  if (!ab || !ba) {
    std::fprintf(stderr, "GPU %d and GPU %d cannot access each other's memory\n", a, b);
    std::exit(2);
  }
  CUDA_CHECK(cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrPerformanceRank, a, b));
  CUDA_CHECK(cudaDeviceGetP2PAttribute(&atomics, cudaDevP2PAttrNativeAtomicSupported, a, b));
  for (auto [from, to] : {std::pair{a, b}, std::pair{b, a}}) {
    DeviceScope ds(from);
    cudaError_t e = cudaDeviceEnablePeerAccess(to, 0);
    if (e == cudaErrorPeerAccessAlreadyEnabled) {
      cudaGetLastError();  // clear the sticky-free "already enabled" error
    } else {
      CUDA_CHECK(e);
    }
  }
  m.push_back({"p2p_access", "1"});
  m.push_back({"p2p_performance_rank", std::to_string(rank)});
  m.push_back({"p2p_native_atomics", std::to_string(atomics)});
  return m;
}

inline Meta concat(Meta a, const Meta& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Message sizes 1 KiB, 4 KiB, ..., 1 GiB (powers of 4).
inline std::vector<size_t> sizes_pow4(size_t lo, size_t hi) {
  std::vector<size_t> v;
  for (size_t s = lo; s <= hi; s *= 4) v.push_back(s);
  return v;
}

// SM counts every SM-driven measurement sweeps: powers of two, half the chip and all of it.
inline std::vector<int> sm_counts(int num_sms) {
  std::vector<int> v;
  for (int s = 1; s <= num_sms / 4; s *= 2) v.push_back(s);  // 132 SMs: 1..32
  v.push_back(num_sms / 2);
  v.push_back(num_sms);
  return v;
}

}  // namespace mgbench
