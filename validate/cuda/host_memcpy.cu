// The host's cost of cudaMemcpyAsync device to device by how the calls' pointers repeat
// (host_memcpy.csv, issue 9): memcpy_local.csv's back-to-back copies (one source and one
// destination) take 3.8 - 4.7 us per call on this kind of host, host_api.csv's (a new destination
// each call) 5.0 - 5.5, and an isolated call's host time is 3.9 - 4.6. Which does the host's
// memcpy cost depend on: the pointers, the batch, the size?
//
// One stream on GPU 0, BYTES per copy. Modes, each repeated kReps times after kWarmup:
//   back_to_back  kCalls calls in a row after a synchronize: host_us = the calls' wall time /
//                 calls; gpu_us = events around them / calls;
//   single        one call between two events after a synchronize: host_us = the call's wall
//                 time; gpu_us = the events' elapsed time.
// Pointers: same (one source, one destination), new_dst (destination i of kCalls, as
// host_api.cu), new_both (source and destination i). The destinations are poisoned first and
// checked afterwards (`ok`).
#include <string>
#include <vector>

#include "common.cuh"

using namespace mgbench;

namespace {

constexpr int kDev = 0;
constexpr int kCalls = 400, kWarmup = 2, kReps = 15;
constexpr unsigned kSeed = 7;

}  // namespace

int main(int argc, char** argv) {
  CUDA_CHECK(cudaSetDevice(kDev));
  Csv csv(argc, argv, "host_memcpy.csv",
          "Host wall time and GPU spacing of cudaMemcpyAsync device to device by mode, pointer "
          "reuse and size; see host_memcpy.cu",
          {kDev},
          {{"calls_per_rep", std::to_string(kCalls)}, {"timer", "steady_clock, CUDA events"}},
          "mode,pointers,bytes," + stat_cols("host_us") + "," + stat_cols("gpu_us") + ",reps,ok");
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  EventPair ev(kDev);
  const size_t max_bytes = size_t(64) << 10;
  char* src = static_cast<char*>(device_alloc(kDev, max_bytes * kCalls));
  char* dst = static_cast<char*>(device_alloc(kDev, max_bytes * kCalls));

  for (size_t bytes : {size_t(4096), max_bytes}) {
    // Every source slot holds the pattern from its own start.
    for (int i = 0; i < kCalls; ++i) fill_pattern(kDev, src + size_t(i) * bytes, bytes, kSeed);
    for (const char* pointers : {"same", "new_dst", "new_both"}) {
      const std::string p = pointers;
      auto copy = [&](int i) {
        const size_t d = p == "same" ? 0 : size_t(i) * bytes;
        const size_t o = p == "new_both" ? d : 0;
        CUDA_CHECK(cudaMemcpyAsync(dst + d, src + o, bytes, cudaMemcpyDeviceToDevice, s));
      };
      for (const char* mode : {"back_to_back", "single"}) {
        const int calls = std::string(mode) == "single" ? 1 : kCalls;
        poison(kDev, dst, bytes * kCalls);
        std::vector<double> host, gpu;
        for (int rep = 0; rep < kWarmup + kReps; ++rep) {
          CUDA_CHECK(cudaStreamSynchronize(s));
          ev.start(s);
          const double t0 = wall_us();
          for (int i = 0; i < calls; ++i) copy(i);
          const double t1 = wall_us();
          ev.stop(s);
          const double g = ev.elapsed_us();
          if (rep >= kWarmup) {
            host.push_back((t1 - t0) / calls);
            gpu.push_back(g / calls);
          }
        }
        // Every destination written holds the pattern.
        unsigned long long bad = 0;
        for (int i = 0; i < (p == "same" ? 1 : calls); ++i)
          bad += count_mismatches(kDev, dst + size_t(i) * bytes, bytes, kSeed);
        const int ok = report_check(mode, bad);
        const Stats h = summarize(host), g = summarize(gpu);
        csv.row("%s,%s,%zu,%s,%s,%d,%d", mode, pointers, bytes, stat_vals(h).c_str(),
                stat_vals(g).c_str(), h.n, ok);
      }
    }
  }
  CUDA_CHECK(cudaFree(src));
  CUDA_CHECK(cudaFree(dst));
  return 0;
}
