// Kernel launch cost on GPU 0 (launch.csv).
//
// Kernels: `empty` does nothing; `tick` has thread 0 of CTA 0 add 1 to a counter, which proves
// every launch ran (the counter is checked against the number of launches).
// Modes:
//   stream_back_to_back  N launches between two events on one stream: GPU time per launch when
//                        the host runs ahead (the launch throughput limit).
//   host_enqueue         host wall time of the N launch calls alone (CPU cost per launch).
//   single_event         one launch between two events: GPU time of one isolated kernel.
//   single_sync          host wall time of launch + cudaStreamSynchronize (what a host sees).
//   graph_back_to_back   a CUDA graph of N kernel nodes replayed between events, per kernel.
//   graph_single         a graph of one kernel replayed between events.
// Grid sizes 1, 132, 1056 and 8448 CTAs of 128 threads show the cost of CTA dispatch.
#include "common.cuh"

using namespace mgbench;

namespace {

constexpr int kDev = 0;
constexpr int kBatch = 2000;

__global__ void empty_kernel() {}
__global__ void tick_kernel(unsigned long long* counter) {
  if (blockIdx.x == 0 && threadIdx.x == 0) atomicAdd(counter, 1ull);
}

struct Launcher {
  const char* name;
  unsigned long long* counter;  // null for the empty kernel
  void operator()(int grid, cudaStream_t s) const {
    if (counter)
      tick_kernel<<<grid, 128, 0, s>>>(counter);
    else
      empty_kernel<<<grid, 128, 0, s>>>();
  }
};

RepeatOpts opts(int reps) {
  RepeatOpts o;
  o.warmup = 3;
  o.min_reps = reps;
  o.max_reps = reps;
  o.budget_ms = 0;
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  CUDA_CHECK(cudaSetDevice(kDev));
  Csv csv(argc, argv, "launch.csv", "Kernel launch cost on GPU 0 (see launch.cu for the modes)",
          {kDev}, {},
          "kernel,mode,grid_ctas,threads_per_cta,launches_per_rep," + stat_cols("us_per_launch") +
              ",reps,ok");
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  unsigned long long* counter =
      static_cast<unsigned long long*>(device_alloc(kDev, sizeof(unsigned long long)));
  EventPair ev(kDev);

  for (Launcher launch : {Launcher{"empty", nullptr}, Launcher{"tick", counter}}) {
    for (int grid : {1, 132, 1056, 8448}) {
      // Every launch of `tick` adds one; `launched` counts what we asked for.
      CUDA_CHECK(cudaMemset(counter, 0, sizeof *counter));
      unsigned long long launched = 0;
      auto emit = [&](const char* mode, int per_rep, const Stats& st) {
        CUDA_CHECK(cudaStreamSynchronize(s));
        unsigned long long got = 0;
        CUDA_CHECK(cudaMemcpy(&got, counter, sizeof got, cudaMemcpyDeviceToHost));
        int ok = launch.counter ? got == launched : 1;
        if (!ok) std::fprintf(stderr, "VERIFY FAILED: %llu ticks, want %llu\n", got, launched);
        csv.row("%s,%s,%d,128,%d,%s,%d,%d", launch.name, mode, grid, per_rep, stat_vals(st).c_str(),
                st.n, ok);
      };

      Stats st = repeat(
          [&] {
            ev.start(s);
            for (int i = 0; i < kBatch; ++i) launch(grid, s);
            LAUNCH_CHECK();
            ev.stop(s);
            launched += kBatch;
            return ev.elapsed_us() / kBatch;
          },
          opts(9));
      emit("stream_back_to_back", kBatch, st);

      st = repeat(
          [&] {
            CUDA_CHECK(cudaStreamSynchronize(s));
            double t0 = wall_us();
            for (int i = 0; i < kBatch; ++i) launch(grid, s);
            double t1 = wall_us();
            LAUNCH_CHECK();
            launched += kBatch;
            return (t1 - t0) / kBatch;
          },
          opts(9));
      emit("host_enqueue", kBatch, st);

      st = repeat(
          [&] {
            ev.start(s);
            launch(grid, s);
            LAUNCH_CHECK();
            ev.stop(s);
            ++launched;
            return ev.elapsed_us();
          },
          opts(200));
      emit("single_event", 1, st);

      st = repeat(
          [&] {
            double t0 = wall_us();
            launch(grid, s);
            CUDA_CHECK(cudaStreamSynchronize(s));
            ++launched;
            return wall_us() - t0;
          },
          opts(200));
      emit("single_sync", 1, st);

      for (int nodes : {kBatch, 1}) {
        cudaGraph_t g;
        cudaGraphExec_t ge;
        CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
        for (int i = 0; i < nodes; ++i) launch(grid, s);
        CUDA_CHECK(cudaStreamEndCapture(s, &g));
        CUDA_CHECK(cudaGraphInstantiate(&ge, g, 0));
        st = repeat(
            [&] {
              ev.start(s);
              CUDA_CHECK(cudaGraphLaunch(ge, s));
              ev.stop(s);
              launched += nodes;
              return ev.elapsed_us() / nodes;
            },
            opts(nodes == 1 ? 200 : 9));
        emit(nodes == 1 ? "graph_single" : "graph_back_to_back", nodes, st);
        CUDA_CHECK(cudaGraphExecDestroy(ge));
        CUDA_CHECK(cudaGraphDestroy(g));
      }
    }
  }
  CUDA_CHECK(cudaFree(counter));
  CUDA_CHECK(cudaStreamDestroy(s));
  return 0;
}
