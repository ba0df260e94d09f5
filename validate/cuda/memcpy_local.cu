// Device-local copies on GPU 0 (memcpy_local.csv, issue 15): cudaMemcpyAsync device to device
// within one GPU, by size, against a copy kernel on every SM, and whether the memcpy needs SMs.
//
// Modes per size (4 KiB ... 1 GiB, x4): `single` (events around one memcpy, after the stream
// idled: its latency and rate), `back_to_back` (events around `count` memcpys in a row, count so
// that the run takes about 2 ms or more: the rate, the per-copy cost pipelined), and `kernel`
// (the same bytes by a copy kernel, 2 CTAs of 1024 threads per SM, 16-byte accesses: what the SMs
// reach). Then `beside_spinner`: a 64 MiB memcpy enqueued on a second stream while a kernel holds
// every SM slot (one CTA of 1024 threads and 200 KiB of shared memory per SM, spinning for
// kSpinMs); its end against the spinner's: a memcpy that needs SMs waits for the spinner, one on
// a copy engine does not. `write_kernel`: the kernel's shape writing the pattern into the
// destination, no reads (L2's and HBM's write side). The `_cold` modes are `single`, `kernel` and
// `write_kernel` with the L2 overwritten first (a 256 MiB memset, then the stream idle before the
// events, as for the others): a repetition of the warm modes finds its arrays in the L2 whenever
// they fit (two 16 MiB arrays of the 60 MiB L2 do), the cold ones never, so the pair says what
// an L2-resident copy or write is worth. Every destination is checked after its mode (pattern,
// word by word).
#include <functional>

#include "kernels.cuh"

using namespace mgbench;

namespace {

constexpr int kDev = 0;
constexpr uint32_t kSeed = 0xC0FFEEu;
constexpr size_t kMax = size_t(1) << 30;
constexpr double kSpinMs = 20;
constexpr size_t kFlush = size_t(256) << 20;  // more than 4 x the L2

__global__ void copy16(const int4* __restrict__ src, int4* __restrict__ dst, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    dst[i] = src[i];
}

// Writes the pattern (common.cuh) into dst, 16 bytes per thread per step, as copy16 stores.
__global__ void write16(int4* __restrict__ dst, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    dst[i] = make_int4(int(pattern_word(4 * i, seed)), int(pattern_word(4 * i + 1, seed)),
                       int(pattern_word(4 * i + 2, seed)), int(pattern_word(4 * i + 3, seed)));
}

// Holds its SM (the shared memory keeps any other CTA off it) until `cycles` have passed.
__global__ void spinner(long long cycles, unsigned* done) {
  extern __shared__ unsigned char hold[];
  if (threadIdx.x == 0) hold[0] = 1;
  const long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
  if (threadIdx.x == 0) atomicAdd(done, 1u);
}

}  // namespace

int main(int argc, char** argv) {
  CUDA_CHECK(cudaSetDevice(kDev));
  int sms = 0, clock_khz = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, kDev));
  CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, kDev));
  Csv csv(argc, argv, "memcpy_local.csv",
          "Device-local copies on GPU 0: cudaMemcpyAsync device to device (single, back to back) "
          "and a copy kernel on every SM, by size; a memcpy beside a kernel holding every SM",
          {kDev}, {{"gbps", "bytes copied per second (each byte is read and written once)"}},
          "mode,bytes,count," + stat_cols("us") + ",gbps_median,reps,ok");
  void* src = device_alloc(kDev, kMax);
  void* dst = device_alloc(kDev, kMax);
  void* flush = device_alloc(kDev, kFlush);
  fill_pattern(kDev, src, kMax, kSeed);
  cudaStream_t s, s2;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  EventPair ev(kDev);
  RepeatOpts o;
  o.warmup = 2;
  o.min_reps = 7;
  o.max_reps = 30;
  o.budget_ms = 100;

  for (size_t bytes = 4096; bytes <= kMax; bytes *= 4) {
    auto row = [&](const char* mode, int count, const Stats& st, int ok) {
      csv.row("%s,%zu,%d,%s,%.1f,%d,%d", mode, bytes, count, stat_vals(st).c_str(),
              double(bytes) * count / st.median * 1e-3, st.n, ok);
    };
    auto check = [&](const char* mode) {
      const int ok = report_check(mode, count_mismatches(kDev, dst, bytes, kSeed));
      poison(kDev, dst, bytes);
      return ok;
    };
    poison(kDev, dst, bytes);
    // One repetition: the L2 overwritten first if `flushed`, the stream idle, then `enqueue`
    // between the events.
    auto timed = [&](bool flushed, const std::function<void()>& enqueue) {
      return repeat(
          [&] {
            if (flushed) CUDA_CHECK(cudaMemsetAsync(flush, 0, kFlush, s));
            CUDA_CHECK(cudaStreamSynchronize(s));
            ev.start(s);
            enqueue();
            ev.stop(s);
            return ev.elapsed_us();
          },
          o);
    };
    auto memcpy1 = [&] {
      CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s));
    };
    auto copy_kernel = [&] {
      copy16<<<2 * sms, 1024, 0, s>>>(static_cast<const int4*>(src), static_cast<int4*>(dst),
                                      bytes / 16);
      LAUNCH_CHECK();
    };
    auto write_kernel = [&] {
      write16<<<2 * sms, 1024, 0, s>>>(static_cast<int4*>(dst), bytes / 16, kSeed);
      LAUNCH_CHECK();
    };
    const Stats single = timed(false, memcpy1);
    row("single", 1, single, check("single"));
    const int count = std::max(1, int(2000.0 / std::max(single.median, 0.5)));
    const Stats b2b = timed(false, [&] {
      for (int i = 0; i < count; ++i) memcpy1();
    });
    row("back_to_back", count, b2b, check("back_to_back"));
    // Times a mode, then checks what it wrote (two statements: the order in which a call's
    // arguments are evaluated is unspecified, and a check before the run sees the poison).
    auto measure = [&](const char* mode, bool flushed, const std::function<void()>& enqueue) {
      const Stats st = timed(flushed, enqueue);
      row(mode, 1, st, check(mode));
    };
    measure("kernel", false, copy_kernel);
    // The same with the L2 overwritten before each repetition, and the write-only kernel.
    measure("single_cold", true, memcpy1);
    measure("kernel_cold", true, copy_kernel);
    measure("write_kernel", false, write_kernel);
    measure("write_kernel_cold", true, write_kernel);
  }

  // A memcpy while every SM is held: does it wait for the SMs?
  {
    const size_t bytes = size_t(64) << 20;
    unsigned* done = static_cast<unsigned*>(device_alloc(kDev, sizeof(unsigned)));
    CUDA_CHECK(cudaMemset(done, 0, sizeof(unsigned)));
    CUDA_CHECK(
        cudaFuncSetAttribute(spinner, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
    poison(kDev, dst, bytes);
    CUDA_CHECK(cudaDeviceSynchronize());
    cudaEvent_t t0, spin_end, copy_end;
    CUDA_CHECK(cudaEventCreate(&t0));
    CUDA_CHECK(cudaEventCreate(&spin_end));
    CUDA_CHECK(cudaEventCreate(&copy_end));
    const long long cycles = (long long)(kSpinMs * 1e-3 * clock_khz * 1e3);
    CUDA_CHECK(cudaEventRecord(t0, s));
    spinner<<<sms, 1024, 200 * 1024, s>>>(cycles, done);
    LAUNCH_CHECK();
    CUDA_CHECK(cudaEventRecord(spin_end, s));
    CUDA_CHECK(cudaStreamWaitEvent(s2, t0, 0));
    CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s2));
    CUDA_CHECK(cudaEventRecord(copy_end, s2));
    CUDA_CHECK(cudaDeviceSynchronize());
    float spin_ms = 0, copy_ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&spin_ms, t0, spin_end));
    CUDA_CHECK(cudaEventElapsedTime(&copy_ms, t0, copy_end));
    unsigned finished = 0;
    CUDA_CHECK(cudaMemcpy(&finished, done, sizeof finished, cudaMemcpyDeviceToHost));
    const int ok = report_check("beside_spinner", count_mismatches(kDev, dst, bytes, kSeed)) &
                   (finished == unsigned(sms) ? 1 : 0);
    const Stats spin = summarize({double(spin_ms) * 1e3}),
                copy = summarize({double(copy_ms) * 1e3});
    csv.row("spinner_alone_end,%zu,1,%s,0,1,%d", bytes, stat_vals(spin).c_str(), ok);
    csv.row("beside_spinner_end,%zu,1,%s,%.1f,1,%d", bytes, stat_vals(copy).c_str(),
            double(bytes) / copy.median * 1e-3, ok);
    CUDA_CHECK(cudaFree(done));
  }
  CUDA_CHECK(cudaFree(src));
  CUDA_CHECK(cudaFree(dst));
  CUDA_CHECK(cudaFree(flush));
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaStreamDestroy(s2));
  return 0;
}
