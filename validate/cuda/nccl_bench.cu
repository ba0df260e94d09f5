// NCCL collectives on GPU 0 and GPU 1 from one process (ncclCommInitAll), reported the way
// nccl-tests does (nccl.csv).
//
// `bytes` is nccl-tests' size: the whole buffer of one rank (all_reduce: in = out = bytes;
// all_gather: out = bytes, in = bytes / 2; reduce_scatter: in = bytes, out = bytes / 2; all_to_all:
// in = out = bytes, bytes / 2 to each rank, itself included; sendrecv, as nccl-tests'
// sendrecv_perf: in = out = bytes, each rank sends its input to the next rank and receives the
// previous rank's, one grouped ncclSend and ncclRecv). algbw = bytes / time; busbw = algbw *
// 2(n-1)/n for all_reduce, algbw for sendrecv and * (n-1)/n for the others (n = 2).
// Out of place, sum. Timing: a repetition enqueues `ops_per_rep` back-to-back operations
// (enough for ~2 ms, at most 50) between events on each rank's stream; time per op is the slower
// rank's time divided by ops_per_rep; median over repetitions. host_us_median: the host's wall
// time of that enqueue loop per op (the grouped calls of both ranks: NCCL's host cost when the
// GPUs keep up). Verified: outputs poisoned (NaN) before the last run and compared exactly with
// the expected values (small integers, so sums are exact in float32 and bfloat16).
//
// Options (all optional): --out DIR; --file NAME (default nccl.csv); --setting TEXT, written in
// each row's `setting` column (the sweep script names the NCCL_* variables it set, e.g.
// "NCCL_PROTO=LL"; NCCL reads them when the communicator is made, so each setting is its own
// run); --dtypes float32,bfloat16; --ops all_reduce,all_gather,...; --min-bytes / --max-bytes
// (default 64 KiB .. 1 GiB). NCCL's own choice per call is in its log (NCCL_DEBUG=INFO,
// NCCL_DEBUG_SUBSYS=TUNING: "<op>: <bytes> Bytes -> Algo <a> proto <p> channel{Lo..Hi}"), which
// scripts/nccl_choices.py turns into nccl_choices.csv.
#include <cuda_bf16.h>
#include <nccl.h>

#include <algorithm>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "common.cuh"
#include "nccl_check.cuh"

using namespace mgbench;

namespace {

constexpr int kRanks = 2;

enum Op { kAllReduce, kAllGather, kReduceScatter, kAllToAll, kSendRecv };
const char* op_name(Op o) {
  switch (o) {
    case kAllReduce:
      return "all_reduce";
    case kAllGather:
      return "all_gather";
    case kReduceScatter:
      return "reduce_scatter";
    case kSendRecv:
      return "sendrecv";
    default:
      return "all_to_all";
  }
}
double bus_factor(Op o) {
  if (o == kSendRecv) return 1.0;
  return o == kAllReduce ? 2.0 * (kRanks - 1) / kRanks : double(kRanks - 1) / kRanks;
}

// Rank r's input element i: small integers, so every sum is exact in float32 and bfloat16
// (integers up to 256 are).
__host__ __device__ inline float val(int r, size_t i) {
  return float(i % 61) + 1.0f + 64.0f * float(r);
}

enum Dtype { kFloat32, kBfloat16 };
const char* dtype_name(Dtype d) { return d == kFloat32 ? "float32" : "bfloat16"; }
size_t dtype_size(Dtype d) { return d == kFloat32 ? 4 : 2; }
ncclDataType_t nccl_type(Dtype d) { return d == kFloat32 ? ncclFloat32 : ncclBfloat16; }

__device__ inline float load_as_float(const void* p, int dtype, size_t i) {
  return dtype == kFloat32 ? static_cast<const float*>(p)[i]
                           : __bfloat162float(static_cast<const __nv_bfloat16*>(p)[i]);
}

__global__ void fill_input_kernel(void* p, int dtype, size_t n, int rank) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    if (dtype == kFloat32)
      static_cast<float*>(p)[i] = val(rank, i);
    else
      static_cast<__nv_bfloat16*>(p)[i] = __float2bfloat16(val(rank, i));
  }
}

// Counts output elements of `rank` that differ from what `op` must produce. `out_n` elements;
// `chunk` is the per-rank block (count / ranks).
__global__ void check_kernel(int op, int dtype, int rank, const void* out, size_t out_n,
                             size_t chunk, unsigned long long* bad) {
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
    } else if (op == kSendRecv) {
      want = val((rank + kRanks - 1) % kRanks, j);
    } else {
      want = val(int(j / chunk), size_t(rank) * chunk + j % chunk);
    }
    local += load_as_float(out, dtype, j) != want;
  }
  if (local) atomicAdd(bad, local);
}

struct Rank {
  int dev;
  ncclComm_t comm;
  cudaStream_t s;
  char* in;
  char* out;
  EventPair* ev;
};

// Enqueues one operation of `bytes` on every rank (inside one NCCL group: a single thread drives
// both GPUs).
void enqueue(Op op, Dtype d, size_t bytes, Rank* r) {
  const size_t count = bytes / dtype_size(d);
  const size_t chunk = count / kRanks;
  const size_t chunk_bytes = chunk * dtype_size(d);
  const ncclDataType_t t = nccl_type(d);
  NCCL_CHECK(ncclGroupStart());
  for (int i = 0; i < kRanks; ++i) {
    Rank& k = r[i];
    switch (op) {
      case kAllReduce:
        NCCL_CHECK(ncclAllReduce(k.in, k.out, count, t, ncclSum, k.comm, k.s));
        break;
      case kAllGather:
        NCCL_CHECK(ncclAllGather(k.in, k.out, chunk, t, k.comm, k.s));
        break;
      case kReduceScatter:
        NCCL_CHECK(ncclReduceScatter(k.in, k.out, chunk, t, ncclSum, k.comm, k.s));
        break;
      case kAllToAll:
        for (int p = 0; p < kRanks; ++p) {
          NCCL_CHECK(ncclSend(k.in + p * chunk_bytes, chunk, t, p, k.comm, k.s));
          NCCL_CHECK(ncclRecv(k.out + p * chunk_bytes, chunk, t, p, k.comm, k.s));
        }
        break;
      case kSendRecv:
        NCCL_CHECK(ncclSend(k.in, count, t, (i + 1) % kRanks, k.comm, k.s));
        NCCL_CHECK(ncclRecv(k.out, count, t, (i + kRanks - 1) % kRanks, k.comm, k.s));
        break;
    }
  }
  NCCL_CHECK(ncclGroupEnd());
}

// Time of `n` back-to-back operations, the slower rank's, in microseconds; `host_us` gets the
// host's wall time of the enqueue loop.
double time_ops(Op op, Dtype d, size_t bytes, Rank* r, int n, double* host_us = nullptr) {
  for (int i = 0; i < kRanks; ++i) {
    DeviceScope ds(r[i].dev);
    CUDA_CHECK(cudaStreamSynchronize(r[i].s));
    r[i].ev->start(r[i].s);
  }
  const double t0 = wall_us();
  for (int k = 0; k < n; ++k) enqueue(op, d, bytes, r);
  if (host_us) *host_us = wall_us() - t0;
  double worst = 0;
  for (int i = 0; i < kRanks; ++i) r[i].ev->stop(r[i].s);
  for (int i = 0; i < kRanks; ++i) worst = std::max(worst, r[i].ev->elapsed_us());
  return worst;
}

int verify(Op op, Dtype d, size_t bytes, Rank* r) {
  const size_t count = bytes / dtype_size(d), chunk = count / kRanks;
  const size_t out_n = op == kReduceScatter ? chunk : count;
  for (int i = 0; i < kRanks; ++i) poison(r[i].dev, r[i].out, out_n * dtype_size(d));
  enqueue(op, d, bytes, r);
  int ok = 1;
  for (int i = 0; i < kRanks; ++i) {
    DeviceScope ds(r[i].dev);
    CUDA_CHECK(cudaStreamSynchronize(r[i].s));
    unsigned long long* bad;
    CUDA_CHECK(cudaMalloc(&bad, sizeof *bad));
    CUDA_CHECK(cudaMemset(bad, 0, sizeof *bad));
    check_kernel<<<1024, 256>>>(op, d, i, r[i].out, out_n, chunk, bad);
    LAUNCH_CHECK();
    unsigned long long h = 0;
    CUDA_CHECK(cudaMemcpy(&h, bad, sizeof h, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(bad));
    ok &= report_check(op_name(op), h);
  }
  return ok;
}

// The value of option `name` (e.g. "--file"), or `fallback`.
std::string option(int argc, char** argv, const char* name, const std::string& fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return argv[i + 1];
  return fallback;
}

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream ss(list);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
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

  const std::string file = option(argc, argv, "--file", "nccl.csv");
  const std::string setting = option(argc, argv, "--setting", "default");
  const size_t min_bytes = std::stoull(option(argc, argv, "--min-bytes", std::to_string(64 * KiB)));
  const size_t max_bytes = std::stoull(option(argc, argv, "--max-bytes", std::to_string(1 * GiB)));
  std::vector<Dtype> dtypes;
  for (const std::string& d : split(option(argc, argv, "--dtypes", "float32"))) {
    if (d != "float32" && d != "bfloat16") {
      std::fprintf(stderr, "--dtypes: float32 or bfloat16, not %s\n", d.c_str());
      return 2;
    }
    dtypes.push_back(d == "float32" ? kFloat32 : kBfloat16);
  }
  std::vector<Op> ops;
  for (const std::string& o : split(option(
           argc, argv, "--ops", "all_reduce,all_gather,reduce_scatter,all_to_all,sendrecv"))) {
    bool found = false;
    for (Op k : {kAllReduce, kAllGather, kReduceScatter, kAllToAll, kSendRecv})
      if (o == op_name(k)) ops.push_back(k), found = true;
    if (!found) {
      std::fprintf(stderr, "--ops: unknown %s\n", o.c_str());
      return 2;
    }
  }
  Rank r[kRanks];
  for (int i = 0; i < kRanks; ++i) {
    DeviceScope ds(devs[i]);
    r[i].dev = devs[i];
    r[i].comm = comms[i];
    CUDA_CHECK(cudaStreamCreateWithFlags(&r[i].s, cudaStreamNonBlocking));
    r[i].in = static_cast<char*>(device_alloc(devs[i], max_bytes));
    r[i].out = static_cast<char*>(device_alloc(devs[i], max_bytes));
    CUDA_CHECK(cudaDeviceSynchronize());
    r[i].ev = new EventPair(devs[i]);
  }

  std::string dtype_list;
  for (Dtype d : dtypes) dtype_list += std::string(dtype_list.empty() ? "" : ",") + dtype_name(d);
  Csv csv(argc, argv, file,
          "NCCL collectives on 2 GPUs (one process, ncclCommInitAll), nccl-tests conventions",
          {0, 1},
          {{"nccl_version", std::to_string(version)},
           {"ranks", "2"},
           {"dtype", dtype_list},
           {"redop", "sum"},
           {"in_place", "0"},
           {"env", "NCCL_NVLS_ENABLE=0"},
           {"setting", setting},
           {"all_to_all", "grouped ncclSend/ncclRecv to every rank including itself"},
           {"sendrecv", "grouped ncclSend to the next rank and ncclRecv from the previous"}},
          "op,ranks,bytes,count,dtype,ops_per_rep," + stat_cols("time_us") +
              ",algbw_gbps_median,busbw_gbps_median,busbw_gbps_best,reps,ok,host_us_median,"
              "setting");

  for (Dtype d : dtypes) {
    for (int i = 0; i < kRanks; ++i) {
      DeviceScope ds(devs[i]);
      fill_input_kernel<<<1024, 256>>>(r[i].in, d, max_bytes / dtype_size(d), i);
      LAUNCH_CHECK();
      CUDA_CHECK(cudaDeviceSynchronize());
    }
    for (Op op : ops) {
      for (size_t bytes = min_bytes; bytes <= max_bytes; bytes *= 2) {
        for (int i = 0; i < 5; ++i)
          enqueue(op, d, bytes, r);  // warm-up (connection setup, first launches)
        double est = time_ops(op, d, bytes, r, 1);
        const int n = int(std::max(1.0, std::min(50.0, 2000.0 / std::max(est, 1.0))));
        RepeatOpts o;
        o.warmup = 1;
        o.min_reps = 10;
        o.max_reps = 40;
        o.budget_ms = 300;
        std::vector<double> host;
        Stats st = repeat(
            [&] {
              double h = 0;
              const double t = time_ops(op, d, bytes, r, n, &h) / n;
              host.push_back(h / n);
              return t;
            },
            o);
        std::sort(host.begin(), host.end());
        int ok = verify(op, d, bytes, r);
        double algbw = gbps(double(bytes), st.median);
        csv.row("%s,%d,%zu,%zu,%s,%d,%s,%.2f,%.2f,%.2f,%d,%d,%.3f,%s", op_name(op), kRanks, bytes,
                bytes / dtype_size(d), dtype_name(d), n, stat_vals(st).c_str(), algbw,
                algbw * bus_factor(op), gbps(double(bytes), st.min) * bus_factor(op), st.n, ok,
                host[host.size() / 2], setting.c_str());
      }
    }
  }
  for (int i = 0; i < kRanks; ++i) {
    delete r[i].ev;
    NCCL_CHECK(ncclCommDestroy(comms[i]));
  }
  return 0;
}
