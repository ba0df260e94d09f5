// A probe of the SM clock the work on a stream runs at (issues 9 and 15): NVML's clock read after
// the work is the idle GPU's, not the running one's (validate/torch/gemm_clock.py, run 23).
//
// ClockProbe::beside(s) records an event on `s` and starts, on a second stream waiting for it, a
// one-thread kernel that spins for a set time and divides its clock64() cycles by its
// %globaltimer nanoseconds: the SM clock while the work enqueued next on `s` runs. The probe holds
// one warp's slot on one SM (a handful of registers), so it fits beside a CTA that takes a whole
// SM's shared memory and all but a warp's registers.
#pragma once

#include <vector>

#include "common.cuh"

namespace mgbench {

__global__ void clock_probe_kernel(unsigned long long ns, long long* out) {
  unsigned long long t0, t;
  const long long c0 = clock64();
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
  out[0] = clock64() - c0;
  out[1] = (long long)(t - t0);
}

// Up to kMax probes between resets; clocks(skip) gives the MHz of each after the first `skip`.
class ClockProbe {
 public:
  static constexpr int kMax = 4096;
  ClockProbe() {
    CUDA_CHECK(cudaStreamCreateWithFlags(&side_, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&go_, cudaEventDisableTiming));
    CUDA_CHECK(cudaMalloc(&out_, 2 * kMax * sizeof(long long)));
  }
  ~ClockProbe() {
    cudaFree(out_);
    cudaEventDestroy(go_);
    cudaStreamDestroy(side_);
  }
  ClockProbe(const ClockProbe&) = delete;
  ClockProbe& operator=(const ClockProbe&) = delete;
  // The next probes spin for `us` each.
  void reset(double us) {
    ns_ = static_cast<unsigned long long>(us * 1e3);
    calls_ = 0;
  }
  void beside(cudaStream_t s) {
    if (calls_ >= kMax) return;
    CUDA_CHECK(cudaEventRecord(go_, s));
    CUDA_CHECK(cudaStreamWaitEvent(side_, go_, 0));
    clock_probe_kernel<<<1, 1, 0, side_>>>(ns_, out_ + 2 * calls_++);
    LAUNCH_CHECK();
  }
  int calls() const { return calls_; }
  std::vector<double> clocks(int skip) {
    CUDA_CHECK(cudaStreamSynchronize(side_));
    std::vector<long long> h(2 * size_t(calls_));
    if (!h.empty())
      CUDA_CHECK(cudaMemcpy(h.data(), out_, h.size() * sizeof(long long), cudaMemcpyDeviceToHost));
    std::vector<double> mhz;
    for (int i = skip; i < calls_; ++i)
      mhz.push_back(double(h[2 * i]) / double(h[2 * i + 1]) * 1e3);
    return mhz;
  }

 private:
  cudaStream_t side_{};
  cudaEvent_t go_{};
  long long* out_ = nullptr;
  unsigned long long ns_ = 0;
  int calls_ = 0;
};

}  // namespace mgbench
