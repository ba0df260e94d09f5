#include "traces/kernel/sync_table.hpp"

#include <fmt/format.h>

namespace mgsim::traces::kernel {

bool Flags::wait(const FlagKey& key, std::int64_t value, RoleRun& role, Waiting& waiting) {
  if (table_.wait(key, value, &role)) return true;
  waiting.flag = key;
  waiting.value = value;
  return false;
}

std::string Flags::text(const FlagKey& key) const {
  return fmt::format("flag '{}'[{}] on rank {}",
                     kernels_.flag_names[static_cast<std::size_t>(std::get<1>(key))],
                     std::get<2>(key), std::get<0>(key));
}

bool Barriers::sync(int barrier, const std::string& name, std::int64_t need, RoleRun& role,
                    Waiting& waiting) {
  if (table_.wait(barrier, need, &role)) return true;
  waiting.barrier = &name;
  waiting.value = need;
  waiting.arrivals = table_.value(barrier);
  return false;
}

}  // namespace mgsim::traces::kernel
