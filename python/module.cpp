// The Python module `mgsim` (pybind11): load a machine once, run many schedules on it in the same
// process, for reinforcement-learning loops and what-if scripts (README, "Python").
//
//   m = mgsim.Machine("hgx-h200-8")                       # topology preset or .yaml, hardware
//   r = m.run(yaml_text_or_dict, params={"SIZE": "64MiB"}, limits={"max_events": 10**6})
//   r["time_us"], r["bound_us"], r["fraction"], r["bottleneck"], r["streams"], r["json"]
//
// A run releases the GIL while it parses and simulates, so many Python threads can run schedules
// on one Machine at once (traces::Machine is immutable; each run owns its engine); the same
// inputs give the same result in any thread or process. Errors: mgsim.ConfigError (bad input,
// a ValueError, with file:line:column), mgsim.LimitError (a run passed one of its limits; a
// ConfigError), mgsim.DeadlockError (the schedule deadlocked; who waits on what).
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "sim/config.hpp"
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

// One run of `text` on `machine`: its JSON (as `mgsim run --json` writes it).
std::string run_json(const traces::Machine& machine, const std::string& text,
                     const std::string& name, const traces::Overrides& params,
                     const traces::Limits& limits) {
  const traces::Schedule schedule = traces::load_schedule(sim::Node::load_string(text, name));
  const traces::Run run = traces::run_one(schedule, params, machine, nullptr, limits);
  if (run.result.deadlocked()) throw Deadlock(traces::deadlock_report(name, run.result.run));
  return traces::runs_json({name, &machine}, {run});
}

py::dict run(const traces::Machine& machine, const py::object& schedule, const py::dict& params,
             const py::object& limits_dict, const std::string& name) {
  const std::string text = schedule_text(schedule);
  traces::Overrides overrides;
  for (const auto& [key, value] : params)
    overrides.emplace_back(py::str(key).cast<std::string>(), py::str(value).cast<std::string>());
  const traces::Limits limits =
      limits_dict.is_none()
          ? traces::Limits{}
          : traces::parse_limits(sim::Node::load_string(json_text(limits_dict), "<limits>"), {});
  std::string json;
  {
    py::gil_scoped_release free;
    json = run_json(machine, text, name, overrides, limits);
  }
  const py::dict whole = py::module_::import("json").attr("loads")(json);
  py::dict out = py::list(whole["runs"])[0].cast<py::dict>();
  const py::dict roofline = out["roofline"];
  out["time_ps"] = out["end_ps"];
  out["time_us"] = out["end_ps"].cast<double>() / 1e6;
  out["bound_us"] = roofline["bound_ps"].cast<double>() / 1e6;
  out["fraction"] = roofline["fraction"];
  out["bottleneck"] = roofline["bottleneck"];
  out["json"] = json;
  return out;
}

}  // namespace
}  // namespace mgsim::python

PYBIND11_MODULE(mgsim, m) {
  using namespace mgsim;
  m.doc() = "mgsim: a cycle-approximate simulator of multi-GPU nodes and fabrics";
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
                       const std::map<std::string, std::int64_t>& topology_params) {
             return traces::Machine::load(topology, topology_params, hardware);
           }),
           py::arg("topology"), py::arg("hardware") = "",
           py::arg("topology_params") = std::map<std::string, std::int64_t>{},
           "topology: a preset name or a .yaml path; hardware: a preset or .yaml (default: the "
           "topology's GPU); topology_params: as -T")
      .def_property_readonly(
          "gpus", [](const traces::Machine& machine) { return machine.topology().gpu_count(); })
      .def("run", &python::run, py::arg("schedule"), py::arg("params") = py::dict(),
           py::arg("limits") = py::none(), py::arg("name") = "<schedule>",
           "Runs a schedule (YAML text or a dict) with params (as -D) within limits ({max_ops, "
           "max_events, max_time: '2s', max_wall: seconds, max_memory: '8GiB'}, as mgsim "
           "serve's); returns the run as a dict (mgsim run --json's run, plus time_ps, "
           "time_us, bound_us, fraction, bottleneck and json)");
}
