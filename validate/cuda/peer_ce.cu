// Copy-engine peer transfers between GPU 0 and GPU 1 by message size (peer_ce.csv).
//
// cudaMemcpyPeerAsync with peer access enabled (the direct NVLink path; no SM is used).
// Directions and who issues the copy (a copy engine of the issuing stream's GPU runs it):
//   0to1_push   GPU 0's stream writes GPU 1            1to0_push   GPU 1's stream writes GPU 0
//   0to1_pull   GPU 1's stream reads GPU 0
//   bidir       0to1_push and 1to0_push at once, time from the common start to the later end
//   0to1_split<k>  one message cut into k pieces on k streams of GPU 0 (several copy engines)
// Modes: `single` puts events around one copy (its latency, launch included); `stream` issues
// enough back-to-back copies for >= 64 MiB or 64 copies and divides (the pipelined cost).
// Verified: the destination, poisoned first, holds the source pattern after the timed runs.
#include <functional>

#include "common.cuh"

using namespace mgbench;

namespace {

constexpr uint32_t kSeed0 = 0xA0000u, kSeed1 = 0xB0000u;

struct Bufs {
  void* src[2];  // src[g] on GPU g, filled with seed kSeed<g>
  void* dst[2];  // dst[g] on GPU g
};

RepeatOpts opts() {
  RepeatOpts o;
  o.warmup = 2;
  o.min_reps = 7;
  o.max_reps = 40;
  o.budget_ms = 150;
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  Meta p2p = enable_peer_access(0, 1);
  Csv csv(argc, argv, "peer_ce.csv",
          "Copy-engine (cudaMemcpyPeerAsync) transfers GPU0<->GPU1 by message size and direction; "
          "see peer_ce.cu",
          {0, 1}, concat(p2p, {{"sms", "0 (copy engines use no SM)"}}),
          "direction,issuer_gpu,mode,streams,bytes,copies_per_rep," + stat_cols("us_per_copy") +
              ",gbps_median,gbps_best,reps,ok");
  const size_t max_bytes = 1 * GiB;
  Bufs b;
  for (int g = 0; g < 2; ++g) {
    b.src[g] = device_alloc(g, max_bytes);
    b.dst[g] = device_alloc(g, max_bytes);
    fill_pattern(g, b.src[g], max_bytes, g == 0 ? kSeed0 : kSeed1);
  }
  cudaStream_t st[2][4];
  for (int g = 0; g < 2; ++g) {
    DeviceScope ds(g);
    for (auto& s : st[g]) CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  }
  EventPair ev0(0), ev1(1);
  cudaEvent_t join1;  // GPU 1's end, waited on by GPU 0 for bidir
  {
    DeviceScope ds(1);
    CUDA_CHECK(cudaEventCreateWithFlags(&join1, cudaEventDisableTiming));
  }

  for (size_t bytes : sizes_pow4(1 * KiB, 1 * GiB)) {
    for (const char* mode : {"single", "stream"}) {
      const bool single = mode[1] == 'i';
      const int copies =
          single ? 1 : int(std::min<size_t>(64, std::max<size_t>(1, 64 * MiB / bytes)));
      if (!single && copies == 1) continue;  // the same as `single`

      // One case: `enqueue_all` issues one repetition's copies; events on `timed` (a stream of
      // `issuer`) time it; `also_check` verifies a second destination (bidir), if any.
      auto run = [&](
                     const char* dir, int issuer, int streams, int dst_gpu, uint32_t seed,
                     const std::function<void()>& enqueue_all, cudaStream_t timed,
                     const std::function<int()>& also_check = [] { return 1; }) {
        poison(dst_gpu, b.dst[dst_gpu], bytes);
        EventPair& ev = issuer == 1 ? ev1 : ev0;
        Stats s = repeat(
            [&] {
              ev.start(timed);
              enqueue_all();
              ev.stop(timed);
              return ev.elapsed_us() / copies;
            },
            opts());
        int ok = report_check(dir, count_mismatches(dst_gpu, b.dst[dst_gpu], bytes, seed)) &
                 also_check();
        csv.row("%s,%d,%s,%d,%zu,%d,%s,%.2f,%.2f,%d,%d", dir, issuer, mode, streams, bytes, copies,
                stat_vals(s).c_str(), gbps(double(bytes), s.median), gbps(double(bytes), s.min),
                s.n, ok);
      };

      run(
          "0to1_push", 0, 1, 1, kSeed0,
          [&] {
            for (int c = 0; c < copies; ++c)
              CUDA_CHECK(cudaMemcpyPeerAsync(b.dst[1], 1, b.src[0], 0, bytes, st[0][0]));
          },
          st[0][0]);
      run(
          "1to0_push", 1, 1, 0, kSeed1,
          [&] {
            for (int c = 0; c < copies; ++c)
              CUDA_CHECK(cudaMemcpyPeerAsync(b.dst[0], 0, b.src[1], 1, bytes, st[1][0]));
          },
          st[1][0]);
      run(
          "0to1_pull", 1, 1, 1, kSeed0,
          [&] {
            for (int c = 0; c < copies; ++c)
              CUDA_CHECK(cudaMemcpyPeerAsync(b.dst[1], 1, b.src[0], 0, bytes, st[1][0]));
          },
          st[1][0]);
      // Both ways: GPU 1's stream starts when GPU 0's start event fires, and GPU 0's stream waits
      // for GPU 1's last copy before its stop event. Time per copy counts one direction's bytes;
      // the aggregate is twice that.
      poison(0, b.dst[0], bytes);
      run(
          "bidir", 0, 2, 1, kSeed0,
          [&] {
            CUDA_CHECK(cudaStreamWaitEvent(st[1][0], ev0.start_event(), 0));
            for (int c = 0; c < copies; ++c) {
              CUDA_CHECK(cudaMemcpyPeerAsync(b.dst[1], 1, b.src[0], 0, bytes, st[0][0]));
              CUDA_CHECK(cudaMemcpyPeerAsync(b.dst[0], 0, b.src[1], 1, bytes, st[1][0]));
            }
            CUDA_CHECK(cudaEventRecord(join1, st[1][0]));
            CUDA_CHECK(cudaStreamWaitEvent(st[0][0], join1, 0));
          },
          st[0][0],
          [&] { return report_check("bidir 1to0", count_mismatches(0, b.dst[0], bytes, kSeed1)); });

      // Split over k streams: can several copy engines of one GPU beat one?
      if (bytes >= 1 * MiB) {
        for (int k : {2, 4}) {
          char dir[32];
          std::snprintf(dir, sizeof dir, "0to1_split%d", k);
          cudaEvent_t joins[4];
          for (auto& j : joins) CUDA_CHECK(cudaEventCreateWithFlags(&j, cudaEventDisableTiming));
          run(
              dir, 0, k, 1, kSeed0,
              [&] {
                size_t piece = bytes / k;
                for (int i = 1; i < k; ++i)
                  CUDA_CHECK(cudaStreamWaitEvent(st[0][i], ev0.start_event(), 0));
                for (int c = 0; c < copies; ++c)
                  for (int i = 0; i < k; ++i)
                    CUDA_CHECK(cudaMemcpyPeerAsync(static_cast<char*>(b.dst[1]) + i * piece, 1,
                                                   static_cast<const char*>(b.src[0]) + i * piece,
                                                   0, piece, st[0][i]));
                for (int i = 1; i < k; ++i) {
                  CUDA_CHECK(cudaEventRecord(joins[i], st[0][i]));
                  CUDA_CHECK(cudaStreamWaitEvent(st[0][0], joins[i], 0));
                }
              },
              st[0][0]);
          for (auto& j : joins) CUDA_CHECK(cudaEventDestroy(j));
        }
      }
    }
  }
  return 0;
}
