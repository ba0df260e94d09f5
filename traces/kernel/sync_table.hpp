// Flags and barriers of the kernel runner, on the one table of who waits on what
// (traces/sync_table.hpp, which the host's events use too).
//
// Flags: (rank, flag, index) -> value, 0 until first written, in the memory of `rank`. A wait
// for value v blocks until the flag is >= v; the op units (op_signal.cpp, op_wait.cpp) add the
// latencies of reaching and polling a remote flag.
// Barriers: per CTA, arrivals per barrier; the n-th sync of a role on a barrier waits for
// n x count arrivals (op_arrive.cpp, op_sync.cpp).
// Waiters are released in the order they started waiting (deterministic).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>

#include "traces/kernel_schedule.hpp"
#include "traces/sync_table.hpp"

namespace mgsim::traces::kernel {

struct RoleRun;

using FlagKey = std::tuple<int, int, std::int64_t>;  // rank, flag, index

// What a blocked role waits for, for deadlock reports (their text is made only then: a run
// blocks and wakes roles far more often than it deadlocks).
struct Waiting {
  std::optional<FlagKey> flag;           // a flag wait: the flag
  const std::string* barrier = nullptr;  // a barrier wait: the barrier's name
  std::int64_t value = 0;                // the flag's threshold, or the arrivals the sync needs
  std::int64_t arrivals = 0;             // a barrier wait: the arrivals when it blocked

  bool blocked() const { return flag || barrier; }
  void clear() {
    flag.reset();
    barrier = nullptr;
  }
};

class Flags {
 public:
  explicit Flags(const KernelSet& kernels) : kernels_(kernels) {}

  std::int64_t value(const FlagKey& key) const { return table_.value(key); }

  // Sets the flag to `value` (adds it with `add`), then calls wake(role) for every waiter whose
  // threshold it reached (wake clears its Waiting), and forgets them.
  template <class Wake>
  void set(const FlagKey& key, std::int64_t value, bool add, Wake&& wake) {
    table_.set(key, value, add, [&](RoleRun* role) { wake(*role); });
  }

  // True when the flag is already >= value; otherwise `role` waits (`waiting` says on what).
  bool wait(const FlagKey& key, std::int64_t value, RoleRun& role, Waiting& waiting);

  // "flag 'ready'[3] on rank 1".
  std::string text(const FlagKey& key) const;

 private:
  const KernelSet& kernels_;
  SyncTable<FlagKey, RoleRun*> table_;
};

// One CTA's barriers: arrivals per barrier.
class Barriers {
 public:
  // One arrival at `barrier`; calls wake(role) for every sync it completes (wake clears its
  // Waiting), and forgets them.
  template <class Wake>
  void arrive(int barrier, Wake&& wake) {
    table_.set(barrier, 1, true, [&](RoleRun* role) { wake(*role); });
  }

  // True when `barrier` has `need` arrivals; otherwise `role` waits (`waiting` says on what;
  // `name` is the barrier's and outlives the wait).
  bool sync(int barrier, const std::string& name, std::int64_t need, RoleRun& role,
            Waiting& waiting);

 private:
  SyncTable<int, RoleRun*> table_;
};

}  // namespace mgsim::traces::kernel
