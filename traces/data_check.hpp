// `mgsim check`: whether a schedule's data is right, checked while it is simulated.
//
// A schedule names its data in buffers (the top-level `buffers:`, traces/schedule.hpp): one
// instance per rank, in equal regions, some holding valid data at the start (`input`), some
// required at the end (`output`). Ops name the region they read or write (`buffer:`, `region:`;
// a collective's `buffer:`/`output:`). The check follows the run and reports, per op:
//   - a read of a region before its data is valid: a region nothing wrote that is not an input,
//     a write that does not happen-before the read, a region only partly written;
//   - a wait on a flag that returns on signals the waiter knew already, every one (the flag was
//     not reset, or its threshold not raised, since its last use);
// and at the end: output regions not fully written, input regions never read, outputs whose data
// does not come from the inputs their buffer `needs`.
// A wait is taken to return as soon as the flag reaches its threshold: it acquires the signals
// up to the one that got the flag there, not those that landed after (which it may or may not
// see on a real GPU), so a wait for fewer signals than the data needs is caught whatever the
// timing.
// Where data comes from is tracked per rank's input buffer: an agent's reads gather where the
// data they read came from (an input region: its buffer on its rank), its writes pass that on,
// a barrier passes what a CTA's roles read to the roles that sync on it (data handed over in
// shared memory), and a collective passes what its ranks read to every rank (not a flag: data
// between CTAs goes through memory, whose reads say where it came from); an output region's
// origin must hold each needed buffer of every rank (`all`) or of its own (`own`).
//
// Happens-before is tracked with vector clocks (as race detectors do: FastTrack, Flanagan and
// Freund, PLDI 2009). Agents are the host threads, the streams and the kernel roles (one per CTA
// and role); a clock maps agents to ticks. A release (signal, arrive, event record, a launch, a
// collective's start, a thread's sync) publishes the agent's clock and ticks it; an acquire (a
// wait that returns, a sync on a barrier, a stream wait on an event, a command starting after
// its host call, a collective's end, a launch's end for its stream) joins the published clock.
// A write is (agent, tick); a reader knows it when its clock holds the agent at that tick or
// later. A launch's end ticks its stream; an agent that knows that tick knows every write of the
// launch, so the roles' entries are dropped then and clocks stay small.
//
// Granularity: coverage is counted in bytes per region (a region is fully written when the bytes
// written into it since it was last complete add up to its size, less at most 1/1024 of it: a
// split over CTAs rounds down, as SIZE / num_sms does); an op without a region covers
// every region of its buffer, its bytes spread evenly. A region is the unit of synchronisation:
// data that is handed over piece by piece needs a region per piece.
// Ignores: write-after-read races (a write over data another agent may still be reading), memory
// order (a relaxed signal orders like a release here: the model has a store land before the op
// after it starts).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/config.hpp"
#include "traces/kernel_schedule.hpp"

namespace mgsim::traces {

// A vector clock: ticks by agent, absent agents at 0. Stored in blocks of consecutive agents
// (the roles of one launch are numbered together), so that a join is an elementwise max over
// arrays and a copy a few memcpys, not a merge of single entries.
class Clock {
 public:
  // Inline: the check asks it for every write of every region a role reads.
  std::uint32_t get(std::uint32_t agent) const {
    const std::uint32_t first = agent - agent % kBlock;
    const auto it = std::lower_bound(blocks_.begin(), blocks_.end(), first,
                                     [](const Block& b, std::uint32_t f) { return b.first < f; });
    return it != blocks_.end() && it->first == first ? it->ticks[agent - first] : 0;
  }
  void raise(std::uint32_t agent, std::uint32_t tick);  // to at least `tick`
  void join(const Clock& other);
  // Sets to 0 every agent's tick for which drop(agent, tick) holds.
  template <class Drop>
  void erase_if(Drop drop) {
    for (Block& b : blocks_)
      for (std::uint32_t i = 0; i < kBlock; ++i)
        if (b.ticks[i] != 0 && drop(b.first + i, b.ticks[i])) b.ticks[i] = 0;
    std::erase_if(blocks_, [](const Block& b) {
      return std::all_of(b.ticks.begin(), b.ticks.end(), [](std::uint32_t t) { return t == 0; });
    });
  }
  void clear() { blocks_ = {}; }

  // get() for agents asked in non-decreasing order: one pass over the blocks for all of them
  // (a read checks every write of a region, kept sorted by agent).
  class Cursor {
   public:
    explicit Cursor(const Clock& c) : c_(c) {}
    std::uint32_t get(std::uint32_t agent) {
      const std::uint32_t first = agent - agent % kBlock;
      while (at_ < c_.blocks_.size() && c_.blocks_[at_].first < first) ++at_;
      return at_ < c_.blocks_.size() && c_.blocks_[at_].first == first
                 ? c_.blocks_[at_].ticks[agent - first]
                 : 0;
    }

   private:
    const Clock& c_;
    std::size_t at_ = 0;
  };

 private:
  static constexpr std::uint32_t kBlock = 16;
  using Ticks = std::array<std::uint32_t, kBlock>;
  struct Block {
    std::uint32_t first = 0;  // a multiple of kBlock
    Ticks ticks{};
  };
  // Elementwise max.
  static Ticks max_of(Ticks a, const Ticks& b);
  std::vector<Block> blocks_;  // sorted by first
};

struct Violation {
  std::string kind;  // early_read, unwritten_read, partial_read, stale_wait, unwritten_output,
                     // unread_input, missing_flops
  sim::SourceLocation where;
  std::string message;
  std::int64_t count = 1;  // times it happened at `where` (reported once)
};

class DataCheck {
 public:
  using Agent = std::uint32_t;
  // A sync object: (kind, a, b, c): a flag (rank, flag, index), a barrier (launch, CTA,
  // barrier), an event (rank, name, index), a collective (stream definition, its number), a
  // send and its receive (stream definition, sender x world + receiver, their number).
  enum SyncKind { flag, barrier, event, collective, p2p };
  using SyncKey = std::tuple<int, std::int64_t, std::int64_t, std::int64_t>;

  // `base`: the schedule's env with params and world set (rank and region are set here).
  DataCheck(const KernelSet& set, Env base, int rank_slot, int world);

  Agent thread_agent(std::int64_t thread);
  Agent stream_agent(int rank, const std::string& stream);
  // A launch from `stream`: its roles start from the stream's clock, which then ticks.
  int launch_begin(Agent stream, const std::string& kernel);
  Agent role_agent(int launch, int cta, const std::string& role);
  void role_end(Agent role);
  // The stream acquires every role's clock; the launch's writes are known to whoever knows this.
  void launch_end(int launch);

  // The agent's clock as published now (it ticks after).
  Clock publish(Agent a);
  void acquire(Agent a, const Clock& c);
  void release(Agent a, const SyncKey& key);
  void acquire(Agent a, const SyncKey& key);
  // A signal's clock is taken when it is made and lands later: snapshot, then land, the flag's
  // value then `value` (a value below the one before is a reset).
  std::uint32_t snapshot(Agent a);
  void land(std::uint32_t snapshot, const SyncKey& key, std::int64_t value);
  // A flag wait for `threshold` that returned: acquires the signals up to the first that took
  // the flag there, and reports a stale wait (`flag_text` names the flag; called only then).
  void acquire_flag(Agent a, const SyncKey& key, std::int64_t threshold,
                    const std::function<std::string()>& flag_text,
                    const sim::SourceLocation& where);

  // A read or write by `a` (an op of kind `op` at `where`) of `bytes` of buffer `buffer` (none:
  // -1) on `rank`: of region `region`, or of every region (-1), the bytes spread evenly; bytes
  // -1: the whole of each.
  void read(Agent a, int rank, int buffer, std::int64_t region, std::int64_t bytes,
            const sim::SourceLocation& where, const char* op);
  void write(Agent a, int rank, int buffer, std::int64_t region, std::int64_t bytes,
             const sim::SourceLocation& where, const char* op);
  std::int64_t regions(int rank, int index);

  // A read (as read() takes it) that a TMA multicast shares among `n` CTAs of one cluster
  // (`cluster`: the launch's CTA / cluster size): the op at `where` must read the same data on
  // every n CTAs of the cluster, so at the launch's end each distinct read it made in the
  // cluster counts a multiple of n (else a `multicast_mismatch`: a multicast claimed for data
  // the CTAs do not share would cut the memory's traffic for nothing).
  void multicast_read(int launch, std::int64_t cluster, std::int64_t n, int rank, int buffer,
                      std::int64_t region, std::int64_t bytes, const sim::SourceLocation& where);

  void add_flops(int rank, std::int64_t flops) { flops_[static_cast<std::size_t>(rank)] += flops; }

  // The end-of-run checks; the violations found, in the order first seen.
  std::vector<Violation> finish();
  const std::vector<std::int64_t>& flops() const { return flops_; }

 private:
  struct Write {
    Agent agent = 0;  // kInitial: the data the region held at the start
    std::uint32_t tick = 0;
    const sim::SourceLocation* where = nullptr;
    const char* op = "";
  };
  using Origin = std::vector<std::uint64_t>;  // bit b x world + r: buffer b's input on rank r
  struct Region {
    Origin from;                // where its data comes from
    std::vector<Write> writes;  // the current generation (since the region was last complete),
                                // one per agent, sorted by agent
    std::int64_t written = 0;   // bytes of this generation
    std::int64_t read = 0;      // bytes read, ever
    std::uint64_t version = 0;  // counts its writes (invalidates Verified entries)
    bool input = false;
  };
  // A region an agent found valid to read, at the region's version then: reads repeat (a tile
  // loop reads its operands again and again), and the clock only grows, so the next read of
  // that version need not look again. A few per agent, by the region's address.
  struct Verified {
    const Region* region = nullptr;
    std::uint64_t version = 0;
  };
  static constexpr std::size_t kVerified = 16;
  struct Buffer {
    std::int64_t region_bytes = 0;
    std::vector<Region> regions;
  };
  struct AgentInfo {
    int rank = 0;
    int launch = -1;  // a role's launch
    int cta = -1;
    const std::string* name = nullptr;  // the role's, the stream's; null for a thread
    Agent stream = 0;                   // a role's launch's stream
    std::int64_t thread = 0;
  };
  // A multicast op's reads in one cluster: (rank, buffer, region, bytes) -> how many.
  using SharedReads = std::map<std::tuple<int, int, std::int64_t, std::int64_t>, std::int64_t>;
  struct Launch {
    Agent stream = 0;
    const std::string* kernel = nullptr;
    Clock start;             // the stream's when it launched; every role's first
    Clock joined;            // the roles that ended
    std::uint32_t done = 0;  // the stream's tick once it ended (0: running)
    // Multicast reads by (op, n, cluster), checked at the launch's end.
    std::map<std::tuple<const sim::SourceLocation*, std::int64_t, std::int64_t>, SharedReads>
        multicast;
  };
  void check_multicast(Launch& l);
  struct Sync {
    Clock clock;  // barriers, events, collectives: every release so far
    Origin from;  // collectives: where the data its ranks read came from
  };
  // A flag since its last reset: each landed signal with the value it left, the signaller, and
  // the join of the clocks of the signals up to it.
  struct Landed {
    std::int64_t value = 0;
    Write by;
    Clock known;
  };
  static constexpr Agent kInitial = 0xffffffffu;
  static constexpr Agent kNone = 0xfffffffeu;

  Agent add_agent(AgentInfo info, Clock start);
  bool knows(Agent a, const Write& w) const;
  // Whether `a` knows that launch `launch` (an index of launches_; < 0: none) has ended.
  bool knows_ended(Agent a, int launch) const;
  // The first write of `writes` (sorted by agent) that `a` does not know; nullptr if none.
  const Write* first_unknown(Agent a, const std::vector<Write>& writes) const;
  void prune(Agent stream);
  Buffer& buffer(int rank, int index);
  // Calls f(region index, its record, the bytes it takes) for each region an access covers.
  template <class F>
  void each_region(int rank, int index, std::int64_t region, std::int64_t bytes,
                   const sim::SourceLocation& where, F f);
  void read_one(Agent a, int rank, int index, std::int64_t g, Region& r, std::int64_t bytes,
                const sim::SourceLocation& where, const char* op);
  void write_one(Agent a, Region& r, std::int64_t region_bytes, std::int64_t bytes,
                 const sim::SourceLocation& where, const char* op);
  static void merge(Origin& into, const Origin& from);
  void check_origins();
  // The first input of `needs` that region `g` of buffer `index` on `rank` lacks, if any: the
  // needed buffer and the rank whose input is missing.
  std::optional<std::pair<int, int>> missing_origin(const BufferDef& def, int rank,
                                                    const Region& g) const;
  std::string describe(Agent a) const;
  std::string data_text(int rank, int index, std::int64_t region) const;
  void report(const char* kind, const sim::SourceLocation& where, std::string message);

  const KernelSet& set_;
  Env env_;
  int rank_slot_ = 0;
  int world_ = 0;
  std::vector<AgentInfo> info_;
  std::vector<Clock> clocks_;
  std::vector<Origin> origins_;  // per agent: where the data it read came from
  std::vector<std::array<Verified, kVerified>> verified_;  // per agent
  std::vector<Launch> launches_;
  std::map<SyncKey, Sync> syncs_;
  std::map<SyncKey, std::vector<Landed>> flags_;
  std::vector<std::pair<Clock, std::pair<Agent, std::uint32_t>>> snapshots_;
  std::vector<std::uint32_t> free_snapshots_;
  // rank x buffers + buffer, made on first use
  std::vector<std::unique_ptr<Buffer>> buffers_;
  std::vector<std::int64_t> flops_;  // mma and mainloop flops per rank
  std::vector<Violation> violations_;
  std::map<std::tuple<std::string, int, int, std::string>, std::size_t> seen_;
};

}  // namespace mgsim::traces
