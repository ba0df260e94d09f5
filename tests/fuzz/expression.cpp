// Fuzz target: an expression of the schedule language, parsed over a few names and evaluated.
// Seeds: tests/fuzz/seeds/expression/.
#include "sim/expr.hpp"
#include "tests/fuzz/fuzz_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mgsim;
  return fuzz::accept_bad_input([&] {
    sim::Scope scope;
    for (const char* name : {"rank", "world", "SIZE", "i"}) scope.add(name);
    const sim::Expr e = sim::Expr::parse(fuzz::text_of(data, size), scope, {"<fuzz>", 1, 1});
    e.eval({3, 8, std::int64_t{1} << 30, -7});
  });
}
