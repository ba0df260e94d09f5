// Host (CPU wall) cost and GPU-visible spacing of CUDA runtime calls on GPU 0 (host_api.csv), for
// the host/runtime model of issue 9.
//
// Every row is one API and one mode; its times are per API call (graph rows: per cudaGraphLaunch;
// divide by `nodes` for per kernel node). Each repetition runs a batch of `calls_per_rep` calls
// and yields one host time and one GPU time per call; medians and p10/p90 are over repetitions,
// after warm-up repetitions. Modes:
//   back_to_back   the host issues the batch as fast as it can: host_us = wall time of the calls
//                  alone / calls; gpu_us = events around the batch / calls (the spacing the GPU
//                  sees when the host is the limit).
//   gpu_queued     the same batch enqueued behind a gate kernel that spins until the host has
//                  issued the whole batch (a flag in mapped host memory): gpu_us = events around
//                  the batch / calls, i.e. the spacing when the GPU, not the host, is the limit.
//   single_event   one call between two events (the GPU time of one isolated call); host_us is
//                  the wall time of the call alone.
//   single_sync    host wall time of one call + cudaStreamSynchronize (what the host sees).
//   after_idle_1ms / after_idle_100ms  like single_event, but the host sleeps ~1 ms / ~100 ms
//                  after the previous synchronize (the GPU idles); host_us = the call,
//                  gpu_us = events around it.
//   after_idle_*_sync  host wall of launch + synchronize after the idle time.
//   idle_stream    (event record / stream wait event / stream sync / device sync) host wall per
//                  call on a stream with nothing pending.
// NCCL's other calls per collective (src/enqueue.cc, src/misc/strongstream.cc, NCCL 2.28.9),
// host wall per call back to back: cudaGetDevice and cudaSetDevice (the caller's device saved,
// the communicator's set, restored), cudaStreamGetCaptureInfo (is the stream being captured),
// cudaGetFuncBySymbol (the kernel to launch), and its launch, cudaLaunchKernelEx with the memory
// synchronisation domain attribute and a 256-byte argument struct (NCCL's kernel arguments with
// one collective's work inline; NCCL calls the driver's cuLaunchKernelEx, which this wraps),
// beside a plain cudaLaunchKernel of the same kernel for the comparison on the same host. With
// two GPUs also cudaSetDevice switching to GPU 1 and back (back_to_back_switch_pair, per pair).
// `--library` runs these alone, into host_api_library.csv.
// Streams > 1: the batch is spread round-robin over that many streams from one thread; the
// events join all streams (each waits on the start event; the stop event waits on every stream).
// Verified: memcpy destinations are poisoned first and hold the source pattern afterwards; kernel
// rows use a kernel that counts its launches (thread 0 of CTA 0 adds 1), checked against the
// number of launches; the gate reports a timeout (the batch was larger than the launch queue).
#include <array>
#include <atomic>
#include <functional>
#include <thread>

#include "common.cuh"

using namespace mgbench;

namespace {

constexpr int kDev = 0;
constexpr unsigned long long kGateTimeoutNs = 2'000'000'000ull;

// Counts launches: one atomic from one thread (the GPU cost of an empty kernel plus one
// fire-and-forget add; launch.csv shows `tick` and `empty` within noise).
__global__ void tick_kernel(unsigned long long* counter) {
  if (blockIdx.x == 0 && threadIdx.x == 0) atomicAdd(counter, 1ull);
}

// Spins until the host sets *flag (mapped host memory); sets *timed_out after kGateTimeoutNs.
__global__ void gate_kernel(const volatile int* flag, int* timed_out) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  while (*flag == 0) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    if (t - t0 > kGateTimeoutNs) {
      *timed_out = 1;
      return;
    }
  }
}

struct Row {
  std::string api, mode;
  int streams = 1;
  size_t bytes = 0;
  int grid = 0, nodes = 0, calls = 1;
};

struct Times {
  std::vector<double> host, gpu;
};

class Bench {
 public:
  explicit Bench(Csv& csv) : csv_(csv) {
    for (auto& s : streams_) CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (auto& e : joins_) CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreate(&start_));
    CUDA_CHECK(cudaEventCreate(&stop_));
    CUDA_CHECK(cudaHostAlloc(&gate_flag_, sizeof(int), cudaHostAllocMapped));
    CUDA_CHECK(cudaHostGetDevicePointer(&gate_flag_dev_, gate_flag_, 0));
    CUDA_CHECK(cudaMalloc(&gate_timed_out_, sizeof(int)));
    CUDA_CHECK(cudaMemset(gate_timed_out_, 0, sizeof(int)));
    CUDA_CHECK(cudaMalloc(&counter_, sizeof *counter_));
    CUDA_CHECK(cudaMemset(counter_, 0, sizeof *counter_));
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  ~Bench() {
    for (auto& s : streams_) cudaStreamDestroy(s);
    for (auto& e : joins_) cudaEventDestroy(e);
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
    cudaFreeHost(gate_flag_);
    cudaFree(gate_timed_out_);
    cudaFree(counter_);
  }
  Bench(const Bench&) = delete;
  Bench& operator=(const Bench&) = delete;

  cudaStream_t stream(int i) const { return streams_[i]; }
  void tick(int grid, cudaStream_t s) {
    tick_kernel<<<grid, 128, 0, s>>>(counter_);
    ++launched_;
  }
  unsigned long long* counter() const { return counter_; }
  void add_launched(unsigned long long n) { launched_ += n; }

  // One batch: `issue(i)` makes call i of `calls`, spread over `streams` streams. Returns host
  // and GPU time per call. `queued` holds the GPU behind the gate until all calls are issued.
  template <class F>
  std::pair<double, double> batch(int calls, int streams, bool queued, F&& issue) {
    CUDA_CHECK(cudaDeviceSynchronize());
    cudaStream_t s0 = streams_[0];
    if (queued) {
      *gate_flag_ = 0;
      std::atomic_thread_fence(std::memory_order_seq_cst);
      gate_kernel<<<1, 1, 0, s0>>>(gate_flag_dev_, gate_timed_out_);
      LAUNCH_CHECK();
    }
    CUDA_CHECK(cudaEventRecord(start_, s0));
    for (int k = 1; k < streams; ++k) CUDA_CHECK(cudaStreamWaitEvent(streams_[k], start_, 0));
    double t0 = wall_us();
    for (int i = 0; i < calls; ++i) issue(i, streams_[i % streams]);
    double t1 = wall_us();
    LAUNCH_CHECK();
    if (queued) {
      std::atomic_thread_fence(std::memory_order_seq_cst);
      *reinterpret_cast<volatile int*>(gate_flag_) = 1;
    }
    for (int k = 1; k < streams; ++k) {
      CUDA_CHECK(cudaEventRecord(joins_[k], streams_[k]));
      CUDA_CHECK(cudaStreamWaitEvent(s0, joins_[k], 0));
    }
    CUDA_CHECK(cudaEventRecord(stop_, s0));
    CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return {(t1 - t0) / calls, double(ms) * 1e3 / calls};
  }

  // Runs `reps` batches after `warmup` and writes the row. `check` returns 1 when the result is
  // right (called once after all repetitions).
  template <class F, class C>
  void measure(const Row& r, int warmup, int reps, F&& one, C&& check) {
    for (int i = 0; i < warmup; ++i) one();
    Times t;
    for (int i = 0; i < reps; ++i) {
      auto [h, g] = one();
      t.host.push_back(h);
      t.gpu.push_back(g);
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    int ok = check();
    int timed_out = 0;
    CUDA_CHECK(cudaMemcpy(&timed_out, gate_timed_out_, sizeof timed_out, cudaMemcpyDeviceToHost));
    if (timed_out) {
      std::fprintf(stderr, "VERIFY FAILED: gate timed out in %s %s\n", r.api.c_str(),
                   r.mode.c_str());
      ok = 0;
      CUDA_CHECK(cudaMemset(gate_timed_out_, 0, sizeof(int)));
    }
    emit(r, t, ok);
  }

  // A launch-counting check: every tick launched so far has run.
  int ticks_ok() {
    CUDA_CHECK(cudaDeviceSynchronize());
    unsigned long long got = 0;
    CUDA_CHECK(cudaMemcpy(&got, counter_, sizeof got, cudaMemcpyDeviceToHost));
    if (got != launched_)
      std::fprintf(stderr, "VERIFY FAILED: %llu ticks, want %llu\n", got, launched_);
    return got == launched_;
  }

  void emit(const Row& r, const Times& t, int ok) {
    Stats h = summarize(t.host), g = summarize(t.gpu);
    auto num = [](double v, bool have) {
      char b[32];
      if (have)
        std::snprintf(b, sizeof b, "%.3f", v);
      else
        std::snprintf(b, sizeof b, "nan");
      return std::string(b);
    };
    bool have_gpu = !t.gpu.empty() && g.max > 0;
    double per_node = r.nodes > 0 ? g.median / r.nodes : g.median;
    csv_.row("%s,%s,%d,%zu,%d,%d,%d,%s,%s,%s,%s,%s,%s,%s,%d,%d", r.api.c_str(), r.mode.c_str(),
             r.streams, r.bytes, r.grid, r.nodes, r.calls, num(h.median, true).c_str(),
             num(h.p10, true).c_str(), num(h.p90, true).c_str(), num(g.median, have_gpu).c_str(),
             num(g.p10, have_gpu).c_str(), num(g.p90, have_gpu).c_str(),
             num(per_node, have_gpu).c_str(), h.n, ok);
  }

  cudaEvent_t start_event() const { return start_; }
  cudaEvent_t stop_event() const { return stop_; }

 private:
  Csv& csv_;
  cudaStream_t streams_[4]{};
  cudaEvent_t joins_[4]{};
  cudaEvent_t start_{}, stop_{};
  int* gate_flag_ = nullptr;
  int* gate_flag_dev_ = nullptr;
  int* gate_timed_out_ = nullptr;
  unsigned long long* counter_ = nullptr;
  unsigned long long launched_ = 0;
};

void sleep_us(double us) {
  std::this_thread::sleep_for(std::chrono::microseconds(static_cast<long>(us)));
}

// Single call between events after the host slept `idle_us` (0: no sleep). Returns host time of
// the call, GPU time between the events, and host time of call + synchronize.
template <class F>
std::array<double, 3> single(Bench& b, double idle_us, F&& issue) {
  cudaStream_t s = b.stream(0);
  CUDA_CHECK(cudaStreamSynchronize(s));
  if (idle_us > 0) sleep_us(idle_us);
  CUDA_CHECK(cudaEventRecord(b.start_event(), s));
  double t0 = wall_us();
  issue(s);
  double t1 = wall_us();
  CUDA_CHECK(cudaEventRecord(b.stop_event(), s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  double t2 = wall_us();
  LAUNCH_CHECK();
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, b.start_event(), b.stop_event()));
  return {t1 - t0, double(ms) * 1e3, t2 - t0};
}

// The four single-call modes and the two idle modes for one API.
template <class F, class C>
void single_modes(Bench& b, Row r, bool with_idle, F&& issue, C&& check) {
  const int reps = 200;
  r.calls = 1;
  r.mode = "single_event";
  b.measure(
      r, 5, reps,
      [&] {
        auto t = single(b, 0, issue);
        return std::pair{t[0], t[1]};
      },
      check);
  r.mode = "single_sync";
  b.measure(
      r, 5, reps,
      [&] {
        CUDA_CHECK(cudaStreamSynchronize(b.stream(0)));
        double t0 = wall_us();
        issue(b.stream(0));
        CUDA_CHECK(cudaStreamSynchronize(b.stream(0)));
        return std::pair{wall_us() - t0, 0.0};
      },
      check);
  // The idle modes cost ~1.2 s each at 100 ms: only for the cases issue 9 asks about.
  for (double idle : {1e3, 1e5}) {
    if (!with_idle) break;
    const int idle_reps = idle > 1e4 ? 10 : 100;
    Times ev, sy;
    single(b, idle, issue);  // warm-up
    for (int i = 0; i < idle_reps; ++i) {
      auto t = single(b, idle, issue);
      ev.host.push_back(t[0]);
      ev.gpu.push_back(t[1]);
      sy.host.push_back(t[2]);
    }
    int ok = check();
    std::string tag = idle > 1e4 ? "after_idle_100ms" : "after_idle_1ms";
    r.mode = tag;
    b.emit(r, ev, ok);
    r.mode = tag + "_sync";
    b.emit(r, sy, ok);
  }
}

void measure_launch(Bench& b) {
  auto check = [&] { return b.ticks_ok(); };
  for (int grid : {1, 132, 1056, 8448}) {
    Row r{"cudaLaunchKernel", "", 1, 0, grid, 1, 0};
    auto launch = [&](int, cudaStream_t s) { b.tick(grid, s); };
    for (int streams : {1, 2, 4}) {
      if (streams > 1 && grid != 1) continue;
      r.streams = streams;
      for (bool queued : {false, true}) {
        // The queued batch must fit the launch queue (the gate holds the GPU until the host is
        // done); 256 launches do, 1000 back to back match launch.csv's method.
        r.calls = queued ? 256 : 1000;
        r.mode = queued ? "gpu_queued" : "back_to_back";
        b.measure(
            r, 2, 15, [&] { return b.batch(r.calls, streams, queued, launch); }, check);
      }
    }
    r.streams = 1;
    single_modes(
        b, r, grid == 1, [&](cudaStream_t s) { b.tick(grid, s); }, check);
  }
}

void measure_graph(Bench& b) {
  for (int grid : {1, 132, 1056, 8448}) {
    for (int nodes : {1, 10, 100}) {
      cudaStream_t s = b.stream(0);
      cudaGraph_t g;
      cudaGraphExec_t ge;
      CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
      for (int i = 0; i < nodes; ++i) tick_kernel<<<grid, 128, 0, s>>>(b.counter());
      CUDA_CHECK(cudaStreamEndCapture(s, &g));
      CUDA_CHECK(cudaGraphInstantiate(&ge, g, 0));
      CUDA_CHECK(cudaGraphUpload(ge, s));
      auto launch = [&](int, cudaStream_t st) {
        CUDA_CHECK(cudaGraphLaunch(ge, st));
        b.add_launched(nodes);
      };
      auto check = [&] { return b.ticks_ok(); };
      Row r{"cudaGraphLaunch", "", 1, 0, grid, nodes, 0};
      for (bool queued : {false, true}) {
        r.calls = queued ? 64 : 200;
        r.mode = queued ? "gpu_queued" : "back_to_back";
        b.measure(
            r, 2, 15, [&] { return b.batch(r.calls, 1, queued, launch); }, check);
      }
      single_modes(
          b, r, grid == 1, [&](cudaStream_t st) { launch(0, st); }, check);
      CUDA_CHECK(cudaGraphExecDestroy(ge));
      CUDA_CHECK(cudaGraphDestroy(g));
    }
  }
}

void measure_memcpy(Bench& b) {
  constexpr uint32_t kSeed = 0xC0FFEEu;
  const size_t max_bytes = 1 * MiB;
  const int max_calls = 400;
  // Each call of a batch writes its own destination slot, so the whole batch can be verified.
  char* src = static_cast<char*>(device_alloc(kDev, max_bytes));
  char* dst = static_cast<char*>(device_alloc(kDev, max_bytes * max_calls));
  fill_pattern(kDev, src, max_bytes, kSeed);
  for (size_t bytes : {size_t(4), 64 * KiB, 1 * MiB}) {
    int slots = 0;
    auto copy = [&](int i, cudaStream_t s) {
      CUDA_CHECK(cudaMemcpyAsync(dst + size_t(i % max_calls) * bytes, src, bytes,
                                 cudaMemcpyDeviceToDevice, s));
      slots = std::max(slots, i % max_calls + 1);
    };
    auto check = [&] {
      unsigned long long bad = 0;
      for (int i = 0; i < slots; ++i)
        bad += count_mismatches(kDev, dst + size_t(i) * bytes, bytes, kSeed);
      slots = 0;
      poison(kDev, dst, max_bytes * max_calls);
      return report_check("memcpy d2d", bad);
    };
    poison(kDev, dst, max_bytes * max_calls);
    Row r{"cudaMemcpyAsync_d2d", "", 1, bytes, 0, 1, 0};
    for (int streams : {1, 2, 4}) {
      r.streams = streams;
      for (bool queued : {false, true}) {
        r.calls = queued ? 256 : max_calls;
        r.mode = queued ? "gpu_queued" : "back_to_back";
        b.measure(
            r, 2, 15, [&] { return b.batch(r.calls, streams, queued, copy); }, check);
      }
    }
    r.streams = 1;
    single_modes(
        b, r, true, [&](cudaStream_t s) { copy(0, s); }, check);
  }
  CUDA_CHECK(cudaFree(src));
  CUDA_CHECK(cudaFree(dst));
}

// Event record, stream wait event, stream synchronize and device synchronize with nothing
// pending: host cost per call.
void measure_sync_calls(Bench& b) {
  const int calls = 1000, reps = 15;
  auto always = [] { return 1; };
  cudaEvent_t e;
  CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  cudaEvent_t et;
  CUDA_CHECK(cudaEventCreate(&et));
  auto host_batch = [&](auto&& call) {
    CUDA_CHECK(cudaDeviceSynchronize());
    double t0 = wall_us();
    for (int i = 0; i < calls; ++i) call();
    return std::pair{(wall_us() - t0) / calls, 0.0};
  };
  cudaStream_t s0 = b.stream(0), s1 = b.stream(1);
  struct Case {
    const char* api;
    const char* mode;
    std::function<void()> call;
  };
  CUDA_CHECK(cudaEventRecord(e, s0));
  std::vector<Case> cases = {
      {"cudaEventRecord", "back_to_back_disable_timing",
       [&] { CUDA_CHECK(cudaEventRecord(e, s0)); }},
      {"cudaEventRecord", "back_to_back_timing", [&] { CUDA_CHECK(cudaEventRecord(et, s0)); }},
      {"cudaStreamWaitEvent", "back_to_back_completed_event",
       [&] { CUDA_CHECK(cudaStreamWaitEvent(s1, e, 0)); }},
      {"cudaEventQuery", "idle_stream", [&] { CUDA_CHECK(cudaEventQuery(e)); }},
      {"cudaStreamSynchronize", "idle_stream", [&] { CUDA_CHECK(cudaStreamSynchronize(s0)); }},
      {"cudaDeviceSynchronize", "idle_stream", [&] { CUDA_CHECK(cudaDeviceSynchronize()); }},
  };
  for (auto& c : cases) {
    Row r{c.api, c.mode, 1, 0, 0, 1, calls};
    b.measure(
        r, 2, reps, [&] { return host_batch(c.call); }, always);
  }
  // Record + wait across two streams, as a join costs: host per pair.
  Row r{"cudaEventRecord+cudaStreamWaitEvent", "back_to_back_pair", 2, 0, 0, 1, calls};
  b.measure(
      r, 2, reps,
      [&] {
        return host_batch([&] {
          CUDA_CHECK(cudaEventRecord(e, s0));
          CUDA_CHECK(cudaStreamWaitEvent(s1, e, 0));
        });
      },
      always);
  // GPU cost of an event record between two kernels: spacing of tick kernels with and without
  // an event record between each, both queued behind the gate.
  for (bool with_event : {false, true}) {
    Row q{"cudaEventRecord",
          with_event ? "gpu_queued_between_kernels" : "gpu_queued_kernels_only",
          1,
          0,
          1,
          1,
          256};
    b.measure(
        q, 2, reps,
        [&] {
          return b.batch(256, 1, true, [&](int, cudaStream_t s) {
            b.tick(1, s);
            if (with_event) CUDA_CHECK(cudaEventRecord(e, s));
          });
        },
        [&] { return b.ticks_ok(); });
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaEventDestroy(e));
  CUDA_CHECK(cudaEventDestroy(et));
}

void measure_library_calls(Bench& b) {
  const int calls = 1000, reps = 15;
  cudaStream_t s0 = b.stream(0);
  auto host_batch = [&](auto&& call) {
    CUDA_CHECK(cudaDeviceSynchronize());
    double t0 = wall_us();
    for (int i = 0; i < calls; ++i) call();
    return std::pair{(wall_us() - t0) / calls, 0.0};
  };
  auto always = [] { return 1; };
  int dev = -1;
  cudaStreamCaptureStatus status;
  unsigned long long id = 0;
  cudaFunction_t fn = nullptr;
  struct Case {
    const char* api;
    const char* mode;
    std::function<void()> call;
  };
  std::vector<Case> cases = {
      {"cudaGetDevice", "back_to_back", [&] { CUDA_CHECK(cudaGetDevice(&dev)); }},
      {"cudaSetDevice", "back_to_back_same_device", [&] { CUDA_CHECK(cudaSetDevice(kDev)); }},
      {"cudaStreamGetCaptureInfo", "back_to_back",
       [&] { CUDA_CHECK(cudaStreamGetCaptureInfo(s0, &status, &id)); }},
      {"cudaGetFuncBySymbol", "back_to_back",
       [&] {
         CUDA_CHECK(cudaGetFuncBySymbol(&fn, reinterpret_cast<const void*>(tick_args_kernel)));
       }},
  };
  // A thread driving two GPUs switches between them (NCCL's grouped calls, peer_ce.cu's and
  // peer_sm.cu's both-way rows): one call here is a switch to GPU 1 and back, both real.
  int devices = 0;
  CUDA_CHECK(cudaGetDeviceCount(&devices));
  if (devices >= 2)
    cases.push_back({"cudaSetDevice", "back_to_back_switch_pair", [&] {
                       CUDA_CHECK(cudaSetDevice(kDev + 1));
                       CUDA_CHECK(cudaSetDevice(kDev));
                     }});
  for (auto& c : cases) {
    Row r{c.api, c.mode, 1, 0, 0, 1, calls};
    b.measure(
        r, 2, reps, [&] { return host_batch(c.call); }, always);
  }
  NcclStyleLaunch nccl_launch(b.counter());
  for (bool ex : {true, false}) {
    Row r{ex ? "cudaLaunchKernelEx" : "cudaLaunchKernel",
          ex ? "back_to_back_256B_args_mem_sync_domain" : "back_to_back_256B_args",
          1,
          0,
          1,
          1,
          calls};
    b.measure(
        r, 2, reps,
        [&] {
          return b.batch(calls, 1, false, [&](int, cudaStream_t s) {
            if (ex)
              nccl_launch(s);
            else
              tick_args_kernel<<<1, 128, 0, s>>>(nccl_launch.args());
            b.add_launched(1);
          });
        },
        [&] { return b.ticks_ok(); });
  }
}

}  // namespace

int main(int argc, char** argv) {
  CUDA_CHECK(cudaSetDevice(kDev));
  // --library: only NCCL's other calls, into host_api_library.csv (host_api.csv stays as measured).
  bool library = false;
  for (int i = 1; i < argc; ++i) library |= std::string(argv[i]) == "--library";
  Csv csv(argc, argv, library ? "host_api_library.csv" : "host_api.csv",
          "Host wall cost and GPU-visible spacing of CUDA runtime calls on GPU 0, per call; see "
          "host_api.cu for the modes",
          {kDev},
          {{"host_cpus", std::to_string(std::thread::hardware_concurrency())},
           {"timer", "host: std::chrono::steady_clock; gpu: CUDA events"},
           {"kernel", "tick_kernel: 128 threads per CTA, thread 0 of CTA 0 adds 1 to a counter"}},
          "api,mode,streams,bytes,grid_ctas,nodes,calls_per_rep,host_us_median,host_us_p10,host_us_"
          "p90,gpu_us_median,gpu_us_p10,gpu_us_p90,gpu_us_per_node_median,n,ok");
  Bench b(csv);
  if (library) {
    measure_library_calls(b);
    return 0;
  }
  measure_launch(b);
  measure_memcpy(b);
  measure_sync_calls(b);
  measure_graph(b);
  measure_library_calls(b);
  return 0;
}
