#include "models/gpu.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include <string>

#include <fmt/format.h>

#include "sim/check.hpp"

namespace mgsim::models {
namespace {

constexpr std::size_t index_of(PeerPath path) { return static_cast<std::size_t>(path); }

// The unit name of a peer port: the copy engines' keep the plain "peer.out" / "peer.in".
std::string port_unit(PeerPath path, PortDirection dir) {
  const char* d = dir == PortDirection::out ? "out" : "in";
  switch (path) {
    case PeerPath::copy_engine:
      return fmt::format("peer.{}", d);
    case PeerPath::tma:
      return fmt::format("tma.peer.{}", d);
    case PeerPath::ldst:
      return fmt::format("ldst.peer.{}", d);
    case PeerPath::tma_reduce:
      return fmt::format("tma_add.peer.{}", d);
  }
  return "?";
}

}  // namespace

Gpu::Gpu(int rank, const HardwareSpec& spec, sim::FluidNetwork& net, ResourceCatalog* catalog)
    : rank_(rank), spec_(&spec), net_(&net), catalog_(catalog) {
  MGSIM_CHECK(rank >= 0, "GPU of rank {}", rank);
  MGSIM_CHECK(spec.copy_engine.count > 0, "a GPU needs at least one copy engine");
  for (int e = 0; e < spec.copy_engine.count; ++e)
    copy_engines_.push_back(add(fmt::format("ce{}", e), spec.copy_engine.bandwidth,
                                UnitKind::copy_engine, "copy_engine"));
  hbm_ = add("hbm", spec.hbm.bandwidth, UnitKind::hbm, "hbm");
  if (spec.hbm.queue_delay > sim::Duration::zero()) {
    std::optional<sim::QueueMix> mix;
    if (spec.hbm.turnaround_delay > sim::Duration::zero())
      mix = sim::QueueMix{hbm_write(), spec.hbm.turnaround_delay};
    net_->set_queueing(hbm_, spec.hbm.queue_delay, mix);
  }
  peer_port(PeerPath::copy_engine, PortDirection::out);
  peer_port(PeerPath::copy_engine, PortDirection::in);
}

sim::ResourceId Gpu::add(std::string_view unit, sim::Bandwidth capacity) {
  return net_->add_resource(fmt::format("gpu{}.{}", rank_, unit), capacity);
}

sim::ResourceId Gpu::add(std::string_view unit, sim::Bandwidth capacity, UnitKind kind,
                         std::string_view group) {
  return add_to_group(unit, capacity, kind, gpu_group(rank_, group));
}

sim::ResourceId Gpu::add_to_group(std::string_view unit, sim::Bandwidth capacity, UnitKind kind,
                                  const std::string& catalog_group) {
  const sim::ResourceId id = add(unit, capacity);
  if (catalog_) catalog_->add(id, kind, rank_, catalog_group);
  return id;
}

std::optional<sim::ResourceId> Gpu::peer_port(PeerPath path, PortDirection dir) {
  if (spec_->nvlink.links == 0) return std::nullopt;
  std::optional<sim::ResourceId>& slot = peer_[index_of(path)][static_cast<std::size_t>(dir)];
  if (!slot) {
    const std::string unit = port_unit(path, dir);
    slot = add(unit, peer_bandwidth(*spec_, path),
               dir == PortDirection::out ? UnitKind::peer_out : UnitKind::peer_in, unit);
  }
  return slot;
}

sim::Bytes Gpu::mma_amount(std::int64_t flops, Dtype d, MmaInstr instr,
                           std::int64_t smem_bytes) const {
  MGSIM_CHECK(d != Dtype::fp32 && smem_bytes >= 0, "mma_amount of fp32 or negative bytes");
  const sim::Bytes pipe_only = pipe_amount(flops, d, instr);
  if (smem_bytes == 0) return pipe_only;
  const SmSpec& sm = spec_->sm;
  // Pipe units per shared-memory byte: (bf16 flops per cycle x tensor clock) / (bytes per cycle
  // x SM clock).
  const double per_byte =
      static_cast<double>(sm.flops_per_cycle_bf16) * static_cast<double>(sm.tensor_clock.hertz()) /
      (static_cast<double>(sm.smem_bytes_per_cycle) * static_cast<double>(sm.clock.hertz()));
  const double p = static_cast<double>(pipe_only.count());
  const double s = static_cast<double>(smem_bytes) * per_byte;
  const double big = std::max(p, s);  // scaled by the larger, so no power overflows
  if (instr == MmaInstr::native) return sim::Bytes(static_cast<std::int64_t>(std::ceil(big)));
  const double q = sm.smem_serialisation;
  const double both = big * std::pow(std::pow(p / big, 1.0 / q) + std::pow(s / big, 1.0 / q), q);
  return sim::Bytes(static_cast<std::int64_t>(std::ceil(both)));
}

void Gpu::create_sm_pipes() {
  if (!tensor_.empty()) return;
  comm_warps_.assign(static_cast<std::size_t>(spec_->sm.count), {0, 0});
  const sim::Bandwidth rate = math_capacity(0, Dtype::bf16);  // every SM's, none held yet
  const std::string group = gpu_group(rank_, "tensor");       // named once for all the SMs
  // A GPU has a hundred or more SMs and a rollout may place a kernel on every GPU: the names
  // are built on one prefix.
  tensor_.reserve(static_cast<std::size_t>(spec_->sm.count));
  std::string name = fmt::format("gpu{}.sm", rank_);
  const std::size_t prefix = name.size();
  for (int s = 0; s < spec_->sm.count; ++s) {
    name.resize(prefix);
    name.append(std::to_string(s)).append(".tensor");
    const sim::ResourceId id = net_->add_resource(name, rate);
    if (catalog_) catalog_->add(id, UnitKind::tensor_pipe, rank_, group);
    net_->set_trace_counter(id, "GFLOP/s");
    tensor_.push_back(id);
  }
  fp32_.assign(tensor_.size(), std::nullopt);
  sfu_.assign(tensor_.size(), std::nullopt);
  int32_.assign(tensor_.size(), std::nullopt);
  memory_.assign(tensor_.size(), std::nullopt);
}

sim::Bandwidth Gpu::math_capacity(int sm, Dtype d) const {
  std::int64_t peak = spec_->sm.flops_per_second(d == Dtype::fp32 ? Dtype::fp32 : Dtype::bf16);
  if (clock_scale_ != 1.0)
    peak = std::max<std::int64_t>(1, std::llround(static_cast<double>(peak) * clock_scale_));
  const auto& n = comm_warps_[static_cast<std::size_t>(sm)];
  if (n[0] == 0 && n[1] == 0) return sim::Bandwidth::bytes_per_second(peak);
  const bool fp32 = d == Dtype::fp32;
  const double taken = n[0] * (fp32 ? spec_->ldst.warp_share_fp32 : spec_->ldst.warp_share_tensor) +
                       n[1] * (fp32 ? spec_->tma.warp_share_fp32 : spec_->tma.warp_share_tensor);
  const double left = std::max(1.0 - taken, kMinMathShare);
  return sim::Bandwidth::bytes_per_second(
      std::max<std::int64_t>(1, std::llround(static_cast<double>(peak) * left)));
}

void Gpu::add_comm_warp(int sm, CommWarp kind, int delta) {
  const auto i = static_cast<std::size_t>(sm);
  int& n = comm_warps_[i][kind == CommWarp::ldst ? 0 : 1];
  n += delta;
  MGSIM_CHECK(n >= 0, "SM {} released a communication warp it did not hold", sm);
  net_->set_capacity(tensor_[i], math_capacity(sm, Dtype::bf16));
  if (fp32_[i]) net_->set_capacity(*fp32_[i], math_capacity(sm, Dtype::fp32));
}

void Gpu::set_clock_scale(double scale) {
  MGSIM_CHECK(scale > 0 && scale <= 1, "clock scale {} outside (0, 1]", scale);
  if (scale == clock_scale_) return;
  clock_scale_ = scale;
  for (std::size_t i = 0; i < tensor_.size(); ++i) {
    const int sm = static_cast<int>(i);
    net_->set_capacity(tensor_[i], math_capacity(sm, Dtype::bf16));
    if (fp32_[i]) net_->set_capacity(*fp32_[i], math_capacity(sm, Dtype::fp32));
    if (sfu_[i]) net_->set_capacity(*sfu_[i], op_capacity(Pipe::sfu));
    if (int32_[i]) net_->set_capacity(*int32_[i], op_capacity(Pipe::int32));
  }
}

sim::Bandwidth Gpu::op_capacity(Pipe p) const {
  const std::int64_t per_cycle =
      p == Pipe::sfu ? spec_->sm.sfu_ops_per_cycle : spec_->sm.int32_ops_per_cycle;
  return sim::Bandwidth::bytes_per_second(std::max<std::int64_t>(
      1, std::llround(static_cast<double>(per_cycle * spec_->sm.clock.hertz()) * clock_scale_)));
}

sim::ResourceId Gpu::create_op_pipe(int sm, Pipe p) {
  const bool sfu = p == Pipe::sfu;
  const sim::ResourceId id = add(fmt::format("sm{}.{}", sm, sfu ? "sfu" : "int32"), op_capacity(p));
  net_->set_trace_counter(id, "Gop/s");
  (sfu ? sfu_ : int32_)[static_cast<std::size_t>(sm)] = id;
  return id;
}

sim::Frequency Gpu::sm_clock() const {
  if (clock_scale_ == 1.0) return spec_->sm.clock;
  return sim::Frequency::hz(std::max<std::int64_t>(
      1, std::llround(static_cast<double>(spec_->sm.clock.hertz()) * clock_scale_)));
}

double Gpu::tensor_flops_carried() {
  double sum = 0;
  for (const sim::ResourceId id : tensor_)
    sum += static_cast<double>(net_->stats(id).bytes_carried.count());
  return sum;
}

std::int64_t Gpu::hbm_bytes_carried() { return net_->stats(hbm_).bytes_carried.count(); }

sim::ResourceId Gpu::create_memory_pipe(int sm) {
  const sim::ResourceId id = add(fmt::format("sm{}.memory", sm), spec_->sm.memory_rate);
  memory_[static_cast<std::size_t>(sm)] = id;
  return id;
}

sim::ResourceId Gpu::create_fp32_pipe(int sm) {
  const sim::ResourceId id = add(fmt::format("sm{}.fp32", sm), math_capacity(sm, Dtype::fp32));
  net_->set_trace_counter(id, "GFLOP/s");
  fp32_[static_cast<std::size_t>(sm)] = id;
  return id;
}

sim::ResourceId Gpu::create_l2() {
  l2_ = add("l2", spec_->l2.bandwidth, UnitKind::l2, "l2");
  return *l2_;
}

sim::ResourceId Gpu::l2_reduce() {
  if (!l2_reduce_)
    l2_reduce_ = add("l2.reduce", spec_->l2.reduction_bandwidth, UnitKind::l2, "l2.reduce");
  return *l2_reduce_;
}

sim::ResourceId Gpu::hbm_write() {
  if (!hbm_write_)
    hbm_write_ = add("hbm.write", spec_->hbm.write_bandwidth, UnitKind::hbm, "hbm.write");
  return *hbm_write_;
}

}  // namespace mgsim::models
