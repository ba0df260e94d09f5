// The kernel syntax tree (one struct per op kind) and the one walker (traces/walker.hpp) over a
// kernel role: `for` and `if`, the op count, and the op budget it charges.
#include <variant>

#include <catch2/catch.hpp>

#include "kernel_fixture.hpp"
#include "traces/walker.hpp"

using namespace mgsim;

namespace {

traces::Schedule kernel(const std::string& ops) {
  return traces::load_schedule(sim::Node::load_string(
      "buffers: {A: {bytes: 1MiB, regions: 4}, B: {bytes: 64}}\n"
      "kernels:\n  k:\n    grid: 1\n    roles:\n      - name: r\n        ops:\n" +
          ops + "streams: [{name: s, ops: [{launch: k}]}]\n",
      "w.yaml"));
}

// The role's ops the walker returns, by kind name, and its op count; every op charged to `b`.
std::vector<std::string> walk(const traces::Schedule& s, traces::OpBudget& b, std::int64_t& ops) {
  const traces::KernelDef& k = s.kernels.kernels.front();
  traces::Env env(static_cast<std::size_t>(k.slot_count), 0);
  traces::Walker<traces::KernelOp> w(k.roles.front().ops);
  std::vector<std::string> out;
  while (const traces::KernelOp* op = w.next(env, b)) out.emplace_back(traces::kind_name(*op));
  ops = w.ops();
  return out;
}

}  // namespace

TEST_CASE("kernel ops parse into their kind's struct, buffers and regions kept") {
  const auto s = kernel(
      "          - load: {bytes: 64, peer: 1, via: ldst, buffer: A, region: 3, working_set: 128}\n"
      "          - store: {bytes: 64, add: true, buffer: B}\n"
      "          - reduce: {bytes: 64}\n"
      "          - for: {var: i, from: 0, to: 2, ops: [{mma: {m: 1, n: 2, k: 3, dtype: fp8}}]}\n"
      "          - wait: {flag: f, value: 1}\n"
      "          - sync: {barrier: b, count: 2}\n");
  const auto& ops = s.kernels.kernels.front().roles.front().ops;
  REQUIRE(ops.size() == 6);
  const auto* load = std::get_if<traces::LoadOp>(&ops[0].what);
  REQUIRE(load);
  CHECK(load->via == traces::Via::ldst);
  CHECK(s.kernels.buffers[static_cast<std::size_t>(load->data.buffer)].name == "A");
  CHECK(load->data.region.has_value());
  CHECK(load->working_set.has_value());
  CHECK(std::get<traces::StoreOp>(ops[1].what).add);
  CHECK(std::get<traces::ReduceOp>(ops[2].what).via == traces::Via::multimem);
  const traces::KernelForOp* loop = traces::loop_of(ops[3]);
  REQUIRE(loop);
  CHECK(std::get<traces::MmaOp>(loop->body.front().what).dtype == models::Dtype::fp8);
  CHECK(traces::loop_of(ops[4]) == nullptr);
  CHECK(std::string(traces::kind_name(ops[4])) == "wait");
  CHECK(std::get<traces::SyncOp>(ops[5].what).barrier == 0);
}

TEST_CASE("a kernel role walks `for` and `if` lazily and charges every op to the budget") {
  const auto s = kernel(
      "          - for: {var: i, from: 0, to: 3, ops: [{compute: {cycles: 1}}, "
      "{mma: {m: 1, n: 1, k: 1}, if: i < 1}]}\n"
      "          - arrive: b\n");
  traces::OpBudget budget;
  std::int64_t ops = 0;
  CHECK(walk(s, budget, ops) ==
        std::vector<std::string>{"compute", "mma", "compute", "compute", "arrive"});
  CHECK(ops == 6);             // the `for` op too
  CHECK(budget.spent() == 8);  // and the loop's 2 further iterations

  traces::OpBudget small(7);
  CHECK_THAT(test::config_error([&] { walk(s, small, ops); }),
             Catch::Contains("the schedule executes more than 7 ops; is a loop bound wrong?"));
}
