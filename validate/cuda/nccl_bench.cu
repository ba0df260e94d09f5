// NCCL collectives on GPU 0 and GPU 1 from one process (ncclCommInitAll), reported the way
// nccl-tests does (nccl.csv).
//
// `bytes` is nccl-tests' size: the whole buffer of one rank (all_reduce: in = out = bytes;
// all_gather: out = bytes, in = bytes / 2; reduce_scatter: in = bytes, out = bytes / 2; all_to_all:
// in = out = bytes, bytes / 2 to each rank, itself included). algbw = bytes / time;
// busbw = algbw * 2(n-1)/n for all_reduce and * (n-1)/n for the others (n = 2).
// Out of place, float32, sum. Timing: a repetition enqueues `ops_per_rep` back-to-back operations
// (enough for ~2 ms, at most 50) between events on each rank's stream; time per op is the slower
// rank's time divided by ops_per_rep; median over repetitions. Verified: outputs poisoned (NaN)
// before the last run and compared exactly with the expected values (small integers, so sums are
// exact in float).
#include <nccl.h>

#include "common.cuh"
#include "nccl_check.cuh"

using namespace mgbench;

namespace {

constexpr int kRanks = 2;

enum Op { kAllReduce, kAllGather, kReduceScatter, kAllToAll };
const char* op_name(Op o) {
  switch (o) {
    case kAllReduce:
      return "all_reduce";
    case kAllGather:
      return "all_gather";
    case kReduceScatter:
      return "reduce_scatter";
    default:
      return "all_to_all";
  }
}
double bus_factor(Op o) {
  return o == kAllReduce ? 2.0 * (kRanks - 1) / kRanks : double(kRanks - 1) / kRanks;
}

// Rank r's input element i.
__host__ __device__ inline float val(int r, size_t i) {
  return float(i % 251) + 1.0f + 1000.0f * float(r);
}

__global__ void fill_input_kernel(float* p, size_t n, int rank) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    p[i] = val(rank, i);
}

// Counts output elements of `rank` that differ from what `op` must produce. `out_n` elements;
// `chunk` is the per-rank block (count / ranks).
__global__ void check_kernel(int op, int rank, const float* out, size_t out_n, size_t chunk,
                             unsigned long long* bad) {
  unsigned long long local = 0;
  for (size_t j = blockIdx.x * size_t(blockDim.x) + threadIdx.x; j < out_n;
       j += size_t(gridDim.x) * blockDim.x) {
    float want = 0;
    if (op == kAllReduce) {
      for (int r = 0; r < kRanks; ++r) want += val(r, j);
    } else if (op == kAllGather) {
      want = val(int(j / chunk), j % chunk);
    } else if (op == kReduceScatter) {
      for (int r = 0; r < kRanks; ++r) want += val(r, size_t(rank) * chunk + j);
    } else {
      want = val(int(j / chunk), size_t(rank) * chunk + j % chunk);
    }
    local += out[j] != want;
  }
  if (local) atomicAdd(bad, local);
}

struct Rank {
  int dev;
  ncclComm_t comm;
  cudaStream_t s;
  float* in;
  float* out;
  EventPair* ev;
};

// Enqueues one operation of `bytes` on every rank (inside one NCCL group: a single thread drives
// both GPUs).
void enqueue(Op op, size_t bytes, Rank* r) {
  const size_t count = bytes / sizeof(float);
  const size_t chunk = count / kRanks;
  NCCL_CHECK(ncclGroupStart());
  for (int i = 0; i < kRanks; ++i) {
    Rank& k = r[i];
    switch (op) {
      case kAllReduce:
        NCCL_CHECK(ncclAllReduce(k.in, k.out, count, ncclFloat32, ncclSum, k.comm, k.s));
        break;
      case kAllGather:
        NCCL_CHECK(ncclAllGather(k.in, k.out, chunk, ncclFloat32, k.comm, k.s));
        break;
      case kReduceScatter:
        NCCL_CHECK(ncclReduceScatter(k.in, k.out, chunk, ncclFloat32, ncclSum, k.comm, k.s));
        break;
      case kAllToAll:
        for (int p = 0; p < kRanks; ++p) {
          NCCL_CHECK(ncclSend(k.in + p * chunk, chunk, ncclFloat32, p, k.comm, k.s));
          NCCL_CHECK(ncclRecv(k.out + p * chunk, chunk, ncclFloat32, p, k.comm, k.s));
        }
        break;
    }
  }
  NCCL_CHECK(ncclGroupEnd());
}

// Time of `n` back-to-back operations, the slower rank's, in microseconds.
double time_ops(Op op, size_t bytes, Rank* r, int n) {
  for (int i = 0; i < kRanks; ++i) {
    DeviceScope ds(r[i].dev);
    CUDA_CHECK(cudaStreamSynchronize(r[i].s));
    r[i].ev->start(r[i].s);
  }
  for (int k = 0; k < n; ++k) enqueue(op, bytes, r);
  double worst = 0;
  for (int i = 0; i < kRanks; ++i) r[i].ev->stop(r[i].s);
  for (int i = 0; i < kRanks; ++i) worst = std::max(worst, r[i].ev->elapsed_us());
  return worst;
}

int verify(Op op, size_t bytes, Rank* r) {
  const size_t count = bytes / sizeof(float), chunk = count / kRanks;
  const size_t out_n = op == kReduceScatter ? chunk : count;
  for (int i = 0; i < kRanks; ++i) poison(r[i].dev, r[i].out, out_n * sizeof(float));
  enqueue(op, bytes, r);
  int ok = 1;
  for (int i = 0; i < kRanks; ++i) {
    DeviceScope ds(r[i].dev);
    CUDA_CHECK(cudaStreamSynchronize(r[i].s));
    unsigned long long* bad;
    CUDA_CHECK(cudaMalloc(&bad, sizeof *bad));
    CUDA_CHECK(cudaMemset(bad, 0, sizeof *bad));
    check_kernel<<<1024, 256>>>(op, i, r[i].out, out_n, chunk, bad);
    LAUNCH_CHECK();
    unsigned long long h = 0;
    CUDA_CHECK(cudaMemcpy(&h, bad, sizeof h, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(bad));
    ok &= report_check(op_name(op), h);
  }
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  // Multicast (NVLS) stays off: it can take the host's shared GPUs out of service.
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  setenv("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1", 1);
  setenv("NVSHMEM_DISABLE_NVLS", "1", 1);
  int devs[kRanks] = {0, 1};
  ncclComm_t comms[kRanks];
  NCCL_CHECK(ncclCommInitAll(comms, kRanks, devs));
  int version = 0;
  NCCL_CHECK(ncclGetVersion(&version));

  const size_t max_bytes = 1 * GiB;
  Rank r[kRanks];
  for (int i = 0; i < kRanks; ++i) {
    DeviceScope ds(devs[i]);
    r[i].dev = devs[i];
    r[i].comm = comms[i];
    CUDA_CHECK(cudaStreamCreateWithFlags(&r[i].s, cudaStreamNonBlocking));
    r[i].in = static_cast<float*>(device_alloc(devs[i], max_bytes));
    r[i].out = static_cast<float*>(device_alloc(devs[i], max_bytes));
    fill_input_kernel<<<1024, 256>>>(r[i].in, max_bytes / sizeof(float), i);
    LAUNCH_CHECK();
    CUDA_CHECK(cudaDeviceSynchronize());
    r[i].ev = new EventPair(devs[i]);
  }

  Csv csv(argc, argv, "nccl.csv",
          "NCCL collectives on 2 GPUs (one process, ncclCommInitAll), nccl-tests conventions",
          {0, 1},
          {{"nccl_version", std::to_string(version)},
           {"ranks", "2"},
           {"dtype", "float32"},
           {"redop", "sum"},
           {"in_place", "0"},
           {"env", "NCCL_NVLS_ENABLE=0"},
           {"all_to_all", "grouped ncclSend/ncclRecv to every rank including itself"}},
          "op,ranks,bytes,count,dtype,ops_per_rep," + stat_cols("time_us") +
              ",algbw_gbps_median,busbw_gbps_median,busbw_gbps_best,reps,ok");

  for (Op op : {kAllReduce, kAllGather, kReduceScatter, kAllToAll}) {
    for (size_t bytes = 64 * KiB; bytes <= max_bytes; bytes *= 2) {
      for (int i = 0; i < 5; ++i)
        enqueue(op, bytes, r);  // warm-up (connection setup, first launches)
      double est = time_ops(op, bytes, r, 1);
      const int n = int(std::max(1.0, std::min(50.0, 2000.0 / std::max(est, 1.0))));
      RepeatOpts o;
      o.warmup = 1;
      o.min_reps = 10;
      o.max_reps = 40;
      o.budget_ms = 300;
      Stats st = repeat([&] { return time_ops(op, bytes, r, n) / n; }, o);
      int ok = verify(op, bytes, r);
      double algbw = gbps(double(bytes), st.median);
      csv.row("%s,%d,%zu,%zu,float32,%d,%s,%.2f,%.2f,%.2f,%d,%d", op_name(op), kRanks, bytes,
              bytes / sizeof(float), n, stat_vals(st).c_str(), algbw, algbw * bus_factor(op),
              gbps(double(bytes), st.min) * bus_factor(op), st.n, ok);
    }
  }
  for (int i = 0; i < kRanks; ++i) {
    delete r[i].ev;
    NCCL_CHECK(ncclCommDestroy(comms[i]));
  }
  return 0;
}
