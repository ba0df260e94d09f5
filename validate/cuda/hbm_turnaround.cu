// HBM read latency beside other SMs' reads, writes or copies, on GPU 0 (hbm_turnaround.csv,
// issue 9).
//
// mlp.csv says a copy's reads wait 3-6 x what the model's HBM queue gives at the HBM's
// utilisation, where plain reads wait 1-2 x it (scripts/mlp_errors.py): written bytes seem to
// delay reads more than read bytes do. This program measures that directly. One launch of
// 1 + K CTAs, one per SM (shared memory holds the rest of each SM):
//   probe       CTA 0: 512 threads each reading one 16-byte vector at a time, the next load's
//               address depending on the last load's value (its first word less the pattern's,
//               zero), so exactly one load per thread is in flight: a round of 8 KiB takes one
//               load latency. Its
//               vectors are fresh (never read before in the run, so never in L2). It times
//               `rounds` rounds after `warm` rounds by %globaltimer, then raises `done`.
//   background  CTAs 1..K, until `done`: streaming over their own 1 GiB buffers (grid-stride,
//               4 independent 16-byte accesses per thread per step) either reading (mode read),
//               writing (write) or copying one to the other (copy), or split: the first
//               `writers` of them write and the rest read (reads and writes from different SMs,
//               at a chosen mix, where a copy alternates them in each thread); each counts what
//               it read and wrote and its span by %globaltimer.
// The dynamic shared memory (kSharedBytes, unused) keeps every CTA on an SM of its own.
// A row: the probe's round (its latency beside that traffic), the background's CTAs and how
// many of them write (copies: all), and its read and write rates. K = 0 is the unloaded
// latency. Verified: the probe's sum of what it read against the pattern's closed form (a wrong
// address or a stale line would change it). The background's traffic is not verified (it only
// loads the memory). Background loops stop by themselves after 50 ms of %globaltimer if `done`
// never comes (all CTAs are resident: grid <= SMs, one per SM).
#include <vector>

#include "common.cuh"
#include "kernels.cuh"

using namespace mgbench;

namespace {

constexpr int kDev = 0;
constexpr int kBlock = 512;
constexpr int kWarm = 200;
constexpr int kRounds = 2000;
constexpr size_t kBgBytes = size_t(1) << 30;  // each background buffer
constexpr size_t kProbeBytes = size_t(2) << 30;
constexpr int kSharedBytes = 160 * 1024;  // one CTA per SM
constexpr uint32_t kSeedProbe = 0x2468u, kSeedBg = 0x1357u;
constexpr unsigned long long kGiveUpNs = 50'000'000ull;

enum Mode : int { kNone = 0, kRead = 1, kWrite = 2, kCopy = 3, kSplit = 4 };
const char* mode_name(int m) {
  return m == kRead    ? "read"
         : m == kWrite ? "write"
         : m == kCopy  ? "copy"
         : m == kSplit ? "split"
                       : "none";
}

struct Out {
  unsigned long long probe_ns;    // the probe's timed rounds
  uint32_t probe_sum;             // sum of every word the probe read
  unsigned long long bg_read;     // vectors the background read
  unsigned long long bg_written;  // and wrote
  unsigned long long bg_start;    // earliest background start, latest end (globaltimer ns)
  unsigned long long bg_end;
  int done;
};

__global__ void __launch_bounds__(kBlock)
    turnaround(const uint4* __restrict__ probe, size_t probe_first, const uint4* __restrict__ src,
               uint4* __restrict__ dst, size_t bg_mask, int mode, int writers, Out* out,
               uint32_t* sink) {
  volatile int* done = &out->done;
  if (blockIdx.x == 0) {
    uint32_t acc = 0;
    uint32_t dep = 0;
    unsigned long long t0 = 0;
    size_t i = probe_first + threadIdx.x;
    for (int r = 0; r < kWarm + kRounds; ++r) {
      if (r == kWarm) {
        __syncthreads();
        t0 = globaltimer_ns();
      }
      const uint4 v = __ldcg(probe + i + dep);
      acc += v.x + v.y + v.z + v.w;
      // 0 when the word is the pattern's (a wrong one shows in the sum; 1 then, within the
      // buffer's slack), but only the loaded value says so: the next address waits for it.
      dep = v.x == pattern_word(4 * (i + dep), kSeedProbe) ? 0 : 1;
      i += kBlock;
    }
    __syncthreads();
    const unsigned long long t1 = globaltimer_ns();
    atomicAdd(&out->probe_sum, acc);
    if (threadIdx.x == 0) {
      out->probe_ns = t1 - t0;
      __threadfence();
      *done = 1;
    }
    return;
  }
  if (mode == kNone) return;
  if (mode == kSplit) mode = int(blockIdx.x) - 1 < writers ? kWrite : kRead;
  const unsigned long long start = globaltimer_ns();
  const size_t ctas = gridDim.x - 1, stride = ctas * kBlock;
  size_t i = (blockIdx.x - 1) * size_t(kBlock) + threadIdx.x;
  unsigned long long moved = 0;
  uint32_t acc = 0;
  while (*done == 0 && globaltimer_ns() - start < kGiveUpNs) {
    size_t at[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) at[u] = (i + u * stride) & bg_mask;
    if (mode == kRead) {
      uint4 v[4];
#pragma unroll
      for (int u = 0; u < 4; ++u) v[u] = __ldcg(src + at[u]);
#pragma unroll
      for (int u = 0; u < 4; ++u) acc += v[u].x ^ v[u].w;
    } else if (mode == kWrite) {
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        const size_t w = 4 * at[u];
        dst[at[u]] = make_uint4(pattern_word(w, kSeedBg), pattern_word(w + 1, kSeedBg),
                                pattern_word(w + 2, kSeedBg), pattern_word(w + 3, kSeedBg));
      }
    } else {
      uint4 v[4];
#pragma unroll
      for (int u = 0; u < 4; ++u) v[u] = __ldcg(src + at[u]);
#pragma unroll
      for (int u = 0; u < 4; ++u) dst[at[u]] = v[u];
    }
    moved += 4;
    i = (i + 4 * stride) & bg_mask;
  }
  const unsigned long long end = globaltimer_ns();
  sink[blockIdx.x * kBlock + threadIdx.x] = acc;
  if (mode != kWrite) atomicAdd(&out->bg_read, moved);
  if (mode != kRead) atomicAdd(&out->bg_written, moved);
  if (threadIdx.x == 0) {
    atomicMin(&out->bg_start, start);
    atomicMax(&out->bg_end, end);
  }
}

}  // namespace

int main(int argc, char** argv) {
  CUDA_CHECK(cudaSetDevice(kDev));
  int sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, kDev));
  Csv csv(argc, argv, "hbm_turnaround.csv",
          "HBM load latency of one probe CTA (512 threads, one 16-byte load in flight each) beside "
          "K other CTAs streaming reads, writes, copies or some reading and some writing on GPU "
          "0; see hbm_turnaround.cu",
          {kDev},
          {{"probe",
            "512 threads x 16 B, one dependent load per thread per round, L2 bypassed "
            "(ld.global.cg), fresh vectors"},
           {"background", "CTAs 1..K, 512 threads x 4 x 16 B per step, grid-stride over 1 GiB"},
           {"rounds", std::to_string(kRounds) + " timed after " + std::to_string(kWarm)}},
          "mode,bg_ctas,writer_ctas,probe_bytes_in_flight," + stat_cols("probe_round_ns") +
              ",bg_read_gbps_median,bg_write_gbps_median,reps,ok");
  CUDA_CHECK(
      cudaFuncSetAttribute(turnaround, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes));
  void* probe = device_alloc(kDev, kProbeBytes + kBlock * 16);  // slack: a wrong word's step
  void* src = device_alloc(kDev, kBgBytes);
  void* dst = device_alloc(kDev, kBgBytes);
  uint32_t* sink = static_cast<uint32_t*>(device_alloc(kDev, size_t(sms) * kBlock * 4));
  Out* out = static_cast<Out*>(device_alloc(kDev, sizeof(Out)));
  fill_pattern(kDev, probe, kProbeBytes + kBlock * 16, kSeedProbe);
  fill_pattern(kDev, src, kBgBytes, kSeedBg);
  CUDA_CHECK(cudaDeviceSynchronize());

  const size_t probe_vectors = size_t(kWarm + kRounds) * kBlock;
  const size_t slots = kProbeBytes / 16 / probe_vectors;  // fresh vectors per launch
  size_t slot = 0;
  struct Case {
    int mode, k, writers;
  };
  std::vector<Case> cases = {{kNone, 0, 0}};  // the unloaded probe once
  const std::vector<int> counts = {4, 8, 16, 24, 32, 48, 64, 96, sms - 1};
  for (int mode : {kRead, kWrite, kCopy})
    for (int k : counts) cases.push_back({mode, k, mode == kRead ? 0 : k});
  // Reads and writes from different SMs at a quarter, half and three quarters writers.
  for (int k : {16, 32, 64, sms - 1})
    for (int quarters : {1, 2, 3}) cases.push_back({kSplit, k, k * quarters / 4});
  const int reps = 7;
  for (const Case& c : cases) {
    std::vector<double> rounds, reads, writes;
    int ok = 1;
    for (int r = 0; r < reps + 1; ++r) {  // the first launch is a warm-up, not kept
      if (slot == slots) {
        // Every probe vector was read once: start over after flushing L2 with the background
        // buffers (2 GiB against a 60 MiB L2).
        slot = 0;
        CUDA_CHECK(cudaMemset(dst, 0, kBgBytes));
        CUDA_CHECK(cudaMemset(src, 0, kBgBytes));
        fill_pattern(kDev, src, kBgBytes, kSeedBg);
      }
      const size_t first = slot++ * probe_vectors;
      Out init{};
      init.bg_start = ~0ull;
      CUDA_CHECK(cudaMemcpy(out, &init, sizeof init, cudaMemcpyHostToDevice));
      turnaround<<<1 + c.k, kBlock, kSharedBytes>>>(
          static_cast<const uint4*>(probe), first, static_cast<const uint4*>(src),
          static_cast<uint4*>(dst), kBgBytes / 16 - 1, c.mode, c.writers, out, sink);
      CUDA_CHECK(cudaGetLastError());
      CUDA_CHECK(cudaDeviceSynchronize());
      Out got{};
      CUDA_CHECK(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost));
      const uint32_t want =
          pattern_sum(4 * (first + probe_vectors), kSeedProbe) - pattern_sum(4 * first, kSeedProbe);
      if (got.probe_sum != want) {
        std::fprintf(stderr, "VERIFY FAILED: probe sum %u, want %u (mode %s, K %d)\n",
                     got.probe_sum, want, mode_name(c.mode), c.k);
        ok = 0;
      }
      if (r == 0) continue;
      rounds.push_back(double(got.probe_ns) / kRounds);
      const double span_ns =
          c.k > 0 && got.bg_end > got.bg_start ? double(got.bg_end - got.bg_start) : 0;
      // bytes per ns = GB/s
      reads.push_back(span_ns > 0 ? double(got.bg_read) * 16 / span_ns : 0);
      writes.push_back(span_ns > 0 ? double(got.bg_written) * 16 / span_ns : 0);
    }
    const Stats st = summarize(rounds);
    csv.row("%s,%d,%d,%d,%s,%.1f,%.1f,%d,%d", mode_name(c.mode), c.k, c.writers, kBlock * 16,
            stat_vals(st).c_str(), summarize(reads).median, summarize(writes).median, st.n, ok);
  }
  CUDA_CHECK(cudaFree(probe));
  CUDA_CHECK(cudaFree(src));
  CUDA_CHECK(cudaFree(dst));
  CUDA_CHECK(cudaFree(sink));
  CUDA_CHECK(cudaFree(out));
  return 0;
}
