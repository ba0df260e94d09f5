// Peer-side synchronisation between GPU 0 and GPU 1 (peer_sync.csv), for issue 9's remote costs.
// NEEDS 2 GPUS with peer access: built by scripts/measure_h200_single.sh but run only by a
// 2-GPU measurement (not yet run).
//
// test=get_round_trip: one CTA on GPU 0 reads `bytes` from GPU 1 (location=remote) or from its
//   own memory (location=local) with ld.global.cg, then every thread adds what it read before a
//   __syncthreads(), so each iteration waits for all its data: ns_per_iter = one round trip of a
//   get of that size. 4 B: 1 thread; 512 B: 32 threads x 16 B; 4 KiB: 256 x 16 B; 16 KiB:
//   1024 x 16 B; 64 KiB: 1024 x 4 x 16 B. The sum is checked against the pattern's closed form.
// test=remote_fence: one thread of GPU 0 stores i to a word of GPU 1 (or of its own memory), then
//   fences (none, __threadfence, __threadfence_system), `iterations` times; derived_ns = minus
//   the no-fence loop. The word must read `iterations` afterwards.
// test=remote_atomic: `ctas` CTAs (one per SM) of 1 or 32 threads on GPU 0 atomicAdd 1 to one
//   word of GPU 1 (same_address) or each to its own word (distinct_address), result unused (red)
//   or used (atom); span from the earliest CTA start to the latest end. Counters checked.
#include "kernels.cuh"

using namespace mgbench;

namespace {

__global__ void get_kernel(const uint32_t* __restrict__ p, size_t words, int iters, uint32_t* sum,
                           unsigned long long* ns) {
  uint32_t acc = 0;
  __syncthreads();
  unsigned long long t0 = globaltimer_ns();
  for (int it = 0; it < iters; ++it) {
    if (words < 4) {
      if (threadIdx.x < words) acc += __ldcg(p + threadIdx.x);
    } else {
      const uint4* q = reinterpret_cast<const uint4*>(p);
      const size_t n16 = words / 4;
      for (size_t i = threadIdx.x; i < n16; i += blockDim.x) {
        uint4 x = __ldcg(q + i);
        acc += x.x + x.y + x.z + x.w;
      }
    }
    __syncthreads();  // every thread has used its data: the whole get has returned
  }
  if (threadIdx.x == 0) *ns = globaltimer_ns() - t0;
  atomicAdd(sum, acc);
}

__global__ void remote_fence_kernel(unsigned* word, int iters, int fence, unsigned long long* ns) {
  unsigned long long t0 = globaltimer_ns();
  for (int i = 1; i <= iters; ++i) {
    *reinterpret_cast<volatile unsigned*>(word) = unsigned(i);
    if (fence == 1) __threadfence();
    if (fence == 2) __threadfence_system();
  }
  *ns = globaltimer_ns() - t0;
}

__global__ void remote_atomic_kernel(unsigned* words, int iters, int distinct, int use_result,
                                     unsigned* sink, unsigned long long* span) {
  __syncthreads();
  if (threadIdx.x == 0) stamp_start(span);
  unsigned* p = distinct ? words + size_t(blockIdx.x * blockDim.x + threadIdx.x) * 32 : words;
  unsigned acc = 0;
  if (use_result) {
    for (int i = 0; i < iters; ++i) acc += atomicAdd_system(p, 1u);
  } else {
    for (int i = 0; i < iters; ++i) atomicAdd_system(p, 1u);
  }
  __syncthreads();
  if (threadIdx.x == 0) stamp_end(span);
  if (use_result && acc == 0xFFFFFFFFu) *sink = acc;
}

unsigned long long fetch_u64(const unsigned long long* p) {
  unsigned long long h = 0;
  CUDA_CHECK(cudaMemcpy(&h, p, sizeof h, cudaMemcpyDeviceToHost));
  return h;
}

}  // namespace

int main(int argc, char** argv) {
  int count = 0;
  CUDA_CHECK(cudaGetDeviceCount(&count));
  if (count < 2) {
    std::fprintf(stderr, "peer_sync needs 2 GPUs, found %d\n", count);
    return 2;
  }
  Meta p2p = enable_peer_access(0, 1);
  CUDA_CHECK(cudaSetDevice(0));
  int num_sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&num_sms, cudaDevAttrMultiProcessorCount, 0));
  Csv csv(argc, argv, "peer_sync.csv",
          "Remote get round trip, remote fences and remote atomic contention from GPU 0 to GPU 1; "
          "see peer_sync.cu",
          {0, 1}, concat(p2p, {{"timer", "%globaltimer on GPU 0"}}),
          "test,variant,location,bytes,threads_per_cta,ctas,iterations," +
              stat_cols("ns_per_iter") + ",derived_ns,mops,reps,ok");
  constexpr uint32_t kSeed = 0x9E7u;
  const size_t max_bytes = 64 * KiB;
  void* remote = device_alloc(1, 4 * MiB);
  void* local = device_alloc(0, 4 * MiB);
  fill_pattern(1, remote, max_bytes, kSeed);
  fill_pattern(0, local, max_bytes, kSeed);
  uint32_t* sum = static_cast<uint32_t*>(device_alloc(0, 4));
  unsigned long long* ns = static_cast<unsigned long long*>(device_alloc(0, 16));
  allow_dynamic_smem(remote_atomic_kernel);

  struct GetCase {
    size_t bytes;
    int threads;
  };
  for (const char* loc : {"remote", "local"}) {
    const uint32_t* p = static_cast<const uint32_t*>(loc[0] == 'r' ? remote : local);
    for (GetCase c : {GetCase{4, 1}, GetCase{512, 32}, GetCase{4 * KiB, 256},
                      GetCase{16 * KiB, 1024}, GetCase{64 * KiB, 1024}}) {
      const int iters = 2000;
      std::vector<double> v;
      CUDA_CHECK(cudaMemset(sum, 0, 4));
      for (int r = 0; r < 6; ++r) {
        get_kernel<<<1, c.threads>>>(p, c.bytes / 4, iters, sum, ns);
        LAUNCH_CHECK();
        if (r > 0) v.push_back(double(fetch_u64(ns)) / iters);
      }
      uint32_t got = 0;
      CUDA_CHECK(cudaMemcpy(&got, sum, 4, cudaMemcpyDeviceToHost));
      int ok = got == uint32_t(6 * iters) * pattern_sum(c.bytes / 4, kSeed);
      if (!ok) std::fprintf(stderr, "VERIFY FAILED: get sum\n");
      Stats st = summarize(v);
      csv.row("get_round_trip,ldcg,%s,%zu,%d,1,%d,%s,%.3f,0,%d,%d", loc, c.bytes, c.threads, iters,
              stat_vals(st).c_str(), st.median, st.n, ok);
    }
  }

  for (const char* loc : {"remote", "local"}) {
    unsigned* w = static_cast<unsigned*>(loc[0] == 'r' ? remote : local) + max_bytes / 4;
    double base = 0;
    for (int fence : {0, 1, 2}) {
      const int iters = 5000;
      std::vector<double> v;
      for (int r = 0; r < 6; ++r) {
        remote_fence_kernel<<<1, 1>>>(w, iters, fence, ns);
        LAUNCH_CHECK();
        if (r > 0) v.push_back(double(fetch_u64(ns)) / iters);
      }
      unsigned got = 0;
      CUDA_CHECK(cudaMemcpy(&got, w, 4, cudaMemcpyDefault));
      int ok = got == unsigned(iters);
      Stats st = summarize(v);
      if (fence == 0) base = st.median;
      const char* name = fence == 0   ? "store_only"
                         : fence == 1 ? "threadfence"
                                      : "threadfence_system";
      csv.row("remote_fence,%s,%s,4,1,1,%d,%s,%.3f,0,%d,%d", name, loc, iters,
              stat_vals(st).c_str(), st.median - base, st.n, ok);
    }
  }

  unsigned* words = static_cast<unsigned*>(remote) + max_bytes / 4 + 64;
  for (int distinct : {0, 1})
    for (int use : {0, 1})
      for (int threads : {1, 32})
        for (int ctas : {1, 2, 4, 8, 16, 32, 66, num_sms}) {
          const int iters = 500;
          const size_t n = size_t(ctas) * threads * 32;
          std::vector<double> v;
          for (int r = 0; r < 6; ++r) {
            CUDA_CHECK(cudaMemset(words, 0, n * 4));
            unsigned long long init[2] = {~0ull, 0ull};
            CUDA_CHECK(cudaMemcpy(ns, init, sizeof init, cudaMemcpyHostToDevice));
            remote_atomic_kernel<<<ctas, threads, kExclusiveSmem>>>(words, iters, distinct, use,
                                                                    sum, ns);
            LAUNCH_CHECK();
            unsigned long long sp[2];
            CUDA_CHECK(cudaMemcpy(sp, ns, sizeof sp, cudaMemcpyDeviceToHost));
            if (r > 0) v.push_back(double(sp[1] - sp[0]));
          }
          std::vector<unsigned> got(n);
          CUDA_CHECK(cudaMemcpy(got.data(), words, n * 4, cudaMemcpyDefault));
          int ok = 1;
          if (distinct)
            for (size_t t = 0; t < size_t(ctas) * threads; ++t)
              ok &= got[t * 32] == unsigned(iters);
          else
            ok = got[0] == unsigned(iters * ctas * threads);
          Stats st = summarize(v);
          double total = double(iters) * ctas * threads;
          Stats per = st;
          for (double* d : {&per.median, &per.min, &per.max, &per.p10, &per.p90}) *d /= iters;
          csv.row("remote_atomic,%s_%s,remote,4,%d,%d,%d,%s,%.3f,%.3f,%d,%d",
                  distinct ? "distinct_address" : "same_address", use ? "atom" : "red", threads,
                  ctas, iters, stat_vals(per).c_str(), per.median, total / st.median * 1e3, st.n,
                  ok);
        }
  CUDA_CHECK(cudaFree(remote));
  CUDA_CHECK(cudaFree(local));
  CUDA_CHECK(cudaFree(sum));
  CUDA_CHECK(cudaFree(ns));
  return 0;
}
