#include "traces/problem.hpp"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "sim/names.hpp"

namespace mgsim::traces {
namespace {

std::string relative_to(const std::string& file, const std::string& path) {
  const std::filesystem::path p(path);
  if (p.is_absolute()) return path;
  return (std::filesystem::path(file).parent_path() / p).lexically_normal().string();
}

}  // namespace

Problem load_problem(const std::string& path) {
  const sim::Node root = sim::Node::load_file(path);
  if (root.is_null()) root.fail("the problem is empty");
  sim::MapReader top(root, "problem");
  Problem p;
  p.file = path;
  p.where = root.location();
  const sim::Node name = top.required("problem");
  p.name = name.as_string();
  if (!is_identifier(p.name)) name.fail(fmt::format("'{}' cannot name a problem", p.name));
  if (auto s = top.optional("summary")) p.summary = s->as_string();
  Scope scope;
  if (auto params = top.optional("params")) {
    sim::MapReader r(*params, "params");
    for (auto& [param, value] : r.rest()) {
      if (!is_identifier(param) || param == "world" || param == "rank")
        value.fail(fmt::format("'{}' cannot name a param", param));
      p.params.push_back({param, Expr::parse(value, scope), value.location()});
      scope.add(param);
    }
    r.finish();
  }
  p.world_slot = scope.add("world");
  const Scope constants;
  if (auto shapes = top.optional("shapes")) {
    for (const sim::Node& item : shapes->items()) {
      sim::MapReader r(item, "shape");
      std::vector<std::pair<int, Expr>> shape;
      for (auto& [param, value] : r.rest()) {
        const std::string wanted = param;  // clang 14 cannot capture a structured binding
        const auto it = std::find_if(p.params.begin(), p.params.end(),
                                     [&](const Param& x) { return x.name == wanted; });
        if (it == p.params.end()) {
          std::vector<std::string> names;
          for (const Param& x : p.params) names.push_back(x.name);
          fail_choice(value, "param", param, names);
        }
        shape.emplace_back(static_cast<int>(it - p.params.begin()), Expr::parse(value, constants));
      }
      r.finish();
      p.shapes.push_back(std::move(shape));
    }
  }
  if (p.shapes.empty()) p.shapes.emplace_back();  // the params' defaults
  const sim::Node topologies = top.required("topologies");
  for (const sim::Node& t : topologies.items()) p.topologies.push_back(t.as_string());
  if (p.topologies.empty()) topologies.fail("a problem is posed on at least one topology");
  p.buffers = top.required("buffers");
  const sim::Node work = top.required("work");
  p.work_where = work.location();
  sim::MapReader w(work, "work");
  p.flops = Expr::parse(w.required("flops"), scope);
  p.receive = Expr::parse(w.required("receive"), scope);
  if (auto d = w.optional("dtype")) {
    if (!models::parse_dtype(d->as_string(), p.dtype))
      fail_choice(*d, "dtype", d->as_string(), models::kDtypeNames.names());
  }
  w.finish();
  p.baseline = relative_to(path, top.required("baseline").as_string());
  if (auto t = top.optional("tuned")) p.tuned = relative_to(path, t->as_string());
  top.finish();
  return p;
}

Overrides shape_defines(const Problem& p, std::size_t shape) {
  Env env(p.params.size(), 0);
  Overrides out;
  const auto& given = p.shapes.at(shape);
  for (std::size_t i = 0; i < p.params.size(); ++i) {
    const auto it = std::find_if(given.begin(), given.end(),
                                 [&](const auto& g) { return g.first == static_cast<int>(i); });
    env[i] = it != given.end() ? it->second.eval({}) : p.params[i].default_value.eval(env);
    out.emplace_back(p.params[i].name, std::to_string(env[i]));
  }
  return out;
}

Schedule load_problem_schedule(const Problem& p, const std::string& path, const std::string& text) {
  return load_problem_schedule(
      p, text.empty() ? sim::Node::load_file(path) : sim::Node::load_string(text, path));
}

Schedule load_problem_schedule(const Problem& p, const sim::Node& root) {
  Schedule s = load_schedule(root, &p.buffers);
  for (const Param& param : p.params) {
    if (std::none_of(s.params.begin(), s.params.end(),
                     [&](const Param& x) { return x.name == param.name; }))
      throw sim::ConfigError(
          s.params_where.line > 0 ? s.params_where : root.location(),
          fmt::format("a schedule for problem '{}' declares its param '{}' (the shape sets it)",
                      p.name, param.name));
  }
  return s;
}

std::vector<Violation> with_deadlock(std::vector<Violation> violations, const Result& run) {
  if (run.deadlocked()) {
    const BlockedStream& b = run.run.blocked.front();
    violations.push_back({"deadlock", b.where,
                          fmt::format("rank {} stream '{}' never finishes: it waits for {}", b.rank,
                                      b.stream, b.waiting_for)});
  }
  return violations;
}

Evaluation evaluate(const Problem& p, std::size_t shape, const Schedule& schedule,
                    const Machine& machine, const Limits& limits, const Overrides& defines) {
  Evaluation out;
  Overrides all = shape_defines(p, shape);
  Env env(static_cast<std::size_t>(p.world_slot) + 1, 0);
  for (std::size_t i = 0; i < all.size(); ++i) env[i] = std::stoll(all[i].second);
  for (const auto& d : defines) {
    if (std::any_of(p.params.begin(), p.params.end(),
                    [&](const Param& x) { return x.name == d.first; }))
      throw sim::ConfigError(
          {"-D " + d.first, 0, 0},
          fmt::format("'{}' is a param of problem '{}': its shape sets it", d.first, p.name));
    all.push_back(d);
  }
  Run run = run_one(schedule, all, machine, nullptr, limits, {.check = true});
  const int world = run.result.run.world;
  env[static_cast<std::size_t>(p.world_slot)] = world;
  out.flops = p.flops.eval(env);
  out.receive = p.receive.eval(env);
  const models::HardwareSpec& hw = machine.hardware();
  const double flops_s =
      static_cast<double>(out.flops) / static_cast<double>(hw.sm.peak_flops_per_second(p.dtype));
  const double nvlink = static_cast<double>(hw.nvlink.port_bandwidth().bytes_per_second()) *
                        hw.nvlink.protocol_efficiency;
  const double receive_s = static_cast<double>(out.receive) / nvlink;
  out.bound = sim::Duration::ps(static_cast<std::int64_t>(std::max(flops_s, receive_s) * 1e12));
  out.violations = run.result.run.check->violations;
  const std::vector<std::int64_t>& done = run.result.run.check->flops;
  for (int r = 0; r < world; ++r) {
    if (done[static_cast<std::size_t>(r)] >= out.flops) continue;
    out.violations.push_back(
        {"missing_flops", p.work_where,
         fmt::format("rank {} does {} mma flops, problem '{}' needs {} on every rank", r,
                     done[static_cast<std::size_t>(r)], p.name, out.flops)});
    break;
  }
  out.violations = with_deadlock(std::move(out.violations), run.result);
  out.result = std::move(run.result);
  return out;
}

}  // namespace mgsim::traces
