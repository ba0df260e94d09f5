// Flag latency between GPU 0 and GPU 1 (flag.csv) and a put-then-signal ping-pong by message size
// (put_signal.csv).
//
// flag.csv: one thread on each GPU passes a counter back and forth 20000 times. The initiator
// (GPU 0) writes i to the responder's flag and waits for i on its own; the responder waits and
// answers. Round trip = elapsed / iterations, timed inside the initiator with %globaltimer after
// 200 warm-up round trips; one-way = half. Variants:
//   sync:     volatile  (ld.volatile / st.volatile), release_acquire (st.release.sys /
//             ld.acquire.sys), atomic (atom.exch.sys to write, ld.acquire.sys to poll)
//   location: write_remote_poll_local (the usual: store over NVLink, spin in local memory),
//             write_local_poll_remote (spin on the peer's memory over NVLink),
//             same_gpu (both sides are CTAs on GPU 0: the local reference)
// Each spin loop gives up after 5 s and marks the case failed, so a lost flag cannot hang the run.
//
// put_signal.csv: the initiator's `sms` CTAs each copy their slice of `bytes` into the responder's
// buffer with 16-byte stores, fence (__threadfence_system), and add 1 to the responder's counter
// (atomicAdd_system); the responder's CTAs wait until the counter shows all CTAs' signals, then put
// the same amount back and signal. One-way time = round trip / 2. Verified: both receive buffers
// hold the sender's pattern afterwards.
#include "flag_protocol.cuh"

using namespace mgbench;
using namespace mgbench::flagproto;

namespace {

struct Two {
  unsigned* flags[2];  // two counters on each GPU
  PingResult* res;     // on GPU 0: the initiator's time and failure flag
  PingResult* res1;    // on GPU 1: the responder's failure flag
};

PingResult fetch(PingResult* r) {
  PingResult h;
  CUDA_CHECK(cudaMemcpy(&h, r, sizeof h, cudaMemcpyDeviceToHost));
  return h;
}

void reset(Two& t) {
  for (int g = 0; g < 2; ++g) {
    DeviceScope ds(g);
    CUDA_CHECK(cudaMemset(t.flags[g], 0, 2 * sizeof(unsigned)));
    CUDA_CHECK(cudaMemset(g == 0 ? t.res : t.res1, 0, sizeof(PingResult)));
    CUDA_CHECK(cudaDeviceSynchronize());
  }
}

void sync_both() {
  for (int g = 0; g < 2; ++g) {
    DeviceScope ds(g);
    CUDA_CHECK(cudaDeviceSynchronize());
  }
}

void measure_flags(int argc, char** argv, Two& t, const Meta& meta) {
  Csv csv(argc, argv, "flag.csv",
          "Flag ping-pong latency between GPU 0 and GPU 1 (one thread each side); see flag.cu",
          {0, 1}, meta,
          "location,sync,round_trips," + stat_cols("round_trip_us") + ",one_way_us_median,reps,ok");
  const int iters = 20000, warmup = 200, reps = 5;
  for (const char* loc : {"write_remote_poll_local", "write_local_poll_remote", "same_gpu"}) {
    for (int sync : {kVolatile, kReleaseAcquire, kAtomic}) {
      std::vector<double> rt;
      int ok = 1;
      for (int r = 0; r < reps && ok; ++r) {  // a timed-out case is not repeated
        reset(t);
        unsigned* f0 = t.flags[0];  // GPU 0's flag
        unsigned* f1 = t.flags[1];  // GPU 1's flag
        if (loc[0] == 's') {
          // Both CTAs on GPU 0; two flags in GPU 0's memory.
          Side a{f0, f0 + 1, 1}, b{f0 + 1, f0, 0};
          pingpong_kernel<<<2, 32>>>(a, b, iters, warmup, sync, t.res);
          LAUNCH_CHECK();
        } else {
          bool remote_write = loc[6] == 'r';
          // remote write: each side polls its own GPU's flag, writes the other GPU's.
          // local write: each side writes its own GPU's flag, polls the other GPU's.
          Side init = remote_write ? Side{f0, f1, 1} : Side{f1, f0, 1};
          Side resp = remote_write ? Side{f1, f0, 0} : Side{f0, f1, 0};
          {
            DeviceScope ds(1);  // the responder first, so it is waiting when the initiator starts
            pingpong_kernel<<<1, 32>>>(resp, resp, iters, warmup, sync, t.res1);
            LAUNCH_CHECK();
          }
          pingpong_kernel<<<1, 32>>>(init, init, iters, warmup, sync, t.res);
          LAUNCH_CHECK();
        }
        sync_both();
        PingResult a = fetch(t.res), b = fetch(t.res1);
        if (a.failed || b.failed) ok = 0;
        rt.push_back(double(a.elapsed_ns) * 1e-3 / iters);
      }
      Stats st = summarize(rt);
      if (!ok) std::fprintf(stderr, "VERIFY FAILED: flag %s %s timed out\n", loc, sync_name(sync));
      csv.row("%s,%s,%d,%s,%.4f,%d,%d", loc, sync_name(sync), iters, stat_vals(st).c_str(),
              st.median / 2, st.n, ok);
    }
  }
}

void measure_put_signal(int argc, char** argv, Two& t, int num_sms, const Meta& meta) {
  Csv csv(argc, argv, "put_signal.csv",
          "Put-then-signal ping-pong GPU0<->GPU1: ld/st put of `bytes` over `sms` CTAs, fence, one "
          "counter "
          "add per CTA; see flag.cu",
          {0, 1}, meta,
          "bytes,sms,iterations," + stat_cols("round_trip_us") +
              ",one_way_us_median,gbps_one_way,reps,ok");
  const size_t max_bytes = 256 * MiB;
  void* src[2];
  void* rcv[2];
  const uint32_t seed[2] = {0xE0000u, 0xF0000u};
  for (int g = 0; g < 2; ++g) {
    src[g] = device_alloc(g, max_bytes);
    rcv[g] = device_alloc(g, max_bytes);
    fill_pattern(g, src[g], max_bytes, seed[g]);
    DeviceScope ds(g);
    allow_dynamic_smem(put_signal_kernel);
  }
  std::vector<size_t> sizes = {16};
  for (size_t s : sizes_pow4(1 * KiB, max_bytes)) sizes.push_back(s);
  for (size_t bytes : sizes) {
    for (int sms : {1, 8, 32, num_sms}) {
      if (bytes < size_t(sms) * 16) continue;  // every CTA gets at least one 16-byte word
      const int iters = int(std::max<size_t>(4, std::min<size_t>(1000, 1 * GiB / bytes)));
      const int warmup = std::max(1, std::min(10, iters / 4));
      std::vector<double> rt;
      int ok = 1;
      for (int g = 0; g < 2; ++g) poison(g, rcv[g], bytes);
      for (int r = 0; r < 3 && ok; ++r) {
        reset(t);
        size_t n16 = bytes / 16;
        {
          DeviceScope ds(1);
          put_signal_kernel<<<sms, kThreads, kExclusiveSmem>>>(
              static_cast<const uint4*>(src[1]), static_cast<uint4*>(rcv[0]), n16, t.flags[1],
              t.flags[0], iters, warmup, 0, t.res1);
          LAUNCH_CHECK();
        }
        put_signal_kernel<<<sms, kThreads, kExclusiveSmem>>>(
            static_cast<const uint4*>(src[0]), static_cast<uint4*>(rcv[1]), n16, t.flags[0],
            t.flags[1], iters, warmup, 1, t.res);
        LAUNCH_CHECK();
        sync_both();
        PingResult a = fetch(t.res), b = fetch(t.res1);
        if (a.failed || b.failed) ok = 0;
        rt.push_back(double(a.elapsed_ns) * 1e-3 / iters);
      }
      ok &= report_check("put_signal 0to1", count_mismatches(1, rcv[1], bytes, seed[0]));
      ok &= report_check("put_signal 1to0", count_mismatches(0, rcv[0], bytes, seed[1]));
      Stats st = summarize(rt);
      csv.row("%zu,%d,%d,%s,%.4f,%.2f,%d,%d", bytes, sms, iters, stat_vals(st).c_str(),
              st.median / 2, gbps(double(bytes), st.median / 2), st.n, ok);
    }
  }
  for (int g = 0; g < 2; ++g) {
    CUDA_CHECK(cudaFree(src[g]));
    CUDA_CHECK(cudaFree(rcv[g]));
  }
}

}  // namespace

int main(int argc, char** argv) {
  Meta p2p = enable_peer_access(0, 1);
  int num_sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&num_sms, cudaDevAttrMultiProcessorCount, 0));
  Two t;
  for (int g = 0; g < 2; ++g)
    t.flags[g] = static_cast<unsigned*>(device_alloc(g, 2 * sizeof(unsigned)));
  t.res = static_cast<PingResult*>(device_alloc(0, sizeof(PingResult)));
  t.res1 = static_cast<PingResult*>(device_alloc(1, sizeof(PingResult)));
  CUDA_CHECK(cudaSetDevice(0));
  measure_flags(argc, argv, t, concat(p2p, {{"timer", "%globaltimer inside the initiator"}}));
  measure_put_signal(argc, argv, t, num_sms,
                     concat(p2p, {{"timer", "%globaltimer inside the initiator's CTA 0"}}));
  return 0;
}
