// How far the clock probe (clock_probe.cuh) can be trusted (probe_check.csv): power.csv's probe
// read above the GPU's maximum clock on an H100 (2092 MHz against 1980) beside a GEMM on few SMs.
// The probe divides clock64() cycles by %globaltimer nanoseconds over a spin; this program checks
// both clocks on their own:
//   tick            the %globaltimer's step: one thread reads it back to back; the smallest
//                   non-zero difference and the mean difference between changes (ns)
//   alone           the probe with nothing else on the GPU, spinning 10 us ... 100 ms (MHz),
//                   with NVML's SM clock read during the longest spins
//   beside_fma      the probe (16 ms spins, as power.cu's) beside an FMA kernel on `sms` SMs
//                   (one CTA of 256 threads per SM) that runs for the whole probe, at 16-131 SMs
// Without an independent clock on the GPU, the check is consistency: a probe that reads above
// NVML's maximum, or that changes with its spin length or with other SMs' work while NVML does
// not, measures its timer rather than the clock.
#include <thread>

#include "clock_probe.cuh"
#include "common.cuh"
#include "fma.cuh"

using namespace mgbench;

namespace {

constexpr int kDev = 0, kReps = 21;

// out[0] = smallest non-zero step, out[1] = the span, out[2] = how many steps were seen.
__global__ void tick_kernel(long long* out) {
  unsigned long long prev, t, first;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(first));
  prev = first;
  long long smallest = 1LL << 62, steps = 0;
  for (int i = 0; i < 200000; ++i) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    if (t != prev) {
      smallest = min(smallest, (long long)(t - prev));
      ++steps;
      prev = t;
    }
  }
  out[0] = smallest;
  out[1] = (long long)(prev - first);
  out[2] = steps;
}

// FMAs for `iters` loop steps per thread (the host sizes it to outlast the probe beside it).
__global__ void fma_load(int iters, float* sink) {
  const float acc = fma_loop(iters);
  if (acc == 12345.0f) sink[threadIdx.x] = acc;
}

}  // namespace

int main(int argc, char** argv) {
  CUDA_CHECK(cudaSetDevice(kDev));
  Nvml nvml;
  const long max_mhz = nvml.clock_mhz(kDev, 1, true);
  Csv csv(argc, argv, "probe_check.csv",
          "the clock probe (clock_probe.cuh) against its own timer and NVML: %globaltimer's step, "
          "the probe alone by spin, beside FMA load by SMs; see probe_check.cu",
          {kDev}, {{"nvml_sm_clock_max_mhz", std::to_string(max_mhz)}},
          "test,spin_us,sms," + stat_cols("value") + ",unit,nvml_sm_mhz,reps,ok");
  int sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, kDev));

  long long* tick = static_cast<long long*>(device_alloc(kDev, 3 * sizeof(long long)));
  std::vector<double> smallest, mean_step;
  for (int r = 0; r < kReps; ++r) {
    tick_kernel<<<1, 1>>>(tick);
    LAUNCH_CHECK();
    long long h[3];
    CUDA_CHECK(cudaMemcpy(h, tick, sizeof h, cudaMemcpyDeviceToHost));
    smallest.push_back(double(h[0]));
    if (h[2] > 0) mean_step.push_back(double(h[1]) / double(h[2]));
  }
  csv.row("tick_smallest,0,1,%s,ns,-1,%d,1", stat_vals(summarize(smallest)).c_str(), kReps);
  csv.row("tick_mean,0,1,%s,ns,-1,%d,1", stat_vals(summarize(mean_step)).c_str(), kReps);

  ClockProbe probe;
  for (const double us : {10.0, 100.0, 1000.0, 16000.0, 100000.0}) {
    probe.reset(us);
    long nvml_mhz = -1;
    for (int r = 0; r < kReps; ++r) {
      probe.beside(nullptr);
      if (us >= 16000.0) {  // NVML during the spin
        std::this_thread::sleep_for(std::chrono::microseconds(long(us / 2)));
        nvml_mhz = nvml.clock_mhz(kDev, 1, false);
      }
      CUDA_CHECK(cudaDeviceSynchronize());
    }
    const std::vector<double> mhz = probe.clocks(0);
    const Stats s = summarize(mhz);
    csv.row("alone,%.0f,1,%s,MHz,%ld,%d,%d", us, stat_vals(s).c_str(), nvml_mhz, s.n,
            s.max <= max_mhz * 1.001 ? 1 : 0);
  }

  float* sink = static_cast<float*>(device_alloc(kDev, 256 * sizeof(float)));
  cudaStream_t load;
  CUDA_CHECK(cudaStreamCreateWithFlags(&load, cudaStreamNonBlocking));
  // The load's steps for 30 ms: its rate alone, from one timed launch of 100k steps.
  constexpr int kProbeSteps = 100000;
  const double step_us = time_stream(kDev, load,
                                     [&] {
                                       fma_load<<<sms - 1, 256, 0, load>>>(kProbeSteps, sink);
                                       LAUNCH_CHECK();
                                     })
                             .median /
                         kProbeSteps;
  const int steps = int(30000.0 / step_us);
  for (const int n : {16, 33, 66, 99, sms - 1}) {
    probe.reset(16000.0);
    long nvml_mhz = -1;
    for (int r = 0; r < kReps; ++r) {
      fma_load<<<n, 256, 0, load>>>(steps, sink);
      LAUNCH_CHECK();
      std::this_thread::sleep_for(std::chrono::milliseconds(2));  // the load is running
      probe.beside(nullptr);
      std::this_thread::sleep_for(std::chrono::milliseconds(8));
      nvml_mhz = nvml.clock_mhz(kDev, 1, false);
      CUDA_CHECK(cudaDeviceSynchronize());
    }
    const Stats s = summarize(probe.clocks(0));
    csv.row("beside_fma,16000,%d,%s,MHz,%ld,%d,%d", n, stat_vals(s).c_str(), nvml_mhz, s.n,
            s.max <= max_mhz * 1.001 ? 1 : 0);
  }
  CUDA_CHECK(cudaStreamDestroy(load));
  CUDA_CHECK(cudaFree(tick));
  CUDA_CHECK(cudaFree(sink));
  return 0;
}
