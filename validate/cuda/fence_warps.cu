// What a fence costs when the warps of one SM fence out of step (fence_warps.csv,
// fence_warps_timeline.csv), for issue 9's fence.csv `free` rows: at system scope 2-16 warps
// looping "store; fence" on their own take 1.5 x one warp's time per fence (749-751 ns against
// 498), where the same warps meeting at a barrier after each fence take one warp's time. Whether
// a fence waits for the other warps' fences (one at a time, or batched) or for their stores
// says what to model.
//
// One CTA (kExclusiveSmem: alone on its SM) of `warps` warps. Each thread loops `kIters` times
// over "volatile store of i to its own word; fence" (warps below `fencers`; the others store
// only, never fencing), with a __syncthreads() ending each iteration when `barrier` is 1. Lane 0
// of each warp reads clock64() before the store and after the fence; iterations kRecordFrom ..
// kRecordFrom + kRecord - 1 are kept in shared memory (no global store joins the fences' work)
// and written out after the loop. The CTA's clock64() and %globaltimer at its start and end
// convert cycles to ns.
//   fence_warps.csv: per (scope, warps, fencers, barrier), the fencing warps' mean time per
//     iteration over the whole loop, the storing warps' likewise, and the same launch with no
//     fence at all (store_only): fence_ns = fencers' ns per iteration - store_only's; median
//     of kReps launches after a warm-up.
//   fence_warps_timeline.csv: for a few of those launches (the first repetition), each warp's
//     recorded iterations: when its store began and its fence ended, ns from the window's first
//     start, so that one fence's end can be set against the others'.
// Verified: every word holds kIters after each launch; every warp's end follows its start.
#include <algorithm>
#include <vector>

#include "kernels.cuh"

using namespace mgbench;

namespace {

constexpr int kDev = 0;
constexpr int kIters = 2000;
constexpr int kRecordFrom = 512;
constexpr int kRecord = 64;
constexpr int kMaxWarps = 32;
constexpr int kReps = 3;

// rec: per warp, kRecord (begin, end) clock64 pairs; loop[2 w], loop[2 w + 1]: warp w's clock64
// at its loop's start and end; cta[0..3]: the CTA's clock64 and globaltimer at start and end.
__global__ void __launch_bounds__(1024)
    fence_warps_kernel(int scope, int fencers, int barrier, unsigned* words, long long* rec,
                       long long* loop, unsigned long long* cta) {
  __shared__ long long shared_rec[kMaxWarps][kRecord][2];
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const int fence = warp < fencers ? scope : 0;
  volatile unsigned* mine = words + threadIdx.x;
  __syncthreads();
  if (threadIdx.x == 0) {
    cta[0] = clock64();
    cta[1] = globaltimer_ns();
  }
  __syncthreads();
  const long long start = clock64();
  for (int i = 1; i <= kIters; ++i) {
    const long long t0 = clock64();
    *mine = unsigned(i);
    fence_by_scope(fence);
    const long long t1 = clock64();
    const int k = i - 1 - kRecordFrom;
    if (lane == 0 && k >= 0 && k < kRecord) {
      shared_rec[warp][k][0] = t0;
      shared_rec[warp][k][1] = t1;
    }
    if (barrier) __syncthreads();
  }
  const long long end = clock64();
  if (lane == 0) {
    loop[2 * warp] = start;
    loop[2 * warp + 1] = end;
    for (int k = 0; k < kRecord; ++k) {
      rec[(size_t(warp) * kRecord + k) * 2] = shared_rec[warp][k][0];
      rec[(size_t(warp) * kRecord + k) * 2 + 1] = shared_rec[warp][k][1];
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    cta[2] = clock64();
    cta[3] = globaltimer_ns();
  }
}

struct Ctx {
  unsigned* words;
  long long* rec;
  long long* loop;
  unsigned long long* cta;
};

struct Launch {
  double fencer_ns = 0, other_ns = 0;  // mean ns per iteration of the fencing / storing warps
  double ns_per_cycle = 0;
  std::vector<long long> rec;  // as the kernel's `rec`
  bool ok = true;
};

Launch launch(Ctx& x, int scope, int warps, int fencers, int barrier) {
  CUDA_CHECK(cudaMemset(x.words, 0, kMaxWarps * 32 * sizeof(unsigned)));
  fence_warps_kernel<<<1, warps * 32, kExclusiveSmem>>>(scope, fencers, barrier, x.words, x.rec,
                                                        x.loop, x.cta);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  Launch l;
  std::vector<unsigned> words(size_t(warps) * 32);
  CUDA_CHECK(
      cudaMemcpy(words.data(), x.words, words.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  for (unsigned w : words) l.ok = l.ok && w == unsigned(kIters);
  std::vector<long long> loop(size_t(warps) * 2);
  CUDA_CHECK(
      cudaMemcpy(loop.data(), x.loop, loop.size() * sizeof(long long), cudaMemcpyDeviceToHost));
  unsigned long long cta[4];
  CUDA_CHECK(cudaMemcpy(cta, x.cta, sizeof(cta), cudaMemcpyDeviceToHost));
  l.ns_per_cycle = double(cta[3] - cta[1]) / double(cta[2] - cta[0]);
  l.ok = l.ok && cta[3] > cta[1] && cta[2] > cta[0];
  double fencing = 0, storing = 0;
  for (int w = 0; w < warps; ++w) {
    l.ok = l.ok && loop[2 * w + 1] > loop[2 * w];
    const double ns = double(loop[2 * w + 1] - loop[2 * w]) * l.ns_per_cycle / kIters;
    (w < fencers ? fencing : storing) += ns;
  }
  l.fencer_ns = fencing / std::max(1, std::min(fencers, warps));
  l.other_ns = warps > fencers ? storing / (warps - fencers) : 0;
  l.rec.resize(size_t(warps) * kRecord * 2);
  CUDA_CHECK(
      cudaMemcpy(l.rec.data(), x.rec, l.rec.size() * sizeof(long long), cudaMemcpyDeviceToHost));
  return l;
}

const char* scope_name(int scope) { return scope == 2 ? "gpu" : "system"; }

}  // namespace

int main(int argc, char** argv) {
  CUDA_CHECK(cudaSetDevice(kDev));
  const Meta timer = {{"timer", "clock64, converted by %globaltimer over the CTA"}};
  Csv csv(argc, argv, "fence_warps.csv",
          "Fences by warps of one SM in step or not, beside warps that fence or only store, on "
          "GPU 0; see fence_warps.cu",
          {kDev}, timer,
          "scope,warps,fencers,barrier,iters,fencer_ns_per_iter,other_ns_per_iter,"
          "store_only_ns_per_iter,fence_ns,reps,ok");
  Csv timeline(argc, argv, "fence_warps_timeline.csv",
               "Each warp's store-and-fence iterations on one SM (first repetition of chosen "
               "fence_warps.csv launches), ns from the window's first start; see fence_warps.cu",
               {kDev}, timer, "scope,warps,fencers,barrier,warp,iter,begin_ns,end_ns");
  allow_dynamic_smem(fence_warps_kernel);
  Ctx x;
  x.words = static_cast<unsigned*>(device_alloc(kDev, kMaxWarps * 32 * sizeof(unsigned)));
  x.rec = static_cast<long long*>(
      device_alloc(kDev, size_t(kMaxWarps) * kRecord * 2 * sizeof(long long)));
  x.loop = static_cast<long long*>(device_alloc(kDev, size_t(kMaxWarps) * 2 * sizeof(long long)));
  x.cta = static_cast<unsigned long long*>(device_alloc(kDev, 4 * sizeof(unsigned long long)));
  launch(x, 3, 1, 1, 0);  // warm-up

  for (int scope : {2, 3})
    for (int warps : {1, 2, 3, 4, 8, 16, 32})
      for (int barrier : {0, 1})
        for (int fencers : {warps, 1}) {
          std::vector<double> f, o, base;
          bool ok = true;
          for (int r = 0; r < kReps; ++r) {
            Launch l = launch(x, scope, warps, fencers, barrier);
            Launch b = launch(x, 0, warps, fencers, barrier);
            ok = ok && l.ok && b.ok;
            f.push_back(l.fencer_ns);
            o.push_back(l.other_ns);
            base.push_back(b.fencer_ns);
            const bool keep = r == 0 && barrier == 0 && (warps == 2 || warps == 4 || warps == 8);
            if (!keep) continue;
            for (int w = 0; w < warps; ++w)
              for (int k = 0; k < kRecord; ++k) {
                const long long origin = l.rec[0];
                const size_t at = (size_t(w) * kRecord + k) * 2;
                timeline.row("%s,%d,%d,%d,%d,%d,%.1f,%.1f", scope_name(scope), warps, fencers,
                             barrier, w, kRecordFrom + k,
                             double(l.rec[at] - origin) * l.ns_per_cycle,
                             double(l.rec[at + 1] - origin) * l.ns_per_cycle);
              }
          }
          const double fm = summarize(f).median, bm = summarize(base).median;
          csv.row("%s,%d,%d,%d,%d,%.3f,%.3f,%.3f,%.3f,%d,%d", scope_name(scope), warps, fencers,
                  barrier, kIters, fm, summarize(o).median, bm, fm - bm, kReps, ok);
          if (!ok) std::fprintf(stderr, "VERIFY FAILED: fence_warps words or clocks\n");
          if (warps == 1) break;  // fencers == warps == 1: one row
        }
  for (void* p : {static_cast<void*>(x.words), static_cast<void*>(x.rec),
                  static_cast<void*>(x.loop), static_cast<void*>(x.cta)})
    CUDA_CHECK(cudaFree(p));
  return 0;
}
