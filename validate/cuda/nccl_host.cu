// NCCL's host (CPU) cost per call on one GPU (nccl_host.csv), for the host model of issue 10.
//
// A one-rank communicator (ncclCommInitAll on GPU 0). NCCL sends a one-rank collective down a
// shortcut (a cudaMemcpyAsync or a reduce kernel: src/enqueue.cc, taskAppend), but a grouped send
// and receive to itself takes the whole way a collective takes: task append, group end, plan
// building (scheduleP2pTasksToPlan in place of scheduleCollTasksToPlan), its driver calls, the
// stream joins around its launch and the launch (cuLaunchKernelEx), and the kernel copies the
// bytes. Beside it, in the same process, the CUDA calls that the mgsim host model already
// charges a call for, made directly: a cudaLaunchKernelEx with the memory synchronisation domain
// attribute and a 256-byte argument struct, and two stream joins (an untimed event record and a
// stream wait each), as ncclLaunchPrepare / ncclLaunchFinish make them. NCCL's own host work per
// call beyond those calls is the difference of the two rows' host times.
//
// Rows (api, mode, bytes): host_us = host wall time per call; gpu_us = events around the batch
// per call (the spacing the GPU sees); medians and p10/p90 over repetitions.
//   nccl_self_sendrecv   back_to_back   ncclGroupStart; ncclSend(self); ncclRecv(self);
//   ncclGroupEnd nccl_self_sendrecv   single_sync    one such call + cudaStreamSynchronize (host
//   wall) nccl_all_reduce_one_rank back_to_back  ncclAllReduce on the one rank (NCCL's shortcut),
//   for
//                                       reference
//   cuda_launch_two_joins back_to_back  the calls above, made directly (no NCCL)
//   cuda_launch_ex       back_to_back   cudaLaunchKernelEx alone (same kernel, same attribute)
// Verified: the receive buffer is poisoned before the last batch of each send/receive row and
// holds the sent pattern afterwards; the direct rows' kernel counts its launches.
#include <nccl.h>

#include <string>
#include <thread>
#include <vector>

#include "common.cuh"
#include "nccl_check.cuh"

using namespace mgbench;

namespace {

constexpr int kDev = 0;

struct Timing {
  Stats host, gpu;
};

// `calls` calls of `call` back to back on stream s, reps times after 2 warm-ups: host wall per
// call, and events around the batch per call.
template <class F>
Timing back_to_back(cudaStream_t s, int calls, int reps, F&& call) {
  EventPair ev(kDev);
  std::vector<double> host, gpu;
  for (int r = 0; r < reps + 2; ++r) {
    CUDA_CHECK(cudaStreamSynchronize(s));
    ev.start(s);
    double t0 = wall_us();
    for (int i = 0; i < calls; ++i) call();
    double t1 = wall_us();
    ev.stop(s);
    double g = ev.elapsed_us();
    if (r < 2) continue;
    host.push_back((t1 - t0) / calls);
    gpu.push_back(g / calls);
  }
  return {summarize(host), summarize(gpu)};
}

// One call and a stream synchronize, host wall, reps times after 2 warm-ups.
template <class F>
Stats single_sync(cudaStream_t s, int reps, F&& call) {
  std::vector<double> t;
  for (int r = 0; r < reps + 2; ++r) {
    CUDA_CHECK(cudaStreamSynchronize(s));
    double t0 = wall_us();
    call();
    CUDA_CHECK(cudaStreamSynchronize(s));
    if (r >= 2) t.push_back(wall_us() - t0);
  }
  return summarize(t);
}

class Rows {
 public:
  explicit Rows(Csv& csv) : csv_(csv) {}
  void add(const char* api, const char* mode, size_t bytes, int calls, const Stats& host,
           const Stats* gpu, bool ok) {
    Stats none;
    const Stats& g = gpu ? *gpu : none;
    csv_.row("%s,%s,%zu,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%d,%d", api, mode, bytes, calls,
             host.median, host.p10, host.p90, g.median, g.p10, g.p90, host.n, ok ? 1 : 0);
  }

 private:
  Csv& csv_;
};

bool holds_pattern(const uint32_t* dev_buf, size_t bytes, uint32_t seed) {
  std::vector<uint32_t> h(bytes / 4);
  CUDA_CHECK(cudaMemcpy(h.data(), dev_buf, bytes, cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < h.size(); ++i)
    if (h[i] != pattern_word(i, seed)) return false;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  CUDA_CHECK(cudaSetDevice(kDev));
  int version = 0;
  NCCL_CHECK(ncclGetVersion(&version));
  Csv csv(argc, argv, "nccl_host.csv",
          "NCCL's host cost per call on a one-rank communicator (grouped send/receive to itself) "
          "beside the CUDA calls the host model charges, made directly; see nccl_host.cu",
          {kDev},
          {{"nccl_version", std::to_string(version)},
           {"host_cpus", std::to_string(std::thread::hardware_concurrency())},
           {"timer", "host: std::chrono::steady_clock; gpu: CUDA events"}},
          "api,mode,bytes,calls_per_rep,host_us_median,host_us_p10,host_us_p90,gpu_us_median,"
          "gpu_us_p10,gpu_us_p90,n,ok");
  Rows rows(csv);

  ncclComm_t comm;
  int devs[1] = {kDev};
  NCCL_CHECK(ncclCommInitAll(&comm, 1, devs));
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const int calls = 500, reps = 15;

  const size_t max_bytes = 1 * MiB;
  uint32_t *src = nullptr, *dst = nullptr;
  CUDA_CHECK(cudaMalloc(&src, max_bytes));
  CUDA_CHECK(cudaMalloc(&dst, max_bytes));
  fill_pattern_kernel<<<64, 256>>>(src, max_bytes / 4, 7);
  LAUNCH_CHECK();
  CUDA_CHECK(cudaDeviceSynchronize());

  for (size_t bytes : {size_t(4), 64 * KiB, 1 * MiB}) {
    const size_t count = bytes / 4;
    auto sendrecv = [&] {
      NCCL_CHECK(ncclGroupStart());
      NCCL_CHECK(ncclSend(src, count, ncclUint32, 0, comm, s));
      NCCL_CHECK(ncclRecv(dst, count, ncclUint32, 0, comm, s));
      NCCL_CHECK(ncclGroupEnd());
    };
    CUDA_CHECK(cudaMemset(dst, 0xff, bytes));
    Timing t = back_to_back(s, calls, reps, sendrecv);
    CUDA_CHECK(cudaStreamSynchronize(s));
    rows.add("nccl_self_sendrecv", "back_to_back", bytes, calls, t.host, &t.gpu,
             holds_pattern(dst, bytes, 7));
    CUDA_CHECK(cudaMemset(dst, 0xff, bytes));
    Stats ss = single_sync(s, 200, sendrecv);
    rows.add("nccl_self_sendrecv", "single_sync", bytes, 1, ss, nullptr,
             holds_pattern(dst, bytes, 7));
  }

  // P send/receive pairs to itself in one group (as all_to_all makes one per peer), 64 KiB in P
  // slices: what each pair beyond the first adds to the host's work.
  for (int pairs : {2, 4, 8}) {
    const size_t bytes = 64 * KiB, slice = bytes / 4 / size_t(pairs);
    auto grouped = [&] {
      NCCL_CHECK(ncclGroupStart());
      for (int p = 0; p < pairs; ++p) {
        NCCL_CHECK(ncclSend(src + p * slice, slice, ncclUint32, 0, comm, s));
        NCCL_CHECK(ncclRecv(dst + p * slice, slice, ncclUint32, 0, comm, s));
      }
      NCCL_CHECK(ncclGroupEnd());
    };
    CUDA_CHECK(cudaMemset(dst, 0xff, bytes));
    Timing t = back_to_back(s, calls, reps, grouped);
    CUDA_CHECK(cudaStreamSynchronize(s));
    const std::string mode = "back_to_back_pairs_" + std::to_string(pairs);
    rows.add("nccl_self_sendrecv", mode.c_str(), bytes, calls, t.host, &t.gpu,
             holds_pattern(dst, bytes, 7));
  }

  // The one-rank shortcut, for reference (a copy, not NCCL's kernel path).
  {
    const size_t bytes = 64 * KiB;
    CUDA_CHECK(cudaMemset(dst, 0xff, bytes));
    Timing t = back_to_back(s, calls, reps, [&] {
      NCCL_CHECK(ncclAllReduce(src, dst, bytes / 4, ncclUint32, ncclSum, comm, s));
    });
    CUDA_CHECK(cudaStreamSynchronize(s));
    rows.add("nccl_all_reduce_one_rank", "back_to_back", bytes, calls, t.host, &t.gpu,
             holds_pattern(dst, bytes, 7));
  }

  // The calls the host model charges, made directly: NCCL's internal stream `inner` joins the
  // caller's stream, the kernel is launched, the caller's stream joins back.
  {
    cudaStream_t inner;
    CUDA_CHECK(cudaStreamCreateWithFlags(&inner, cudaStreamNonBlocking));
    cudaEvent_t e1, e2;
    CUDA_CHECK(cudaEventCreateWithFlags(&e1, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&e2, cudaEventDisableTiming));
    unsigned long long* counter = nullptr;
    CUDA_CHECK(cudaMalloc(&counter, sizeof *counter));
    CUDA_CHECK(cudaMemset(counter, 0, sizeof *counter));
    NcclStyleLaunch nccl_launch(counter);
    long long launched = 0;
    auto launch = [&] {
      nccl_launch(s);
      ++launched;
    };
    auto joined = [&] {
      CUDA_CHECK(cudaEventRecord(e1, inner));
      CUDA_CHECK(cudaStreamWaitEvent(s, e1, 0));
      launch();
      CUDA_CHECK(cudaEventRecord(e2, s));
      CUDA_CHECK(cudaStreamWaitEvent(inner, e2, 0));
    };
    auto counted = [&] {
      CUDA_CHECK(cudaDeviceSynchronize());
      unsigned long long n = 0;
      CUDA_CHECK(cudaMemcpy(&n, counter, sizeof n, cudaMemcpyDeviceToHost));
      return (long long)n == launched;
    };
    Timing t = back_to_back(s, calls, reps, joined);
    rows.add("cuda_launch_two_joins", "back_to_back", 0, calls, t.host, &t.gpu, counted());
    t = back_to_back(s, calls, reps, launch);
    rows.add("cuda_launch_ex", "back_to_back", 0, calls, t.host, &t.gpu, counted());
    CUDA_CHECK(cudaEventDestroy(e1));
    CUDA_CHECK(cudaEventDestroy(e2));
    CUDA_CHECK(cudaStreamDestroy(inner));
    CUDA_CHECK(cudaFree(counter));
  }

  NCCL_CHECK(ncclCommDestroy(comm));
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaFree(src));
  CUDA_CHECK(cudaFree(dst));
  return 0;
}
