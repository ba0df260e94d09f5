// Memory-level parallelism on GPU 0 (mlp.csv): streaming bandwidth by threads per CTA x bytes per
// access x accesses in flight per thread x CTAs (one CTA per SM), for issue 9's "bytes in flight
// from the kernel" model (Little's law over the path's latency).
//
// Kernels (one template per access width and unroll): thread t of the grid touches elements
// t, t + stride, ..., stride = CTAs x threads; each unrolled group issues `unroll` loads (or
// stores) before it uses any of them, so a thread keeps `unroll` accesses in flight.
//   read   ld.global.cg (L1 bypassed) of 4-, 8- or 16-byte words, every 32-bit word added into a
//          sum that is written out (checked against the closed form of the pattern).
//   write  stores of the pattern (checked word by word).
//   copy   dst = src, loads of a group before its stores (checked word by word); bytes moved =
//          read + write.
// One CTA per SM: every launch asks for kExclusiveSmem (160 KiB) of dynamic shared memory.
// Sizes: a probe launch sets the bytes per repetition for ~3 ms (at most 2 GiB, a multiple of
// CTAs x threads x width x unroll); successive repetitions use successive slots of 4 GiB buffers,
// so no repetition finds the previous one's data in the 60 MiB L2.
// l2_read rows re-read one 8 MiB working set `passes` times in one launch (L2-resident).
// hbm_l2_kernel rows: the same read measurement with hbm_l2.cu's read kernel (one pass).
// --warps: only the `warps` set, into mlp_warps.csv: one or two CTAs of 1, 2, 4 or 8 warps, every
// width x unroll, reads (and copies on one CTA), and a few of the reads from L2: how a warp's
// round of loads waits on its own lines (one warp alone) against the SM's other warps.
#include "kernels.cuh"

using namespace mgbench;

namespace {

constexpr int kDev = 0;
constexpr uint32_t kSeed = 0x5EEDu;
constexpr size_t kBuf = 4 * GiB;
constexpr size_t kMaxRep = 2 * GiB;
constexpr double kTargetUs = 3000;

template <int W>
struct Word;
template <>
struct Word<4> {
  using T = unsigned;
  __device__ static uint32_t sum(T x) { return x; }
  __device__ static T make(size_t w, uint32_t s) { return pattern_word(w, s); }
};
template <>
struct Word<8> {
  using T = uint2;
  __device__ static uint32_t sum(T x) { return x.x + x.y; }
  __device__ static T make(size_t w, uint32_t s) {
    return make_uint2(pattern_word(w, s), pattern_word(w + 1, s));
  }
};
template <>
struct Word<16> {
  using T = uint4;
  __device__ static uint32_t sum(T x) { return x.x + x.y + x.z + x.w; }
  __device__ static T make(size_t w, uint32_t s) {
    return make_uint4(pattern_word(w, s), pattern_word(w + 1, s), pattern_word(w + 2, s),
                      pattern_word(w + 3, s));
  }
};

// n (elements of W bytes) is a multiple of unroll x stride, so no group runs past the end.
template <int W, int U>
__global__ void __launch_bounds__(1024)
    mlp_read(const typename Word<W>::T* __restrict__ p, size_t n, int passes, uint32_t* sum) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  uint32_t acc = 0;
  for (int r = 0; r < passes; ++r) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += U * stride) {
      typename Word<W>::T x[U];
#pragma unroll
      for (int u = 0; u < U; ++u) x[u] = __ldcg(p + i + u * stride);
#pragma unroll
      for (int u = 0; u < U; ++u) acc += Word<W>::sum(x[u]);
    }
  }
  acc = __reduce_add_sync(0xffffffffu, acc);
  if ((threadIdx.x & 31) == 0) atomicAdd(sum, acc);
}

template <int W, int U>
__global__ void __launch_bounds__(1024)
    mlp_write(typename Word<W>::T* __restrict__ p, size_t n, uint32_t seed) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += U * stride) {
#pragma unroll
    for (int u = 0; u < U; ++u) p[i + u * stride] = Word<W>::make((i + u * stride) * (W / 4), seed);
  }
}

template <int W, int U>
__global__ void __launch_bounds__(1024) mlp_copy(const typename Word<W>::T* __restrict__ src,
                                                 typename Word<W>::T* __restrict__ dst, size_t n) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += U * stride) {
    typename Word<W>::T x[U];
#pragma unroll
    for (int u = 0; u < U; ++u) x[u] = __ldcg(src + i + u * stride);
#pragma unroll
    for (int u = 0; u < U; ++u) dst[i + u * stride] = x[u];
  }
}

enum Op { kRead, kWrite, kCopy };
const char* op_name(Op op) { return op == kRead ? "read" : op == kWrite ? "write" : "copy"; }

struct Config {
  int threads, width, unroll;
  // Launch hbm_l2.cu's read kernel (kernels.cuh: 1024 threads, 16 B, 4 in flight) instead of
  // mlp_read, to compare two kernels of one shape (hbm.csv measured 86.6 GB/s on 1 SM).
  bool hbm_l2_kernel = false;
};

template <int W, int U>
void launch_w_u(Op op, const Config& c, int ctas, const void* src, void* dst, size_t bytes,
                int passes, uint32_t seed, uint32_t* sum, cudaStream_t s) {
  using T = typename Word<W>::T;
  static bool set = false;
  if (!set) {
    allow_dynamic_smem(mlp_read<W, U>);
    allow_dynamic_smem(mlp_write<W, U>);
    allow_dynamic_smem(mlp_copy<W, U>);
    set = true;
  }
  size_t n = bytes / W;
  if (op == kRead)
    mlp_read<W, U>
        <<<ctas, c.threads, kExclusiveSmem, s>>>(static_cast<const T*>(src), n, passes, sum);
  else if (op == kWrite)
    mlp_write<W, U><<<ctas, c.threads, kExclusiveSmem, s>>>(static_cast<T*>(dst), n, seed);
  else
    mlp_copy<W, U><<<ctas, c.threads, kExclusiveSmem, s>>>(static_cast<const T*>(src),
                                                           static_cast<T*>(dst), n);
}

template <int W>
void launch_w(Op op, const Config& c, int ctas, const void* src, void* dst, size_t bytes,
              int passes, uint32_t seed, uint32_t* sum, cudaStream_t s) {
  switch (c.unroll) {
    case 1:
      return launch_w_u<W, 1>(op, c, ctas, src, dst, bytes, passes, seed, sum, s);
    case 2:
      return launch_w_u<W, 2>(op, c, ctas, src, dst, bytes, passes, seed, sum, s);
    case 4:
      return launch_w_u<W, 4>(op, c, ctas, src, dst, bytes, passes, seed, sum, s);
    default:
      return launch_w_u<W, 8>(op, c, ctas, src, dst, bytes, passes, seed, sum, s);
  }
}

void launch(Op op, const Config& c, int ctas, const void* src, void* dst, size_t bytes, int passes,
            uint32_t seed, uint32_t* sum, cudaStream_t s) {
  if (c.hbm_l2_kernel) {
    const size_t n16 = bytes / 16;
    read_kernel<<<ctas, kThreads, kExclusiveSmem, s>>>(static_cast<const uint4*>(src), n16, n16,
                                                       sum);
    LAUNCH_CHECK();
    return;
  }
  if (c.width == 4)
    launch_w<4>(op, c, ctas, src, dst, bytes, passes, seed, sum, s);
  else if (c.width == 8)
    launch_w<8>(op, c, ctas, src, dst, bytes, passes, seed, sum, s);
  else
    launch_w<16>(op, c, ctas, src, dst, bytes, passes, seed, sum, s);
  LAUNCH_CHECK();
}

// Sum of pattern words [a, b) of a buffer filled from word 0 with `seed`.
uint32_t range_sum(size_t a, size_t b, uint32_t seed) {
  return pattern_sum(b, seed) - pattern_sum(a, seed);
}

struct Ctx {
  char* a;  // the pattern (read and copy source)
  char* b;  // write and copy destination
  uint32_t* sum;
  cudaStream_t s;
  EventPair ev{kDev};
  uint32_t next_seed = 1;
};

double time_once(Ctx& x, Op op, const Config& c, int ctas, size_t off, size_t bytes, int passes,
                 uint32_t seed) {
  x.ev.start(x.s);
  launch(op, c, ctas, x.a + off, x.b + off, bytes, passes, seed, x.sum, x.s);
  x.ev.stop(x.s);
  return x.ev.elapsed_us();
}

void measure_case(Csv& csv, Ctx& x, const char* set, Op op, const Config& c, int ctas) {
  const size_t granule = size_t(ctas) * c.threads * c.width * c.unroll;
  const uint32_t seed = kSeed + 977u * x.next_seed++;
  CUDA_CHECK(cudaMemset(x.sum, 0, sizeof *x.sum));
  // Probe: 8 MiB (or one granule), then size for ~kTargetUs.
  size_t probe = std::max(granule, (8 * MiB / granule) * granule);
  double us = time_once(x, op, c, ctas, 0, probe, 1, seed);
  size_t bytes = size_t(double(probe) / us * kTargetUs);
  bytes = std::max(granule, std::min(kMaxRep / granule, bytes / granule) * granule);
  if (op == kWrite || op == kCopy) poison(kDev, x.b, kBuf);
  CUDA_CHECK(cudaMemset(x.sum, 0, sizeof *x.sum));
  const size_t slots = kBuf / bytes;
  size_t calls = 0;
  uint32_t want = 0;
  Stats st = repeat(
      [&] {
        size_t off = (calls % slots) * bytes;
        ++calls;
        want += range_sum(off / 4, (off + bytes) / 4, kSeed);
        return time_once(x, op, c, ctas, off, bytes, 1, seed);
      },
      RepeatOpts{1, 5, 15, 40});
  int ok = 1;
  if (op == kRead) {
    uint32_t got = 0;
    CUDA_CHECK(cudaMemcpy(&got, x.sum, sizeof got, cudaMemcpyDeviceToHost));
    ok = got == want;
    if (!ok) std::fprintf(stderr, "VERIFY FAILED: mlp read sum %u, want %u\n", got, want);
  } else {
    unsigned long long bad = 0;
    for (size_t k = 0; k < std::min(calls, slots); ++k) {
      size_t off = k * bytes;
      uint32_t want_seed = op == kWrite ? seed : kSeed + uint32_t(off / 4) * 2654435761u;
      bad += count_mismatches(kDev, x.b + off, bytes, want_seed);
    }
    ok = report_check(op == kWrite ? "mlp write" : "mlp copy", bad);
  }
  size_t moved = op == kCopy ? 2 * bytes : bytes;
  csv.row("%s,%s,%d,%d,%d,%d,%zu,%zu,%zu,1,%s,%.1f,%.1f,%.3f,%d,%d", set, op_name(op), ctas,
          c.threads, c.width, c.unroll, size_t(c.threads) * c.width * c.unroll, bytes, moved,
          stat_vals(st).c_str(), gbps(double(moved), st.median), gbps(double(moved), st.min),
          gbps(double(moved), st.median) / ctas, st.n, ok);
}

void measure_l2(Csv& csv, Ctx& x, const Config& c, int ctas) {
  const size_t ws = 8 * MiB;
  const size_t granule = size_t(ctas) * c.threads * c.width * c.unroll;
  const size_t bytes = std::max(granule, (ws / granule) * granule);
  CUDA_CHECK(cudaMemset(x.sum, 0, sizeof *x.sum));
  double us = time_once(x, kRead, c, ctas, 0, bytes, 4, 0);
  int passes = int(std::max(4.0, std::min(20000.0, 4 * kTargetUs / us)));
  CUDA_CHECK(cudaMemset(x.sum, 0, sizeof *x.sum));
  int calls = 0;
  Stats st = repeat(
      [&] {
        ++calls;
        return time_once(x, kRead, c, ctas, 0, bytes, passes, 0);
      },
      RepeatOpts{1, 5, 15, 40});
  uint32_t got = 0;
  CUDA_CHECK(cudaMemcpy(&got, x.sum, sizeof got, cudaMemcpyDeviceToHost));
  uint32_t want = uint32_t(calls) * uint32_t(passes) * range_sum(0, bytes / 4, kSeed);
  int ok = got == want;
  if (!ok) std::fprintf(stderr, "VERIFY FAILED: mlp l2 read sum %u, want %u\n", got, want);
  size_t moved = bytes * size_t(passes);
  csv.row("l2,l2_read,%d,%d,%d,%d,%zu,%zu,%zu,%d,%s,%.1f,%.1f,%.3f,%d,%d", ctas, c.threads, c.width,
          c.unroll, size_t(c.threads) * c.width * c.unroll, bytes, moved, passes,
          stat_vals(st).c_str(), gbps(double(moved), st.median), gbps(double(moved), st.min),
          gbps(double(moved), st.median) / ctas, st.n, ok);
}

// The `warps` set (--warps).
void measure_warps(Csv& csv, Ctx& x) {
  for (int ctas : {1, 2})
    for (int t : {32, 64, 128, 256})
      for (int w : {4, 8, 16})
        for (int u : {1, 2, 4, 8}) {
          measure_case(csv, x, "warps", kRead, {t, w, u}, ctas);
          if (ctas == 1) measure_case(csv, x, "warps", kCopy, {t, w, u}, ctas);
        }
  // The same rounds from L2 (an 8 MiB working set): whether the wait on a round's lines is
  // the HBM's or the SM's and L2's.
  for (int t : {32, 128})
    for (int u : {1, 4}) measure_l2(csv, x, {t, 16, u}, 1);
}

// mlp.csv's sets: axis, hbm_l2_kernel, l2, cross.
void measure_all(Csv& csv, Ctx& x) {
  const std::vector<int> ctas_list = {1, 2, 4, 8, 16, 32, 66, 132};
  const Config centre{256, 16, 4};
  // Axis sweeps around the centre first (the set a cut-short run must have), then the rest of
  // the cross product.
  std::vector<Config> axis = {centre};
  for (int t : {128, 512, 1024}) axis.push_back({t, 16, 4});
  for (int w : {4, 8}) axis.push_back({256, w, 4});
  for (int u : {1, 2, 8}) axis.push_back({256, 16, u});
  for (int ctas : ctas_list)
    for (const Config& c : axis)
      for (Op op : {kRead, kWrite, kCopy}) measure_case(csv, x, "axis", op, c, ctas);

  for (int ctas : ctas_list)
    measure_case(csv, x, "hbm_l2_kernel", kRead, {1024, 16, 4, true}, ctas);

  for (const Config& c : {centre, Config{1024, 16, 4}, Config{256, 16, 1}, Config{256, 4, 4}})
    for (int ctas : {1, 8, 32, 66, 132}) measure_l2(csv, x, c, ctas);

  for (int ctas : ctas_list)
    for (int t : {128, 256, 512, 1024})
      for (int w : {4, 8, 16})
        for (int u : {1, 2, 4, 8}) {
          int off_axis = (t != 256) + (w != 16) + (u != 4);
          if (off_axis <= 1) continue;  // already in the axis set
          for (Op op : {kRead, kWrite, kCopy}) measure_case(csv, x, "cross", op, {t, w, u}, ctas);
        }
}

}  // namespace

int main(int argc, char** argv) {
  CUDA_CHECK(cudaSetDevice(kDev));
  bool warps = false;
  for (int i = 1; i < argc; ++i) warps |= std::string(argv[i]) == "--warps";
  Csv csv(
      argc, argv, warps ? "mlp_warps.csv" : "mlp.csv",
      "Streaming bandwidth of GPU 0 by CTAs (one per SM) x threads per CTA x bytes per access x "
      "accesses in flight per thread; see mlp.cu",
      {kDev},
      {{"buffers", "two 4 GiB buffers; successive repetitions use successive slots"},
       {"loads", "ld.global.cg (L1 bypassed); stores plain st.global"},
       {"centre", "256 threads x 16 B x unroll 4"},
       {"hbm_l2_kernel",
        "set hbm_l2_kernel: kernels.cuh read_kernel, 1024 threads, 16 B, 4 in flight"}},
      "set,op,ctas,threads_per_cta,bytes_per_access,unroll,bytes_in_flight_per_cta,bytes_per_"
      "rep,bytes_moved_per_rep,passes," +
          stat_cols("time_us") + ",gbps_median,gbps_best,gbps_per_cta_median,reps,ok");
  allow_dynamic_smem(read_kernel);
  Ctx x;
  x.a = static_cast<char*>(device_alloc(kDev, kBuf));
  x.b = static_cast<char*>(device_alloc(kDev, kBuf));
  x.sum = static_cast<uint32_t*>(device_alloc(kDev, sizeof(uint32_t)));
  CUDA_CHECK(cudaStreamCreate(&x.s));
  fill_pattern(kDev, x.a, kBuf, kSeed);

  if (warps)
    measure_warps(csv, x);
  else
    measure_all(csv, x);

  CUDA_CHECK(cudaStreamDestroy(x.s));
  CUDA_CHECK(cudaFree(x.a));
  CUDA_CHECK(cudaFree(x.b));
  CUDA_CHECK(cudaFree(x.sum));
  return 0;
}
