// The kernels: section and the launch op: bad input is a ConfigError naming file:line:column.
#include <catch2/catch.hpp>

#include "kernel_fixture.hpp"

using namespace mgsim;
using namespace mgsim::test;

namespace {
std::string load_error(const std::string& text) {
  return config_error([&] { traces::load_schedule(sim::Node::load_string(text, "k.yaml")); });
}
}  // namespace

TEST_CASE("kernels parse with their roles, ops, args and names") {
  const auto s = traces::load_schedule(sim::Node::load_string(R"(params: {K: 4096}
kernels:
  g:
    grid: num_sms * 2
    args: {T: 0}
    roles:
      - name: a
        if: cta < 2
        ops:
          - for: {var: i, from: 0, to: K / 64, ops: [{mma: {m: 64, n: 64, k: 64}}]}
          - signal: {flag: f, index: cta + T, add: 1}
streams:
  - name: s
    ops: [{launch: {kernel: g, args: {T: rank}}}]
)",
                                                              "k.yaml"));
  REQUIRE(s.kernels.kernels.size() == 1);
  const auto& k = s.kernels.kernels[0];
  CHECK(k.roles.size() == 1);
  CHECK(k.roles[0].ops.size() == 2);
  CHECK(s.kernels.flag_names == std::vector<std::string>{"f"});
  CHECK(std::get<traces::LaunchOp>(s.streams[0].ops[0].what).args.size() == 1);
}

TEST_CASE("bad kernel input names file:line:column") {
  CHECK_THAT(load_error(R"(kernels:
  k:
    grid: 1
    roles: [{name: a, ops: [{mmaa: {m: 1, n: 1, k: 1}}]}]
streams: [{name: s, ops: [{launch: k}]}]
)"),
             Catch::Contains("k.yaml:4:30: error: unknown key 'mmaa' in kernel op") &&
                 Catch::Contains("did you mean 'mma'?"));
  CHECK_THAT(load_error(R"(kernels:
  gemm: {grid: 1, roles: [{name: a, ops: [{compute: {cycles: 1}}]}]}
streams: [{name: s, ops: [{launch: gem}]}]
)"),
             Catch::Contains("k.yaml:3:36: error: unknown kernel 'gem'") &&
                 Catch::Contains("did you mean 'gemm'?"));
  // The error of a one-kernel file whose one role runs `op` (its text starts at line 2, column
  // 40).
  const auto one_op = [](const std::string& op) {
    return load_error("kernels:\n  k: {grid: 1, roles: [{name: a, ops: [" + op +
                      "]}]}\nstreams: [{name: s, ops: [{launch: k}]}]\n");
  };
  // `rounds` belongs to an ld/st load: a store is posted, a TMA message completes on its own.
  for (const char* op :
       {"{store: {bytes: 1, via: ldst, rounds: 2}}", "{load: {bytes: 1, via: tma, rounds: 2}}"}) {
    CHECK_THAT(one_op(op),
               Catch::Contains("k.yaml:2:") &&
                   Catch::Contains("error: 'rounds' counts the latencies an ld/st load's thread "
                                   "waits"));
  }
  CHECK_THAT(load_error(R"(kernels:
  k: {grid: 1, roles: [{name: a, ops: [{load: {bytes: 1, via: dma}}]}]}
streams: [{name: s, ops: [{launch: k}]}]
)"),
             Catch::Contains("k.yaml:2:63: error: unknown 'via' 'dma'; did you mean 'tma'?"));
  CHECK_THAT(load_error(R"(kernels:
  k: {grid: 1, roles: [{name: a, ops: [{reduce: {bytes: 1, via: tma}}]}]}
streams: [{name: s, ops: [{launch: k}]}]
)"),
             Catch::Contains("via must be multimem"));
  CHECK_THAT(load_error(R"(kernels:
  k: {grid: 1, roles: [{name: a, ops: [{store: {bytes: 1, working_set: 1}}]}]}
streams: [{name: s, ops: [{launch: k}]}]
)"),
             Catch::Contains("k.yaml:2:72: error: 'working_set' belongs to a load"));
  CHECK_THAT(load_error(R"(kernels:
  k: {grid: 1, roles: [{name: a, ops: [{reduce: {bytes: 1, via: multimem, working_set: 1}}]}]}
streams: [{name: s, ops: [{launch: k}]}]
)"),
             Catch::Contains("error: 'working_set' belongs to a load or a copy loop"));
  CHECK_THAT(load_error(R"(kernels:
  k: {grid: 1, roles: [{name: a, ops: [{load: {bytes: 1, add: true}}]}]}
streams: [{name: s, ops: [{launch: k}]}]
)"),
             Catch::Contains("error: 'add' belongs to a store"));
  CHECK_THAT(load_error(R"(kernels:
  k: {grid: 1, roles: [{name: a, ops: [{store: {bytes: 1, via: ldst, add: true}}]}]}
streams: [{name: s, ops: [{launch: k}]}]
)"),
             Catch::Contains("a store-add is a TMA bulk reduction") &&
                 Catch::Contains("via must be tma, not 'ldst'"));
  // `from` makes an ld/st store a copy loop; a TMA store or a load has no such source.
  CHECK_THAT(one_op("{store: {bytes: 1, via: tma, from: 0}}"),
             Catch::Contains("k.yaml:2:75: error: 'from' makes an ld/st store a copy loop") &&
                 Catch::Contains("via must be ldst, not 'tma'"));
  CHECK_THAT(one_op("{load: {bytes: 1, via: ldst, from: 0}}"),
             Catch::Contains("error: 'from' belongs to an ld/st store"));
  CHECK_THAT(one_op("{store: {bytes: 1, via: ldst, from: {rank: 0}}}"),
             Catch::Contains("k.yaml:2:77: error: unknown key 'rank'"));
  CHECK_THAT(load_error(R"(kernels:
  k: {grid: 1, roles: [{name: a, ops: [{mma: {m: ctaa, n: 1, k: 1}}]}]}
streams: [{name: s, ops: [{launch: k}]}]
)"),
             Catch::Contains("k.yaml:2:50: error: in expression 'ctaa'") &&
                 Catch::Contains("did you mean 'cta'?"));
  CHECK_THAT(load_error(R"(kernels:
  k: {grid: 1, roles: [{name: a, ops: [{compute: {cycles: 1}}]}]}
streams: [{name: s, ops: [{launch: {kernel: k, args: {X: 1}}}]}]
)"),
             Catch::Contains("kernel 'k' takes no arguments"));
  CHECK_THAT(load_error(R"(kernels:
  k: {grid: 1, roles: [{name: a, ops: [{signal: {flag: f}}]}]}
streams: [{name: s, ops: [{launch: k}]}]
)"),
             Catch::Contains("signal takes exactly one of 'value' and 'add'"));
  // An op is one of the op keys: two of them, or none, is an error that lists them. Keys are read
  // in the list's order, so the second found (sync) is reported at its value (column 69).
  CHECK_THAT(
      load_error(R"(kernels:
  k: {grid: 1, roles: [{name: a, ops: [{compute: {cycles: 1}, sync: b}]}]}
streams: [{name: s, ops: [{launch: k}]}]
)"),
      Catch::Contains("k.yaml:2:69: error: a kernel op holds exactly one of load, store, "
                      "reduce, mma, compute, mainloop, signal, wait, arrive, sync, fence, for"));
  CHECK_THAT(load_error(R"(kernels:
  k: {grid: 1, roles: [{name: a, ops: [{if: 1}]}]}
streams: [{name: s, ops: [{launch: k}]}]
)"),
             Catch::Contains("k.yaml:2:40: error: a kernel op needs one of load, store,"));
}

TEST_CASE("bad kernel values at run time are ConfigErrors, never crashes") {
  // A persistent grid larger than the resident slots (4 SMs x 1 CTA of 2048 threads).
  CHECK_THAT(config_error([] {
               run_kernels(R"(kernels:
  k: {grid: 5, threads: 2048, persistent: true, roles: [{name: a, ops: [{compute: {cycles: 1}}]}]}
streams: [{name: s, ops: [{launch: k}]}]
)",
                           1, toy_device());
             }),
             Catch::Contains("persistent kernel 'k' has 5 CTAs but only 4 fit at once"));
  // A CTA that does not fit: 4096 threads > 2048 per SM.
  CHECK_THAT(config_error([] {
               run_kernels(R"(kernels:
  k: {grid: 1, threads: 4096, roles: [{name: a, ops: [{compute: {cycles: 1}}]}]}
streams: [{name: s, ops: [{launch: k}]}]
)",
                           1, toy_device());
             }),
             Catch::Contains("does not fit on an SM"));
  // A peer outside the world.
  CHECK_THAT(config_error([] {
               run_kernels(R"(world: 2
kernels:
  k: {grid: 1, roles: [{name: a, ops: [{load: {bytes: 1, peer: rank + 2}}]}]}
streams: [{name: s, ops: [{launch: k}]}]
)",
                           2, toy_device());
             }),
             Catch::Contains("rank 2 is outside the world"));
}
