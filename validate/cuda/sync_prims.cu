// Synchronisation primitives on one GPU (sync.csv, fence.csv, fence_mix.csv,
// put_signal_local.csv), for issue 9's fence, flag and atomic costs.
//
// test=fence: one CTA of 1, 32 or 1024 threads; each thread loops `iterations` times over
//   "volatile store of i to its own word; fence", the fence being none, __threadfence_block()
//   (fence.cta), __threadfence() (fence.gpu) or __threadfence_system() (fence.sys). Timed with
//   %globaltimer by thread 0 between two __syncthreads(). ns_per_iter = time / iterations;
//   derived_ns = ns_per_iter - the same CTA's ns_per_iter without a fence (the fence's cost).
// test=pingpong: two CTAs of one GPU, on SMs sm_a and sm_b, pass a counter back and forth
//   (flag.cu's protocol): the initiator writes i to the responder's flag and waits for i on its
//   own. Variants: volatile (st.volatile / ld.volatile), release_acquire_gpu (st.release.gpu /
//   ld.acquire.gpu), release_acquire_sys (.sys, flag.csv's same_gpu), atomic (atomicAdd of 1 to
//   send, atomicAdd of 0 to poll). The launch has one CTA per SM (kExclusiveSmem) and the CTAs
//   whose %smid is sm_a / sm_b play; the others exit. ns_per_iter = round trip; derived_ns =
//   one-way = round trip / 2. sm_a = sm_b = -1: a plain 2-CTA launch (the scheduler's placement;
//   the SMs it chose are in the row's note column).
// test=atomic: `ctas` CTAs (one per SM) of 1 or 32 threads; each thread does `iterations`
//   atomicAdd(1) to one shared global word (same_address) or to its own word 128 B apart
//   (distinct_address); `red` ignores the result (compiles to RED), `atom` adds the results up
//   (ATOM; the atomics of one thread still overlap, as nothing waits on a result), `atom_chain`
//   makes each atomic's address depend on the previous result (one round trip each: latency). Timed
//   from the earliest CTA start to the latest CTA end (%globaltimer). ns_per_iter = span /
//   iterations (the time per atomic of one thread's chain); mops = all atomics / span (millions per
//   second). Verified: final counter values.
// fence.csv: test=fence's loop on 1-132 CTAs at once (one per SM) of 32-1024 threads, by scope,
//   its warps running freely (warps=free) or together (warps=together: a __syncthreads() ends
//   each iteration), timed from the earliest CTA start to the latest CTA end; fence_ns =
//   ns_per_iter less the same launch without a fence (store_only_ns_per_iter). What a fence costs
//   by the warps of an SM that run it, and whether fences of many SMs cost more than one SM's.
// fence_mix.csv: `fencers` of `ctas` CTAs (one per SM; 1 or all) store, fence and meet at a
//   barrier in a loop, the others store without fencing until the fencers are done; the fencers'
//   span per iteration, less the same launch without the fence. Whether a fence slows beside
//   SMs that fence or beside SMs that only store.
// put_signal_local.csv: flag.cu's put-then-signal ping-pong (put_signal.csv, the same columns)
//   with both sides on GPU 0: two concurrent kernels of 1-66 CTAs (one per SM), 16 B - 1 MiB per
//   message; round trip and one way (half). Verified: both receive buffers hold the sender's
//   pattern.
#include "flag_protocol.cuh"

using namespace mgbench;

namespace {

constexpr int kDev = 0;
constexpr unsigned long long kTimeoutNs = 1'000'000'000ull;

__device__ inline unsigned smid() {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

// ---------------------------------------------------------------------------------------------
// Fences.
enum Fence : int { kNone = 0, kBlock = 1, kGpu = 2, kSystem = 3 };  // kernels.cuh fence_by_scope
const char* fence_name(int f) {
  return f == kNone    ? "store_only"
         : f == kBlock ? "threadfence_block"
         : f == kGpu   ? "threadfence"
                       : "threadfence_system";
}

// `barrier`: a __syncthreads() ends every iteration, so the CTA's warps store and fence together
// (as a kernel that fences, then signals after a barrier, does); without it they run freely.
__global__ void fence_kernel(unsigned* slots, int iters, int fence, int barrier,
                             unsigned long long* span) {
  volatile unsigned* mine = slots + size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  __syncthreads();
  if (threadIdx.x == 0) stamp_start(span);
  for (int i = 1; i <= iters; ++i) {
    *mine = unsigned(i);
    fence_by_scope(fence);
    if (barrier) __syncthreads();
  }
  __syncthreads();
  if (threadIdx.x == 0) stamp_end(span);
}

// fence_mix.csv: CTAs below `fencers` store, fence (`fence`, none for the baseline) and meet at a
// barrier, `iters` times, timed from the first one's start to the last one's end; the other CTAs
// store in the same loop, never fencing, until every fencer is done (`done`).
__global__ void fence_mix_kernel(unsigned* slots, int iters, int fence, int fencers, unsigned* done,
                                 unsigned long long* span) {
  __shared__ int stop;
  volatile unsigned* mine = slots + size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) stop = 0;
  __syncthreads();
  if (int(blockIdx.x) < fencers) {
    if (threadIdx.x == 0) stamp_start(span);
    for (int i = 1; i <= iters; ++i) {
      *mine = unsigned(i);
      fence_by_scope(fence);
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      stamp_end(span);
      atomicAdd(done, 1u);
    }
    return;
  }
  for (unsigned i = 1;; ++i) {
    *mine = i;
    if (threadIdx.x == 0) stop = *reinterpret_cast<volatile unsigned*>(done) >= unsigned(fencers);
    __syncthreads();
    if (stop) break;
    __syncthreads();
  }
}

// ---------------------------------------------------------------------------------------------
// Ping-pong.
enum Sync : int { kVolatile = 0, kRelAcqGpu = 1, kRelAcqSys = 2, kAtomic = 3 };
const char* sync_name(int s) {
  return s == kVolatile    ? "volatile"
         : s == kRelAcqGpu ? "release_acquire_gpu"
         : s == kRelAcqSys ? "release_acquire_sys"
                           : "atomic";
}

__device__ inline void flag_send(unsigned* p, unsigned v, int sync) {
  if (sync == kVolatile)
    *reinterpret_cast<volatile unsigned*>(p) = v;
  else if (sync == kRelAcqGpu)
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
  else if (sync == kRelAcqSys)
    asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
  else
    atomicAdd(p, 1u);  // both sides send exactly once per round, so the flag reads i
}

__device__ inline unsigned flag_poll(unsigned* p, int sync) {
  unsigned v;
  if (sync == kVolatile) return *reinterpret_cast<volatile unsigned*>(p);
  if (sync == kRelAcqGpu) {
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  } else if (sync == kRelAcqSys) {
    asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  } else {
    v = atomicAdd(p, 0u);
  }
  return v;
}

struct PingOut {
  unsigned long long ns;
  int failed;
  int sm_init, sm_resp;
};

// flags[0]: the initiator's flag, flags[1]: the responder's. sm_a < 0: CTA 0 initiates, CTA 1
// responds, wherever they run.
__global__ void pingpong_kernel(unsigned* flags, int sm_a, int sm_b, int iters, int warmup,
                                int sync, PingOut* out) {
  if (threadIdx.x != 0) return;
  const int me = int(smid());
  int role;  // 1 initiator, 0 responder, -1 not playing
  if (sm_a < 0)
    role = blockIdx.x == 0 ? 1 : blockIdx.x == 1 ? 0 : -1;
  else
    role = me == sm_a ? 1 : me == sm_b ? 0 : -1;
  if (role < 0) return;
  if (role == 1)
    out->sm_init = me;
  else
    out->sm_resp = me;
  unsigned* poll = flags + (role == 1 ? 0 : 1);
  unsigned* send = flags + (role == 1 ? 1 : 0);
  unsigned long long t0 = 0, start = globaltimer_ns();
  for (int i = 1; i <= warmup + iters; ++i) {
    if (role == 1 && i == warmup + 1) t0 = globaltimer_ns();
    if (role == 1) flag_send(send, unsigned(i), sync);
    unsigned n = 0;
    while (flag_poll(poll, sync) < unsigned(i)) {
      if ((++n & 1023) == 0 && globaltimer_ns() - start > kTimeoutNs) {
        out->failed = 1;
        return;
      }
    }
    if (role == 0) flag_send(send, unsigned(i), sync);
  }
  if (role == 1) out->ns = globaltimer_ns() - t0;
}

// ---------------------------------------------------------------------------------------------
// Atomics.
__global__ void atomic_kernel(unsigned* words, int iters, int distinct, int use_result,
                              unsigned* sink, unsigned long long* span) {
  __syncthreads();
  if (threadIdx.x == 0) stamp_start(span);
  const unsigned gtid = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned* p = distinct ? words + size_t(gtid) * 32 : words;
  unsigned acc = 0;
  if (use_result == 2) {
    // The next address depends on the returned value (it never moves: no count reaches ~0u), so
    // each atomic waits for the previous one's round trip.
    for (int i = 0; i < iters; ++i) {
      unsigned old = atomicAdd(p, 1u);
      acc += old;
      p += old == 0xFFFFFFFFu;
    }
  } else if (use_result) {
    for (int i = 0; i < iters; ++i) acc += atomicAdd(p, 1u);
  } else {
    for (int i = 0; i < iters; ++i) atomicAdd(p, 1u);
  }
  __syncthreads();
  if (threadIdx.x == 0) stamp_end(span);
  if (use_result && acc == 0xFFFFFFFFu) *sink = acc;  // keeps the results live
}

struct Ctx {
  Csv* csv;
  unsigned* words;  // 132 * 32 threads * 32 words
  unsigned long long* span;
  PingOut* ping;
};

void row(Ctx& x, const char* test, const char* variant, int threads, int ctas, int sm_a, int sm_b,
         int iters, const Stats& st, double derived_ns, double mops, const std::string& note,
         int ok) {
  x.csv->row("%s,%s,%d,%d,%d,%d,%d,%s,%.3f,%.3f,%s,%d,%d", test, variant, threads, ctas, sm_a, sm_b,
             iters, stat_vals(st).c_str(), derived_ns, mops, note.c_str(), st.n, ok);
}

// Times `iters` iterations of fence_kernel on `ctas` CTAs (one per SM) of `threads` threads;
// returns ns per iteration (the span from the first CTA's start to the last one's end) and checks
// every thread's slot.
Stats time_fences(Ctx& x, int ctas, int threads, int fence, int barrier, int iters, int reps,
                  int* ok) {
  const size_t slots = size_t(ctas) * threads;
  std::vector<double> v;
  for (int r = 0; r < reps + 1; ++r) {
    CUDA_CHECK(cudaMemset(x.words, 0, slots * sizeof(unsigned)));
    unsigned long long init[2] = {~0ull, 0ull};
    CUDA_CHECK(cudaMemcpy(x.span, init, sizeof init, cudaMemcpyHostToDevice));
    fence_kernel<<<ctas, threads, kExclusiveSmem>>>(x.words, iters, fence, barrier, x.span);
    LAUNCH_CHECK();
    unsigned long long sp[2];
    CUDA_CHECK(cudaMemcpy(sp, x.span, sizeof sp, cudaMemcpyDeviceToHost));
    if (r > 0) v.push_back(double(sp[1] - sp[0]) / iters);  // the first is warm-up
  }
  std::vector<unsigned> got(slots);
  CUDA_CHECK(cudaMemcpy(got.data(), x.words, slots * sizeof(unsigned), cudaMemcpyDeviceToHost));
  *ok = std::all_of(got.begin(), got.end(), [&](unsigned g) { return g == unsigned(iters); });
  if (!*ok) std::fprintf(stderr, "VERIFY FAILED: fence slots\n");
  return summarize(v);
}

// One CTA: every fence scope against the same loop without a fence.
void measure_fences(Ctx& x) {
  const int iters = 20000, reps = 7;
  for (int threads : {1, 32, 1024}) {
    double base = 0;
    for (int f : {kNone, kBlock, kGpu, kSystem}) {
      int ok = 0;
      Stats st = time_fences(x, 1, threads, f, 0, iters, reps, &ok);
      if (f == kNone) base = st.median;
      row(x, "fence", fence_name(f), threads, 1, -1, -1, iters, st, st.median - base, 0, "", ok);
    }
  }
}

// fence.csv: the same loop on `ctas` CTAs at once, one per SM, by scope and threads: what a fence
// costs by the warps of an SM that run it, and whether fences of many SMs (put_signal.csv's 1-132
// CTAs of 1024 threads, each fencing at system scope before its signal) cost more than one SM's.
void measure_fence_ctas(Csv& csv, Ctx& x, int num_sms) {
  const int iters = 4000, reps = 5;
  for (int barrier : {0, 1})
    for (int threads : {32, 64, 128, 256, 512, 1024})
      for (int ctas : {1, 8, 32, 66, num_sms}) {
        int base_ok = 0, ok = 0;
        const Stats base = time_fences(x, ctas, threads, kNone, barrier, iters, reps, &base_ok);
        for (int f : {kBlock, kGpu, kSystem}) {
          Stats st = time_fences(x, ctas, threads, f, barrier, iters, reps, &ok);
          ok &= base_ok;
          const char* scope = f == kBlock ? "cta" : f == kGpu ? "gpu" : "system";
          csv.row("%s,%s,%d,%d,%d,%s,%.3f,%.3f,%d,%d", scope, barrier ? "together" : "free",
                  threads, ctas, iters, stat_vals(st).c_str(), base.median, st.median - base.median,
                  st.n, ok);
        }
      }
}

// fence_mix.csv: whether a fence is slower beside SMs that fence too, or beside SMs that only
// store: `fencers` of `ctas` CTAs (one per SM) fence, the rest store until they are done.
void measure_fence_mix(Csv& csv, Ctx& x, int num_sms) {
  const int iters = 4000, reps = 5;
  unsigned* done = static_cast<unsigned*>(device_alloc(kDev, sizeof(unsigned)));
  auto time = [&](int ctas, int threads, int fencers, int fence, int* ok) {
    const size_t slots = size_t(ctas) * threads;
    std::vector<double> v;
    for (int r = 0; r < reps + 1; ++r) {
      CUDA_CHECK(cudaMemset(x.words, 0, slots * sizeof(unsigned)));
      CUDA_CHECK(cudaMemset(done, 0, sizeof(unsigned)));
      unsigned long long init[2] = {~0ull, 0ull};
      CUDA_CHECK(cudaMemcpy(x.span, init, sizeof init, cudaMemcpyHostToDevice));
      fence_mix_kernel<<<ctas, threads, kExclusiveSmem>>>(x.words, iters, fence, fencers, done,
                                                          x.span);
      LAUNCH_CHECK();
      unsigned long long sp[2];
      CUDA_CHECK(cudaMemcpy(sp, x.span, sizeof sp, cudaMemcpyDeviceToHost));
      if (r > 0) v.push_back(double(sp[1] - sp[0]) / iters);  // the first is warm-up
    }
    std::vector<unsigned> got(slots);
    CUDA_CHECK(cudaMemcpy(got.data(), x.words, slots * sizeof(unsigned), cudaMemcpyDeviceToHost));
    *ok = 1;
    for (int c = 0; c < fencers; ++c)
      for (int t = 0; t < threads; ++t) *ok &= got[size_t(c) * threads + t] == unsigned(iters);
    if (!*ok) std::fprintf(stderr, "VERIFY FAILED: fence_mix slots\n");
    return summarize(v);
  };
  for (int f : {kGpu, kSystem})
    for (int threads : {32, 1024})
      for (int ctas : {1, 2, 4, 8, 12, 16, 24, 32, 66, num_sms})
        for (int fencers : {1, ctas}) {
          int base_ok = 0, ok = 0;
          const Stats base = time(ctas, threads, fencers, kNone, &base_ok);
          const Stats st = time(ctas, threads, fencers, f, &ok);
          csv.row("%s,%d,%d,%d,%d,%s,%.3f,%.3f,%d,%d", f == kGpu ? "gpu" : "system", threads, ctas,
                  fencers, iters, stat_vals(st).c_str(), base.median, st.median - base.median, st.n,
                  ok & base_ok);
          if (ctas == 1) break;  // one CTA: fencers 1 = ctas
        }
  CUDA_CHECK(cudaFree(done));
}

void measure_put_signal_local(Csv& csv, int num_sms) {
  const size_t max_bytes = 1 * MiB;
  const uint32_t seed[2] = {0xE0000u, 0xF0000u};
  void* src[2];
  void* rcv[2];
  for (int g = 0; g < 2; ++g) {
    src[g] = device_alloc(kDev, max_bytes);
    rcv[g] = device_alloc(kDev, max_bytes);
    fill_pattern(kDev, src[g], max_bytes, seed[g]);
  }
  unsigned* counters = static_cast<unsigned*>(device_alloc(kDev, 64 * sizeof(unsigned)));
  using flagproto::PingResult;
  auto* res = static_cast<PingResult*>(device_alloc(kDev, 2 * sizeof(PingResult)));
  allow_dynamic_smem(flagproto::put_signal_kernel);
  cudaStream_t st[2];
  for (auto& s : st) CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const int iters = 1000, warmup = 10;
  for (size_t bytes : {size_t(16), size_t(1024), size_t(4096), size_t(16384), size_t(65536),
                       size_t(262144), max_bytes})
    for (int ctas : {1, 8, 32, num_sms / 2}) {
      if (bytes < size_t(ctas) * 16) continue;  // every CTA gets at least one 16-byte word
      for (int g = 0; g < 2; ++g) poison(kDev, rcv[g], bytes);
      std::vector<double> v;
      int ok = 1;
      for (int r = 0; r < 4 && ok; ++r) {
        CUDA_CHECK(cudaMemset(counters, 0, 64 * sizeof(unsigned)));
        CUDA_CHECK(cudaMemset(res, 0, 2 * sizeof(*res)));
        CUDA_CHECK(cudaDeviceSynchronize());
        // Counter 0 is the initiator's (side 0), counter 32 the responder's: 128 bytes apart.
        flagproto::put_signal_kernel<<<ctas, kThreads, kExclusiveSmem, st[1]>>>(
            static_cast<const uint4*>(src[1]), static_cast<uint4*>(rcv[0]), bytes / 16,
            counters + 32, counters, iters, warmup, 0, res + 1);
        LAUNCH_CHECK();
        flagproto::put_signal_kernel<<<ctas, kThreads, kExclusiveSmem, st[0]>>>(
            static_cast<const uint4*>(src[0]), static_cast<uint4*>(rcv[1]), bytes / 16, counters,
            counters + 32, iters, warmup, 1, res);
        LAUNCH_CHECK();
        CUDA_CHECK(cudaDeviceSynchronize());
        PingResult h[2];
        CUDA_CHECK(cudaMemcpy(h, res, sizeof h, cudaMemcpyDeviceToHost));
        if (h[0].failed || h[1].failed) ok = 0;
        if (r > 0) v.push_back(double(h[0].elapsed_ns) / iters);  // the first is warm-up
      }
      ok &= report_check("put_signal_local to responder",
                         count_mismatches(kDev, rcv[1], bytes, seed[0]));
      ok &= report_check("put_signal_local to initiator",
                         count_mismatches(kDev, rcv[0], bytes, seed[1]));
      Stats s = summarize(v);  // ns per round trip
      for (double* d : {&s.median, &s.min, &s.max, &s.p10, &s.p90}) *d *= 1e-3;
      csv.row("%zu,%d,%d,%s,%.4f,%.2f,%d,%d", bytes, ctas, iters, stat_vals(s).c_str(),
              s.median / 2, gbps(double(bytes), s.median / 2), s.n, ok);
    }
  for (auto& s : st) CUDA_CHECK(cudaStreamDestroy(s));
  for (int g = 0; g < 2; ++g) {
    CUDA_CHECK(cudaFree(src[g]));
    CUDA_CHECK(cudaFree(rcv[g]));
  }
  CUDA_CHECK(cudaFree(counters));
  CUDA_CHECK(cudaFree(res));
}

void pingpong_case(Ctx& x, int sync, int sm_a, int sm_b, int iters, int reps) {
  std::vector<double> v;
  int ok = 1, si = -1, sr = -1;
  const int grid = sm_a < 0 ? 2 : 132;
  for (int r = 0; r < reps + 1 && ok; ++r) {
    CUDA_CHECK(cudaMemset(x.words, 0, 2 * sizeof(unsigned)));
    CUDA_CHECK(cudaMemset(x.ping, 0xFF, sizeof(PingOut)));
    CUDA_CHECK(cudaMemset(&x.ping->failed, 0, sizeof(int)));
    pingpong_kernel<<<grid, 32, kExclusiveSmem>>>(x.words, sm_a, sm_b, iters, 100, sync, x.ping);
    LAUNCH_CHECK();
    PingOut h;
    CUDA_CHECK(cudaMemcpy(&h, x.ping, sizeof h, cudaMemcpyDeviceToHost));
    if (h.failed) ok = 0;
    si = h.sm_init;
    sr = h.sm_resp;
    if (r > 0) v.push_back(double(h.ns) / iters);
  }
  if (!ok)
    std::fprintf(stderr, "VERIFY FAILED: pingpong %s sm %d-%d timed out\n", sync_name(sync), sm_a,
                 sm_b);
  Stats st = summarize(v);
  char note[64];
  std::snprintf(note, sizeof note, "ran_on_sm_%d_and_%d", si, sr);
  row(x, "pingpong", sync_name(sync), 1, 2, sm_a, sm_b, iters, st, st.median / 2, 0, note, ok);
}

void measure_pingpong(Ctx& x, int num_sms) {
  for (int sync : {kVolatile, kRelAcqGpu, kRelAcqSys, kAtomic}) {
    pingpong_case(x, sync, -1, -1, 10000, 5);
    for (int b : {1, 2, num_sms / 2, num_sms - 1}) pingpong_case(x, sync, 0, b, 10000, 5);
  }
  // Placement: SM 0 against every other SM, volatile flags.
  for (int b = 1; b < num_sms; ++b) pingpong_case(x, kVolatile, 0, b, 2000, 3);
}

void measure_atomics(Ctx& x, int num_sms) {
  const int iters = 1000;
  for (int distinct : {0, 1})
    for (int use : {0, 1, 2})
      for (int threads : {1, 32})
        for (int ctas : {1, 2, 4, 8, 16, 32, 66, num_sms}) {
          std::vector<double> v;
          const size_t words = size_t(ctas) * threads * 32;
          for (int r = 0; r < 6; ++r) {
            CUDA_CHECK(cudaMemset(x.words, 0, words * sizeof(unsigned)));
            unsigned long long init[2] = {~0ull, 0ull};
            CUDA_CHECK(cudaMemcpy(x.span, init, sizeof init, cudaMemcpyHostToDevice));
            atomic_kernel<<<ctas, threads, kExclusiveSmem>>>(x.words, iters, distinct, use,
                                                             x.words + words, x.span);
            LAUNCH_CHECK();
            unsigned long long sp[2];
            CUDA_CHECK(cudaMemcpy(sp, x.span, sizeof sp, cudaMemcpyDeviceToHost));
            if (r > 0) v.push_back(double(sp[1] - sp[0]));
          }
          // Check the last repetition's counters.
          std::vector<unsigned> got(words);
          CUDA_CHECK(
              cudaMemcpy(got.data(), x.words, words * sizeof(unsigned), cudaMemcpyDeviceToHost));
          int ok = 1;
          if (distinct) {
            for (size_t t = 0; t < size_t(ctas) * threads; ++t)
              ok &= got[t * 32] == unsigned(iters);
          } else {
            ok = got[0] == unsigned(iters) * unsigned(ctas * threads);
          }
          if (!ok) std::fprintf(stderr, "VERIFY FAILED: atomic counters\n");
          Stats st = summarize(v);  // span in ns
          Stats per = st;
          for (double* d : {&per.median, &per.min, &per.max, &per.p10, &per.p90}) *d /= iters;
          double total = double(iters) * ctas * threads;
          char variant[64];
          std::snprintf(variant, sizeof variant, "%s_%s",
                        distinct ? "distinct_address" : "same_address",
                        use == 2 ? "atom_chain"
                        : use    ? "atom"
                                 : "red");
          row(x, "atomic", variant, threads, ctas, -1, -1, iters, per, per.median,
              total / st.median * 1e3, "", ok);
        }
}

}  // namespace

int main(int argc, char** argv) {
  CUDA_CHECK(cudaSetDevice(kDev));
  int num_sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&num_sms, cudaDevAttrMultiProcessorCount, kDev));
  Csv csv(argc, argv, "sync.csv",
          "Fence cost, same-GPU flag ping-pong and atomic contention on GPU 0; see sync_prims.cu",
          {kDev}, {{"timer", "%globaltimer"}},
          "test,variant,threads_per_cta,ctas,sm_a,sm_b,iterations," + stat_cols("ns_per_iter") +
              ",derived_ns,mops,note,reps,ok");
  allow_dynamic_smem(pingpong_kernel);
  allow_dynamic_smem(atomic_kernel);
  allow_dynamic_smem(fence_kernel);
  allow_dynamic_smem(fence_mix_kernel);
  Ctx x;
  x.csv = &csv;
  x.words = static_cast<unsigned*>(device_alloc(kDev, (size_t(num_sms) * 32 * 32 + 64) * 4));
  x.span = static_cast<unsigned long long*>(device_alloc(kDev, 16));
  x.ping = static_cast<PingOut*>(device_alloc(kDev, sizeof(PingOut)));
  measure_fences(x);
  measure_atomics(x, num_sms);
  measure_pingpong(x, num_sms);
  {
    Csv fence(argc, argv, "fence.csv",
              "Fences by scope on 1-132 CTAs (one per SM) of 32-1024 threads, each thread storing "
              "and fencing in a loop on GPU 0; see sync_prims.cu",
              {kDev}, {{"timer", "%globaltimer"}},
              "scope,warps,threads_per_cta,ctas,iterations," + stat_cols("ns_per_iter") +
                  ",store_only_ns_per_iter,fence_ns,reps,ok");
    measure_fence_ctas(fence, x, num_sms);
  }
  {
    Csv mix(argc, argv, "fence_mix.csv",
            "Fences of one CTA or of all, with the other CTAs storing without fencing, 1-132 CTAs "
            "(one per SM) of 32 or 1024 threads, warps together, on GPU 0; see sync_prims.cu",
            {kDev}, {{"timer", "%globaltimer"}},
            "scope,threads_per_cta,ctas,fencers,iterations," + stat_cols("ns_per_iter") +
                ",store_only_ns_per_iter,fence_ns,reps,ok");
    measure_fence_mix(mix, x, num_sms);
  }
  {
    Csv put(argc, argv, "put_signal_local.csv",
            "Put-then-signal ping-pong between two kernels on GPU 0 (put_signal.csv's protocol): "
            "ld/st put of `bytes` over `sms` CTAs a side, fence, one counter add per CTA; see "
            "sync_prims.cu",
            {kDev}, {{"timer", "%globaltimer"}},
            "bytes,sms,iterations," + stat_cols("round_trip_us") +
                ",one_way_us_median,gbps_one_way,reps,ok");
    measure_put_signal_local(put, num_sms);
  }
  CUDA_CHECK(cudaFree(x.words));
  CUDA_CHECK(cudaFree(x.span));
  CUDA_CHECK(cudaFree(x.ping));
  return 0;
}
