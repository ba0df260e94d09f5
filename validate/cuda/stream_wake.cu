// What a stream blocked on another stream's event costs the GPU (stream_wake.csv, issue 9): the
// time from the end of the work an event follows to the start of what a second stream runs after
// waiting for it, against the same two pieces of work in one stream.
//
// Every repetition first enqueues a kernel that spins for kSpinNs (so the host has enqueued
// everything behind it before it ends, and the waiting stream is blocked, not late), then:
//   kernel_same    stream A: spin (its last act: thread 0 reads %globaltimer), a stamp kernel
//                  (its first act: read %globaltimer); gap = stamp - spin end
//   kernel_cross   stream A: spin, record E (timing disabled); stream B: wait for E, stamp kernel
//   event_same     stream A: timing event, spin, timing event; gap = elapsed - spin's own span
//   event_cross    stream A: timing event, spin, record E; stream B: wait for E, timing event
// The spin's own span (from its first to its last %globaltimer read) is subtracted in the event
// rows, so they measure the event record and, crossing streams, the wake-up. The difference of a
// cross row and its same row is what the cross-stream wait adds.
// Relays, an event passed on and back (a third stream C on GPU 0 stamps after it, so one timer):
//   relay_same     stream A: spin, record E1; stream B (GPU 0): wait E1, record E2; stream C:
//                  wait E2, stamp kernel; gap = stamp - spin end
//   relay_cross_gpu  the same with stream B on GPU 1 (two cross-GPU waits, as peer_ce.cu's and
//                  peer_sm.cu's both-way rows make: GPU 1 starts on GPU 0's event, GPU 0 ends on
//                  GPU 1's); only with two GPUs. (relay_cross_gpu - relay_same) / 2 is what one
//                  cross-GPU wait adds to a same-GPU one.
#include <cstring>

#include "common.cuh"

using namespace mgbench;

namespace {

constexpr int kDev = 0;
constexpr unsigned long long kSpinNs = 200'000;
constexpr int kWarmup = 3, kReps = 41;

// stamps[0] = %globaltimer at the spin's start, stamps[1] at its end.
__global__ void spin_kernel(unsigned long long* stamps) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < kSpinNs);
  stamps[0] = t0;
  stamps[1] = t;
}

// stamps[2] = %globaltimer at the kernel's start.
__global__ void stamp_kernel(unsigned long long* stamps) {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  stamps[2] = t;
}

// One repetition's stamps, read once the GPU is idle: the spin's own span, the stamp kernel's
// start after the spin's end (gap_us, when it ran), and whether the repetition is sound: the
// spin ran its whole span and the host had enqueued the rest (`ahead`) before it ended.
struct Rep {
  double spin_us = 0, gap_us = 0;
  bool stamped = false, sound = false;
};
Rep read_rep(const unsigned long long* stamps, bool ahead) {
  unsigned long long host[3];
  CUDA_CHECK(cudaMemcpy(host, stamps, sizeof host, cudaMemcpyDeviceToHost));
  Rep r;
  r.spin_us = double(host[1] - host[0]) * 1e-3;
  r.stamped = host[2] != 0;
  r.gap_us = double(static_cast<long long>(host[2] - host[1])) * 1e-3;
  r.sound = ahead && r.spin_us >= kSpinNs * 1e-3;
  return r;
}

// The relay rows (header): stream A (GPU 0) spins and records E1, stream B on `relay_device`
// waits for it and records E2, stream C (GPU 0) waits for E2 and stamps.
void relay(Csv& csv, cudaStream_t a, unsigned long long* stamps) {
  int devices = 0;
  CUDA_CHECK(cudaGetDeviceCount(&devices));
  cudaStream_t c;
  CUDA_CHECK(cudaStreamCreateWithFlags(&c, cudaStreamNonBlocking));
  cudaEvent_t e1;
  CUDA_CHECK(cudaEventCreateWithFlags(&e1, cudaEventDisableTiming));
  for (const int relay_device : {kDev, kDev + 1}) {
    if (relay_device >= devices) continue;
    cudaStream_t b;
    cudaEvent_t e2;
    {
      DeviceScope ds(relay_device);
      CUDA_CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
      CUDA_CHECK(cudaEventCreateWithFlags(&e2, cudaEventDisableTiming));
    }
    std::vector<double> gaps;
    int ok = 1;
    for (int rep = 0; rep < kWarmup + kReps; ++rep) {
      clear_stamps(stamps, 64);
      spin_kernel<<<1, 32, 0, a>>>(stamps);
      LAUNCH_CHECK();
      CUDA_CHECK(cudaEventRecord(e1, a));
      CUDA_CHECK(cudaStreamWaitEvent(b, e1, 0));
      CUDA_CHECK(cudaEventRecord(e2, b));
      CUDA_CHECK(cudaStreamWaitEvent(c, e2, 0));
      stamp_kernel<<<1, 32, 0, c>>>(stamps);
      LAUNCH_CHECK();
      const bool ahead = cudaStreamQuery(a) == cudaErrorNotReady;
      CUDA_CHECK(cudaDeviceSynchronize());
      CUDA_CHECK(cudaStreamSynchronize(b));
      const Rep r = read_rep(stamps, ahead);
      if (!r.sound || !r.stamped) ok = 0;
      if (rep >= kWarmup) gaps.push_back(r.gap_us);
    }
    const Stats s = summarize(gaps);
    csv.row("%s,3,%s,%d,%d", relay_device == kDev ? "relay_same" : "relay_cross_gpu",
            stat_vals(s).c_str(), s.n, ok);
    DeviceScope ds(relay_device);
    CUDA_CHECK(cudaEventDestroy(e2));
    CUDA_CHECK(cudaStreamDestroy(b));
  }
  CUDA_CHECK(cudaEventDestroy(e1));
  CUDA_CHECK(cudaStreamDestroy(c));
}

}  // namespace

int main(int argc, char** argv) {
  CUDA_CHECK(cudaSetDevice(kDev));
  Csv csv(argc, argv, "stream_wake.csv",
          "GPU cost of a stream waiting for another stream's event, against one stream; see "
          "stream_wake.cu",
          {kDev}, {{"spin_ns", std::to_string(kSpinNs)}, {"timer", "%globaltimer and CUDA events"}},
          "variant,streams," + stat_cols("gap_us") + ",reps,ok");
  cudaStream_t a, b;
  CUDA_CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
  cudaEvent_t e, t0, t1;
  CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  CUDA_CHECK(cudaEventCreate(&t0));
  CUDA_CHECK(cudaEventCreate(&t1));
  unsigned long long* stamps = static_cast<unsigned long long*>(device_alloc(kDev, 64));

  for (const char* variant : {"kernel_same", "kernel_cross", "event_same", "event_cross"}) {
    const bool cross = std::strstr(variant, "cross") != nullptr;
    const bool kernel = variant[0] == 'k';
    cudaStream_t after = cross ? b : a;  // the stream of the second piece of work
    std::vector<double> gaps;
    int ok = 1;
    for (int rep = 0; rep < kWarmup + kReps; ++rep) {
      clear_stamps(stamps, 64);
      if (!kernel) CUDA_CHECK(cudaEventRecord(t0, a));
      spin_kernel<<<1, 32, 0, a>>>(stamps);
      LAUNCH_CHECK();
      if (cross) {
        CUDA_CHECK(cudaEventRecord(e, a));
        CUDA_CHECK(cudaStreamWaitEvent(b, e, 0));
      }
      if (kernel) {
        stamp_kernel<<<1, 32, 0, after>>>(stamps);
        LAUNCH_CHECK();
      } else {
        CUDA_CHECK(cudaEventRecord(t1, after));
      }
      // Still spinning: the host enqueued the whole repetition ahead of the GPU.
      const bool ahead = cudaStreamQuery(a) == cudaErrorNotReady;
      CUDA_CHECK(cudaDeviceSynchronize());
      const Rep r = read_rep(stamps, ahead);
      double gap = r.gap_us;
      if (kernel) {
        if (!r.stamped) ok = 0;
      } else {
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
        gap = double(ms) * 1e3 - r.spin_us;
      }
      if (!r.sound) ok = 0;
      if (rep >= kWarmup) gaps.push_back(gap);
    }
    const Stats s = summarize(gaps);
    csv.row("%s,%d,%s,%d,%d", variant, cross ? 2 : 1, stat_vals(s).c_str(), s.n, ok);
  }
  relay(csv, a, stamps);
  CUDA_CHECK(cudaFree(stamps));
  return 0;
}
