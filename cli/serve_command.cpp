// mgsim serve: runs schedules for a program that is not Python (an RL stack, a sweep driver), one
// JSON line in, one JSON line out, until the end of stdin. Machines are loaded once per
// (topology, hardware, topology params) and kept; runs are as `mgsim run` makes them, with the
// same limits and the same bytes for the same request.
//
// Request (one line):  {"id": "7", "topology": "hgx-h200-8", "hardware": "h200",
//                       "topology_params": {"nodes": 2}, "schedule": "<YAML text>" or {...},
//                       "params": {"SIZE": "64MiB"},
//                       "limits": {"max_ops": N, "max_events": N, "max_time": "2s",
//                                  "max_wall": 10.5, "max_memory": "8GiB"}}
//   only "topology" and "schedule" are required; limits (traces::parse_limits) default to the
//   command's flags. "check": true checks the run as `mgsim check` does; "problem": "path"
//   (and "shape": N, default 0) evaluates the schedule against a problem (traces/problem.hpp:
//   its buffers, work and baseline, whose time is measured once per machine and shape).
// Answer (one line):   {"id": "7", "ok": true, "result": <mgsim run --json's document>,
//                       "violations": [...] (with check), "evaluation": {...} (with a problem,
//                       traces::evaluation_json)}
//                  or  {"id": "7", "ok": false, "error": "kind", "message": "..."}
//   kind: "input" (bad input, file:line:column in the message; the request's own is
//   "<request>", a schedule given as text "<schedule>"), "limit", "deadlock" (the message is the
//   deadlock report), "internal".
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <tuple>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "sim/check.hpp"
#include "sim/config.hpp"
#include "sim/json.hpp"
#include "traces/report.hpp"

namespace mgsim::cli {
namespace {

struct Served {
  std::string id;
  std::string result;      // the run's JSON document, when it ran
  std::string violations;  // with "check": traces::violations_json
  std::string evaluation;  // with "problem": traces::evaluation_json
};

class Server {
 public:
  explicit Server(const traces::Limits& limits) : limits_(limits) {}

  // Runs one request line; fills `out.id` as soon as it is read.
  void serve(const std::string& line, Served& out) {
    const sim::Node request = sim::Node::load_string(line, "<request>");
    sim::MapReader r(request, "request");
    if (auto n = r.optional("id")) out.id = n->as_string();
    const std::string topology = r.required("topology").as_string();
    std::string hardware;
    if (auto n = r.optional("hardware")) hardware = n->as_string();
    std::map<std::string, std::int64_t> topology_params;
    if (auto n = r.optional("topology_params")) {
      sim::MapReader p(*n, "topology_params");
      for (const auto& [name, value] : p.rest()) topology_params[name] = value.as_int();
    }
    const sim::Node schedule_node = r.required("schedule");
    traces::Overrides params;
    if (auto n = r.optional("params")) {
      sim::MapReader p(*n, "params");
      for (const auto& [name, value] : p.rest()) params.emplace_back(name, value.as_string());
    }
    const std::optional<sim::Node> limits_node = r.optional("limits");
    const traces::Limits limits =
        limits_node ? traces::parse_limits(*limits_node, limits_) : limits_;
    bool check = false;
    if (auto n = r.optional("check")) check = n->as_bool();
    const std::optional<sim::Node> problem_node = r.optional("problem");
    std::size_t shape = 0;
    if (auto n = r.optional("shape")) {
      if (!problem_node) n->fail("'shape' is a problem's: name the 'problem' too");
      shape = static_cast<std::size_t>(n->as_int());
    }
    r.finish();
    const std::string name = schedule_node.is_scalar() ? "<schedule>" : "<request>";
    const sim::Node root = schedule_node.is_scalar()
                               ? sim::Node::load_string(schedule_node.as_string(), name)
                               : schedule_node;
    const traces::Machine& m = machine(topology, hardware, topology_params);
    if (problem_node) {
      const traces::Problem& p = problem(problem_node->as_string());
      if (shape >= p.shapes.size())
        problem_node->fail(
            fmt::format("shape {}: problem '{}' has {} shapes", shape, p.name, p.shapes.size()));
      traces::Evaluation e =
          traces::evaluate(p, shape, traces::load_problem_schedule(p, root), m, limits, params);
      out.evaluation = traces::evaluation_json(e, baseline(p, m, shape, limits));
      traces::Overrides all = traces::shape_defines(p, shape);
      all.insert(all.end(), params.begin(), params.end());
      out.result = traces::runs_json({name, &m}, {traces::Run{all, std::move(e.result)}});
    } else {
      const traces::Run run = traces::run_one(traces::load_schedule(root), params, m, nullptr,
                                              limits, {.check = check});
      if (run.result.deadlocked()) throw Deadlocked(traces::deadlock_report(name, run.result.run));
      if (check) out.violations = traces::violations_json(run.result.run.check->violations);
      out.result = traces::runs_json({name, &m}, {run});
    }
    while (!out.result.empty() && out.result.back() == '\n') out.result.pop_back();  // one line
  }

  struct Deadlocked : std::runtime_error {
    using std::runtime_error::runtime_error;
  };

 private:
  const traces::Machine& machine(const std::string& topology, const std::string& hardware,
                                 const std::map<std::string, std::int64_t>& params) {
    auto key = std::make_tuple(topology, hardware, params);
    auto it = machines_.find(key);
    if (it == machines_.end())
      it = machines_
               .emplace(key, std::make_unique<traces::Machine>(
                                 traces::Machine::load(topology, params, hardware)))
               .first;
    return *it->second;
  }

  const traces::Problem& problem(const std::string& path) {
    auto it = problems_.find(path);
    if (it == problems_.end())
      it = problems_.emplace(path, std::make_unique<traces::Problem>(traces::load_problem(path)))
               .first;
    return *it->second;
  }

  // The problem's baseline's time on `m` at `shape`, run once.
  sim::Duration baseline(const traces::Problem& p, const traces::Machine& m, std::size_t shape,
                         const traces::Limits& limits) {
    const auto key = std::make_tuple(&p, &m, shape);
    auto it = baselines_.find(key);
    if (it == baselines_.end()) {
      const traces::Schedule s = traces::load_problem_schedule(p, p.baseline);
      it = baselines_
               .emplace(key, traces::evaluate(p, shape, s, m, limits).result.run.end.since_start())
               .first;
    }
    return it->second;
  }

  traces::Limits limits_;  // the command's, which a request's own override
  std::map<std::string, std::unique_ptr<traces::Problem>> problems_;
  std::map<std::tuple<const traces::Problem*, const traces::Machine*, std::size_t>, sim::Duration>
      baselines_;
  std::map<std::tuple<std::string, std::string, std::map<std::string, std::int64_t>>,
           std::unique_ptr<traces::Machine>>
      machines_;
};

// The answer line for `s`, or for an error of `kind` with `message`.
std::string answer(const Served& s, const char* kind = nullptr, const std::string& message = {}) {
  std::string out;
  sim::JsonWriter w(out, sim::JsonWriter::Style::compact);
  w.object().key("id").value(s.id).key("ok");
  if (kind) {
    w.raw("false").key("error").value(kind).key("message").value(message);
  } else {
    w.raw("true").key("result").raw(s.result);
    if (!s.violations.empty()) w.key("violations").raw(s.violations);
    if (!s.evaluation.empty()) w.key("evaluation").raw(s.evaluation);
  }
  w.end();
  return out;
}

void serve(const LimitInputs& flags) {
  traces::keep_freed_memory();
  Server server(limits_of(flags));
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    Served s;
    std::string out;
    try {
      server.serve(line, s);
      out = answer(s);
    } catch (const sim::LimitError& e) {
      out = answer(s, "limit", e.what());
    } catch (const sim::ConfigError& e) {
      out = answer(s, "input", e.what());
    } catch (const Server::Deadlocked& e) {
      out = answer(s, "deadlock", e.what());
    } catch (const std::exception& e) {
      out = answer(s, "internal", e.what());
    }
    std::cout << out << '\n' << std::flush;
  }
}

}  // namespace

void add_serve_command(CLI::App& app) {
  auto flags = std::make_shared<LimitInputs>();
  CLI::App* cmd = app.add_subcommand(
      "serve", "Run schedules from JSON lines on stdin, one JSON answer per line on stdout");
  add_limit_options(cmd, *flags);
  cmd->callback([flags] { serve(*flags); });
}

}  // namespace mgsim::cli
