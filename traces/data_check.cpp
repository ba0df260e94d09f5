#include "traces/data_check.hpp"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "sim/check.hpp"

namespace mgsim::traces {

void Clock::raise(std::uint32_t agent, std::uint32_t tick) {
  const std::uint32_t first = agent - agent % kBlock;
  auto it = std::lower_bound(blocks_.begin(), blocks_.end(), first,
                             [](const Block& b, std::uint32_t f) { return b.first < f; });
  if (it == blocks_.end() || it->first != first) it = blocks_.insert(it, Block{first, {}});
  std::uint32_t& t = it->ticks[agent - first];
  t = std::max(t, tick);
}

Clock::Ticks Clock::max_of(Ticks a, const Ticks& b) {
  // On a copy, so that the compiler need not fear `b` aliasing it: the loop is vectorised.
  for (std::uint32_t i = 0; i < kBlock; ++i) a[i] = std::max(a[i], b[i]);
  return a;
}

void Clock::join(const Clock& other) {
  if (other.blocks_.empty()) return;
  if (blocks_.empty()) {
    blocks_ = other.blocks_;
    return;
  }
  // Mostly `other` knows no agent block that this clock lacks (a role joining the same
  // signallers again): then the join is in place, without a new vector.
  auto a = blocks_.begin();
  bool subset = true;
  for (const Block& b : other.blocks_) {
    while (a != blocks_.end() && a->first < b.first) ++a;
    if (a == blocks_.end() || a->first != b.first) {
      subset = false;
      break;
    }
    ++a;
  }
  if (subset) {
    a = blocks_.begin();
    for (const Block& b : other.blocks_) {
      while (a->first < b.first) ++a;
      a->ticks = max_of(a->ticks, b.ticks);
    }
    return;
  }
  std::vector<Block> out;
  out.reserve(blocks_.size() + other.blocks_.size());
  a = blocks_.begin();
  auto b = other.blocks_.begin();
  while (a != blocks_.end() || b != other.blocks_.end()) {
    if (b == other.blocks_.end() || (a != blocks_.end() && a->first < b->first)) {
      out.push_back(*a++);
    } else if (a == blocks_.end() || b->first < a->first) {
      out.push_back(*b++);
    } else {
      out.push_back({a->first, max_of(a->ticks, b->ticks)});
      ++a;
      ++b;
    }
  }
  blocks_ = std::move(out);
}

namespace {

// Regions of one buffer on one rank, at most: the check keeps a record per region.
constexpr std::int64_t kMaxRegions = 65536;
// Distinct violations kept (each counts its repeats).
constexpr std::size_t kMaxViolations = 1000;
// A region counts as whole when at most 1/1024 of it is missing: a split into CTAs rounds down
// (SIZE / num_sms bytes each), and so does the real kernel's, which handles the tail apart.
bool whole(std::int64_t bytes, std::int64_t size) { return bytes >= size - size / 1024; }

// Landed signals remembered per flag since its last reset.
constexpr std::size_t kMaxLanded = 4096;

}  // namespace

DataCheck::DataCheck(const KernelSet& set, Env base, int rank_slot, int world)
    : set_(set),
      env_(std::move(base)),
      rank_slot_(rank_slot),
      world_(world),
      buffers_(set.buffers.size() * static_cast<std::size_t>(world)),
      flops_(static_cast<std::size_t>(world), 0) {}

DataCheck::Agent DataCheck::add_agent(AgentInfo info, Clock start) {
  const auto a = static_cast<Agent>(info_.size());
  MGSIM_CHECK(a < kNone, "too many agents for the data check");
  start.raise(a, 1);
  info_.push_back(info);
  clocks_.push_back(std::move(start));
  origins_.emplace_back();
  verified_.emplace_back();
  return a;
}

DataCheck::Agent DataCheck::thread_agent(std::int64_t thread) {
  AgentInfo i;
  i.thread = thread;
  return add_agent(i, {});
}

DataCheck::Agent DataCheck::stream_agent(int rank, const std::string& stream) {
  AgentInfo i;
  i.rank = rank;
  i.name = &stream;
  return add_agent(i, {});
}

int DataCheck::launch_begin(Agent stream, const std::string& kernel) {
  launches_.push_back({stream, &kernel, publish(stream), {}, 0, {}});
  return static_cast<int>(launches_.size()) - 1;
}

DataCheck::Agent DataCheck::role_agent(int launch, int cta, const std::string& role) {
  const Launch& l = launches_[static_cast<std::size_t>(launch)];
  AgentInfo i;
  i.rank = info_[l.stream].rank;
  i.launch = launch;
  i.cta = cta;
  i.name = &role;
  i.stream = l.stream;
  return add_agent(i, l.start);
}

void DataCheck::role_end(Agent role) {
  launches_[static_cast<std::size_t>(info_[role].launch)].joined.join(clocks_[role]);
  clocks_[role].clear();
}

void DataCheck::multicast_read(int launch, std::int64_t cluster, std::int64_t n, int rank,
                               int buffer, std::int64_t region, std::int64_t bytes,
                               const sim::SourceLocation& where) {
  Launch& l = launches_[static_cast<std::size_t>(launch)];
  ++l.multicast[{&where, n, cluster}][{rank, buffer, region, bytes}];
}

void DataCheck::check_multicast(Launch& l) {
  for (const auto& [key, reads] : l.multicast) {
    const auto [where, n, cluster] = key;
    for (const auto& [what, count] : reads) {
      if (count % n == 0) continue;
      const auto [rank, buffer, region, bytes] = what;
      report(
          "multicast_mismatch", *where,
          fmt::format("a read multicast to {} CTAs: in cluster {} of kernel '{}' {} CTA{} "
                      "read {} bytes of {}, not a whole number of {}-CTA groups reading the "
                      "same data",
                      n, cluster, *l.kernel, count, count == 1 ? "" : "s", bytes,
                      buffer < 0 ? fmt::format("rank {}'s memory", rank)
                      : region < 0
                          ? fmt::format("buffer '{}' on rank {}",
                                        set_.buffers[static_cast<std::size_t>(buffer)].name, rank)
                          : data_text(rank, buffer, region),
                      n));
      break;
    }
  }
  l.multicast.clear();
}

void DataCheck::launch_end(int launch) {
  Launch& l = launches_[static_cast<std::size_t>(launch)];
  check_multicast(l);
  Clock& c = clocks_[l.stream];
  c.join(l.joined);
  l.joined.clear();
  l.start.clear();
  c.raise(l.stream, c.get(l.stream) + 1);
  l.done = c.get(l.stream);
  prune(l.stream);
}

// Drops the entries of roles whose launch the stream knows has ended (their writes are known
// through the launch's end).
void DataCheck::prune(Agent stream) {
  const Clock old = clocks_[stream];
  clocks_[stream].erase_if([&](Agent a, std::uint32_t) {
    if (a >= info_.size() || info_[a].launch < 0) return false;
    const Launch& l = launches_[static_cast<std::size_t>(info_[a].launch)];
    return l.done != 0 && old.get(l.stream) >= l.done;
  });
}

Clock DataCheck::publish(Agent a) {
  Clock c = clocks_[a];
  clocks_[a].raise(a, c.get(a) + 1);
  return c;
}

void DataCheck::acquire(Agent a, const Clock& c) {
  clocks_[a].join(c);
  if (info_[a].launch < 0 && info_[a].name != nullptr) prune(a);
}

// A collective also carries where its ranks' data came from to every rank, a send to its
// receiver, and a barrier what a CTA's roles hand each other in shared memory.
void DataCheck::release(Agent a, const SyncKey& key) {
  Sync& s = syncs_[key];
  s.clock.join(publish(a));
  const int kind = std::get<0>(key);
  if (kind == collective || kind == p2p || kind == barrier) merge(s.from, origins_[a]);
}

void DataCheck::merge(Origin& into, const Origin& from) {
  if (into.size() < from.size()) into.resize(from.size(), 0);
  for (std::size_t i = 0; i < from.size(); ++i) into[i] |= from[i];
}

void DataCheck::acquire(Agent a, const SyncKey& key) {
  const auto it = syncs_.find(key);
  if (it == syncs_.end()) return;
  acquire(a, it->second.clock);
  merge(origins_[a], it->second.from);
}

std::uint32_t DataCheck::snapshot(Agent a) {
  const std::uint32_t tick = clocks_[a].get(a);
  auto entry = std::make_pair(publish(a), std::make_pair(a, tick));
  if (free_snapshots_.empty()) {
    snapshots_.push_back(std::move(entry));
    return static_cast<std::uint32_t>(snapshots_.size()) - 1;
  }
  const std::uint32_t id = free_snapshots_.back();
  free_snapshots_.pop_back();
  snapshots_[id] = std::move(entry);
  return id;
}

void DataCheck::land(std::uint32_t snapshot, const SyncKey& key, std::int64_t value) {
  auto& [clock, by] = snapshots_[snapshot];
  std::vector<Landed>& history = flags_[key];
  if (!history.empty() && value < history.back().value) history.clear();  // a reset
  Landed l{value, {by.first, by.second, nullptr, ""}, {}};
  // What this signal's waiters learn: every earlier signal's and this one's. The signaller knows
  // fewer agents than all of them together, so its clock is joined into theirs (in place).
  if (history.empty()) {
    l.known = std::exchange(clock, {});
  } else {
    l.known = history.back().known;
    l.known.join(clock);
    clock.clear();
  }
  // Bounded: the oldest is dropped (a wait it satisfied then acquires the next, a little more).
  if (history.size() == kMaxLanded) history.erase(history.begin());
  history.push_back(std::move(l));
  free_snapshots_.push_back(snapshot);
}

void DataCheck::acquire_flag(Agent a, const SyncKey& key, std::int64_t threshold,
                             const std::function<std::string()>& flag_text,
                             const sim::SourceLocation& where) {
  const auto it = flags_.find(key);
  if (it == flags_.end()) return;
  const std::vector<Landed>& history = it->second;
  const auto first = std::find_if(history.begin(), history.end(),
                                  [&](const Landed& l) { return l.value >= threshold; });
  if (first == history.end()) return;  // reached before any signal this check saw
  // Stale: every signal it returns on was known already (a wait that also counts its own
  // signal, as a grid barrier does, learns the others').
  if (std::all_of(history.begin(), first + 1, [&](const Landed& l) { return knows(a, l.by); }))
    report("stale_wait", where,
           fmt::format("{}: this wait on {} returns on signals it had all synchronised with "
                       "already (the last by {}): the flag was not reset, or its threshold "
                       "raised, since it was last used",
                       describe(a), flag_text(), describe(first->by.agent)));
  acquire(a, first->known);
}

bool DataCheck::knows(Agent a, const Write& w) const {
  return w.agent == kInitial || clocks_[a].get(w.agent) >= w.tick ||
         knows_ended(a, info_[w.agent].launch);
}

bool DataCheck::knows_ended(Agent a, int launch) const {
  if (launch < 0) return false;
  const Launch& l = launches_[static_cast<std::size_t>(launch)];
  return l.done != 0 && clocks_[a].get(l.stream) >= l.done;
}

const DataCheck::Write* DataCheck::first_unknown(Agent a, const std::vector<Write>& writes) const {
  Clock::Cursor at(clocks_[a]);
  int ended = -1;  // a launch `a` knows has ended (a launch's agents come one after another)
  for (const Write& w : writes) {
    if (w.agent == kInitial || at.get(w.agent) >= w.tick) continue;
    const int launch = info_[w.agent].launch;
    if (launch >= 0 && launch == ended) continue;
    if (!knows_ended(a, launch)) return &w;
    ended = launch;
  }
  return nullptr;
}

DataCheck::Buffer& DataCheck::buffer(int rank, int index) {
  std::unique_ptr<Buffer>& slot = buffers_[static_cast<std::size_t>(rank) * set_.buffers.size() +
                                           static_cast<std::size_t>(index)];
  if (slot) return *slot;
  const BufferDef& def = set_.buffers[static_cast<std::size_t>(index)];
  Env env = env_;
  env.resize(std::max(env.size(), static_cast<std::size_t>(def.region_slot) + 1), 0);
  env[static_cast<std::size_t>(rank_slot_)] = rank;
  const std::int64_t bytes = def.bytes.eval_positive(env, "buffer bytes");
  const std::int64_t count = def.regions.eval_positive(env, "regions");
  if (count > kMaxRegions || count > bytes)
    def.regions.fail(
        fmt::format("buffer '{}' of {} bytes in {} regions: at most {} regions, "
                    "and at most one per byte",
                    def.name, bytes, count, kMaxRegions));
  Buffer b;
  b.region_bytes = bytes / count;
  b.regions.resize(static_cast<std::size_t>(count));
  if (def.input) {
    for (std::int64_t g = 0; g < count; ++g) {
      env[static_cast<std::size_t>(def.region_slot)] = g;
      b.regions[static_cast<std::size_t>(g)].input = def.input->eval(env) != 0;
    }
  }
  slot = std::make_unique<Buffer>(std::move(b));
  return *slot;
}

std::int64_t DataCheck::regions(int rank, int index) {
  return static_cast<std::int64_t>(buffer(rank, index).regions.size());
}

template <class F>
void DataCheck::each_region(int rank, int index, std::int64_t region, std::int64_t bytes,
                            const sim::SourceLocation& where, F f) {
  Buffer& b = buffer(rank, index);
  const auto count = static_cast<std::int64_t>(b.regions.size());
  if (region >= count || region < -1)
    throw sim::ConfigError(
        where, fmt::format("region {} of buffer '{}' does not exist (regions 0 to {})", region,
                           set_.buffers[static_cast<std::size_t>(index)].name, count - 1));
  if (region >= 0) {
    f(region, b.regions[static_cast<std::size_t>(region)], bytes < 0 ? b.region_bytes : bytes);
    return;
  }
  const std::int64_t each = bytes < 0 ? b.region_bytes : (bytes + count - 1) / count;
  for (std::int64_t g = 0; g < count; ++g) f(g, b.regions[static_cast<std::size_t>(g)], each);
}

void DataCheck::read(Agent a, int rank, int buffer, std::int64_t region, std::int64_t bytes,
                     const sim::SourceLocation& where, const char* op) {
  if (buffer < 0) return;
  each_region(rank, buffer, region, bytes, where, [&](std::int64_t g, Region& r, std::int64_t n) {
    read_one(a, rank, buffer, g, r, n, where, op);
  });
}

void DataCheck::write(Agent a, int rank, int buffer, std::int64_t region, std::int64_t bytes,
                      const sim::SourceLocation& where, const char* op) {
  if (buffer < 0) return;
  const std::int64_t size = this->buffer(rank, buffer).region_bytes;
  each_region(rank, buffer, region, bytes, where, [&](std::int64_t, Region& r, std::int64_t n) {
    write_one(a, r, size, n, where, op);
  });
}

void DataCheck::read_one(Agent a, int rank, int index, std::int64_t g, Region& r,
                         std::int64_t bytes, const sim::SourceLocation& where, const char* op) {
  r.read += bytes;
  if (r.writes.empty() && r.input) {
    const std::size_t bit = static_cast<std::size_t>(index) * world_ + rank;
    Origin& o = origins_[a];
    if (o.size() <= bit / 64) o.resize(bit / 64 + 1, 0);
    o[bit / 64] |= std::uint64_t{1} << (bit % 64);
  } else {
    merge(origins_[a], r.from);
  }
  Verified& seen =
      verified_[a][(reinterpret_cast<std::uintptr_t>(&r) / sizeof(Region)) % kVerified];
  if (seen.region == &r && seen.version == r.version) return;
  if (r.writes.empty()) {
    if (!r.input)
      report("unwritten_read", where,
             fmt::format("{}: its {} reads {}, which nothing has written and which is not an "
                         "input",
                         describe(a), op, data_text(rank, index, g)));
    return;
  }
  if (const Write* unknown = first_unknown(a, r.writes)) {
    const Write& w = *unknown;
    report("early_read", where,
           fmt::format("{}: its {} reads {} before it is valid: the {} by {} ({}:{}:{}) does "
                       "not happen-before it (no wait, barrier, event or stream order between "
                       "them)",
                       describe(a), op, data_text(rank, index, g), w.op, describe(w.agent),
                       w.where->file, w.where->line, w.where->column));
    return;
  }
  const std::int64_t size = buffer(rank, index).region_bytes;
  if (!whole(r.written, size)) {
    report("partial_read", where,
           fmt::format("{}: its {} reads {} when only {} of its {} bytes are written", describe(a),
                       op, data_text(rank, index, g), r.written, size));
    return;
  }
  seen = {&r, r.version};
}

void DataCheck::write_one(Agent a, Region& r, std::int64_t region_bytes, std::int64_t bytes,
                          const sim::SourceLocation& where, const char* op) {
  const Write w{a, clocks_[a].get(a), &where, op};
  ++r.version;
  // A new generation: the region was complete and this writer knows every write of it.
  if (r.writes.empty() ||
      (whole(r.written, region_bytes) && first_unknown(a, r.writes) == nullptr)) {
    r.writes.assign(1, w);  // a new generation
    r.written = std::min(bytes, region_bytes);
    r.from = origins_[a];
    return;
  }
  merge(r.from, origins_[a]);
  const auto same = std::lower_bound(r.writes.begin(), r.writes.end(), a,
                                     [](const Write& x, Agent b) { return x.agent < b; });
  if (same != r.writes.end() && same->agent == a) {
    *same = w;
  } else {
    r.writes.insert(same, w);
  }
  r.written = std::min(r.written + bytes, region_bytes);
}

std::string DataCheck::describe(Agent a) const {
  const AgentInfo& i = info_[a];
  if (i.name == nullptr) return fmt::format("host thread {}", i.thread);
  if (i.launch < 0) return fmt::format("rank {} stream '{}'", i.rank, *i.name);
  return fmt::format("rank {} kernel '{}' CTA {} role '{}'", i.rank,
                     *launches_[static_cast<std::size_t>(i.launch)].kernel, i.cta, *i.name);
}

std::string DataCheck::data_text(int rank, int index, std::int64_t region) const {
  const std::string& name = set_.buffers[static_cast<std::size_t>(index)].name;
  const std::unique_ptr<Buffer>& b = buffers_[static_cast<std::size_t>(rank) * set_.buffers.size() +
                                              static_cast<std::size_t>(index)];
  if (b && b->regions.size() == 1) return fmt::format("buffer '{}' on rank {}", name, rank);
  return fmt::format("buffer '{}' region {} on rank {}", name, region, rank);
}

void DataCheck::report(const char* kind, const sim::SourceLocation& where, std::string message) {
  const auto key = std::make_tuple(where.file, where.line, where.column, std::string(kind));
  if (const auto it = seen_.find(key); it != seen_.end()) {
    ++violations_[it->second].count;
    return;
  }
  if (violations_.size() >= kMaxViolations) return;
  seen_.emplace(key, violations_.size());
  violations_.push_back({kind, where, std::move(message), 1});
}

std::vector<Violation> DataCheck::finish() {
  for (std::size_t index = 0; index < set_.buffers.size(); ++index) {
    const BufferDef& def = set_.buffers[index];
    if (!def.input && !def.output) continue;
    for (const bool output : {true, false}) {
      const std::optional<Expr>& mark = output ? def.output : def.input;
      if (!mark) continue;
      std::int64_t marked = 0, short_of = 0;
      std::string first;
      for (int rank = 0; rank < world_; ++rank) {
        Buffer& b = buffer(rank, static_cast<int>(index));
        Env env = env_;
        env.resize(std::max(env.size(), static_cast<std::size_t>(def.region_slot) + 1), 0);
        env[static_cast<std::size_t>(rank_slot_)] = rank;
        for (std::size_t g = 0; g < b.regions.size(); ++g) {
          env[static_cast<std::size_t>(def.region_slot)] = static_cast<std::int64_t>(g);
          if (mark->eval(env) == 0) continue;
          ++marked;
          const Region& r = b.regions[g];
          const std::int64_t done =
              output ? (r.writes.empty() ? 0 : r.written) : std::min(r.read, b.region_bytes);
          if (whole(done, b.region_bytes)) continue;
          if (short_of++ == 0)
            first =
                fmt::format("{}, {} of {} bytes",
                            data_text(rank, static_cast<int>(index), static_cast<std::int64_t>(g)),
                            done, b.region_bytes);
        }
      }
      if (short_of == 0) continue;
      report(output ? "unwritten_output" : "unread_input", def.where,
             fmt::format("{} of the {} {} regions of buffer '{}' (all ranks) were never fully "
                         "{} (the first: {})",
                         short_of, marked, output ? "output" : "input", def.name,
                         output ? "written" : "read", first));
    }
  }
  check_origins();
  return violations_;
}

std::optional<std::pair<int, int>> DataCheck::missing_origin(const BufferDef& def, int rank,
                                                             const Region& g) const {
  for (const auto& [need, all] : def.needs) {
    for (int q = all ? 0 : rank; q < (all ? world_ : rank + 1); ++q) {
      const std::size_t bit = static_cast<std::size_t>(need) * world_ + q;
      if (bit / 64 >= g.from.size() || (g.from[bit / 64] >> (bit % 64) & 1) == 0)
        return std::make_pair(need, q);
    }
  }
  return std::nullopt;
}

// Every written output region of a buffer with `needs` holds data from each needed input; the
// first that does not is reported.
void DataCheck::check_origins() {
  for (std::size_t index = 0; index < set_.buffers.size(); ++index) {
    const BufferDef& def = set_.buffers[index];
    if (def.needs.empty() || !def.output) continue;
    for (int rank = 0; rank < world_; ++rank) {
      const Buffer& b = buffer(rank, static_cast<int>(index));
      Env env = env_;
      env.resize(std::max(env.size(), static_cast<std::size_t>(def.region_slot) + 1), 0);
      env[static_cast<std::size_t>(rank_slot_)] = rank;
      for (std::size_t g = 0; g < b.regions.size(); ++g) {
        env[static_cast<std::size_t>(def.region_slot)] = static_cast<std::int64_t>(g);
        if (def.output->eval(env) == 0 || b.regions[g].writes.empty()) continue;
        const auto missing = missing_origin(def, rank, b.regions[g]);
        if (!missing) continue;
        report("missing_input", def.where,
               fmt::format("{} holds no data from buffer '{}' of rank {}, which it needs: "
                           "nothing read from it reached what was written there",
                           data_text(rank, static_cast<int>(index), static_cast<std::int64_t>(g)),
                           set_.buffers[static_cast<std::size_t>(missing->first)].name,
                           missing->second));
        return;  // the first is enough to say what is missing
      }
    }
  }
}

}  // namespace mgsim::traces
