// HBM read/write/copy bandwidth by number of SMs (hbm.csv) and L2 read bandwidth by working-set
// size on all SMs (l2.csv), on GPU 0.
//
// HBM: 2 GiB buffers, 34 times the 60 MiB L2, so each pass streams from HBM; with few SMs the
// buffer shrinks (at least 256 MiB, still 4 times the L2) to keep the run short. One CTA of 1024
// threads per SM (kernels.cuh). Verified: the read kernel's sum of all words against the closed
// form, the write and copy destinations word by word after the timed runs (poisoned first).
//
// L2: the same read kernel re-reads a working set of ws bytes until 4 GiB have been read in one
// launch; while ws fits in L2 the loads hit there. Loads bypass L1 (ld.global.cg).
#include "kernels.cuh"

using namespace mgbench;

namespace {

constexpr int kDev = 0;
constexpr uint32_t kSeed = 0x1234567u;

RepeatOpts hbm_opts() {
  RepeatOpts o;
  o.warmup = 2;
  o.min_reps = 7;
  o.max_reps = 30;
  o.budget_ms = 150;
  return o;
}

void measure_hbm(int argc, char** argv, int num_sms) {
  Csv csv(
      argc, argv, "hbm.csv",
      "HBM bandwidth of GPU 0 by SM count: read (sum of words), write (pattern), copy (dst=src); "
      "one 1024-thread CTA per SM, 16-byte accesses, 4 in flight per thread",
      {kDev},
      {{"bytes_moved",
        "read: buffer bytes; write: buffer bytes; copy: 2 x buffer bytes (read + write)"}},
      "op,sms,ctas_per_sm,threads_per_cta,buffer_bytes,bytes_moved," + stat_cols("time_us") +
          ",gbps_median,gbps_best,reps,ok");
  const size_t max_bytes = 2 * GiB;
  void* a = device_alloc(kDev, max_bytes);
  void* b = device_alloc(kDev, max_bytes);
  uint32_t* sum = static_cast<uint32_t*>(device_alloc(kDev, sizeof(uint32_t)));
  fill_pattern(kDev, a, max_bytes, kSeed);
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreate(&s));

  for (int sms : sm_counts(num_sms)) {
    // About 16 MiB per SM per pass keeps every case near 5-10 ms; never below 256 MiB.
    size_t bytes = std::min(max_bytes, std::max(256 * MiB, size_t(sms) * 16 * MiB));
    size_t words16 = bytes / 16;
    auto emit = [&](const char* op, size_t moved, const Stats& st, int ok) {
      csv.row("%s,%d,1,%d,%zu,%zu,%s,%.1f,%.1f,%d,%d", op, sms, kThreads, bytes, moved,
              stat_vals(st).c_str(), gbps(double(moved), st.median), gbps(double(moved), st.min),
              st.n, ok);
    };

    // read
    CUDA_CHECK(cudaMemset(sum, 0, sizeof *sum));
    int calls = 0;
    Stats st = time_stream(
        kDev, s,
        [&] {
          read_kernel<<<sms, kThreads, kExclusiveSmem, s>>>(static_cast<const uint4*>(a), words16,
                                                            words16, sum);
          ++calls;
        },
        hbm_opts());
    uint32_t got = 0;
    CUDA_CHECK(cudaMemcpy(&got, sum, sizeof got, cudaMemcpyDeviceToHost));
    uint32_t want = uint32_t(calls) * pattern_sum(bytes / 4, kSeed);
    int ok = got == want;
    if (!ok) std::fprintf(stderr, "VERIFY FAILED: read sum %u, want %u\n", got, want);
    emit("read", bytes, st, ok);

    // write
    poison(kDev, b, bytes);
    st = time_stream(
        kDev, s,
        [&] {
          write_kernel<<<sms, kThreads, kExclusiveSmem, s>>>(static_cast<uint4*>(b), words16,
                                                             kSeed + 1);
        },
        hbm_opts());
    emit("write", bytes, st,
         report_check("hbm write", count_mismatches(kDev, b, bytes, kSeed + 1)));

    // copy
    poison(kDev, b, bytes);
    st = time_stream(
        kDev, s, [&] { launch_ldst_copy(a, b, bytes, sms, s, 1); }, hbm_opts());
    emit("copy", 2 * bytes, st, report_check("hbm copy", count_mismatches(kDev, b, bytes, kSeed)));
  }
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaFree(a));
  CUDA_CHECK(cudaFree(b));
  CUDA_CHECK(cudaFree(sum));
}

void measure_l2(int argc, char** argv, int num_sms) {
  Csv csv(
      argc, argv, "l2.csv",
      "Read bandwidth of GPU 0 on all SMs by working-set size: one launch re-reads the working set "
      "until 4 GiB are read (ld.global.cg, L1 bypassed); small sets hit in L2, large ones stream "
      "HBM",
      {kDev}, {{"offset_bytes", "start of the working set from a 2 MiB-aligned allocation"}},
      "working_set_bytes,offset_bytes,sms,bytes_read_per_launch," + stat_cols("time_us") +
          ",gbps_median,gbps_best,reps,ok");
  const size_t max_ws = 512 * MiB, max_offset = 1 * MiB;
  const size_t total_bytes = 4 * GiB;
  char* a = static_cast<char*>(device_alloc(kDev, max_ws + max_offset));
  uint32_t* sum = static_cast<uint32_t*>(device_alloc(kDev, sizeof(uint32_t)));
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreate(&s));
  std::vector<std::pair<size_t, size_t>> cases;  // (working set, offset)
  for (size_t ws = 1 * MiB; ws <= max_ws; ws *= 2) cases.push_back({ws, 0});
  // Finer steps around the 60 MiB capacity, where the hit rate falls.
  for (size_t m : {24, 40, 48, 56, 60, 62, 63, 65, 66, 68, 72, 80, 96})
    cases.push_back({m * MiB, 0});
  // 64 MiB read faster than 56 MiB in the first run: does the alignment of the set matter?
  for (size_t off : {4 * KiB, 1 * MiB}) cases.push_back({64 * MiB, off});
  std::sort(cases.begin(), cases.end());

  for (auto [ws, off] : cases) {
    // The pattern starts at the working set, so the closed-form sum applies to it.
    fill_pattern(kDev, a + off, ws, kSeed);
    const size_t words = ws / 16;
    const size_t passes = total_bytes / ws;
    const uint4* p = reinterpret_cast<const uint4*>(a + off);
    CUDA_CHECK(cudaMemset(sum, 0, sizeof *sum));
    int calls = 0;
    Stats st = time_stream(
        kDev, s,
        [&] {
          read_kernel<<<num_sms, kThreads, kExclusiveSmem, s>>>(p, words, words * passes, sum);
          ++calls;
        },
        hbm_opts());
    uint32_t got = 0;
    CUDA_CHECK(cudaMemcpy(&got, sum, sizeof got, cudaMemcpyDeviceToHost));
    uint32_t want = uint32_t(calls) * uint32_t(passes) * pattern_sum(ws / 4, kSeed);
    int ok = got == want;
    if (!ok)
      std::fprintf(stderr, "VERIFY FAILED: l2 read sum %u, want %u (ws %zu)\n", got, want, ws);
    size_t moved = ws * passes;
    csv.row("%zu,%zu,%d,%zu,%s,%.1f,%.1f,%d,%d", ws, off, num_sms, moved, stat_vals(st).c_str(),
            gbps(double(moved), st.median), gbps(double(moved), st.min), st.n, ok);
  }
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaFree(a));
  CUDA_CHECK(cudaFree(sum));
}

}  // namespace

int main(int argc, char** argv) {
  CUDA_CHECK(cudaSetDevice(kDev));
  setup_copy_kernels();
  int num_sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&num_sms, cudaDevAttrMultiProcessorCount, kDev));
  measure_hbm(argc, argv, num_sms);
  measure_l2(argc, argv, num_sms);
  return 0;
}
