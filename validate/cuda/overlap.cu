// Whole 2-GPU patterns that mix GEMM and communication: all-gather GEMM (ag_gemm.csv), GEMM
// reduce-scatter (gemm_rs.csv), and a GEMM beside a transfer (interference.csv).
//
// All-gather GEMM (cases.hpp): A[M x K] is split by rows, rank r holding rows [r M/2, (r+1) M/2);
// rank r computes C_r[M x N_local] = A * B_r^T.
//   sequential_nccl   ncclAllGather (in place) on the compute stream, then one cuBLAS GEMM.
//   overlap_ce_pull   the peer's rows come in `chunks` copy-engine copies (cudaMemcpyPeerAsync on a
//                     second stream of the receiving GPU); the GEMM of the local rows runs at once,
//                     then one GEMM per chunk after that chunk's event.
// GEMM reduce-scatter: rank r holds A[:, K_r] and B[:, K_r] (K/2 columns each) and computes the
// partial P_r[M x N]; rank r keeps rows [r M/2, (r+1) M/2) of P_0 + P_1.
//   sequential_nccl   one GEMM, then ncclReduceScatter (bf16, sum).
//   overlap_ce_push   the rows destined for the peer first, in `chunks` GEMMs; after each, a copy
//                     engine pushes the chunk into the peer's receive buffer (second stream); then
//                     the local rows' GEMM; then, once the peer's pushes are done, an add kernel.
// Time: each rank's schedule between events on its compute stream (the comm stream starts from
// the same event and joins before the stop); the slower rank's time; median over repetitions.
// Verified: outputs (and the gathered rows) poisoned, one more run, sampled entries compared with a
// float64 reference.
//
// Interference: on GPU 0, a run of 8192^3 bf16 GEMMs beside a run of 256 MiB transfers (copy
// engine out of or into GPU 0, ld/st or TMA put/get kernels on a few SMs, launched once per 256 MiB
// or once for the whole run). Each alone, then both at once (the transfer enqueued first, so an
// SM-driven kernel holds its SMs; the transfer count is chosen so both runs last about as long).
// Per-op times alone and together.
#include <functional>

#include <nccl.h>

#include "cases.hpp"
#include "gemm_util.cuh"
#include "kernels.cuh"
#include "nccl_check.cuh"

using namespace mgbench;

namespace {

constexpr int kMaxChunks = 8;

struct Rank {
  int dev;
  cudaStream_t compute, comm;
  cublasHandle_t blas;
  ncclComm_t nccl;
  EventPair* ev;  // on `compute`
  cudaEvent_t comm_done, sent;
  cudaEvent_t chunk[kMaxChunks];
};

Rank g_rank[kWorld];

__global__ void add_bf16_kernel(const __nv_bfloat162* a, const __nv_bfloat162* b,
                                __nv_bfloat162* out, size_t n2) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n2;
       i += size_t(gridDim.x) * blockDim.x)
    out[i] = __hadd2(a[i], b[i]);
}

// Runs `enqueue` (one whole schedule on both ranks) between events; returns the slower rank's
// time in microseconds.
double time_schedule(const std::function<void()>& enqueue) {
  for (Rank& r : g_rank) {
    DeviceScope ds(r.dev);
    CUDA_CHECK(cudaDeviceSynchronize());
    r.ev->start(r.compute);
    CUDA_CHECK(cudaStreamWaitEvent(r.comm, r.ev->start_event(), 0));
  }
  enqueue();
  for (Rank& r : g_rank) {
    DeviceScope ds(r.dev);
    CUDA_CHECK(cudaEventRecord(r.comm_done, r.comm));
    CUDA_CHECK(cudaStreamWaitEvent(r.compute, r.comm_done, 0));
    r.ev->stop(r.compute);
  }
  double worst = 0;
  for (Rank& r : g_rank) worst = std::max(worst, r.ev->elapsed_us());
  return worst;
}

struct CaseResult {
  Stats st;
  int ok;
  long sm_clock_mhz[kWorld];  // read right after the verified run (large GEMMs hit the power cap)
};

const Nvml& nvml() {
  static Nvml n;
  return n;
}

// Times a schedule, then poisons (`prepare`), runs it once more and checks (`verify`).
CaseResult run_case(const std::function<void()>& enqueue, const std::function<void()>& prepare,
                    const std::function<int()>& verify) {
  RepeatOpts o;
  o.warmup = 2;
  o.min_reps = 10;
  o.max_reps = 25;
  o.budget_ms = 400;
  CaseResult res;
  res.st = repeat([&] { return time_schedule(enqueue); }, o);
  prepare();
  time_schedule(enqueue);
  for (int r = 0; r < kWorld; ++r) res.sm_clock_mhz[r] = nvml().clock_mhz(g_rank[r].dev, 1, false);
  res.ok = verify();
  return res;
}

void gemm_on(Rank& r, int m, int n, int k, const bf16* A, const bf16* B, bf16* C, int ldc) {
  DeviceScope ds(r.dev);
  gemm_bf16(r.blas, r.compute, m, n, k, A, B, C, ldc);
}

// ---------------------------------------------------------------------------------------------
void ag_gemm(int argc, char** argv, const Meta& meta) {
  Csv csv(argc, argv, "ag_gemm.csv",
          "All-gather GEMM on 2 GPUs: C_r[M x N_local] = allgather_rows(A)[M x K] * B_r[N_local x "
          "K]^T; see overlap.cu",
          {0, 1}, meta,
          "schedule,chunks,world,m_total,n_local,k,dtype,gathered_bytes_per_rank,flop_per_rank," +
              stat_cols("time_us") +
              ",tflops_per_rank_median,reps,sm_clock_mhz_end_gpu0,sm_clock_mhz_end_gpu1,ok");
  for (AgGemmCase c : ag_gemm_cases()) {
    const int M = c.m_total, N = c.n_local, K = c.k, Mh = M / kWorld;
    const GemmRef ref{size_t(K), 101u, 202u};
    bf16 *A[kWorld], *B[kWorld], *C[kWorld];
    for (int r = 0; r < kWorld; ++r) {
      A[r] = static_cast<bf16*>(device_alloc(r, size_t(M) * K * sizeof(bf16)));
      B[r] = static_cast<bf16*>(device_alloc(r, size_t(N) * K * sizeof(bf16)));
      C[r] = static_cast<bf16*>(device_alloc(r, size_t(M) * N * sizeof(bf16)));
      fill_bf16(r, A[r] + size_t(r) * Mh * K, Mh, K, size_t(r) * Mh, 0, K, ref.seed_a);
      fill_bf16(r, B[r], N, K, size_t(r) * N, 0, K, ref.seed_b);
    }
    auto prepare = [&] {
      for (int r = 0; r < kWorld; ++r) {
        poison(r, C[r], size_t(M) * N * sizeof(bf16));
        poison(r, A[r] + size_t(1 - r) * Mh * K,
               size_t(Mh) * K * sizeof(bf16));  // the rows to be gathered
      }
    };
    auto verify = [&] {
      int ok = 1;
      for (int r = 0; r < kWorld; ++r) {
        const int p = 1 - r;
        ok &= check_gemm(r, C[r], M, N, N, 0, size_t(r) * N, ref);
        ok &=
            check_gemm(r, C[r] + size_t(p) * Mh * N, Mh, N, N, size_t(p) * Mh, size_t(r) * N, ref);
      }
      return ok;
    };
    const double flop = 2.0 * M * N * K;
    const size_t gathered = size_t(Mh) * K * sizeof(bf16);
    auto emit = [&](const char* sched, int chunks, const CaseResult& res) {
      csv.row("%s,%d,%d,%d,%d,%d,bf16,%zu,%.0f,%s,%.1f,%d,%ld,%ld,%d", sched, chunks, kWorld, M, N,
              K, gathered, flop, stat_vals(res.st).c_str(), flop / res.st.median * 1e-6, res.st.n,
              res.sm_clock_mhz[0], res.sm_clock_mhz[1], res.ok);
    };

    prepare();
    emit("sequential_nccl", 1,
         run_case(
             [&] {
               NCCL_CHECK(ncclGroupStart());
               for (int r = 0; r < kWorld; ++r)
                 NCCL_CHECK(ncclAllGather(A[r] + size_t(r) * Mh * K, A[r], size_t(Mh) * K,
                                          ncclBfloat16, g_rank[r].nccl, g_rank[r].compute));
               NCCL_CHECK(ncclGroupEnd());
               for (int r = 0; r < kWorld; ++r) gemm_on(g_rank[r], M, N, K, A[r], B[r], C[r], N);
             },
             prepare, verify));

    for (int chunks : overlap_chunks()) {
      const int mc = Mh / chunks;
      emit("overlap_ce_pull", chunks,
           run_case(
               [&] {
                 for (int r = 0; r < kWorld; ++r) {
                   Rank& k = g_rank[r];
                   const int p = 1 - r;
                   DeviceScope ds(k.dev);
                   for (int i = 0; i < chunks; ++i) {
                     size_t row = size_t(p) * Mh + size_t(i) * mc;
                     CUDA_CHECK(cudaMemcpyPeerAsync(A[r] + row * K, r, A[p] + row * K, p,
                                                    size_t(mc) * K * sizeof(bf16), k.comm));
                     CUDA_CHECK(cudaEventRecord(k.chunk[i], k.comm));
                   }
                   gemm_on(k, Mh, N, K, A[r] + size_t(r) * Mh * K, B[r], C[r] + size_t(r) * Mh * N,
                           N);
                   for (int i = 0; i < chunks; ++i) {
                     size_t row = size_t(p) * Mh + size_t(i) * mc;
                     CUDA_CHECK(cudaStreamWaitEvent(k.compute, k.chunk[i], 0));
                     gemm_on(k, mc, N, K, A[r] + row * K, B[r], C[r] + row * N, N);
                   }
                 }
               },
               prepare, verify));
    }
    for (int r = 0; r < kWorld; ++r) {
      CUDA_CHECK(cudaFree(A[r]));
      CUDA_CHECK(cudaFree(B[r]));
      CUDA_CHECK(cudaFree(C[r]));
    }
  }
}

// ---------------------------------------------------------------------------------------------
void gemm_rs(int argc, char** argv, const Meta& meta) {
  Csv csv(
      argc, argv, "gemm_rs.csv",
      "GEMM reduce-scatter on 2 GPUs: P_r[M x N] = A[:, K_r] * B[:, K_r]^T, rank r keeps rows r of "
      "P_0 + P_1; "
      "see overlap.cu",
      {0, 1}, meta,
      "schedule,chunks,world,m_total,n,k_total,k_local,dtype,sent_bytes_per_rank,flop_per_rank," +
          stat_cols("time_us") +
          ",tflops_per_rank_median,reps,sm_clock_mhz_end_gpu0,sm_clock_mhz_end_gpu1,ok");
  for (GemmRsCase c : gemm_rs_cases()) {
    const int M = c.m_total, N = c.n, K = c.k_total, Kl = K / kWorld, Mh = M / kWorld;
    const GemmRef ref{size_t(K), 303u, 404u};
    bf16 *A[kWorld], *B[kWorld], *P[kWorld], *Recv[kWorld], *Out[kWorld];
    for (int r = 0; r < kWorld; ++r) {
      A[r] = static_cast<bf16*>(device_alloc(r, size_t(M) * Kl * sizeof(bf16)));
      B[r] = static_cast<bf16*>(device_alloc(r, size_t(N) * Kl * sizeof(bf16)));
      P[r] = static_cast<bf16*>(device_alloc(r, size_t(M) * N * sizeof(bf16)));
      Recv[r] = static_cast<bf16*>(device_alloc(r, size_t(Mh) * N * sizeof(bf16)));
      Out[r] = static_cast<bf16*>(device_alloc(r, size_t(Mh) * N * sizeof(bf16)));
      fill_bf16(r, A[r], M, Kl, 0, size_t(r) * Kl, K, ref.seed_a);
      fill_bf16(r, B[r], N, Kl, 0, size_t(r) * Kl, K, ref.seed_b);
    }
    auto prepare = [&] {
      for (int r = 0; r < kWorld; ++r) {
        poison(r, P[r], size_t(M) * N * sizeof(bf16));
        poison(r, Recv[r], size_t(Mh) * N * sizeof(bf16));
        poison(r, Out[r], size_t(Mh) * N * sizeof(bf16));
      }
    };
    auto verify = [&] {
      int ok = 1;
      for (int r = 0; r < kWorld; ++r)
        ok &= check_gemm(r, Out[r], Mh, N, N, size_t(r) * Mh, 0, ref);
      return ok;
    };
    const double flop = 2.0 * M * N * Kl;
    const size_t sent = size_t(Mh) * N * sizeof(bf16);
    auto emit = [&](const char* sched, int chunks, const CaseResult& res) {
      csv.row("%s,%d,%d,%d,%d,%d,%d,bf16,%zu,%.0f,%s,%.1f,%d,%ld,%ld,%d", sched, chunks, kWorld, M,
              N, K, Kl, sent, flop, stat_vals(res.st).c_str(), flop / res.st.median * 1e-6,
              res.st.n, res.sm_clock_mhz[0], res.sm_clock_mhz[1], res.ok);
    };

    emit("sequential_nccl", 1,
         run_case(
             [&] {
               for (int r = 0; r < kWorld; ++r) gemm_on(g_rank[r], M, N, Kl, A[r], B[r], P[r], N);
               NCCL_CHECK(ncclGroupStart());
               for (int r = 0; r < kWorld; ++r)
                 NCCL_CHECK(ncclReduceScatter(P[r], Out[r], size_t(Mh) * N, ncclBfloat16, ncclSum,
                                              g_rank[r].nccl, g_rank[r].compute));
               NCCL_CHECK(ncclGroupEnd());
             },
             prepare, verify));

    for (int chunks : overlap_chunks()) {
      const int mc = Mh / chunks;
      emit("overlap_ce_push", chunks,
           run_case(
               [&] {
                 for (int r = 0; r < kWorld; ++r) {
                   Rank& k = g_rank[r];
                   const int p = 1 - r;
                   DeviceScope ds(k.dev);
                   for (int i = 0; i < chunks; ++i) {
                     size_t row = size_t(p) * Mh + size_t(i) * mc;
                     gemm_on(k, mc, N, Kl, A[r] + row * Kl, B[r], P[r] + row * N, N);
                     CUDA_CHECK(cudaEventRecord(k.chunk[i], k.compute));
                     CUDA_CHECK(cudaStreamWaitEvent(k.comm, k.chunk[i], 0));
                     CUDA_CHECK(cudaMemcpyPeerAsync(Recv[p] + size_t(i) * mc * N, p, P[r] + row * N,
                                                    r, size_t(mc) * N * sizeof(bf16), k.comm));
                   }
                   CUDA_CHECK(cudaEventRecord(k.sent, k.comm));
                   gemm_on(k, Mh, N, Kl, A[r] + size_t(r) * Mh * Kl, B[r],
                           P[r] + size_t(r) * Mh * N, N);
                 }
                 for (int r = 0; r < kWorld; ++r) {
                   Rank& k = g_rank[r];
                   DeviceScope ds(k.dev);
                   CUDA_CHECK(cudaStreamWaitEvent(k.compute, g_rank[1 - r].sent, 0));
                   size_t n2 = size_t(Mh) * N / 2;
                   add_bf16_kernel<<<1056, 256, 0, k.compute>>>(
                       reinterpret_cast<const __nv_bfloat162*>(P[r] + size_t(r) * Mh * N),
                       reinterpret_cast<const __nv_bfloat162*>(Recv[r]),
                       reinterpret_cast<__nv_bfloat162*>(Out[r]), n2);
                   LAUNCH_CHECK();
                 }
               },
               prepare, verify));
    }
    for (int r = 0; r < kWorld; ++r) {
      for (bf16* p : {A[r], B[r], P[r], Recv[r], Out[r]}) CUDA_CHECK(cudaFree(p));
    }
  }
}

// ---------------------------------------------------------------------------------------------
struct Transfer {
  const char* name;
  const char* launch;  // copy_engine | per_transfer (one kernel per 256 MiB) | persistent (one
                       // kernel for all)
  int issuer;          // the GPU whose stream (and, for kernels, SMs) does the transfer
  int sms;             // 0 for copy engines
  int dst_gpu;
  std::function<void(cudaStream_t, int)> enqueue;  // enqueues `count` transfers
};

void interference(int argc, char** argv, const Meta& meta) {
  const int M = 8192, N = 8192, K = 8192;
  const int gemms = 20;
  const size_t bytes = 256 * MiB;
  const uint32_t seed[2] = {0x11000u, 0x22000u};
  Csv csv(
      argc, argv, "interference.csv",
      "GEMM on GPU 0 beside a transfer: 20 x 8192^3 bf16 GEMMs and a run of 256 MiB transfers, "
      "alone and "
      "together; see overlap.cu",
      {0, 1},
      concat(meta,
             {{"launch_order", "transfers enqueued before the GEMMs; default stream priorities"}}),
      "transfer,launch,issuer_gpu,transfer_sms,transfer_bytes,gemm_m,gemm_n,gemm_k,gemms_per_rep,"
      "transfers_per_rep,"
      "gemm_us_alone_median,gemm_us_with_median,gemm_us_with_min,gemm_us_with_max,gemm_slowdown,"
      "transfer_us_alone_median,transfer_us_with_median,transfer_us_with_min,transfer_us_with_max,"
      "transfer_gbps_alone,transfer_gbps_with,gemm_loop_us_with,transfer_loop_us_with,reps,sm_"
      "clock_mhz_end,"
      "power_w_end,ok");
  Rank& g0 = g_rank[0];
  const GemmRef ref{size_t(K), 505u, 606u};
  bf16* A = static_cast<bf16*>(device_alloc(0, size_t(M) * K * sizeof(bf16)));
  bf16* B = static_cast<bf16*>(device_alloc(0, size_t(N) * K * sizeof(bf16)));
  bf16* C = static_cast<bf16*>(device_alloc(0, size_t(M) * N * sizeof(bf16)));
  fill_bf16(0, A, M, K, 0, 0, K, ref.seed_a);
  fill_bf16(0, B, N, K, 0, 0, K, ref.seed_b);
  void *src[2], *dst[2];
  cudaStream_t xs[2];
  EventPair* xev[2];
  for (int g = 0; g < 2; ++g) {
    src[g] = device_alloc(g, bytes);
    dst[g] = device_alloc(g, bytes);
    fill_pattern(g, src[g], bytes, seed[g]);
    DeviceScope ds(g);
    CUDA_CHECK(cudaStreamCreateWithFlags(&xs[g], cudaStreamNonBlocking));
    xev[g] = new EventPair(g);
  }
  auto ce = [&](int from, int to) {
    return [&, from, to](cudaStream_t s, int count) {
      for (int i = 0; i < count; ++i)
        CUDA_CHECK(cudaMemcpyPeerAsync(dst[to], to, src[from], from, bytes, s));
    };
  };
  using LaunchFn = void (*)(const void*, void*, size_t, int, cudaStream_t, int);
  // per_transfer: a kernel launch per 256 MiB, so between two launches the GEMM may take the SMs
  // back and the next transfer waits for free SMs. persistent: one launch holds its SMs throughout.
  auto kernel = [&](LaunchFn launch, int from, int to, int sms, bool persistent) {
    return [&, launch, from, to, sms, persistent](cudaStream_t s, int count) {
      if (persistent) {
        launch(src[from], dst[to], bytes, sms, s, count);
      } else {
        for (int i = 0; i < count; ++i) launch(src[from], dst[to], bytes, sms, s, 1);
      }
    };
  };
  std::vector<Transfer> kinds = {
      {"ce_out", "copy_engine", 0, 0, 1, ce(0, 1)},
      {"ce_in", "copy_engine", 1, 0, 0, ce(1, 0)},
  };
  for (bool persistent : {false, true}) {
    const char* mode = persistent ? "persistent" : "per_transfer";
    for (int sms : {8, 16, 32}) {
      kinds.push_back(
          {"ldst_put", mode, 0, sms, 1, kernel(launch_ldst_copy, 0, 1, sms, persistent)});
      kinds.push_back(
          {"ldst_get", mode, 0, sms, 0, kernel(launch_ldst_copy, 1, 0, sms, persistent)});
      kinds.push_back({"tma_put", mode, 0, sms, 1, kernel(launch_tma_copy, 0, 1, sms, persistent)});
    }
  }

  auto gemm_loop = [&] {
    for (int i = 0; i < gemms; ++i) gemm_on(g0, M, N, K, A, B, C, N);
  };
  RepeatOpts o3;
  o3.warmup = 1;
  o3.min_reps = 3;
  o3.max_reps = 3;
  o3.budget_ms = 0;
  for (const Transfer& t : kinds) {
    cudaStream_t ts = xs[t.issuer];
    EventPair& tev = *xev[t.issuer];
    Stats gemm_alone = time_stream(0, g0.compute, gemm_loop, o3);
    const int probe = 4;
    Stats xfer_alone = repeat(
        [&] {
          DeviceScope ds(t.issuer);
          tev.start(ts);
          t.enqueue(ts, probe);
          LAUNCH_CHECK();
          tev.stop(ts);
          return tev.elapsed_us() / probe;
        },
        o3);
    const double g_us = gemm_alone.median / gemms;
    const int transfers = std::max(1, int(std::lround(gemm_alone.median / xfer_alone.median)));

    std::vector<double> g_with, x_with, g_loop, x_loop;
    int ok = 1;
    long clock = -1, power = -1;
    for (int rep = 0; rep < 4; ++rep) {  // rep 0 is the warm-up; the last is checked
      const bool last = rep == 3;
      if (last) {
        poison(0, C, size_t(M) * N * sizeof(bf16));
        poison(t.dst_gpu, dst[t.dst_gpu], bytes);
      }
      for (int g = 0; g < 2; ++g) {
        DeviceScope ds(g);
        CUDA_CHECK(cudaDeviceSynchronize());
      }
      g0.ev->start(g0.compute);
      {
        DeviceScope ds(t.issuer);
        CUDA_CHECK(cudaStreamWaitEvent(ts, g0.ev->start_event(), 0));
        tev.start(ts);
        t.enqueue(ts, transfers);
        LAUNCH_CHECK();
        tev.stop(ts);
      }
      gemm_loop();
      g0.ev->stop(g0.compute);
      double gl = g0.ev->elapsed_us(), xl = tev.elapsed_us();
      if (last) clock = nvml().clock_mhz(0, 1, false), power = nvml().power_w(0);
      if (rep > 0) {
        g_with.push_back(gl / gemms);
        x_with.push_back(xl / transfers);
        g_loop.push_back(gl);
        x_loop.push_back(xl);
      }
      if (last) {
        ok &= check_gemm(0, C, M, N, N, 0, 0, ref);
        ok &= report_check(t.name,
                           count_mismatches(t.dst_gpu, dst[t.dst_gpu], bytes, seed[1 - t.dst_gpu]));
      }
    }
    Stats gw = summarize(g_with), xw = summarize(x_with);
    csv.row(
        "%s,%s,%d,%d,%zu,%d,%d,%d,%d,%d,%.2f,%.2f,%.2f,%.2f,%.4f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%."
        "1f,%.1f,%d,%ld,%ld,%d",
        t.name, t.launch, t.issuer, t.sms, bytes, M, N, K, gemms, transfers, g_us, gw.median,
        gw.min, gw.max, gw.median / g_us, xfer_alone.median, xw.median, xw.min, xw.max,
        gbps(double(bytes), xfer_alone.median), gbps(double(bytes), xw.median),
        summarize(g_loop).median, summarize(x_loop).median, gw.n, clock, power, ok);
  }
  for (int g = 0; g < 2; ++g) {
    delete xev[g];
    CUDA_CHECK(cudaFree(src[g]));
    CUDA_CHECK(cudaFree(dst[g]));
  }
  for (bf16* p : {A, B, C}) CUDA_CHECK(cudaFree(p));
}

}  // namespace

int main(int argc, char** argv) {
  // Multicast (NVLS) stays off: it can take the host's shared GPUs out of service.
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  setenv("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1", 1);
  setenv("NVSHMEM_DISABLE_NVLS", "1", 1);
  Meta p2p = enable_peer_access(0, 1);
  int devs[kWorld] = {0, 1};
  ncclComm_t comms[kWorld];
  NCCL_CHECK(ncclCommInitAll(comms, kWorld, devs));
  int nccl_version = 0;
  NCCL_CHECK(ncclGetVersion(&nccl_version));
  for (int r = 0; r < kWorld; ++r) {
    Rank& k = g_rank[r];
    DeviceScope ds(devs[r]);
    k.dev = devs[r];
    k.nccl = comms[r];
    setup_copy_kernels();
    CUDA_CHECK(cudaStreamCreateWithFlags(&k.compute, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&k.comm, cudaStreamNonBlocking));
    CUBLAS_CHECK(cublasCreate(&k.blas));
    k.ev = new EventPair(k.dev);
    CUDA_CHECK(cudaEventCreateWithFlags(&k.comm_done, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&k.sent, cudaEventDisableTiming));
    for (auto& e : k.chunk) CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  }
  Meta meta = concat(
      p2p, {{"nccl_version", std::to_string(nccl_version)},
            {"cublas_version", cublas_version_string(g_rank[0].blas)},
            {"env", "NCCL_NVLS_ENABLE=0"},
            {"gemm", "cublasGemmEx bf16 in/out, fp32 accumulate, row-major A[MxK] B[NxK] C[MxN]"}});
  ag_gemm(argc, argv, meta);
  gemm_rs(argc, argv, meta);
  interference(argc, argv, meta);
  for (Rank& k : g_rank) {
    DeviceScope ds(k.dev);
    delete k.ev;
    CUBLAS_CHECK(cublasDestroy(k.blas));
    NCCL_CHECK(ncclCommDestroy(k.nccl));
  }
  return 0;
}
