// Which SMs share what (sm_groups.csv), for issue 9's misses that grow with the SMs at work: an
// SM's L2 re-read rate falls from 245.6 GB/s alone to 159 and 112 GB/s with 8 and 32 SMs
// reading (mlp.csv), far below the L2's share, and a fence's cost rises once about 12 SMs fence
// at once (fence_mix.csv). Which SMs slow which says what the shared resource is (a TPC's pair of
// SMs, a GPC, the whole chip); the offset rows say whether a fence's cost follows its SM or the
// address of its store (it is the address: validate/data/h200-single/README.md, sm_groups.csv).
//
// One launch of one CTA per SM (kExclusiveSmem) of 1024 threads (l2_read) or 32 (fence); a CTA
// works only if its %smid is in the row's set, the others exit, so the set is chosen by SM, not
// by the scheduler's placement. Each working CTA times itself (%globaltimer, thread 0, between
// two __syncthreads()).
//   test=l2_read: every thread keeps 4 16-byte ld.global.cg loads in flight (mlp.csv's l2_read
//     shape) over one 8 MiB working set, `passes` times, each SM starting at its own offset
//     (smid / the SM count of the set) so SMs do not walk the L2 in step; value = GB/s of that SM.
//   test=l2_chase: one thread's dependent ld.global.cg loads around 8 lines (1 KiB) of one window
//     of addresses, `iters` times; value = ns per load (an L2 hit's latency at that address).
//   test=fence_gpu, fence_system: one warp stores and fences (__threadfence /
//     __threadfence_system) in a loop of `iters`; value = ns per iteration of that SM
//     (store_only: the same loop without the fence).
// Sets: chase_sm0, chase_sm2 (SM 0 or 2 alone, the window `param` bytes into the buffer),
// offset_sm0, offset_sm2 (SM 0 or 2 alone, its fence loop's slot moved by `param` bytes:
//   whether the cost follows the SM or the address of the store the fence waits for), alone (SM
//   `param`, every SM in turn), pair (SM 0 and SM `param`), block (SMs param ..
//   param+7), first (SMs 0 .. param-1), stride (SMs 0, param, 2 param, ...), placement (a plain
//   launch of `param` CTAs, no set: the SMs the scheduler chose are listed, as in fence.csv's
//   launches). probe = SM `probe_sm`'s value (the set's first SM), mean / min / max over the set's
//   SMs; each SM's value is its median over `reps` launches.
// Verified: the working set holds ones, so every thread's sum is 16 x its loads; fence slots hold
// `iters`; every working SM recorded an end after its start.
#include "kernels.cuh"

using namespace mgbench;

namespace {

constexpr int kDev = 0;
constexpr size_t kWorkingSet = 8 * MiB;
constexpr int kL2Threads = 1024;
constexpr int kUnroll = 4;
constexpr int kPasses = 4;
constexpr int kFenceIters = 4000;
constexpr int kReps = 3;
// offset rows: the fence loop's slot moved by 0, 128, ... bytes over this span.
constexpr size_t kSlotSpan = 64 * 1024;
constexpr size_t kSlotStep = 128;

enum Test : int { kL2Read = 0, kStoreOnly = 1, kFenceGpu = 2, kFenceSystem = 3, kL2Chase = 4 };
const char* test_name(int t) {
  return t == kL2Read        ? "l2_read"
         : t == kStoreOnly   ? "store_only"
         : t == kFenceGpu    ? "fence_gpu"
         : t == kFenceSystem ? "fence_system"
                             : "l2_chase";
}
// l2_chase: one thread's dependent L2 loads around a window of this many 4-byte words, one word
// per 128-byte line (8 lines: 1 KiB).
constexpr size_t kChaseWindowWords = 256;
constexpr size_t kChaseStepWords = 32;

__device__ inline unsigned smid() {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

// `active` (by %smid; null: every CTA works); t[2 s], t[2 s + 1]: SM s's start and end.
__global__ void __launch_bounds__(1024)
    group_kernel(int test, const uint4* __restrict__ ws, size_t n, int passes, int iters,
                 int num_sms, size_t slot_offset, const unsigned char* active,
                 unsigned long long* t, unsigned* sums, unsigned* slots, unsigned* placed) {
  __shared__ int on;
  const unsigned s = smid();
  if (threadIdx.x == 0) on = active == nullptr || active[s];
  __syncthreads();
  if (!on) return;
  if (threadIdx.x == 0 && placed) placed[blockIdx.x] = s;
  __syncthreads();
  if (threadIdx.x == 0) t[2 * s] = globaltimer_ns();
  if (test == kL2Read) {
    const size_t per_loop = size_t(blockDim.x) * kUnroll;
    const size_t loops = n / per_loop;
    const size_t first = (size_t(s) * loops / num_sms) % loops;  // this SM's own first loop
    uint32_t acc = 0;
    for (int p = 0; p < passes; ++p)
      for (size_t l = 0; l < loops; ++l) {
        const size_t base = ((first + l) % loops) * per_loop + threadIdx.x;
        uint4 x[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) x[u] = __ldcg(ws + base + size_t(u) * blockDim.x);
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) acc += x[u].x + x[u].y + x[u].z + x[u].w;
      }
    sums[size_t(s) * blockDim.x + threadIdx.x] = acc;
  } else if (test == kL2Chase) {
    if (threadIdx.x == 0) {
      unsigned idx = unsigned(slot_offset);
      for (int i = 0; i < iters; ++i) idx = __ldcg(slots + idx);
      sums[size_t(s) * blockDim.x] = idx;
    }
  } else {
    volatile unsigned* mine = slots + slot_offset + size_t(s) * blockDim.x + threadIdx.x;
    for (int i = 1; i <= iters; ++i) {
      *mine = unsigned(i);
      fence_by_scope(test == kFenceGpu ? 2 : test == kFenceSystem ? 3 : 0);
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) t[2 * s + 1] = globaltimer_ns();
}

struct Ctx {
  Csv* csv;
  int num_sms;
  uint4* ws;
  unsigned char* active;
  unsigned long long* t;
  unsigned* sums;
  unsigned* slots;
  unsigned* placed;
};

// Runs `test` on the SMs in `set` (empty: a plain launch of `plain` CTAs) and writes one row.
void measure(Ctx& x, int test, const char* set, int param, std::vector<int> sms, int plain = 0,
             size_t slot_offset = 0) {
  const bool l2 = test == kL2Read;
  const int threads = l2 ? kL2Threads : 32;
  const size_t n = kWorkingSet / sizeof(uint4);
  const int ctas = plain > 0 ? plain : x.num_sms;
  std::vector<unsigned char> mask(x.num_sms, 0);
  for (int s : sms) mask[s] = 1;
  CUDA_CHECK(cudaMemcpy(x.active, mask.data(), mask.size(), cudaMemcpyHostToDevice));
  std::vector<std::vector<double>> per_sm(x.num_sms);
  std::vector<unsigned> placed(ctas);
  int ok = 1;
  for (int r = 0; r < kReps + 1; ++r) {
    CUDA_CHECK(cudaMemset(x.t, 0, size_t(2) * x.num_sms * sizeof(unsigned long long)));
    if (test != kL2Chase)
      CUDA_CHECK(cudaMemset(x.slots, 0, size_t(x.num_sms) * 32 * sizeof(unsigned) + kSlotSpan));
    group_kernel<<<ctas, threads, kExclusiveSmem>>>(
        test, x.ws, n, kPasses, kFenceIters, x.num_sms, slot_offset / sizeof(unsigned),
        plain > 0 ? nullptr : x.active, x.t, x.sums, x.slots, plain > 0 ? x.placed : nullptr);
    LAUNCH_CHECK();
    CUDA_CHECK(cudaDeviceSynchronize());
    if (plain > 0 && r == 0) {
      CUDA_CHECK(
          cudaMemcpy(placed.data(), x.placed, ctas * sizeof(unsigned), cudaMemcpyDeviceToHost));
      sms.assign(placed.begin(), placed.end());
    }
    std::vector<unsigned long long> t(size_t(2) * x.num_sms);
    CUDA_CHECK(cudaMemcpy(t.data(), x.t, t.size() * sizeof(t[0]), cudaMemcpyDeviceToHost));
    for (int s : sms) {
      const unsigned long long a = t[2 * s], b = t[2 * s + 1];
      if (a == 0 || b <= a) {
        ok = 0;
        continue;
      }
      const double ns = double(b - a);
      if (r > 0)  // the first launch is a warm-up
        per_sm[s].push_back(l2 ? double(kPasses) * kWorkingSet / ns : ns / kFenceIters);
    }
    if (l2) {
      std::vector<unsigned> sums(size_t(x.num_sms) * kL2Threads);
      CUDA_CHECK(
          cudaMemcpy(sums.data(), x.sums, sums.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
      const unsigned want = unsigned(kPasses) * unsigned(n / (kL2Threads * kUnroll)) * kUnroll * 4;
      for (int s : sms)
        for (int i = 0; i < kL2Threads; ++i) ok &= sums[size_t(s) * kL2Threads + i] == want;
    } else if (test == kL2Chase) {
      // iters x 32 words around a window of 256 comes back to the start.
      std::vector<unsigned> sums(size_t(x.num_sms) * 32);
      CUDA_CHECK(
          cudaMemcpy(sums.data(), x.sums, sums.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
      const size_t start = slot_offset / sizeof(unsigned);
      const size_t end =
          start - start % kChaseWindowWords +
          (start % kChaseWindowWords + size_t(kFenceIters) * kChaseStepWords) % kChaseWindowWords;
      for (int s : sms) ok &= sums[size_t(s) * 32] == unsigned(end);
    } else {
      std::vector<unsigned> got(size_t(x.num_sms) * 32);
      CUDA_CHECK(cudaMemcpy(got.data(), x.slots + slot_offset / sizeof(unsigned),
                            got.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
      for (int s : sms)
        for (int i = 0; i < 32; ++i) ok &= got[size_t(s) * 32 + i] == unsigned(kFenceIters);
    }
  }
  if (!ok) std::fprintf(stderr, "VERIFY FAILED: %s %s %d\n", test_name(test), set, param);
  std::vector<double> medians;
  for (int s : sms) medians.push_back(per_sm[s].empty() ? 0 : summarize(per_sm[s]).median);
  const double probe = medians.empty() ? 0 : medians.front();
  double sum = 0, lo = 1e300, hi = 0;
  for (double v : medians) {
    sum += v;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  std::string members;
  for (size_t i = 0; i < sms.size(); ++i) members += (i ? ";" : "") + std::to_string(sms[i]);
  x.csv->row("%s,%s,%d,%zu,%d,%.3f,%.3f,%.3f,%.3f,%s,%s,%d,%d", test_name(test), set, param,
             sms.size(), sms.empty() ? -1 : sms.front(), probe, sum / medians.size(), lo, hi,
             l2 ? "gbps" : "ns_per_iter", members.c_str(), kReps, ok);
}

std::vector<int> first_k(int k) {
  std::vector<int> v;
  for (int s = 0; s < k; ++s) v.push_back(s);
  return v;
}

std::vector<int> every(int m, int num_sms) {
  std::vector<int> v;
  for (int s = 0; s < num_sms; s += m) v.push_back(s);
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  CUDA_CHECK(cudaSetDevice(kDev));
  int num_sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&num_sms, cudaDevAttrMultiProcessorCount, kDev));
  Csv csv(argc, argv, "sm_groups.csv",
          "One SM's L2 re-read rate and fence cost beside chosen other SMs (by %smid) doing the "
          "same, on GPU 0; see sm_groups.cu",
          {kDev}, {{"timer", "%globaltimer"}},
          "test,set,param,active,probe_sm,probe,mean,min,max,unit,members,reps,ok");
  allow_dynamic_smem(group_kernel);
  Ctx x;
  x.csv = &csv;
  x.num_sms = num_sms;
  const size_t n = kWorkingSet / sizeof(uint4);
  x.ws = static_cast<uint4*>(device_alloc(kDev, kWorkingSet));
  {
    std::vector<uint4> ones(n, make_uint4(1, 1, 1, 1));
    CUDA_CHECK(cudaMemcpy(x.ws, ones.data(), kWorkingSet, cudaMemcpyHostToDevice));
  }
  x.active = static_cast<unsigned char*>(device_alloc(kDev, num_sms));
  x.t = static_cast<unsigned long long*>(device_alloc(kDev, size_t(2) * num_sms * 8));
  x.sums = static_cast<unsigned*>(device_alloc(kDev, size_t(num_sms) * kL2Threads * 4));
  x.slots = static_cast<unsigned*>(device_alloc(kDev, size_t(num_sms) * 32 * 4 + kSlotSpan));
  x.placed = static_cast<unsigned*>(device_alloc(kDev, size_t(num_sms) * 4));

  for (int test : {kL2Read, kFenceGpu, kFenceSystem})
    for (int s = 0; s < num_sms; ++s) measure(x, test, "alone", s, {s});
  for (int test : {kL2Read, kFenceGpu}) {
    for (int j = 1; j < num_sms; ++j) measure(x, test, "pair", j, {0, j});
    for (int b = 0; b + 8 <= num_sms; b += 8) {
      std::vector<int> block;
      for (int s = b; s < b + 8; ++s) block.push_back(s);
      measure(x, test, "block", b, block);
    }
    if (num_sms % 8 != 0) {
      std::vector<int> top;
      for (int s = num_sms - 8; s < num_sms; ++s) top.push_back(s);
      measure(x, test, "block", num_sms - 8, top);
    }
    for (int k : {2, 4, 8, 12, 16, 24, 32, 48, 66, 100, num_sms})
      measure(x, test, "first", k, first_k(std::min(k, num_sms)));
    for (int m : {2, 4, 8, 16, 33, 66}) measure(x, test, "stride", m, every(m, num_sms));
    for (int k : {1, 2, 4, 8, 12, 16, 24, 32, 66, num_sms}) measure(x, test, "placement", k, {}, k);
  }
  // Whether an L2 hit's latency follows the address as the fence does: SMs 0 and 2 alone, one
  // thread chasing 8 lines of one 1 KiB window, windows over the same 64 KiB.
  {
    std::vector<unsigned> chase(kSlotSpan / sizeof(unsigned));
    for (size_t w = 0; w < chase.size(); ++w)
      chase[w] = unsigned(w - w % kChaseWindowWords +
                          (w % kChaseWindowWords + kChaseStepWords) % kChaseWindowWords);
    CUDA_CHECK(cudaMemcpy(x.slots, chase.data(), kSlotSpan, cudaMemcpyHostToDevice));
    for (int s : {0, 2})
      for (size_t off = 0; off < kSlotSpan; off += kChaseWindowWords * sizeof(unsigned))
        measure(x, kL2Chase, s == 0 ? "chase_sm0" : "chase_sm2", int(off), {s}, 0, off);
  }
  // Whether a fence's cost follows its SM or the address of the store it waits for: SMs 0 and 2
  // alone, their slot moved in 128-byte steps.
  for (int s : {0, 2})
    for (size_t off = 0; off < kSlotSpan; off += kSlotStep)
      measure(x, kFenceGpu, s == 0 ? "offset_sm0" : "offset_sm2", int(off), {s}, 0, off);
  for (int test : {kStoreOnly, kFenceSystem}) {
    if (test == kStoreOnly) measure(x, test, "alone", 0, {0});
    for (int k : {2, 4, 8, 12, 16, 24, 32, 66, num_sms})
      measure(x, test, "first", k, first_k(std::min(k, num_sms)));
    for (int m : {2, 4, 8, 16, 33, 66}) measure(x, test, "stride", m, every(m, num_sms));
  }
  for (void* p :
       {static_cast<void*>(x.ws), static_cast<void*>(x.active), static_cast<void*>(x.t),
        static_cast<void*>(x.sums), static_cast<void*>(x.slots), static_cast<void*>(x.placed)})
    CUDA_CHECK(cudaFree(p));
  return 0;
}
