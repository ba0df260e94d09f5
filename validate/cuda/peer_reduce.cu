// TMA bulk reduce-add (cp.reduce.async.bulk ... .add) next to the plain TMA bulk store of the same
// bytes, GPU 0 -> GPU 1 over NVLink and GPU 0 locally, by SM count and by message size
// (peer_tma_reduce.csv).
//
// Why: a fused GEMM + reduce-scatter (ParallelKittens) store-adds each finished tile into its
// owner's buffer with one bulk reduce: a read-modify-write at the destination, where a plain store
// only writes. This measures what that costs.
//
// The kernel runs on GPU 0, one CTA per SM (kTmaRingBytes of shared memory each), one thread
// issuing.
//   direction  put: the destination is GPU 1's memory; local: GPU 0's own
//   op         store     cp.async.bulk.global.shared::cta.bulk_group (peer_tma.csv's store)
//              add_bf16  cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.bf16
//              add_f32   cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32
//   source     hbm: each message is first bulk-loaded from GPU 0's HBM into a ring of shared-memory
//              stages (mbarrier completion), then stored or reduced out: peer_tma.csv's put path,
//              with the op in place of the store. The ring is kTmaRingBytes whatever the message
//              size (stages = kTmaRingBytes / message_bytes, stages - 1 loads in flight). smem: one
//              message-sized tile written once into shared memory is sent again and again, as a
//              GEMM epilogue sends tiles it computed: no HBM read at the source. The issuing thread
//              never waits between ops; the bulk-copy unit's queue limits how many are in flight.
//   message_bytes  the size of one bulk op; message j of the buffer goes to CTA j % sms.
// Events around one kernel launch (the launch is in the time; at 1 GiB it is < 1 %).
// The kernel, its test values and their checks are in tma_reduce.cuh (l2_contention.cu uses them).
//
// Verification: before every repetition (outside the timed region) the destination is reset to
// dst_value(i) and the source holds src_value(i) (hbm) or src_value(i mod the message's elements)
// (smem); small integers, so old + added is exact in bf16 and f32. After the last repetition every
// element must equal old + added (add ops) or the source (store), bit for bit.
#include "tma_reduce.cuh"

using namespace mgbench;

namespace {

struct Ctx {
  void* src0;    // GPU 0: the source
  void* dst[2];  // dst[1] on GPU 1 (put), dst[0] on GPU 0 (local)
  cudaStream_t s0;
  EventPair* ev0;
  Csv* csv;
};

constexpr size_t kBytes = 1 * GiB;

template <TmaOp kOp>
void run_case(Ctx& c, TmaSource source, bool put, int sms, uint32_t msg) {
  const int dst_gpu = put ? 1 : 0;
  void* dst = c.dst[dst_gpu];
  fill_values<kOp>(0, c.src0, kBytes, true);
  Stats st = repeat(
      [&] {
        fill_values<kOp>(dst_gpu, dst, kBytes, false);
        c.ev0->start(c.s0);
        launch_tma_reduce<kOp>(c.src0, dst, kBytes, msg, sms, source, c.s0);
        LAUNCH_CHECK();
        c.ev0->stop(c.s0);
        return c.ev0->elapsed_us();
      },
      peer_repeat_opts());
  const char* dir = put ? "put" : "local";
  const char* src_name = source == TmaSource::kHbm ? "hbm" : "smem";
  char what[96];
  std::snprintf(what, sizeof what, "%s %s %s %d SMs %u B", dir, op_name(kOp), src_name, sms, msg);
  int ok = report_check(what, count_wrong<kOp>(dst_gpu, dst, kBytes, msg, source));
  c.csv->row("%s,%s,%s,%d,%u,%u,%zu,%s,%.2f,%.2f,%d,%d", dir, op_name(kOp), src_name, sms, msg,
             kTmaRingBytes / msg, kBytes, stat_vals(st).c_str(), gbps(double(kBytes), st.median),
             gbps(double(kBytes), st.min), st.n, ok);
}

// The three ops back to back, so their comparison is as close in time as the run allows.
void run_ops(Ctx& c, TmaSource source, bool put, int sms, uint32_t msg) {
  run_case<TmaOp::kStore>(c, source, put, sms, msg);
  run_case<TmaOp::kAddBf16>(c, source, put, sms, msg);
  run_case<TmaOp::kAddF32>(c, source, put, sms, msg);
}

}  // namespace

int main(int argc, char** argv) {
  Meta p2p = enable_peer_access(0, 1);
  int num_sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&num_sms, cudaDevAttrMultiProcessorCount, 0));
  Ctx c;
  c.src0 = device_alloc(0, kBytes);
  c.dst[0] = device_alloc(0, kBytes);
  c.dst[1] = device_alloc(1, kBytes);
  CUDA_CHECK(cudaSetDevice(0));
  setup_tma_reduce_kernels();
  CUDA_CHECK(cudaStreamCreateWithFlags(&c.s0, cudaStreamNonBlocking));
  EventPair ev0(0);
  c.ev0 = &ev0;

  char kernel_cfg[400];
  std::snprintf(kernel_cfg, sizeof kernel_cfg,
                "one CTA of %d threads per SM (%u B of shared memory), thread 0 issues; "
                "source hbm: cp.async.bulk global->smem (mbarrier) into a %u B ring, then the op "
                "smem->global (bulk_group); source smem: one tile written once, sent by the op "
                "with no waits between ops",
                kTmaReduceBlock, kTmaRingBytes, kTmaRingBytes);
  Meta meta = concat(p2p, {{"kernel", kernel_cfg},
                           {"values",
                            "src_value(i) = i mod 61 - 30, dst_value(i) = i mod 67 - 33 (element "
                            "index i; smem source: index within the message); exact in bf16/f32"},
                           {"dst_reset",
                            "every repetition, outside the timed region: destination set to "
                            "dst_value by a kernel on its own GPU, then synchronised"}});
  Csv csv(argc, argv, "peer_tma_reduce.csv",
          "TMA bulk reduce-add (bf16, f32) vs bulk store, GPU0 -> GPU1 (put) and GPU0 local, by "
          "SM count and message size; see peer_reduce.cu",
          {0, 1}, meta,
          "direction,op,source,sms,message_bytes,stages,bytes," + stat_cols("time_us") +
              ",gbps_median,gbps_best,reps,ok");
  c.csv = &csv;

  for (TmaSource source : {TmaSource::kHbm, TmaSource::kSmem}) {
    for (bool put : {true, false}) {
      // By SM count, at peer_tma.csv's message size.
      for (int sms : sm_counts(num_sms)) run_ops(c, source, put, sms, 32 * 1024);
      // By message size, where NVLink just saturates (8 SMs) and on the whole chip; 32 KiB is
      // in the SM sweep.
      for (int sms : {8, num_sms})
        for (uint32_t msg = kTmaMinMessage; msg <= kTmaMaxMessage; msg *= 2)
          if (msg != 32 * 1024) run_ops(c, source, put, sms, msg);
    }
  }
  return 0;
}
