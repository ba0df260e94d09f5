// Do incoming TMA stores and store-adds slow the receiving GPU's own L2 reads? (l2_contention.csv)
//
// Why: in a fused GEMM + reduce-scatter each GPU's GEMM reads its operands from L2 while the other
// GPUs store-add tiles into it (cp.reduce.async.bulk ... .add, applied as read-modify-writes at the
// owner's L2). mgsim gives the store-adds their own L2 reduction resource, which does not take
// from the L2's read bandwidth; this measures whether that holds.
//
// Reader, on GPU 1: hbm_l2.cu's read kernel (read_words: ld.global.cg, 16-byte loads, one
// 1024-thread CTA per SM) on R SMs, re-reading a working set of WS bytes until reader_bytes are
// read in one launch: 8 MiB (L2-resident, 32 GiB read) or 512 MiB (streams HBM, 16 GiB read).
// Writer, at the same time: peer_reduce.cu's TMA kernel (tma_reduce.cuh, source smem: one 32 KiB
// tile per CTA sent again and again, as a GEMM epilogue sends its tiles) on W SMs, op store or
// add_bf16, into a separate 32 MiB buffer on GPU 1, `writer_passes` times over. Two places:
//   peer   the writer runs on GPU 0 and its ops cross NVLink (the fused reduce-scatter's case);
//   local  the writer runs on GPU 1's other SMs (R + W = 132), a heavier stream of store-adds
//          into the same L2 than NVLink can carry.
// The destination (32 MiB) and an L2 working set (8 MiB) fit in the 60 MiB L2 together, so the
// writes contend for L2 bandwidth, not capacity.
//
// Fixed sizes rather than a stop flag: the writer's byte count is chosen per case from its rate
// alone (a probe launch) so that alone it lasts three times the reader's time alone plus 0.5 ms;
// both kernels then have exact byte counts for their rates, and the measured overlap shows whether
// the writer really covered the reader (a slowed reader could outlast it: `covered` = 0 flags
// that).
//
// Together: both GPUs synchronised, then from one host thread the writer's launch (between events
// on its own stream) and at once the reader's (between events on GPU 1's reader stream); each
// kernel's time is its own events'. Both kernels also record their span in %globaltimer (earliest
// CTA start, latest CTA end); for the peer writer, GPU 0's clock is mapped to GPU 1's by an offset
// measured before each case (a one-thread ping-pong over NVLink, 200 round trips, the one with the
// shortest round trip: offset = t_gpu1 - (t0_gpu0 + t2_gpu0) / 2). `overlap` is the smallest
// fraction, over the repetitions, of the reader's span that the writer's span covered.
// Alone: the reader (rows writer=none, and again right before each writer case, drift) and the
// writer, each alone, the same launches.
//
// Verified (ok): the reader's sum of all words read, against the closed form, for the alone and
// together runs; the writer's destination, reset to dst_value before every repetition (untimed),
// after the last writer-alone and the last together repetition: every element old + added (add) or
// the source (store), bit for bit (tma_reduce.cuh; an odd number of passes of alternating sign
// leaves one pass's result).
#include "tma_reduce.cuh"

using namespace mgbench;

namespace {

constexpr int kReaderGpu = 1;
constexpr uint32_t kSeed = 0x5eed1u;
constexpr size_t kDstBytes = 32 * MiB;
constexpr uint32_t kMsg = 32 * KiB;
constexpr size_t kMaxWs = 512 * MiB;
constexpr int kPings = 200;
constexpr unsigned long long kTimeoutNs = 2'000'000'000ull;

__global__ void __launch_bounds__(kThreads)
    timed_read_kernel(const uint4* __restrict__ p, size_t n, size_t total, uint32_t* sum,
                      unsigned long long* span) {
  if (threadIdx.x == 0) stamp_start(span);
  read_words(p, n, total, sum);
  __syncthreads();
  if (threadIdx.x == 0) stamp_end(span);
}

// ---------------------------------------------------------------------------------------------
// The offset between the two GPUs' %globaltimer clocks. One thread per GPU; ping lives on GPU 1,
// pong and t1 on GPU 0.
__device__ inline void st_release(unsigned* p, unsigned v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ inline unsigned ld_acquire(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ inline bool wait_for(const unsigned* p, unsigned want) {
  const unsigned long long t0 = globaltimer_ns();
  for (unsigned n = 0;; ++n) {
    if (ld_acquire(p) >= want) return true;
    if ((n & 1023) == 1023 && globaltimer_ns() - t0 > kTimeoutNs) return false;
  }
}

// GPU 1: answers ping k with its clock (t1[k], in GPU 0's memory) and pong = k.
__global__ void clock_responder(const unsigned* ping, unsigned* pong, unsigned long long* t1, int n,
                                int* failed) {
  for (int k = 1; k <= n; ++k) {
    if (!wait_for(ping, unsigned(k))) {
      *failed = 1;
      return;
    }
    t1[k - 1] = globaltimer_ns();
    st_release(pong, unsigned(k));  // orders the t1 store before the pong
  }
}

// GPU 0: ping k at t0[k], pong seen at t2[k].
__global__ void clock_initiator(unsigned* ping, const unsigned* pong, unsigned long long* t0,
                                unsigned long long* t2, int n, int* failed) {
  for (int k = 1; k <= n; ++k) {
    t0[k - 1] = globaltimer_ns();
    st_release(ping, unsigned(k));
    if (!wait_for(pong, unsigned(k))) {
      *failed = 1;
      return;
    }
    t2[k - 1] = globaltimer_ns();
  }
}

// ---------------------------------------------------------------------------------------------
struct Ctx {
  int num_sms = 0;
  char* rbuf = nullptr;                  // GPU 1: the reader's working set (the pattern)
  uint32_t* sum = nullptr;               // GPU 1: the reader's sum
  char* dst = nullptr;                   // GPU 1: the writer's destination, kDstBytes
  unsigned long long* span_r = nullptr;  // GPU 1
  unsigned long long* span_w[2] = {};    // on GPU 0 and GPU 1
  cudaStream_t sr{};                     // GPU 1: reader
  cudaStream_t sw[2]{};                  // writer stream on GPU 0, GPU 1
  EventPair* evr = nullptr;
  EventPair* evw[2] = {};
  // clock offset
  unsigned* ping = nullptr;          // GPU 1
  unsigned* pong = nullptr;          // GPU 0
  unsigned long long* tt = nullptr;  // GPU 0: t0, t1, t2 (3 x kPings)
  int* failed = nullptr;             // GPU 0
  Csv* csv = nullptr;
};

void sync_both() {
  for (int g = 0; g < 2; ++g) {
    DeviceScope ds(g);
    CUDA_CHECK(cudaDeviceSynchronize());
  }
}

struct ClockOffset {
  double offset_ns = 0;  // GPU 1's clock minus GPU 0's
  double rtt_ns = -1;    // of the round trip used; -1: the ping-pong failed (offset 0 used)
};

ClockOffset measure_clock_offset(Ctx& c) {
  sync_both();
  {
    DeviceScope ds(1);
    CUDA_CHECK(cudaMemset(c.ping, 0, sizeof(unsigned)));
  }
  {
    DeviceScope ds(0);
    CUDA_CHECK(cudaMemset(c.pong, 0, sizeof(unsigned)));
    CUDA_CHECK(cudaMemset(c.failed, 0, sizeof(int)));
  }
  sync_both();
  unsigned long long* t0 = c.tt;
  unsigned long long* t1 = c.tt + kPings;
  unsigned long long* t2 = c.tt + 2 * kPings;
  {
    DeviceScope ds(1);
    clock_responder<<<1, 1, 0, c.sr>>>(c.ping, c.pong, t1, kPings, c.failed);
    LAUNCH_CHECK();
  }
  {
    DeviceScope ds(0);
    clock_initiator<<<1, 1, 0, c.sw[0]>>>(c.ping, c.pong, t0, t2, kPings, c.failed);
    LAUNCH_CHECK();
  }
  sync_both();
  std::vector<unsigned long long> h(3 * kPings);
  int failed = 0;
  CUDA_CHECK(cudaMemcpy(h.data(), c.tt, h.size() * sizeof h[0], cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(&failed, c.failed, sizeof failed, cudaMemcpyDeviceToHost));
  ClockOffset best;
  if (failed) {
    std::fprintf(stderr, "clock offset: ping-pong timed out; offset 0 used\n");
    return best;
  }
  for (int k = 0; k < kPings; ++k) {
    double a = double(h[k]), b = double(h[kPings + k]), e = double(h[2 * kPings + k]);
    double rtt = e - a;
    if (best.rtt_ns < 0 || rtt < best.rtt_ns) best = {b - (a + e) / 2, rtt};
  }
  return best;
}

// ---------------------------------------------------------------------------------------------
struct Reader {
  size_t ws;     // working-set bytes
  size_t bytes;  // read per launch
  int sms;
  size_t words() const { return ws / 16; }
  size_t passes() const { return bytes / ws; }
};

void launch_reader(Ctx& c, const Reader& r, bool stamped) {
  DeviceScope ds(kReaderGpu);
  timed_read_kernel<<<r.sms, kThreads, kExclusiveSmem, c.sr>>>(
      reinterpret_cast<const uint4*>(c.rbuf), r.words(), r.words() * r.passes(), c.sum,
      stamped ? c.span_r : nullptr);
  LAUNCH_CHECK();
}

void reset_sum(Ctx& c) {
  DeviceScope ds(kReaderGpu);
  CUDA_CHECK(cudaMemset(c.sum, 0, sizeof *c.sum));
  CUDA_CHECK(cudaDeviceSynchronize());
}

// 1 when the reader's sum is `calls` launches' worth of the pattern.
int check_sum(Ctx& c, const Reader& r, int calls, const char* what) {
  uint32_t got = 0;
  CUDA_CHECK(cudaMemcpy(&got, c.sum, sizeof got, cudaMemcpyDeviceToHost));
  uint32_t want = uint32_t(calls) * uint32_t(r.passes()) * pattern_sum(r.ws / 4, kSeed);
  if (got != want)
    std::fprintf(stderr, "VERIFY FAILED: %s reader sum %u, want %u (ws %zu, %d SMs)\n", what, got,
                 want, r.ws, r.sms);
  return got == want;
}

RepeatOpts reader_opts() {
  RepeatOpts o;
  o.warmup = 2;
  o.min_reps = 8;
  o.max_reps = 20;
  o.budget_ms = 80;
  return o;
}

// The reader alone; `ok` &= its checksum.
Stats reader_alone(Ctx& c, const Reader& r, int& ok) {
  reset_sum(c);
  int calls = 0;
  Stats st = time_stream(
      kReaderGpu, c.sr,
      [&] {
        launch_reader(c, r, false);
        ++calls;
      },
      reader_opts());
  ok &= check_sum(c, r, calls, "alone");
  return st;
}

struct Writer {
  int gpu;  // 0: peer (over NVLink into GPU 1), 1: local (GPU 1's other SMs)
  TmaOp op;
  int sms;
  int passes = 1;
  size_t bytes() const { return size_t(passes) * kDstBytes; }
  const char* place() const { return gpu == 0 ? "peer" : "local"; }
};

template <TmaOp kOp>
void launch_writer_op(Ctx& c, const Writer& w, bool stamped) {
  DeviceScope ds(w.gpu);
  launch_tma_reduce<kOp>(nullptr, c.dst, kDstBytes, kMsg, w.sms, TmaSource::kSmem, c.sw[w.gpu],
                         w.passes, stamped ? c.span_w[w.gpu] : nullptr);
  LAUNCH_CHECK();
}
void launch_writer(Ctx& c, const Writer& w, bool stamped) {
  if (w.op == TmaOp::kStore) {
    launch_writer_op<TmaOp::kStore>(c, w, stamped);
  } else {
    launch_writer_op<TmaOp::kAddBf16>(c, w, stamped);
  }
}
void reset_dst(Ctx& c, const Writer& w) {
  if (w.op == TmaOp::kStore) {
    fill_values<TmaOp::kStore>(kReaderGpu, c.dst, kDstBytes, false);
  } else {
    fill_values<TmaOp::kAddBf16>(kReaderGpu, c.dst, kDstBytes, false);
  }
}
int check_dst(Ctx& c, const Writer& w, const char* what) {
  unsigned long long bad =
      w.op == TmaOp::kStore
          ? count_wrong<TmaOp::kStore>(kReaderGpu, c.dst, kDstBytes, kMsg, TmaSource::kSmem)
          : count_wrong<TmaOp::kAddBf16>(kReaderGpu, c.dst, kDstBytes, kMsg, TmaSource::kSmem);
  char label[96];
  std::snprintf(label, sizeof label, "%s %s %s %d SMs", what, w.place(), op_name(w.op), w.sms);
  return report_check(label, bad);
}

// One writer launch alone (dst reset first), in microseconds.
double writer_once(Ctx& c, const Writer& w) {
  reset_dst(c, w);
  sync_both();
  EventPair& ev = *c.evw[w.gpu];
  ev.start(c.sw[w.gpu]);
  launch_writer(c, w, false);
  ev.stop(c.sw[w.gpu]);
  return ev.elapsed_us();
}

// ---------------------------------------------------------------------------------------------
constexpr const char* kColumns =
    "reader_ws_bytes,reader_sms,reader_bytes,writer,writer_gpu,writer_op,writer_sms,"
    "writer_passes,writer_bytes,message_bytes,dst_bytes,";

void emit(Ctx& c, const Reader& r, const char* place, int wgpu, const char* op, int wsms,
          int passes, size_t wbytes, const Stats& rs, double r_alone_us, const Stats& ws,
          double w_alone_us, double overlap, double lead_us, double tail_us, const ClockOffset& off,
          int ok) {
  const int covered = wsms == 0 || overlap >= 0.99;
  c.csv->row(
      "%zu,%d,%zu,%s,%d,%s,%d,%d,%zu,%u,%zu,%s,%.1f,%.3f,%.1f,%.4f,%s,%.1f,%.3f,%.1f,%.4f,%d,%.2f,"
      "%.2f,%.0f,%.0f,%d,%d",
      r.ws, r.sms, r.bytes, place, wgpu, op, wsms, passes, wbytes, kMsg, kDstBytes,
      stat_vals(rs).c_str(), gbps(double(r.bytes), rs.median), r_alone_us,
      gbps(double(r.bytes), r_alone_us), r_alone_us > 0 ? rs.median / r_alone_us : 0,
      stat_vals(ws).c_str(), gbps(double(wbytes), ws.median), w_alone_us,
      gbps(double(wbytes), w_alone_us), overlap, covered, lead_us, tail_us, off.offset_ns,
      off.rtt_ns, rs.n, ok);
}

// The reader and the writer together, then the row.
void run_together(Ctx& c, const Reader& r, Writer w) {
  int ok = 1;
  // Size the writer: its rate alone (second of two 31-pass probes), then passes (odd) so that
  // alone it lasts 3 x the reader alone + 0.5 ms.
  const Stats r_alone = reader_alone(c, r, ok);
  w.passes = 31;
  writer_once(c, w);
  const double probe_us = writer_once(c, w);
  const double rate = double(w.bytes()) / probe_us;  // bytes per microsecond
  const double target_us = 3 * r_alone.median + 500;
  w.passes = std::max(1, int(std::ceil(target_us * rate / double(kDstBytes)))) | 1;

  RepeatOpts wo;
  wo.warmup = 1;
  wo.min_reps = 5;
  wo.max_reps = 10;
  wo.budget_ms = 80;
  const Stats w_alone = repeat([&] { return writer_once(c, w); }, wo);
  ok &= check_dst(c, w, "writer alone");

  const ClockOffset off = w.gpu == 0 ? measure_clock_offset(c) : ClockOffset{0, 0};
  RepeatOpts o;
  o.warmup = 1;
  o.min_reps = 10;
  o.max_reps = 20;
  o.budget_ms = 200;
  std::vector<double> r_us, w_us, lead, tail;
  double overlap = 1;
  reset_sum(c);
  int calls = 0;
  double total_us = 0;
  const unsigned long long span0[2] = {~0ull, 0ull};
  for (int i = 0; i < o.warmup + o.max_reps; ++i) {
    reset_dst(c, w);
    CUDA_CHECK(cudaMemcpy(c.span_r, span0, sizeof span0, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(c.span_w[w.gpu], span0, sizeof span0, cudaMemcpyHostToDevice));
    sync_both();
    // The writer first, so that it is running when the reader starts.
    c.evw[w.gpu]->start(c.sw[w.gpu]);
    launch_writer(c, w, true);
    c.evw[w.gpu]->stop(c.sw[w.gpu]);
    c.evr->start(c.sr);
    launch_reader(c, r, true);
    c.evr->stop(c.sr);
    ++calls;
    const double ru = c.evr->elapsed_us(), wu = c.evw[w.gpu]->elapsed_us();
    sync_both();
    unsigned long long sr[2], sw[2];
    CUDA_CHECK(cudaMemcpy(sr, c.span_r, sizeof sr, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(sw, c.span_w[w.gpu], sizeof sw, cudaMemcpyDeviceToHost));
    if (i < o.warmup) continue;
    // Both spans on GPU 1's clock.
    const double rs = double(sr[0]), re = double(sr[1]);
    const double ws = double(sw[0]) + off.offset_ns, we = double(sw[1]) + off.offset_ns;
    const double covered = std::min(re, we) - std::max(rs, ws);
    overlap = std::min(overlap, std::clamp(covered / (re - rs), 0.0, 1.0));
    lead.push_back((rs - ws) * 1e-3);
    tail.push_back((we - re) * 1e-3);
    r_us.push_back(ru);
    w_us.push_back(wu);
    total_us += std::max(ru, wu);
    if (int(r_us.size()) >= o.min_reps && total_us >= o.budget_ms * 1e3) break;
  }
  ok &= check_sum(c, r, calls, "together");
  ok &= check_dst(c, w, "together");
  emit(c, r, w.place(), w.gpu, op_name(w.op), w.sms, w.passes, w.bytes(), summarize(r_us),
       r_alone.median, summarize(w_us), w_alone.median, overlap, summarize(lead).median,
       summarize(tail).median, off, ok);
}

}  // namespace

int main(int argc, char** argv) {
  Meta p2p = enable_peer_access(0, 1);
  Ctx c;
  CUDA_CHECK(cudaDeviceGetAttribute(&c.num_sms, cudaDevAttrMultiProcessorCount, kReaderGpu));
  for (int g = 0; g < 2; ++g) {
    DeviceScope ds(g);
    setup_tma_reduce_kernels();
    allow_dynamic_smem(timed_read_kernel);
    CUDA_CHECK(cudaStreamCreateWithFlags(&c.sw[g], cudaStreamNonBlocking));
    c.evw[g] = new EventPair(g);
    c.span_w[g] = static_cast<unsigned long long*>(device_alloc(g, 2 * sizeof(unsigned long long)));
  }
  c.rbuf = static_cast<char*>(device_alloc(kReaderGpu, kMaxWs));
  c.sum = static_cast<uint32_t*>(device_alloc(kReaderGpu, sizeof(uint32_t)));
  c.dst = static_cast<char*>(device_alloc(kReaderGpu, kDstBytes));
  c.span_r =
      static_cast<unsigned long long*>(device_alloc(kReaderGpu, 2 * sizeof(unsigned long long)));
  c.ping = static_cast<unsigned*>(device_alloc(1, sizeof(unsigned)));
  c.pong = static_cast<unsigned*>(device_alloc(0, sizeof(unsigned)));
  c.tt = static_cast<unsigned long long*>(device_alloc(0, 3 * kPings * sizeof(unsigned long long)));
  c.failed = static_cast<int*>(device_alloc(0, sizeof(int)));
  {
    DeviceScope ds(kReaderGpu);
    CUDA_CHECK(cudaStreamCreateWithFlags(&c.sr, cudaStreamNonBlocking));
  }
  c.evr = new EventPair(kReaderGpu);

  const ClockOffset off0 = measure_clock_offset(c);
  char off_text[128];
  std::snprintf(off_text, sizeof off_text, "%.0f ns (round trip %.0f ns), at program start",
                off0.offset_ns, off0.rtt_ns);
  Meta meta = concat(
      p2p,
      {{"reader",
        "GPU 1: read_words (hbm_l2.cu's read kernel: ld.global.cg 16-byte loads, 4 in flight per "
        "thread, sum of words) on reader_sms SMs, one 1024-thread CTA with 160 KiB of shared "
        "memory each; re-reads the first reader_ws_bytes of a 512 MiB buffer until reader_bytes "
        "are read"},
       {"writer",
        "peer_reduce.cu's tma_reduce_kernel (tma_reduce.cuh), source smem: one 32 KiB tile per CTA "
        "(256 threads, 192 KiB of shared memory) sent with no waits; op store "
        "(cp.async.bulk.global.shared::cta) or add_bf16 (cp.reduce.async.bulk...add.noftz.bf16) "
        "into a 32 MiB buffer on GPU 1, writer_passes times (alternating sign); writer=peer: on "
        "GPU 0 over NVLink, writer=local: on GPU 1's other SMs"},
       {"writer_sizing",
        "writer_passes (odd) from its rate alone so that alone it lasts 3 x the reader alone + "
        "0.5 ms"},
       {"together",
        "both GPUs synchronised; the writer launched first (its own stream and events), then the "
        "reader (GPU 1's reader stream and events); each time is its own kernel's"},
       {"overlap",
        "smallest fraction over the repetitions of the reader's span (earliest CTA start to latest "
        "CTA end, %globaltimer) covered by the writer's; GPU 0's clock mapped to GPU 1's by "
        "clock_offset_ns (GPU 1 - GPU 0, min-round-trip of 200 ping-pongs before the case); "
        "covered = overlap >= 0.99 (1 without a writer); clock_offset_ns and clock_rtt_ns are 0 "
        "where no offset is needed (writer local or none), rtt -1 where the ping-pong failed"},
       {"reader_alone",
        "reader_us_alone_median: the reader alone right before the case (writer=none rows: the "
        "row's own times)"},
       {"values",
        "reader: pattern words, sum checked; writer: dst reset to dst_value before every "
        "repetition (untimed), checked bit for bit after the last writer-alone and together "
        "repetitions"},
       {"clock_offset_at_start", off_text}});
  Csv csv(
      argc, argv, "l2_contention.csv",
      "L2 (and HBM) read rate of GPU 1's reader kernel alone and while TMA stores or store-adds "
      "come in (from GPU 0 over NVLink, or from GPU 1's other SMs); see l2_contention.cu",
      {0, 1}, meta,
      std::string(kColumns) + stat_cols("reader_us") +
          ",reader_gbps_median,reader_us_alone_median,reader_gbps_alone,reader_slowdown," +
          stat_cols("writer_us") +
          ",writer_gbps_median,writer_us_alone_median,writer_gbps_alone,overlap,covered,"
          "writer_lead_us_median,writer_tail_us_median,clock_offset_ns,clock_rtt_ns,reps,ok");
  c.csv = &csv;

  for (size_t ws : {8 * MiB, kMaxWs}) {
    fill_pattern(kReaderGpu, c.rbuf, ws, kSeed);
    const size_t bytes = ws <= 8 * MiB ? 32 * GiB : 16 * GiB;
    for (int rsms : {66, 116, c.num_sms}) {
      const Reader r{ws, bytes, rsms};
      int ok = 1;
      const Stats alone = reader_alone(c, r, ok);
      emit(c, r, "none", -1, "none", 0, 0, 0, alone, alone.median, Stats{}, 0, 0, 0, 0,
           ClockOffset{0, 0}, ok);
      for (TmaOp op : {TmaOp::kStore, TmaOp::kAddBf16}) {
        for (int wsms : {16, c.num_sms}) run_together(c, r, Writer{0, op, wsms});
        if (rsms < c.num_sms) run_together(c, r, Writer{1, op, c.num_sms - rsms});
      }
    }
  }
  sync_both();
  return 0;
}
