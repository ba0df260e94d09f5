// Flags and barriers of the kernel runner: the one table of who waits on what.
//
// Flags: (rank, flag, index) -> value, 0 until first written, in the memory of `rank`. A wait
// for value v blocks until the flag is >= v; the op units (op_signal.cpp, op_wait.cpp) add the
// latencies of reaching and polling a remote flag.
// Barriers: per CTA, arrivals per barrier; the n-th sync of a role on a barrier waits for
// n x count arrivals (op_arrive.cpp, op_sync.cpp).
// Waiters are released in the order they started waiting (deterministic).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "traces/kernel_schedule.hpp"

namespace mgsim::traces::kernel {

struct RoleRun;

using FlagKey = std::tuple<int, int, std::int64_t>;  // rank, flag, index

// What a blocked role waits for, for deadlock reports.
struct Waiting {
  std::string what;             // non-empty while blocked
  std::optional<FlagKey> flag;  // a flag wait: the flag and its threshold
  std::int64_t value = 0;

  bool blocked() const { return !what.empty(); }
  void clear() {
    what.clear();
    flag.reset();
  }
};

class Flags {
 public:
  explicit Flags(const KernelSet& kernels) : kernels_(kernels) {}

  std::int64_t value(const FlagKey& key) const {
    const auto it = flags_.find(key);
    return it == flags_.end() ? 0 : it->second.value;
  }

  // Sets the flag to `value` (adds it with `add`), then calls wake(role) for every waiter whose
  // threshold it reached (wake clears its Waiting), and forgets them.
  template <class Wake>
  void set(const FlagKey& key, std::int64_t value, bool add, Wake&& wake) {
    State& f = flags_[key];
    f.value = add ? f.value + value : value;
    const std::int64_t now = f.value;
    std::erase_if(f.waiters, [&](const std::pair<RoleRun*, std::int64_t>& w) {
      if (w.second > now) return false;
      wake(*w.first);
      return true;
    });
  }

  // True when the flag is already >= value; otherwise `role` waits (`waiting` says on what).
  bool wait(const FlagKey& key, std::int64_t value, RoleRun& role, Waiting& waiting);

  // "flag 'ready'[3] on rank 1".
  std::string text(const FlagKey& key) const;

 private:
  struct State {
    std::int64_t value = 0;
    std::vector<std::pair<RoleRun*, std::int64_t>> waiters;  // role, threshold
  };
  const KernelSet& kernels_;
  std::map<FlagKey, State> flags_;
};

// One CTA's barriers.
class Barriers {
 public:
  // One arrival at `barrier`; calls wake(role) for every sync it completes (wake clears its
  // Waiting), and forgets them.
  template <class Wake>
  void arrive(int barrier, Wake&& wake) {
    const std::int64_t now = ++arrivals_[barrier];
    std::erase_if(syncers_[barrier], [&](const std::pair<RoleRun*, std::int64_t>& w) {
      if (w.second > now) return false;
      wake(*w.first);
      return true;
    });
  }

  // True when `barrier` has `need` arrivals; otherwise `role` waits (`waiting` says on what;
  // `name` is the barrier's).
  bool sync(int barrier, const std::string& name, std::int64_t need, RoleRun& role,
            Waiting& waiting);

 private:
  std::map<int, std::int64_t> arrivals_;
  std::map<int, std::vector<std::pair<RoleRun*, std::int64_t>>> syncers_;
};

}  // namespace mgsim::traces::kernel
