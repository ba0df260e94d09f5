// mgsim sweep SWEEP.yaml [-o results.csv] [--jsonl results.jsonl] [-j N] [limits]: a what-if
// study (traces/sweep.hpp, docs/SWEEP.md) run on all cores.
//
// Output: one row per point, every input and every result column: point, machine, topology,
// hardware, each axis's value, then status (ok, deadlock, limit, error), time_us, bound_us,
// fraction, bottleneck and message (why a point did not end ok). Rows are written as points
// finish (the `point` column says which), each flushed at once, so an interrupted sweep keeps
// what it finished; run again with the same -o / --jsonl, it skips the points those files already
// hold (a file of another sweep, with other columns, is an error) and drops a last line cut short.
// Without -o the CSV goes to stdout. A point that deadlocks, passes a limit or is refused by the
// model (a hardware value out of range) is a row with that status, not the end of the sweep; the
// sweep file itself is checked before anything runs (exit 2).
// Progress: on a terminal, one line on stderr with points done, elapsed time and an estimate of
// the time left; a summary line at the end in any case. --report writes the HTML page of every
// row (docs/REPORT.md). Under mpirun the points spread over the processes (cluster.hpp), rank 0
// writing every output.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "cli/cluster.hpp"
#include "cli/commands.hpp"
#include "cli/output_file.hpp"
#include "sim/check.hpp"
#include "sim/json.hpp"
#include "traces/html_report.hpp"
#include "traces/roofline.hpp"
#include "traces/sweep.hpp"

namespace mgsim::cli {

namespace {

struct Options : LimitInputs {
  std::string sweep;
  std::string csv;
  std::string jsonl;
  std::string report;
  int jobs = 0;
};

// What one point gave.
struct Outcome {
  std::string status = "ok";
  std::optional<double> time_us, bound_us, fraction;
  std::string bottleneck, message;
};

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c == '\n' ? ' ' : c;
  }
  return out + "\"";
}

// The fields of one line csv_field() wrote.
std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      out.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

std::string number(const std::optional<double>& v, int decimals) {
  return v ? fmt::format("{:.{}f}", *v, decimals) : "";
}

class Table {
 public:
  explicit Table(const traces::SweepSpec& spec) : spec_(spec) {
    columns_ = {"point", "machine", "topology", "hardware"};
    for (const traces::SweepAxis& a : spec.axes) columns_.push_back(a.column);
    for (const char* c : {"status", "time_us", "bound_us", "fraction", "bottleneck", "message"})
      columns_.emplace_back(c);
  }
  std::string header() const {
    std::string h;
    for (const std::string& c : columns_) h += (h.empty() ? "" : ",") + csv_field(c);
    return h;
  }
  // The input columns of a point, as strings.
  std::vector<std::string> inputs(const traces::SweepPoint& p) const {
    const traces::SweepMachine& m = spec_.machines[static_cast<std::size_t>(p.machine)];
    std::vector<std::string> v = {std::to_string(p.index), m.name, m.topology,
                                  m.hardware.empty() ? "(its GPU)" : m.hardware};
    v.insert(v.end(), p.values.begin(), p.values.end());
    return v;
  }
  // Every column of a point's row, as text.
  std::vector<std::string> fields(const traces::SweepPoint& p, const Outcome& o) const {
    std::vector<std::string> v = inputs(p);
    for (std::string f : {o.status, number(o.time_us, 6), number(o.bound_us, 6),
                          number(o.fraction, 6), o.bottleneck, o.message})
      v.push_back(std::move(f));
    return v;
  }
  std::string csv_row(const traces::SweepPoint& p, const Outcome& o) const {
    std::string row;
    for (const std::string& f : fields(p, o)) row += (row.empty() ? "" : ",") + csv_field(f);
    return row;
  }
  const std::vector<std::string>& columns() const { return columns_; }
  std::string json_row(const traces::SweepPoint& p, const Outcome& o) const {
    std::string out;
    sim::JsonWriter w(out, sim::JsonWriter::Style::compact);
    w.object().key("point").value(p.index);
    const std::vector<std::string> in = inputs(p);
    for (std::size_t i = 1; i < in.size(); ++i) w.key(columns_[i]).value(in[i]);
    w.key("status").value(o.status);
    const auto num = [&](const char* key, const std::optional<double>& v) {
      w.key(key);
      if (v) {
        w.value(*v, 6);
      } else {
        w.null();
      }
    };
    num("time_us", o.time_us);
    num("bound_us", o.bound_us);
    num("fraction", o.fraction);
    w.key("bottleneck").value(o.bottleneck).key("message").value(o.message).end();
    return out;
  }

 private:
  const traces::SweepSpec& spec_;
  std::vector<std::string> columns_;
};

// An output the sweep appends to: the points it already holds (a resumed sweep), a last line
// cut short dropped, a header written when new. ConfigError when it holds another sweep's rows.
class Appender {
 public:
  Appender(const std::string& path, const std::string& header, bool json, std::int64_t points)
      : path_(path) {
    std::string text;
    // Only a regular file is read back: a device or a pipe (/dev/stdout, /dev/full) is written.
    std::error_code regular_ec;
    if (std::filesystem::is_regular_file(path, regular_ec)) {
      std::ifstream in(path, std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      text = ss.str();
    }
    // Only whole lines count: a row cut short by an interruption is cut off the file, and nothing
    // else of it is rewritten (an interruption now loses no finished row).
    const std::size_t whole = text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1;
    std::istringstream lines(text.substr(0, whole));
    std::string line;
    for (int number = 1; std::getline(lines, line); ++number) {
      const sim::SourceLocation at{path, number, 1};
      if (number == 1 && !json) {
        if (line != header)
          throw sim::ConfigError(at, fmt::format("holds another sweep's results (columns {}, "
                                                 "this sweep's {}): give another file or remove it",
                                                 line, header));
        continue;
      }
      const std::string key = json ? "{\"point\":" : "";
      if (json && !line.starts_with(key))
        throw sim::ConfigError(at, "is not a sweep's JSON lines: give another file");
      const std::int64_t p = std::atoll(line.c_str() + key.size());
      if (p < 0 || p >= points)
        throw sim::ConfigError(at, fmt::format("holds point {}, which this sweep of {} points "
                                               "does not have: give another file or remove it",
                                               p, points));
      done_.insert(p);
      if (!json) rows_[p] = split_csv(line);
    }
    std::error_code ec;
    if (whole < text.size()) std::filesystem::resize_file(path, whole, ec);
    if (ec) throw sim::ConfigError({path, 0, 0}, "cannot be written: " + ec.message());
    out_.open(path, std::ios::binary | std::ios::app);
    if (!out_) throw sim::ConfigError({path, 0, 0}, "cannot be written");
    if (whole == 0 && !json) out_ << header << '\n';
    out_.flush();
  }
  bool has(std::int64_t point) const { return done_.contains(point); }
  // The fields of the CSV rows it held (not of JSON lines), by point.
  const std::map<std::int64_t, std::vector<std::string>>& rows() const { return rows_; }
  void write(const std::string& row) {
    out_ << row << '\n';
    out_.flush();
    if (!out_) throw OutputFailed(fmt::format("{}: a row could not be written", path_));
  }

 private:
  std::string path_;
  std::set<std::int64_t> done_;
  std::map<std::int64_t, std::vector<std::string>> rows_;
  std::ofstream out_;
};

Outcome run_point(const traces::SweepSpec& spec, const traces::SweepPoint& p,
                  const traces::Machine& machine, const traces::Limits& limits) {
  Outcome o;
  try {
    const traces::Run run =
        traces::run_one(spec.schedule, spec.params_of(p), machine, nullptr, limits);
    const traces::Result& r = run.result;
    if (r.deadlocked()) {
      o.status = "deadlock";
      o.message = "a stream never finished (mgsim run with these values prints the report)";
      return o;
    }
    o.time_us = r.run.end.since_start().microseconds();
    o.bound_us = r.roofline.bound.microseconds();
    o.fraction = r.roofline.fraction();
    if (const traces::UnitTerm* b = r.roofline.bottleneck()) o.bottleneck = b->group;
  } catch (const sim::LimitError& e) {
    o.status = "limit";
    o.message = e.what();
  } catch (const sim::ConfigError& e) {
    o.status = "error";
    o.message = e.what();
  }
  return o;
}

// Machines, one per distinct (machine, topology params, hardware values), loaded once and shared
// by the threads.
class MachineCache {
 public:
  explicit MachineCache(const traces::SweepSpec& spec) : spec_(spec) {}
  std::shared_ptr<const traces::Machine> of(const traces::SweepPoint& p) {
    std::string key = std::to_string(p.machine);
    for (const auto& [k, v] : spec_.topology_of(p)) key += fmt::format("|{}={}", k, v);
    for (const auto& h : spec_.hardware_of(p)) key += fmt::format("|{}={}", h.parameter, h.value);
    const std::lock_guard lock(mu_);
    auto& slot = machines_[key];
    if (!slot) slot = std::make_shared<const traces::Machine>(traces::load_sweep_machine(spec_, p));
    return slot;
  }

 private:
  const traces::SweepSpec& spec_;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<const traces::Machine>> machines_;
};

// Rank 0's side: the outputs, the progress line and the summary. record() is thread-safe.
class Recorder {
 public:
  Recorder(const Options& opt, const traces::SweepSpec& spec)
      : opt_(opt), spec_(spec), table_(spec), tty_(isatty(STDERR_FILENO) != 0) {
    if (!opt.report.empty()) report_.emplace(opt.report, "report", OutputFile::Older::remove);
    if (!opt.csv.empty()) csv_.emplace(opt.csv, table_.header(), false, spec.points);
    if (!opt.jsonl.empty()) jsonl_.emplace(opt.jsonl, table_.header(), true, spec.points);
    if (opt.csv.empty()) std::cout << table_.header() << '\n' << std::flush;
  }
  // The points the outputs lack: a point is done when every output given holds it.
  std::vector<std::int64_t> todo() {
    for (std::int64_t i = 0; i < spec_.points; ++i)
      if (!((csv_ || jsonl_) && (!csv_ || csv_->has(i)) && (!jsonl_ || jsonl_->has(i))))
        todo_.push_back(i);
    return todo_;
  }
  void record(std::int64_t point, const Outcome& o) {
    const traces::SweepPoint p = spec_.point(point);
    const std::lock_guard lock(mu_);
    if (report_) rows_[point] = table_.fields(p, o);
    if (csv_ && !csv_->has(point)) csv_->write(table_.csv_row(p, o));
    if (!csv_) std::cout << table_.csv_row(p, o) << '\n' << std::flush;
    if (jsonl_ && !jsonl_->has(point)) jsonl_->write(table_.json_row(p, o));
    ++finished_;
    ++by_status_[o.status];
    const auto now = std::chrono::steady_clock::now();
    const auto total = static_cast<std::int64_t>(todo_.size());
    if (tty_ && (now - last_ > std::chrono::milliseconds(200) || finished_ == total)) {
      last_ = now;
      const double elapsed = std::chrono::duration<double>(now - start_).count();
      const double left =
          elapsed / static_cast<double>(finished_) * static_cast<double>(total - finished_);
      std::cerr << fmt::format(
          "\r[{}/{}] {:3.0f} %  {:.1f} s, about {:.1f} s left   ", finished_, total,
          100.0 * static_cast<double>(finished_) / static_cast<double>(total), elapsed, left);
    }
  }
  // The HTML report (--report) of every row: those run now and those the CSV output held.
  void write_report() {
    if (!report_) return;
    traces::SweepReportData d;
    d.title = opt_.sweep;
    d.columns = table_.columns();
    std::map<std::int64_t, std::vector<std::string>> all = rows_;
    if (csv_) all.insert(csv_->rows().begin(), csv_->rows().end());
    for (auto& [point, fields] : all)
      if (fields.size() == d.columns.size()) d.rows.push_back(std::move(fields));
    if (spec_.machines.size() > 1) d.axes.emplace_back("machine");
    for (const traces::SweepAxis& a : spec_.axes) d.axes.push_back(a.column);
    d.results = {"time_us", "bound_us", "fraction"};
    report_->stream() << traces::sweep_report_html(d);
    report_->commit();
  }

  void summary(int processes) const {
    std::string counts;
    for (const auto& [status, n] : by_status_)
      counts += fmt::format("{}{} {}", counts.empty() ? " (" : ", ", n, status);
    if (!counts.empty()) counts += ")";
    std::cerr << fmt::format(
        "{}sweep {}: {} points, {} run{}, {} already in the output, {:.1f} s{}\n",
        tty_ && finished_ > 0 ? "\n" : "", opt_.sweep, spec_.points, finished_, counts,
        spec_.points - static_cast<std::int64_t>(todo_.size()),
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(),
        processes > 1 ? fmt::format(", {} processes", processes) : "");
  }

 private:
  const Options& opt_;
  const traces::SweepSpec& spec_;
  Table table_;
  bool tty_;
  std::optional<OutputFile> report_;
  std::optional<Appender> csv_, jsonl_;
  std::map<std::int64_t, std::vector<std::string>> rows_;  // for the report
  std::vector<std::int64_t> todo_;
  std::mutex mu_;
  std::int64_t finished_ = 0;
  std::map<std::string, std::int64_t> by_status_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), last_ = start_;
};

// An outcome as a message between ranks: its fields joined by the ASCII unit separator.
constexpr char kSep = '\x1f';

std::string encode(std::int64_t point, const Outcome& o) {
  const auto num = [](const std::optional<double>& v) {
    return v ? fmt::format("{}", *v) : std::string();
  };
  return fmt::format("{}{}{}{}{}{}{}{}{}{}{}{}{}", point, kSep, o.status, kSep, num(o.time_us),
                     kSep, num(o.bound_us), kSep, num(o.fraction), kSep, o.bottleneck, kSep,
                     o.message);
}

std::pair<std::int64_t, Outcome> decode(const std::string& m) {
  std::vector<std::string> f;
  std::size_t at = 0;
  for (int i = 0; i < 6; ++i) {
    const std::size_t end = m.find(kSep, at);
    MGSIM_CHECK(end != std::string::npos, "a sweep message of {} fields", i + 1);
    f.push_back(m.substr(at, end - at));
    at = end + 1;
  }
  f.push_back(m.substr(at));
  const auto num = [](const std::string& s) {
    return s.empty() ? std::nullopt : std::optional(std::stod(s));
  };
  Outcome o;
  o.status = f[1];
  o.time_us = num(f[2]);
  o.bound_us = num(f[3]);
  o.fraction = num(f[4]);
  o.bottleneck = f[5];
  o.message = f[6];
  return {std::stoll(f[0]), o};
}

// Runs `points` on `jobs` threads (this one among them), `done` after each. What a thread throws
// (an output that cannot be written, an internal error) stops the others from taking more points
// and is thrown here once they are joined.
template <class Done>
void run_points(const traces::SweepSpec& spec, const std::vector<std::int64_t>& points, int jobs,
                const traces::Limits& limits, MachineCache& machines, Done&& done) {
  std::atomic<std::size_t> next{0};
  std::mutex failure_mu;
  std::exception_ptr failure;
  const auto worker = [&] {
    try {
      for (std::size_t t = next++; t < points.size(); t = next++) {
        const traces::SweepPoint p = spec.point(points[t]);
        Outcome o;
        try {
          o = run_point(spec, p, *machines.of(p), limits);
        } catch (const sim::ConfigError& e) {  // the point's machine was refused
          o.status = "error";
          o.message = e.what();
        }
        done(p.index, o);
      }
    } catch (...) {
      next = points.size();
      const std::lock_guard lock(failure_mu);
      if (!failure) failure = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t j = 1; j < std::min<std::size_t>(static_cast<std::size_t>(jobs), points.size());
       ++j)
    threads.emplace_back(worker);
  worker();
  for (std::thread& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);
}

// What one process runs: its points (`mine`) on `jobs` threads.
struct Share {
  const traces::SweepSpec& spec;
  const traces::Limits& limits;
  std::vector<std::int64_t> mine;
  int jobs;
  MachineCache& machines;
};

// Rank 0: runs its share and records it, and (under mpirun) records the rows the others send.
void run_as_root(const Share& w, Recorder& recorder, const Cluster& cluster,
                 std::size_t from_others) {
  const auto record = [&](std::int64_t p, const Outcome& o) { recorder.record(p, o); };
  if (cluster.size() == 1) {
    run_points(w.spec, w.mine, w.jobs, w.limits, w.machines, record);
  } else {
    // This thread receives the other ranks' rows while the workers run this rank's points.
    std::exception_ptr failure;
    {
      const std::jthread local([&] {
        try {
          run_points(w.spec, w.mine, w.jobs, w.limits, w.machines, record);
        } catch (...) {
          failure = std::current_exception();
        }
      });
      for (std::size_t n = from_others; n > 0; --n) {
        const auto [p, o] = decode(cluster.receive());
        recorder.record(p, o);
      }
    }  // joined here, also when a row could not be written
    if (failure) std::rethrow_exception(failure);
  }
  recorder.summary(cluster.size());
  recorder.write_report();
}

// Another rank: the workers queue their outcomes, this thread sends them (MPI funneled).
void run_as_worker(const Share& w, const Cluster& cluster) {
  std::mutex mu;
  std::condition_variable ready;
  std::deque<std::string> queue;
  bool finished = false;
  std::exception_ptr failure;
  {
    const std::jthread local([&] {
      try {
        run_points(w.spec, w.mine, w.jobs, w.limits, w.machines,
                   [&](std::int64_t p, const Outcome& o) {
                     const std::lock_guard lock(mu);
                     queue.push_back(encode(p, o));
                     ready.notify_one();
                   });
      } catch (...) {
        failure = std::current_exception();
      }
      const std::lock_guard lock(mu);
      finished = true;
      ready.notify_one();
    });
    for (;;) {
      std::unique_lock lock(mu);
      ready.wait(lock, [&] { return finished || !queue.empty(); });
      if (queue.empty()) break;
      const std::string m = std::move(queue.front());
      queue.pop_front();
      lock.unlock();
      cluster.send_to_root(m);
    }
  }
  if (failure) std::rethrow_exception(failure);
}

void run_sweep(const Options& opt, const Cluster& cluster) {
  const traces::SweepSpec spec = traces::load_sweep(opt.sweep);
  const traces::Limits limits = limits_of(opt);
  std::optional<Recorder> recorder;
  std::vector<std::int64_t> todo;
  if (cluster.rank() == 0) {
    recorder.emplace(opt, spec);
    todo = recorder->todo();
  }
  cluster.broadcast(todo);
  MachineCache machines(spec);
  Share share{spec, limits, {}, 0, machines};
  // Rank r runs every size-th point from its own: neighbours (alike in cost) spread out.
  for (std::size_t i = static_cast<std::size_t>(cluster.rank()); i < todo.size();
       i += static_cast<std::size_t>(cluster.size()))
    share.mine.push_back(todo[i]);
  share.jobs =
      opt.jobs > 0 ? opt.jobs : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  if (cluster.rank() == 0) {
    run_as_root(share, *recorder, cluster, todo.size() - share.mine.size());
  } else {
    run_as_worker(share, cluster);
  }
}

}  // namespace

void add_sweep_command(CLI::App& app) {
  auto opt = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "sweep", "Run a schedule over a grid of params, hardware parameters and machines");
  cmd->add_option("sweep", opt->sweep, "sweep YAML file (docs/SWEEP.md)")->required();
  cmd->add_option("-o,--output", opt->csv,
                  "CSV file the rows are appended to; a rerun skips the points it holds "
                  "(default: stdout)");
  cmd->add_option("--jsonl", opt->jsonl, "also append each row as a JSON line to this file");
  cmd->add_option("--report", opt->report,
                  "write an HTML report: a plot per result against each axis, every row");
  cmd->add_option("-j,--jobs", opt->jobs, "points run at once (default: every core)")
      ->check(CLI::PositiveNumber);
  add_limit_options(cmd, *opt);
  cmd->callback([opt] {
    const Cluster cluster;
    if (cluster.size() == 1) return run_sweep(*opt, cluster);
    // Under mpirun a failing process ends them all, so none waits for it.
    try {
      run_sweep(*opt, cluster);
    } catch (...) {
      cluster.abort(report_failure(std::current_exception()));
    }
  });
}

}  // namespace mgsim::cli
