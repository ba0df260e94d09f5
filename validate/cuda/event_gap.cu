// What a timing event and a copy cost the GPU between queued work (event_gap.csv, issues 9 and
// 15): small_kernel.csv finds 3.0 - 3.3 us of GPU time around a small queued kernel between two
// timing events, about twice the kernel-to-kernel gap in one stream (1.6 us, stream_wake.csv),
// and host_api.csv's event between queued kernels (timing disabled) adds nothing. Which stream
// ops add GPU time, and how much?
//
// Every repetition first enqueues a kernel that spins for kSpinNs on one thread (so the host has
// enqueued everything behind it before it ends), then one variant, in one stream:
//   kernel_kernel            spin, A, B: gap = B's start - A's end (%globaltimer, read by A's
//                            last and B's first instruction; A and B: 1 CTA of 32 threads)
//   kernel_event_kernel      spin, A, timing event, B
//   kernel_event2_kernel     spin, A, timing event, timing event, B
//   kernel_nt_event_kernel   spin, A, event with timing disabled, B
//   kernel_memcpy_kernel     spin, A, 4-byte device-to-device cudaMemcpyAsync, B
//   kernel_memcpy2_kernel    spin, A, two such copies, B
//   event_event              spin, timing event, timing event: gap = their elapsed time
//   event_kernel_event       spin, timing event, A, timing event: gap = elapsed - A's span
//   event_memcpy_event       spin, timing event, 4-byte copy, timing event: gap = elapsed
// A row's ok is 0 when the host had not enqueued the whole repetition before the spin ended or a
// stamp is missing.
#include <cstring>
#include <string>

#include "common.cuh"
#include "kernels.cuh"

using namespace mgbench;

namespace {

constexpr int kDev = 0;
constexpr unsigned long long kSpinNs = 200'000;
constexpr int kWarmup = 3, kReps = 41;

// stamps[first] = start, stamps[first + 1] = end, by thread 0 (the CTA is one warp).
__global__ void stamp_kernel(unsigned long long* stamps, int first) {
  const unsigned long long t = globaltimer_ns();
  __syncwarp();
  if (threadIdx.x == 0) {
    stamps[first] = t;
    stamps[first + 1] = globaltimer_ns();
  }
}

}  // namespace

int main(int argc, char** argv) {
  CUDA_CHECK(cudaSetDevice(kDev));
  Csv csv(argc, argv, "event_gap.csv",
          "GPU time that timing events, events without timing and small copies add between "
          "queued work in one stream; see event_gap.cu",
          {kDev}, {{"spin_ns", std::to_string(kSpinNs)}, {"timer", "%globaltimer and CUDA events"}},
          "variant," + stat_cols("gap_us") + ",reps,ok");
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t nt, t0, t1;
  CUDA_CHECK(cudaEventCreateWithFlags(&nt, cudaEventDisableTiming));
  CUDA_CHECK(cudaEventCreate(&t0));
  CUDA_CHECK(cudaEventCreate(&t1));
  unsigned long long* stamps = static_cast<unsigned long long*>(device_alloc(kDev, 64));
  char* bytes = static_cast<char*>(device_alloc(kDev, 64));
  unsigned long long host[4];
  auto stamp = [&](int first) {
    stamp_kernel<<<1, 32, 0, s>>>(stamps, first);
    LAUNCH_CHECK();
  };
  auto copy = [&] {
    CUDA_CHECK(cudaMemcpyAsync(bytes + 32, bytes, 4, cudaMemcpyDeviceToDevice, s));
  };

  const char* variants[] = {"kernel_kernel",        "kernel_event_kernel",
                            "kernel_event2_kernel", "kernel_nt_event_kernel",
                            "kernel_memcpy_kernel", "kernel_memcpy2_kernel",
                            "event_event",          "event_kernel_event",
                            "event_memcpy_event"};
  for (const char* variant : variants) {
    const std::string v = variant;
    const bool between = v.rfind("kernel_", 0) == 0;  // A ... B, stamped
    std::vector<double> gaps;
    int ok = 1;
    for (int rep = 0; rep < kWarmup + kReps; ++rep) {
      clear_stamps(stamps, 64);
      spin_ns_kernel<<<1, 32, 0, s>>>(kSpinNs);
      LAUNCH_CHECK();
      if (between) {
        stamp(0);
        if (v == "kernel_event_kernel") CUDA_CHECK(cudaEventRecord(t0, s));
        if (v == "kernel_event2_kernel") {
          CUDA_CHECK(cudaEventRecord(t0, s));
          CUDA_CHECK(cudaEventRecord(t1, s));
        }
        if (v == "kernel_nt_event_kernel") CUDA_CHECK(cudaEventRecord(nt, s));
        if (v == "kernel_memcpy_kernel") copy();
        if (v == "kernel_memcpy2_kernel") {
          copy();
          copy();
        }
        stamp(2);
      } else {
        CUDA_CHECK(cudaEventRecord(t0, s));
        if (v == "event_kernel_event") stamp(0);
        if (v == "event_memcpy_event") copy();
        CUDA_CHECK(cudaEventRecord(t1, s));
      }
      // Still spinning: the host enqueued the whole repetition ahead of the GPU.
      const bool ahead = cudaStreamQuery(s) == cudaErrorNotReady;
      CUDA_CHECK(cudaDeviceSynchronize());
      CUDA_CHECK(cudaMemcpy(host, stamps, sizeof host, cudaMemcpyDeviceToHost));
      double gap;
      if (between) {
        gap = double(static_cast<long long>(host[2] - host[1])) * 1e-3;
        if (host[1] == 0 || host[2] == 0) ok = 0;
      } else {
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
        gap = double(ms) * 1e3;
        if (v == "event_kernel_event") {
          if (host[0] == 0) ok = 0;
          gap -= double(host[1] - host[0]) * 1e-3;
        }
      }
      if (!ahead) ok = 0;
      if (rep >= kWarmup) gaps.push_back(gap);
    }
    const Stats st = summarize(gaps);
    csv.row("%s,%s,%d,%d", variant, stat_vals(st).c_str(), st.n, ok);
  }
  CUDA_CHECK(cudaFree(stamps));
  CUDA_CHECK(cudaFree(bytes));
  return 0;
}
