// The Python module `mgsim` (pybind11): load a machine once, run many schedules on it in the same
// process, for reinforcement-learning loops and what-if scripts (README, "Python").
//
//   m = mgsim.Machine("hgx-h200-8")                       # topology preset or .yaml, hardware
//   m = mgsim.Machine("hgx-h200-ib", topology_params={"nodes": 2},
//                     hardware_overrides={"nvlink.protocol_efficiency": "0.9"})   # what-ifs
//   r = m.run(yaml_text_or_dict, params={"SIZE": "64MiB"}, limits={"max_events": 10**6})
//   r["time_us"], r["bound_us"], r["fraction"], r["bottleneck"], r["streams"], r["json"]
//                                                         # a Result: a read-only mapping
//   m.run(text, check=True)["violations"]                 # mgsim check's, as dicts
//   p = mgsim.Problem("problems/ag_gemm.yaml")            # a problem with its baseline
//   e = m.evaluate(p, text, shape=0)                      # {valid, violations, time_us,
//                                                         #  baseline_us, speedup, bound_us,
//                                                         #  fraction}
//
// A run releases the GIL while it parses and simulates, so many Python threads can run schedules
// on one Machine at once (traces::Machine is immutable; each run owns its engine); the same
// inputs give the same result in any thread or process. Errors: mgsim.ConfigError (bad input,
// a ValueError, with file:line:column), mgsim.LimitError (a run passed one of its limits; a
// ConfigError), mgsim.DeadlockError (the schedule deadlocked; who waits on what).
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "sim/config.hpp"
#include "traces/problem.hpp"
#include "traces/report.hpp"
#include "traces/simulation.hpp"

namespace py = pybind11;

namespace mgsim::python {
namespace {

struct Deadlock : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A Python value written as JSON, which YAML reads.
std::string json_text(const py::object& value) {
  return py::module_::import("json").attr("dumps")(value).cast<std::string>();
}

// The schedule as YAML text: a string is YAML; a dict is written as JSON.
std::string schedule_text(const py::object& schedule) {
  if (py::isinstance<py::str>(schedule)) return schedule.cast<std::string>();
  if (py::isinstance<py::dict>(schedule)) return json_text(schedule);
  throw py::type_error("schedule: a YAML string or a dict");
}

traces::Overrides overrides_of(const py::dict& params) {
  traces::Overrides out;
  for (const auto& [key, value] : params)
    out.emplace_back(py::str(key).cast<std::string>(), py::str(value).cast<std::string>());
  return out;
}

traces::Limits limits_of(const py::object& limits) {
  if (limits.is_none()) return {};
  return traces::parse_limits(sim::Node::load_string(json_text(limits), "<limits>"), {});
}

py::list violations_list(const std::vector<traces::Violation>& violations) {
  py::list out;
  for (const traces::Violation& v : violations) {
    py::dict d;
    d["kind"] = v.kind;
    d["file"] = v.where.file;
    d["line"] = v.where.line;
    d["column"] = v.where.column;
    d["message"] = v.message;
    d["count"] = v.count;
    out.append(d);
  }
  return out;
}

// What Machine.run returns: a read-only mapping. The figures a reward needs (time, bound,
// fraction, bottleneck, validity) are there at once; "json" (mgsim run --json's text) and the rest
// of the run's keys are made the first time one is asked for, since a rollout loop mostly never
// asks (writing and parsing the JSON was a sixth of a small collective's rollout).
class Result {
 public:
  Result(traces::Run run, const traces::Machine& machine, std::string name, py::dict head)
      : run_(std::move(run)), machine_(&machine), name_(std::move(name)), head_(std::move(head)) {}

  py::object get(const std::string& key) {
    if (head_.contains(key)) return head_[key.c_str()];
    if (key == "json") return py::str(json());
    const py::dict whole = runs();
    if (!whole.contains(key)) throw py::key_error(key);
    return whole[key.c_str()];
  }
  bool contains(const std::string& key) {
    return head_.contains(key) || key == "json" || runs().contains(key);
  }
  py::list keys() {
    py::list out;
    for (const auto& item : head_) out.append(item.first);
    out.append("json");
    for (const auto& item : runs())
      if (!head_.contains(item.first)) out.append(item.first);
    return out;
  }

 private:
  const std::string& json() {
    if (json_.empty()) json_ = traces::runs_json({name_, machine_}, {run_});
    return json_;
  }
  // The run's object of the JSON report, parsed once.
  py::dict runs() {
    if (!parsed_) {
      const py::dict whole = py::module_::import("json").attr("loads")(json());
      parsed_ = py::list(whole["runs"])[0].cast<py::dict>();
    }
    return *parsed_;
  }

  traces::Run run_;
  const traces::Machine* machine_;  // kept alive by the Python Machine (keep_alive in run)
  std::string name_;
  py::dict head_;
  std::string json_;
  std::optional<py::dict> parsed_;
};

Result run(const traces::Machine& machine, const py::object& schedule, const py::dict& params,
           const py::object& limits_dict, const std::string& name, bool check) {
  const std::string text = schedule_text(schedule);
  const traces::Overrides overrides = overrides_of(params);
  const traces::Limits limits = limits_of(limits_dict);
  std::optional<traces::Run> run;
  {
    py::gil_scoped_release free;
    const traces::Schedule parsed = traces::load_schedule(sim::Node::load_string(text, name));
    run = traces::run_one(parsed, overrides, machine, nullptr, limits, {.check = check});
    if (run->result.deadlocked()) throw Deadlock(traces::deadlock_report(name, run->result.run));
  }
  const traces::Roofline& roofline = run->result.roofline;
  const sim::Time end = run->result.run.end;
  py::dict head;
  head["time_ps"] = end.since_start().picoseconds();
  head["time_us"] = end.since_start().microseconds();
  head["bound_us"] = roofline.bound.microseconds();
  head["fraction"] = roofline.fraction();
  const traces::UnitTerm* bottleneck = roofline.bottleneck();
  head["bottleneck"] = bottleneck ? py::object(py::str(bottleneck->group)) : py::none();
  if (check) {
    const std::vector<traces::Violation>& violations = run->result.run.check->violations;
    head["violations"] = violations_list(violations);
    head["valid"] = violations.empty();
  }
  return {std::move(*run), machine, name, std::move(head)};
}

// A problem with its baselines' times, measured once per machine and shape.
struct Problem {
  traces::Problem problem;
  std::mutex mutex;
  std::map<std::pair<const traces::Machine*, std::size_t>, double> baseline_us;
};

// The baseline's time on `machine` at `shape`, run the first time it is asked for. Called
// without the GIL.
double baseline_us(const traces::Machine& machine, Problem& p, std::size_t shape,
                   const traces::Limits& limits) {
  const auto key = std::make_pair(&machine, shape);
  {
    const std::lock_guard lock(p.mutex);
    if (const auto it = p.baseline_us.find(key); it != p.baseline_us.end()) return it->second;
  }
  const double us = traces::evaluate(p.problem, shape,
                                     traces::load_problem_schedule(p.problem, p.problem.baseline),
                                     machine, limits)
                        .result.run.end.since_start()
                        .microseconds();
  const std::lock_guard lock(p.mutex);
  p.baseline_us[key] = us;
  return us;
}

// Machine.evaluate's keyword arguments, one parameter each.
// NOLINTNEXTLINE(readability-function-size)
py::dict evaluate(const traces::Machine& machine, Problem& p, const py::object& schedule,
                  std::size_t shape, const py::dict& params, const py::object& limits_dict,
                  const std::string& name) {
  if (shape >= p.problem.shapes.size())
    throw py::index_error("shape: problem '" + p.problem.name + "' has " +
                          std::to_string(p.problem.shapes.size()) + " shapes");
  const std::string text = schedule_text(schedule);
  const traces::Overrides overrides = overrides_of(params);
  const traces::Limits limits = limits_of(limits_dict);
  traces::Evaluation e;
  double baseline = 0;
  {
    py::gil_scoped_release free;
    e = traces::evaluate(p.problem, shape, traces::load_problem_schedule(p.problem, name, text),
                         machine, limits, overrides);
    baseline = baseline_us(machine, p, shape, limits);
  }
  const double time = e.result.run.end.since_start().microseconds();
  py::dict out;
  out["valid"] = e.valid();
  out["violations"] = violations_list(e.violations);
  out["time_us"] = time;
  out["baseline_us"] = baseline;
  out["speedup"] = baseline / time;
  out["bound_us"] = e.bound.microseconds();
  out["fraction"] = e.bound.microseconds() / time;
  return out;
}

}  // namespace
}  // namespace mgsim::python

PYBIND11_MODULE(mgsim, m) {
  using namespace mgsim;
  m.doc() = "mgsim: a cycle-approximate simulator of multi-GPU nodes and fabrics";
  traces::keep_freed_memory();
  // Registered in order, so the translator below can tell a LimitError from other ConfigErrors.
  static py::exception<sim::ConfigError> config_error(m, "ConfigError", PyExc_ValueError);
  static py::exception<sim::LimitError> limit_error(m, "LimitError", config_error.ptr());
  static py::exception<python::Deadlock> deadlock_error(m, "DeadlockError", PyExc_RuntimeError);
  // By value: pybind11's translator type. NOLINTNEXTLINE(performance-unnecessary-value-param)
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const sim::LimitError& e) {
      PyErr_SetString(limit_error.ptr(), e.what());
    } catch (const sim::ConfigError& e) {
      PyErr_SetString(config_error.ptr(), e.what());
    } catch (const python::Deadlock& e) {
      PyErr_SetString(deadlock_error.ptr(), e.what());
    }
  });
  py::class_<traces::Machine>(m, "Machine",
                              "A topology and a GPU model, loaded once, shared by many runs")
      .def(py::init([](const std::string& topology, const std::string& hardware,
                       const std::map<std::string, std::int64_t>& topology_params,
                       const std::map<std::string, std::string>& hardware_overrides) {
             std::vector<models::HardwareOverride> overrides;
             overrides.reserve(hardware_overrides.size());
             for (const auto& [name, value] : hardware_overrides)
               overrides.push_back({name, value});
             return traces::Machine::load(topology, topology_params, hardware, overrides);
           }),
           py::arg("topology"), py::arg("hardware") = "",
           py::arg("topology_params") = std::map<std::string, std::int64_t>{},
           py::arg("hardware_overrides") = std::map<std::string, std::string>{},
           "topology: a preset name or a .yaml path; hardware: a preset or .yaml (default: the "
           "topology's GPU); topology_params: as -T; hardware_overrides: {\"hbm.bandwidth\": "
           "\"9TB/s\"}, the parameters mgsim sweep's hw. axes set (docs/SWEEP.md)")
      .def_property_readonly(
          "gpus", [](const traces::Machine& machine) { return machine.topology().gpu_count(); })
      .def("run", &python::run, py::arg("schedule"), py::arg("params") = py::dict(),
           py::arg("limits") = py::none(), py::arg("name") = "<schedule>", py::arg("check") = false,
           py::keep_alive<0, 1>(),
           "Runs a schedule (YAML text or a dict) with params (as -D) within limits ({max_ops, "
           "max_events, max_time: '2s', max_wall: seconds, max_memory: '8GiB'}, as mgsim "
           "serve's); returns a Result, a read-only mapping: time_ps, time_us, bound_us, "
           "fraction, bottleneck (with check, as mgsim check: valid and violations), json "
           "(mgsim run --json's text) and the keys of mgsim run --json's run")
      .def("evaluate", &python::evaluate, py::arg("problem"), py::arg("schedule"),
           py::arg("shape") = 0, py::arg("params") = py::dict(), py::arg("limits") = py::none(),
           py::arg("name") = "<schedule>",
           "Checks and runs a schedule for a problem at one of its shapes (params: the "
           "schedule's other params); returns {valid, violations, time_us, baseline_us, "
           "speedup, bound_us, fraction} (bound: the problem's, from its work)");
  py::class_<python::Result>(m, "Result",
                             "A run's results: a read-only mapping (Machine.run says its keys)")
      .def("__getitem__", &python::Result::get)
      .def("__contains__", &python::Result::contains)
      .def("keys", &python::Result::keys)
      .def("__iter__", [](python::Result& r) { return r.keys().attr("__iter__")(); })
      .def("__len__", [](python::Result& r) { return py::len(r.keys()); })
      .def(
          "get",
          [](python::Result& r, const std::string& key, const py::object& otherwise) {
            return r.contains(key) ? r.get(key) : otherwise;
          },
          py::arg("key"), py::arg("default") = py::none())
      .def("items",
           [](python::Result& r) {
             py::list out;
             for (const py::handle key : r.keys())
               out.append(py::make_tuple(key, r.get(key.cast<std::string>())));
             return out;
           })
      .def("values", [](python::Result& r) {
        py::list out;
        for (const py::handle key : r.keys()) out.append(r.get(key.cast<std::string>()));
        return out;
      });
  // isinstance(result, collections.abc.Mapping), and dict(result) is the whole run.
  py::module_::import("collections.abc").attr("Mapping").attr("register")(m.attr("Result"));
  py::class_<python::Problem>(m, "Problem", "A problem (problems/): buffers, work, baseline")
      .def(py::init([](const std::string& path) {
             auto p = std::make_unique<python::Problem>();
             p->problem = traces::load_problem(path);
             return p;
           }),
           py::arg("path"))
      .def_property_readonly("name", [](const python::Problem& p) { return p.problem.name; })
      .def_property_readonly("summary", [](const python::Problem& p) { return p.problem.summary; })
      .def_property_readonly("topologies",
                             [](const python::Problem& p) { return p.problem.topologies; })
      .def_property_readonly("baseline",
                             [](const python::Problem& p) { return p.problem.baseline; })
      .def_property_readonly("tuned", [](const python::Problem& p) { return p.problem.tuned; })
      .def_property_readonly("shapes", [](const python::Problem& p) {
        py::list out;
        for (std::size_t s = 0; s < p.problem.shapes.size(); ++s) {
          py::dict d;
          for (const auto& [name, value] : traces::shape_defines(p.problem, s))
            d[py::str(name)] = std::stoll(value);
          out.append(d);
        }
        return out;
      });
}
