// Local TMA bulk copies on GPU 0 (tma_local.csv) by message size x messages outstanding per CTA x
// CTAs, for issue 9's TMA model (issue cost per message, per-SM bulk-copy cap).
//
// One thread per CTA (lane 0 of a one-warp CTA) issues everything, as a producer warp would. Each
// CTA owns a ring of `outstanding` shared-memory buffers of `message_bytes`; message j goes to CTA
// j % CTAs. Ops:
//   copy   global -> shared (cp.async.bulk.shared::cluster.global, completion on an mbarrier),
//          then shared -> global (cp.async.bulk.global.shared::cta.bulk_group). A buffer is loaded
//          again only once its store has read it, so at most `outstanding` messages (loads and
//          stores together) are in flight. bytes_moved = read + write.
//   load   global -> shared only; a buffer is reloaded as soon as its load completed, so
//          `outstanding` loads are in flight.
//   store  shared -> global only, from buffers filled once; at most `outstanding` stores have not
//          yet read their buffer (cp.async.bulk.wait_group.read).
// Every launch takes at least kExclusiveSmem of shared memory: one CTA per SM. Sizes: a probe sets
// the bytes per repetition for ~3 ms (at most 1 GiB); repetitions rotate over slots of 2 GiB
// buffers so the L2 holds none of the previous repetition's data.
// Verified: copy destinations word by word; load: the first and last words of the last message in
// every buffer; store: every destination word against the buffer it came from.
#include "kernels.cuh"

using namespace mgbench;

namespace {

constexpr int kDev = 0;
constexpr uint32_t kSeed = 0x7A3Au;
constexpr size_t kBuf = 2 * GiB;
constexpr size_t kMaxRep = 1 * GiB;
constexpr double kTargetUs = 3000;
constexpr int kMaxStages = 8;

enum Op : int { kCopy = 0, kLoad = 1, kStore = 2 };
const char* op_name(int op) { return op == kCopy ? "copy" : op == kLoad ? "load" : "store"; }

// Waits until at most n (0..7) bulk groups of this thread still read shared memory.
__device__ inline void wait_read_at_most(int n) {
  switch (n) {
    case 0:
      bulk_wait_read<0>();
      break;
    case 1:
      bulk_wait_read<1>();
      break;
    case 2:
      bulk_wait_read<2>();
      break;
    case 3:
      bulk_wait_read<3>();
      break;
    case 4:
      bulk_wait_read<4>();
      break;
    case 5:
      bulk_wait_read<5>();
      break;
    case 6:
      bulk_wait_read<6>();
      break;
    default:
      bulk_wait_read<7>();
      break;
  }
}

// `bytes` is a multiple of msg x gridDim.x. `store` fills buffer s with pattern_word(w, seed + s).
__global__ void tma_local_kernel(const char* __restrict__ src, char* __restrict__ dst, size_t bytes,
                                 uint32_t msg, int stages, int op, uint32_t seed,
                                 unsigned long long* bad) {
  extern __shared__ __align__(128) unsigned char buf[];
  __shared__ __align__(8) uint64_t bar[kMaxStages];
  if (op == kStore) {
    uint32_t* w = reinterpret_cast<uint32_t*>(buf);
    const uint32_t words = msg / 4;
    for (uint32_t i = threadIdx.x; i < words * uint32_t(stages); i += blockDim.x)
      w[i] = pattern_word(i % words, seed + i / words);
    // Make the generic-proxy writes visible to the bulk-copy unit before it reads them.
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
  }
  if (threadIdx.x != 0) return;
  const size_t per_cta = bytes / msg / gridDim.x;
  auto off = [&](size_t k) { return (blockIdx.x + k * gridDim.x) * size_t(msg); };
  auto stage = [&](size_t k) { return buf + (k % stages) * size_t(msg); };

  if (op == kStore) {
    for (size_t k = 0; k < per_cta; ++k) {
      if (k >= size_t(stages)) wait_read_at_most(stages - 1);
      bulk_store(dst + off(k), stage(k), msg);
    }
    bulk_wait_all();
    return;
  }

  for (int s = 0; s < stages; ++s) mbar_init(&bar[s], 1);
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  auto load = [&](size_t k) {
    uint64_t* b = &bar[k % stages];
    mbar_expect_tx(b, msg);
    bulk_load(stage(k), src + off(k), msg, b);
  };
  const size_t first = min(per_cta, size_t(stages));
  for (size_t k = 0; k < first; ++k) load(k);
  unsigned long long my_bad = 0;
  for (size_t k = 0; k < per_cta; ++k) {
    mbar_wait(&bar[k % stages], uint32_t((k / stages) & 1));
    if (op == kLoad) {
      // Nothing reads the buffer in between (the first run read a word of every message here and
      // fenced the proxies, which added its own cost); the final contents are checked below.
      if (k + stages < per_cta) load(k + stages);
      continue;
    }
    bulk_store(dst + off(k), stage(k), msg);
    if (stages == 1) {
      bulk_wait_read<0>();
      if (k + 1 < per_cta) load(k + 1);
    } else if (k >= 1 && k - 1 + stages < per_cta) {
      bulk_wait_read<1>();  // message k-1's store has read its buffer
      load(k - 1 + stages);
    }
  }
  bulk_wait_all();
  if (op == kLoad) {
    // Each buffer holds the last message loaded into it: check its first and last words.
    for (size_t k = per_cta > size_t(stages) ? per_cta - stages : 0; k < per_cta; ++k) {
      const uint32_t* w = reinterpret_cast<const uint32_t*>(stage(k));
      const size_t first = off(k) / 4, last = first + msg / 4 - 1;
      my_bad += w[0] != pattern_word(first, seed);
      my_bad += w[msg / 4 - 1] != pattern_word(last, seed);
    }
  }
  if (my_bad) atomicAdd(bad, my_bad);
}

// Checks a store-only destination: message j (CTA j % ctas, its k = j / ctas-th) came from
// buffer k % stages, which holds pattern_word(w, seed + buffer).
__global__ void check_store_kernel(const uint32_t* p, size_t words, uint32_t msg_words, int ctas,
                                   int stages, uint32_t seed, unsigned long long* bad) {
  unsigned long long local = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < words;
       i += size_t(gridDim.x) * blockDim.x) {
    size_t j = i / msg_words;
    uint32_t s = uint32_t((j / ctas) % stages);
    local += p[i] != pattern_word(i % msg_words, seed + s);
  }
  if (local) atomicAdd(bad, local);
}

struct Ctx {
  char* a;
  char* b;
  unsigned long long* bad;
  cudaStream_t s;
  EventPair ev{kDev};
};

size_t smem_for(uint32_t msg, int stages) { return std::max(kExclusiveSmem, size_t(msg) * stages); }

double time_once(Ctx& x, int op, uint32_t msg, int stages, int ctas, size_t off, size_t bytes) {
  x.ev.start(x.s);
  tma_local_kernel<<<ctas, op == kStore ? 256 : 32, smem_for(msg, stages), x.s>>>(
      x.a + off, x.b + off, bytes, msg, stages, op,
      op == kStore ? kSeed + 1 : kSeed + uint32_t(off / 4) * 2654435761u, x.bad);
  LAUNCH_CHECK();
  x.ev.stop(x.s);
  return x.ev.elapsed_us();
}

void measure_case(Csv& csv, Ctx& x, int op, uint32_t msg, int stages, int ctas) {
  const size_t granule = size_t(msg) * ctas;
  size_t probe = std::max(granule, (16 * MiB / granule) * granule);
  double us = time_once(x, op, msg, stages, ctas, 0, probe);
  size_t bytes = size_t(double(probe) / us * kTargetUs);
  bytes = std::max(granule, std::min(kMaxRep / granule, bytes / granule) * granule);
  const size_t slots = kBuf / bytes;
  if (op != kLoad) poison(kDev, x.b, kBuf);
  CUDA_CHECK(cudaMemset(x.bad, 0, sizeof *x.bad));
  size_t calls = 0;
  Stats st = repeat(
      [&] {
        size_t off = (calls++ % slots) * bytes;
        return time_once(x, op, msg, stages, ctas, off, bytes);
      },
      RepeatOpts{1, 5, 15, 40});
  CUDA_CHECK(cudaDeviceSynchronize());
  unsigned long long bad = 0;
  if (op == kLoad) {
    CUDA_CHECK(cudaMemcpy(&bad, x.bad, sizeof bad, cudaMemcpyDeviceToHost));
  } else {
    for (size_t k = 0; k < std::min(calls, slots); ++k) {
      size_t off = k * bytes;
      if (op == kCopy) {
        bad += count_mismatches(kDev, x.b + off, bytes, kSeed + uint32_t(off / 4) * 2654435761u);
      } else {
        CUDA_CHECK(cudaMemset(x.bad, 0, sizeof *x.bad));
        check_store_kernel<<<1024, 256>>>(reinterpret_cast<const uint32_t*>(x.b + off), bytes / 4,
                                          msg / 4, ctas, stages, kSeed + 1, x.bad);
        LAUNCH_CHECK();
        unsigned long long h = 0;
        CUDA_CHECK(cudaMemcpy(&h, x.bad, sizeof h, cudaMemcpyDeviceToHost));
        bad += h;
      }
    }
  }
  int ok = report_check(op_name(op), bad);
  size_t moved = op == kCopy ? 2 * bytes : bytes;
  csv.row("%s,%u,%d,%d,%zu,%zu,%zu,%s,%.1f,%.1f,%.3f,%.4f,%d,%d", op_name(op), msg, stages, ctas,
          smem_for(msg, stages), bytes, moved, stat_vals(st).c_str(),
          gbps(double(moved), st.median), gbps(double(moved), st.min),
          gbps(double(moved), st.median) / ctas,
          st.median / (double(bytes) / msg / ctas),  // us per message per CTA
          st.n, ok);
}

}  // namespace

int main(int argc, char** argv) {
  CUDA_CHECK(cudaSetDevice(kDev));
  Csv csv(
      argc, argv, "tma_local.csv",
      "Local (HBM to HBM) TMA bulk copies on GPU 0 by message size x messages outstanding per "
      "CTA x CTAs (one per SM); one issuing thread per CTA; see tma_local.cu",
      {kDev},
      {{"load", "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"},
       {"store", "cp.async.bulk.global.shared::cta.bulk_group"},
       {"buffers", "two 2 GiB buffers; successive repetitions use successive slots"}},
      "op,message_bytes,outstanding,ctas,smem_bytes_per_cta,bytes_per_rep,bytes_moved_per_rep," +
          stat_cols("time_us") +
          ",gbps_median,gbps_best,gbps_per_cta_median,us_per_message_per_cta,reps,ok");
  allow_dynamic_smem(tma_local_kernel, 200 * KiB);
  Ctx x;
  x.a = static_cast<char*>(device_alloc(kDev, kBuf));
  x.b = static_cast<char*>(device_alloc(kDev, kBuf));
  x.bad = static_cast<unsigned long long*>(device_alloc(kDev, sizeof(unsigned long long)));
  CUDA_CHECK(cudaStreamCreate(&x.s));
  fill_pattern(kDev, x.a, kBuf, kSeed);
  for (int op : {kCopy, kLoad, kStore})
    for (int ctas : {1, 4, 16, 132})
      for (uint32_t kib : {1u, 2u, 4u, 8u, 16u, 32u, 64u})
        for (int stages : {1, 2, 4, 8}) {
          if (size_t(kib) * KiB * stages > kExclusiveSmem) continue;  // does not fit one SM
          measure_case(csv, x, op, kib * uint32_t(KiB), stages, ctas);
        }
  CUDA_CHECK(cudaStreamDestroy(x.s));
  CUDA_CHECK(cudaFree(x.a));
  CUDA_CHECK(cudaFree(x.b));
  CUDA_CHECK(cudaFree(x.bad));
  return 0;
}
