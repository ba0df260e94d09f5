#include "traces/critical_path.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

#include <fmt/format.h>

namespace mgsim::traces {
namespace {

bool finished(const std::vector<Step>& steps, int i) {
  return i >= 0 && steps[static_cast<std::size_t>(i)].end != sim::Time::max();
}

const Step& at(const std::vector<Step>& steps, int i) { return steps[static_cast<std::size_t>(i)]; }

// Of the steps that could have held step i back, the one that finished last (no later than i),
// or -1.
int predecessor(const std::vector<Step>& steps, int i) {
  const Step& s = at(steps, i);
  int best = -1;
  for (const int p : {s.prev, s.call, s.cause}) {
    if (!finished(steps, p) || at(steps, p).end > s.end) continue;
    if (best < 0 || at(steps, p).end > at(steps, best).end) best = p;
  }
  return best;
}

// When step i could start: its predecessor's end, or its own begin without one.
sim::Time arrival(const std::vector<Step>& steps, int i) {
  const int p = predecessor(steps, i);
  return p >= 0 ? at(steps, p).end : at(steps, i).begin;
}

}  // namespace

std::vector<PathStep> critical_path(const std::vector<Step>& steps) {
  const int n = static_cast<int>(steps.size());
  std::unordered_map<int, std::vector<int>> groups;  // a collective's steps on every rank
  for (int i = 0; i < n; ++i)
    if (at(steps, i).group >= 0 && finished(steps, i)) groups[at(steps, i).group].push_back(i);
  // The GPU op that ended last (the run's end), else the last host call.
  int cur = -1;
  for (const bool host : {false, true}) {
    for (int i = 0; i < n; ++i)
      if (at(steps, i).host == host && finished(steps, i) &&
          (cur < 0 || at(steps, i).end >= at(steps, cur).end))
        cur = i;
    if (cur >= 0) break;
  }
  std::vector<PathStep> out;
  std::vector<bool> seen(steps.size(), false);
  while (cur >= 0 && !seen[static_cast<std::size_t>(cur)]) {
    seen[static_cast<std::size_t>(cur)] = true;
    const Step& s = at(steps, cur);
    // A collective waits for its last rank: the chain goes on from there.
    int from = cur;
    if (s.group >= 0)
      for (const int m : groups[s.group])
        if (arrival(steps, m) > arrival(steps, from)) from = m;
    const int pred = predecessor(steps, from);
    PathStep p;
    p.host = s.host;
    p.rank = s.rank;
    p.thread = s.thread;
    p.where = std::string(s.where);
    p.what = std::string(s.what);
    p.begin = std::min(arrival(steps, from), s.end);
    p.end = s.end;
    if (from != cur) p.waited_for = at(steps, from).rank;
    out.push_back(std::move(p));
    cur = pred;
  }
  std::reverse(out.begin(), out.end());
  return out;
}

std::string step_place(const PathStep& p) {
  return p.host ? fmt::format("host thread {}", p.thread)
                : fmt::format("rank {} stream {}", p.rank, p.where);
}

std::string step_label(const PathStep& p) {
  return p.waited_for < 0 ? p.what : fmt::format("{} (after rank {})", p.what, p.waited_for);
}

std::vector<PathShare> path_shares(const std::vector<PathStep>& path) {
  std::map<std::pair<std::string, std::string>, PathShare> by;
  for (const PathStep& p : path) {
    std::string place = step_place(p);
    PathShare& s = by[{place, p.what}];
    s.place = std::move(place);
    s.what = p.what;
    s.steps += 1;
    s.held += p.end - p.begin;
  }
  std::vector<PathShare> out;
  out.reserve(by.size());
  for (auto& [key, s] : by) out.push_back(std::move(s));
  std::stable_sort(out.begin(), out.end(),
                   [](const PathShare& a, const PathShare& b) { return a.held > b.held; });
  return out;
}

}  // namespace mgsim::traces
