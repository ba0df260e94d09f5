// SM-driven peer transfers between GPU 0 and GPU 1 by message size and SM count:
// TMA bulk copies (peer_tma.csv) and ld/st register copies (peer_ldst.csv). Kernels: kernels.cuh.
//
// Directions (the kernel always runs on GPU 0 unless said otherwise):
//   put        GPU 0 reads its own HBM and writes GPU 1's memory
//   get        GPU 0 reads GPU 1's memory and writes its own HBM
//   bidir_put  GPU 0 puts to GPU 1 while GPU 1 puts to GPU 0, each kernel on `sms` SMs; time from
//              the common start to the later end; bytes are one direction's
//   local      GPU 0 copies within its own HBM (TMA only; hbm.csv has the ld/st copy)
// Events around one kernel launch, so small messages include the launch (launch.csv has it
// alone). Verified: every destination is poisoned before the case and checked after it.
#include <functional>

#include "kernels.cuh"

using namespace mgbench;

namespace {

constexpr uint32_t kSeed0 = 0xC0000u, kSeed1 = 0xD0000u;

using LaunchFn = void (*)(const void*, void*, size_t, int, cudaStream_t, int);

struct Ctx {
  void* src[2];
  void* dst[2];
  cudaStream_t s[2];
  EventPair* ev0;
  cudaEvent_t join1;
};

void sweep(int argc, char** argv, const char* file, const char* what, LaunchFn launch, Ctx& c,
           int num_sms, const Meta& meta) {
  Csv csv(
      argc, argv, file, what, {0, 1}, meta,
      "direction,sms,ctas_per_sm,bytes," + stat_cols("time_us") + ",gbps_median,gbps_best,reps,ok");
  for (size_t bytes : sizes_pow4(1 * KiB, 1 * GiB)) {
    for (int sms : sm_counts(num_sms)) {
      auto run = [&](const char* dir, int dst_gpu, uint32_t seed,
                     const std::function<void()>& enqueue, const std::function<int()>& also_check) {
        poison(dst_gpu, c.dst[dst_gpu], bytes);
        Stats st = repeat(
            [&] {
              c.ev0->start(c.s[0]);
              enqueue();
              LAUNCH_CHECK();
              c.ev0->stop(c.s[0]);
              return c.ev0->elapsed_us();
            },
            peer_repeat_opts());
        int ok = report_check(dir, count_mismatches(dst_gpu, c.dst[dst_gpu], bytes, seed)) &
                 also_check();
        csv.row("%s,%d,1,%zu,%s,%.2f,%.2f,%d,%d", dir, sms, bytes, stat_vals(st).c_str(),
                gbps(double(bytes), st.median), gbps(double(bytes), st.min), st.n, ok);
      };
      auto none = [] { return 1; };
      run(
          "put", 1, kSeed0, [&] { launch(c.src[0], c.dst[1], bytes, sms, c.s[0], 1); }, none);
      run(
          "get", 0, kSeed1, [&] { launch(c.src[1], c.dst[0], bytes, sms, c.s[0], 1); }, none);
      if (bytes >= 1 * MiB && sms >= 16) {
        poison(0, c.dst[0], bytes);
        run(
            "bidir_put", 1, kSeed0,
            [&] {
              CUDA_CHECK(cudaStreamWaitEvent(c.s[1], c.ev0->start_event(), 0));
              launch(c.src[0], c.dst[1], bytes, sms, c.s[0], 1);
              {
                DeviceScope ds(1);
                launch(c.src[1], c.dst[0], bytes, sms, c.s[1], 1);
                LAUNCH_CHECK();
              }
              CUDA_CHECK(cudaEventRecord(c.join1, c.s[1]));
              CUDA_CHECK(cudaStreamWaitEvent(c.s[0], c.join1, 0));
            },
            [&] {
              return report_check("bidir 1to0", count_mismatches(0, c.dst[0], bytes, kSeed1));
            });
      }
      if (launch == launch_tma_copy && bytes >= 256 * MiB)
        run(
            "local", 0, kSeed0, [&] { launch(c.src[0], c.dst[0], bytes, sms, c.s[0], 1); }, none);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  Meta p2p = enable_peer_access(0, 1);
  int num_sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&num_sms, cudaDevAttrMultiProcessorCount, 0));
  const size_t max_bytes = 1 * GiB;
  Ctx c;
  for (int g = 0; g < 2; ++g) {
    DeviceScope ds(g);
    setup_copy_kernels();
    c.src[g] = device_alloc(g, max_bytes);
    c.dst[g] = device_alloc(g, max_bytes);
    fill_pattern(g, c.src[g], max_bytes, g == 0 ? kSeed0 : kSeed1);
    CUDA_CHECK(cudaStreamCreateWithFlags(&c.s[g], cudaStreamNonBlocking));
    if (g == 1) CUDA_CHECK(cudaEventCreateWithFlags(&c.join1, cudaEventDisableTiming));
  }
  EventPair ev0(0);
  c.ev0 = &ev0;
  CUDA_CHECK(cudaSetDevice(0));

  char ldst_cfg[160], tma_cfg[200];
  std::snprintf(ldst_cfg, sizeof ldst_cfg,
                "one CTA of %d threads per SM; each thread 16-byte loads (ld.global.cg) then "
                "stores, %d in flight",
                kThreads, kUnroll);
  std::snprintf(tma_cfg, sizeof tma_cfg,
                "one CTA per SM, one issuing thread; chunks of %u bytes, ring of %d smem stages "
                "(%d loads in flight); "
                "cp.async.bulk global->smem (mbarrier) then smem->global (bulk_group)",
                kTmaChunk, kTmaStages, kTmaStages - 1);
  sweep(argc, argv, "peer_ldst.csv",
        "ld/st (register) peer copies GPU0<->GPU1 by size and SM count; see peer_sm.cu",
        launch_ldst_copy, c, num_sms, concat(p2p, {{"kernel", ldst_cfg}}));
  sweep(argc, argv, "peer_tma.csv",
        "TMA bulk-copy peer transfers GPU0<->GPU1 by size and SM count; see peer_sm.cu",
        launch_tma_copy, c, num_sms, concat(p2p, {{"kernel", tma_cfg}}));
  return 0;
}
