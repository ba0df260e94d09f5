#include "models/parameter_table.hpp"

#include <array>
#include <limits>

#include <fmt/format.h>

namespace mgsim::models {
namespace {

using sim::Node;

// Range rules: counts, sizes, rates and clocks are positive; durations are not negative;
// efficiencies lie in (0, 1].
void parse_into(const Node& n, const std::string& name, int& out) {
  const std::int64_t v = n.as_positive_int(name);
  if (v > std::numeric_limits<int>::max()) n.fail(fmt::format("{} is too large: {}", name, v));
  out = static_cast<int>(v);
}
void parse_into(const Node& n, const std::string& name, std::int64_t& out) {
  out = n.as_positive_int(name);
}
void parse_into(const Node& n, const std::string& name, sim::Bytes& out) {
  out = n.as_positive_bytes(name);
}
void parse_into(const Node& n, const std::string& name, sim::Bandwidth& out) {
  out = n.as_positive_bandwidth(name);
}
void parse_into(const Node& n, const std::string& name, sim::Frequency& out) {
  out = n.as_frequency();
  if (out.hertz() <= 0) n.fail(fmt::format("{} must be positive, got {}", name, n.as_string()));
}
void parse_into(const Node& n, const std::string& name, sim::Duration& out) {
  out = n.as_duration();
  if (out < sim::Duration::zero())
    n.fail(fmt::format("{} must not be negative, got {}", name, n.as_string()));
}
void parse_into(const Node& n, const std::string& name, double& out) {
  out = n.as_double();
  if (!(out > 0.0 && out <= 1.0))
    n.fail(fmt::format("{} is an efficiency and must lie in (0, 1], got {}", name, n.as_string()));
}
void parse_into(const Node& n, const std::string&, bool& out) { out = n.as_bool(); }
void parse_into(const Node& n, const std::string& name, sim::Power& out) {
  out = n.as_power();
  if (out.microwatts() < 0)
    n.fail(fmt::format("{} must not be negative, got {}", name, n.as_string()));
}
void parse_into(const Node& n, const std::string& name, sim::Energy& out) {
  out = n.as_energy();
  if (out.attojoules() < 0)
    n.fail(fmt::format("{} must not be negative, got {}", name, n.as_string()));
}

std::string show_value(int v) { return std::to_string(v); }
std::string show_value(std::int64_t v) { return std::to_string(v); }
std::string show_value(double v) { return fmt::format("{}", v); }
std::string show_value(bool v) { return v ? "true" : "false"; }
template <typename T>
std::string show_value(const T& v) {
  return sim::to_string(v);
}

template <auto Unit, auto Field>
void read_field(HardwareSpec& spec, const Node& value, const std::string& name) {
  parse_into(value, name, (spec.*Unit).*Field);
}
template <auto Unit, auto Field>
std::string show_field(const HardwareSpec& spec) {
  return show_value((spec.*Unit).*Field);
}

constexpr bool kRequired = true;
constexpr bool kDefaulted = false;

template <auto Unit, auto Field>
constexpr Parameter param(std::string_view section, std::string_view key, std::string_view unit,
                          bool required, std::string_view meaning) {
  return {
      section, key, unit, required, meaning, &read_field<Unit, Field>, &show_field<Unit, Field>};
}

using H = HardwareSpec;

const std::array kParameters = {
    // sm
    param<&H::sm, &SmSpec::count>("sm", "count", "count", kRequired, "SMs per GPU"),
    param<&H::sm, &SmSpec::compute_capability>("sm", "compute_capability", "major x 10 + minor",
                                               kRequired,
                                               "CUDA compute capability (libraries' tables)"),
    param<&H::sm, &SmSpec::clock>("sm", "clock", "Hz", kRequired,
                                  "max boost clock; times cycle-counted costs and FP32"),
    param<&H::sm, &SmSpec::tensor_clock>("sm", "tensor_clock", "Hz", kRequired,
                                         "clock the datasheet dense tensor peak assumes"),
    param<&H::sm, &SmSpec::flops_per_cycle_bf16>("sm", "flops_per_cycle_bf16", "flops/cycle/SM",
                                                 kRequired, "dense BF16 tensor-core rate"),
    param<&H::sm, &SmSpec::flops_per_cycle_fp16>("sm", "flops_per_cycle_fp16", "flops/cycle/SM",
                                                 kRequired, "dense FP16 tensor-core rate"),
    param<&H::sm, &SmSpec::flops_per_cycle_fp8>("sm", "flops_per_cycle_fp8", "flops/cycle/SM",
                                                kRequired, "dense FP8 tensor-core rate"),
    param<&H::sm, &SmSpec::flops_per_cycle_tf32>("sm", "flops_per_cycle_tf32", "flops/cycle/SM",
                                                 kRequired, "dense TF32 tensor-core rate"),
    param<&H::sm, &SmSpec::flops_per_cycle_fp32>("sm", "flops_per_cycle_fp32", "flops/cycle/SM",
                                                 kRequired, "FP32 non-tensor rate (FMA = 2)"),
    param<&H::sm, &SmSpec::mma_sync_flops_per_cycle_bf16>("sm", "mma_sync_flops_per_cycle_bf16",
                                                          "flops/cycle/SM", kRequired,
                                                          "dense BF16 and FP16 rate of mma.sync"),
    param<&H::sm, &SmSpec::mma_sync_flops_per_cycle_fp8>("sm", "mma_sync_flops_per_cycle_fp8",
                                                         "flops/cycle/SM", kRequired,
                                                         "dense FP8 rate of mma.sync"),
    param<&H::sm, &SmSpec::mma_sync_flops_per_cycle_tf32>("sm", "mma_sync_flops_per_cycle_tf32",
                                                          "flops/cycle/SM", kRequired,
                                                          "dense TF32 rate of mma.sync"),
    param<&H::sm, &SmSpec::smem_bytes_per_cycle>("sm", "smem_bytes_per_cycle", "B/cycle/SM",
                                                 kRequired, "shared memory's read rate"),
    param<&H::sm, &SmSpec::smem_serialisation>(
        "sm", "smem_serialisation", "ratio", kRequired,
        "q in t = (t_pipe^(1/q) + t_smem^(1/q))^q: an MMA's pipe and operand-read times"),
    param<&H::sm, &SmSpec::sfu_ops_per_cycle>("sm", "sfu_ops_per_cycle", "ops/cycle/SM", kRequired,
                                              "special-function unit (ex2, rcp, rsqrt, sin)"),
    param<&H::sm, &SmSpec::int32_ops_per_cycle>("sm", "int32_ops_per_cycle", "ops/cycle/SM",
                                                kRequired, "32-bit integer multiply-add (IMAD)"),
    param<&H::sm, &SmSpec::max_ctas>("sm", "max_ctas", "count", kRequired, "resident CTA slots"),
    param<&H::sm, &SmSpec::max_threads>("sm", "max_threads", "count", kRequired,
                                        "resident threads"),
    param<&H::sm, &SmSpec::registers>("sm", "registers", "count", kRequired,
                                      "32-bit registers per SM"),
    param<&H::sm, &SmSpec::register_alloc_unit>("sm", "register_alloc_unit", "registers",
                                                kDefaulted, "per-warp register allocation unit"),
    param<&H::sm, &SmSpec::shared_memory>("sm", "shared_memory", "B", kRequired,
                                          "shared memory per SM"),
    param<&H::sm, &SmSpec::shared_memory_per_cta>("sm", "shared_memory_per_cta", "B", kRequired,
                                                  "largest shared memory one CTA may opt in to"),
    param<&H::sm, &SmSpec::shared_memory_reserved>("sm", "shared_memory_reserved", "B", kDefaulted,
                                                   "shared memory reserved per CTA"),
    param<&H::sm, &SmSpec::barrier_cycles>("sm", "barrier_cycles", "cycles", kRequired,
                                           "CTA barrier once all warps arrived"),
    param<&H::sm, &SmSpec::mbarrier_cycles>("sm", "mbarrier_cycles", "cycles", kRequired,
                                            "mbarrier arrive to waiter released"),
    param<&H::sm, &SmSpec::memory_rate>(
        "sm", "memory_rate", "B/s", kRequired,
        "one SM's memory pipe in loaded bytes: all it moves beyond itself, TMA and ld/st"),
    param<&H::sm, &SmSpec::store_cost>("sm", "store_cost", "count", kRequired,
                                       "memory-pipe share of a stored byte, in loaded bytes"),
    param<&H::sm, &SmSpec::store_add_cost>("sm", "store_add_cost", "count", kRequired,
                                           "memory-pipe share of a store-added byte"),
    // tma
    param<&H::tma, &TmaSpec::issue_cycles>("tma", "issue_cycles", "cycles", kRequired,
                                           "SM cycles to issue one message"),
    param<&H::tma, &TmaSpec::max_message>("tma", "max_message", "B", kRequired,
                                          "largest single message"),
    param<&H::tma, &TmaSpec::messages_in_flight>("tma", "messages_in_flight", "count", kRequired,
                                                 "outstanding messages per SM"),
    param<&H::tma, &TmaSpec::nvlink_efficiency>("tma", "nvlink_efficiency", "ratio", kRequired,
                                                "peer bandwidth relative to a copy engine's"),
    param<&H::tma, &TmaSpec::reduce_efficiency>("tma", "reduce_efficiency", "ratio", kRequired,
                                                "peer rate of a bulk reduce-add / a bulk store's"),
    param<&H::tma, &TmaSpec::message_interval>("tma", "message_interval", "s", kRequired,
                                               "time per bulk-load message"),
    param<&H::tma, &TmaSpec::warp_share_fp32>("tma", "warp_share_fp32", "ratio", kRequired,
                                              "share of its SM's FP32 pipe a TMA warp takes"),
    param<&H::tma, &TmaSpec::warp_share_tensor>("tma", "warp_share_tensor", "ratio", kRequired,
                                                "share of its SM's tensor pipe a TMA warp takes"),
    // ldst
    param<&H::ldst, &LdStSpec::coalescing_granularity>("ldst", "coalescing_granularity", "B",
                                                       kRequired, "sector an access splits into"),
    param<&H::ldst, &LdStSpec::multimem>("ldst", "multimem", "bool", kRequired,
                                         "multimem instructions available"),
    param<&H::ldst, &LdStSpec::nvlink_efficiency>("ldst", "nvlink_efficiency", "ratio", kRequired,
                                                  "peer bandwidth relative to a copy engine's"),
    param<&H::ldst, &LdStSpec::warp_share_fp32>("ldst", "warp_share_fp32", "ratio", kRequired,
                                                "share of its SM's FP32 pipe an ld/st warp takes"),
    param<&H::ldst, &LdStSpec::warp_share_tensor>(
        "ldst", "warp_share_tensor", "ratio", kRequired,
        "share of its SM's tensor pipe an ld/st warp takes"),
    // l2
    param<&H::l2, &L2Spec::capacity>("l2", "capacity", "B", kRequired, "total L2"),
    param<&H::l2, &L2Spec::bandwidth>("l2", "bandwidth", "B/s", kRequired,
                                      "aggregate hit bandwidth"),
    param<&H::l2, &L2Spec::hit_latency>("l2", "hit_latency", "s", kRequired,
                                        "load-to-use latency of a hit"),
    param<&H::l2, &L2Spec::reduction_bandwidth>("l2", "reduction_bandwidth", "B/s", kRequired,
                                                "bulk reduce-adds (TMA store-adds) applied"),
    param<&H::l2, &L2Spec::partitions>("l2", "partitions", "count", kRequired,
                                       "partitions, each attached to the SMs of its GPCs"),
    // hbm
    param<&H::hbm, &HbmSpec::capacity>("hbm", "capacity", "B", kRequired, "device memory"),
    param<&H::hbm, &HbmSpec::bandwidth>("hbm", "bandwidth", "B/s", kRequired,
                                        "peak (read) bandwidth"),
    param<&H::hbm, &HbmSpec::write_bandwidth>("hbm", "write_bandwidth", "B/s", kRequired,
                                              "peak write-only bandwidth"),
    param<&H::hbm, &HbmSpec::latency>("hbm", "latency", "s", kRequired, "idle load-to-use latency"),
    param<&H::hbm, &HbmSpec::latency_spread>(
        "hbm", "latency_spread", "s", kRequired,
        "a wait for k lines at once is latency + this x (H_k - 1), H_k = 1 + 1/2 + ... + 1/k"),
    param<&H::hbm, &HbmSpec::write_latency>("hbm", "write_latency", "s", kRequired,
                                            "a local store holds its slot"),
    param<&H::hbm, &HbmSpec::queue_delay>("hbm", "queue_delay", "s", kRequired,
                                          "a load's latency grows by this x rho / (1 - rho)"),
    param<&H::hbm, &HbmSpec::turnaround_delay>(
        "hbm", "turnaround_delay", "s", kRequired,
        "reads and writes mixed wait this x 2 rho_r rho_w / rho more"),
    // copy_engine
    param<&H::copy_engine, &CopyEngineSpec::count>("copy_engine", "count", "count", kRequired,
                                                   "engines usable by one GPU"),
    param<&H::copy_engine, &CopyEngineSpec::setup>("copy_engine", "setup", "s", kRequired,
                                                   "fixed cost per transfer (push, local)"),
    param<&H::copy_engine, &CopyEngineSpec::pull_setup>("copy_engine", "pull_setup", "s", kRequired,
                                                        "fixed cost per peer read"),
    param<&H::copy_engine, &CopyEngineSpec::bandwidth>("copy_engine", "bandwidth", "B/s", kRequired,
                                                       "one engine's peak rate"),
    // nvlink
    param<&H::nvlink, &NvlinkSpec::links>("nvlink", "links", "count", kRequired,
                                          "NVLink links per GPU"),
    param<&H::nvlink, &NvlinkSpec::link_bandwidth>("nvlink", "link_bandwidth", "B/s", kRequired,
                                                   "per link, per direction"),
    param<&H::nvlink, &NvlinkSpec::protocol_efficiency>("nvlink", "protocol_efficiency", "ratio",
                                                        kRequired, "data bytes / signalled bytes"),
    param<&H::nvlink, &NvlinkSpec::latency>("nvlink", "latency", "s", kRequired,
                                            "one-way GPU-to-GPU latency"),
    // nvswitch
    param<&H::nvswitch, &NvSwitchSpec::multicast>("nvswitch", "multicast", "bool", kRequired,
                                                  "multimem.st / ld_reduce replication"),
    param<&H::nvswitch, &NvSwitchSpec::reduction>("nvswitch", "reduction", "bool", kRequired,
                                                  "in-network reduction (NVLink SHARP)"),
    param<&H::nvswitch, &NvSwitchSpec::reduction_bandwidth>(
        "nvswitch", "reduction_bandwidth", "B/s", kRequired, "reduction result rate per port"),
    param<&H::nvswitch, &NvSwitchSpec::latency>("nvswitch", "latency", "s", kRequired,
                                                "added by one switch traversal"),
    // pcie
    param<&H::pcie, &PcieSpec::generation>("pcie", "generation", "count", kRequired,
                                           "PCIe generation"),
    param<&H::pcie, &PcieSpec::lanes>("pcie", "lanes", "count", kRequired, "link width"),
    param<&H::pcie, &PcieSpec::bandwidth>("pcie", "bandwidth", "B/s", kRequired, "per direction"),
    param<&H::pcie, &PcieSpec::latency>("pcie", "latency", "s", kRequired, "one way"),
    // nic
    param<&H::nic, &NicSpec::bandwidth>("nic", "bandwidth", "B/s", kRequired, "per direction"),
    param<&H::nic, &NicSpec::latency>("nic", "latency", "s", kRequired,
                                      "one way, NIC to NIC without switches"),
    // launch
    param<&H::launch, &LaunchSpec::latency>("launch", "latency", "s", kRequired,
                                            "host call returned -> kernel starts, idle stream"),
    param<&H::launch, &LaunchSpec::gap>("launch", "gap", "s", kRequired,
                                        "previous op ended -> queued kernel starts"),
    param<&H::launch, &LaunchSpec::graph_node>("launch", "graph_node", "s", kRequired,
                                               "between kernel nodes of a CUDA graph"),
    param<&H::launch, &LaunchSpec::per_cta>("launch", "per_cta", "s", kRequired,
                                            "CTA dispatch interval per GPU"),
    param<&H::launch, &LaunchSpec::event>("launch", "event", "s", kRequired,
                                          "previous op ended -> timing event written"),
    param<&H::launch, &LaunchSpec::wake_1ms>("launch", "wake_1ms", "s", kRequired,
                                             "extra kernel start after the host slept 1 ms"),
    param<&H::launch, &LaunchSpec::wake_100ms>("launch", "wake_100ms", "s", kRequired,
                                               "extra kernel start after the host slept 100 ms"),
    // host
    param<&H::host, &HostSpec::launch>("host", "launch", "s", kRequired,
                                       "host thread time of cudaLaunchKernel"),
    param<&H::host, &HostSpec::memcpy>("host", "memcpy", "s", kRequired,
                                       "host thread time of cudaMemcpyAsync"),
    param<&H::host, &HostSpec::event_record>("host", "event_record", "s", kRequired,
                                             "host thread time of cudaEventRecord"),
    param<&H::host, &HostSpec::event_record_untimed>(
        "host", "event_record_untimed", "s", kRequired,
        "host thread time of cudaEventRecord, cudaEventDisableTiming"),
    param<&H::host, &HostSpec::stream_wait>("host", "stream_wait", "s", kRequired,
                                            "host thread time of cudaStreamWaitEvent"),
    param<&H::host, &HostSpec::graph_launch>("host", "graph_launch", "s", kRequired,
                                             "host thread time of cudaGraphLaunch"),
    param<&H::host, &HostSpec::sync>("host", "sync", "s", kRequired,
                                     "GPU work done -> synchronize returns"),
    param<&H::host, &HostSpec::wake_1ms>("host", "wake_1ms", "s", kRequired,
                                         "extra on the first call after 1 ms asleep"),
    param<&H::host, &HostSpec::wake_100ms>("host", "wake_100ms", "s", kRequired,
                                           "extra on the first call after 100 ms asleep"),
    param<&H::host, &HostSpec::nccl_enqueue>(
        "host", "nccl_enqueue", "s", kRequired,
        "NCCL's host work per GPU and call beyond its launch and two joins"),
    param<&H::host, &HostSpec::nccl_p2p_pair>(
        "host", "nccl_p2p_pair", "s", kRequired,
        "NCCL's host work per send/receive pair beyond the first in a group"),
    // sync
    param<&H::sync, &SyncSpec::flag_latency>("sync", "flag_latency", "s", kRequired,
                                             "flag store -> poll sees it, one GPU"),
    param<&H::sync, &SyncSpec::remote_poll>("sync", "remote_poll", "s", kRequired,
                                            "extra when the waiter polls a peer's flag"),
    param<&H::sync, &SyncSpec::atomic>("sync", "atomic", "s", kRequired,
                                       "extra latency of an atomic flag write"),
    param<&H::sync, &SyncSpec::atomic_interval>("sync", "atomic_interval", "s", kRequired,
                                                "atomics to one address, one per interval"),
    param<&H::sync, &SyncSpec::fence_cta>("sync", "fence_cta", "s", kRequired,
                                          "fence.cta (__threadfence_block)"),
    param<&H::sync, &SyncSpec::fence_gpu>("sync", "fence_gpu", "s", kRequired,
                                          "fence.gpu (__threadfence)"),
    param<&H::sync, &SyncSpec::fence_system>("sync", "fence_system", "s", kRequired,
                                             "fence.sys (__threadfence_system)"),
    param<&H::sync, &SyncSpec::fence_cta_per_warp>("sync", "fence_cta_per_warp", "s", kRequired,
                                                   "an SM's fence.cta throughput, per warp"),
    param<&H::sync, &SyncSpec::fence_gpu_per_warp>("sync", "fence_gpu_per_warp", "s", kRequired,
                                                   "an SM's fence.gpu throughput, per warp"),
    param<&H::sync, &SyncSpec::fence_system_per_warp>(
        "sync", "fence_system_per_warp", "s", kRequired, "an SM's fence.sys throughput, per warp"),
    param<&H::sync, &SyncSpec::fence_far>("sync", "fence_far", "s", kRequired,
                                          "extra: a gpu/sys fence's store in the far L2 partition"),
    param<&H::sync, &SyncSpec::fence_gpu_round>("sync", "fence_gpu_round", "s", kRequired,
                                                "an SM's fence.gpu rounds start this far apart"),
    param<&H::sync, &SyncSpec::fence_system_round>("sync", "fence_system_round", "s", kRequired,
                                                   "an SM's fence.sys rounds start this far apart"),
    param<&H::sync, &SyncSpec::fence_round_warps>("sync", "fence_round_warps", "count", kRequired,
                                                  "warps fencing together in one round"),
    // power (models/power.hpp): all defaulted; without `limit` the SMs stay at sm.clock
    param<&H::power, &PowerSpec::limit>("power", "limit", "W", kDefaulted,
                                        "board power cap the governor holds (none if absent)"),
    param<&H::power, &PowerSpec::idle>("power", "idle", "W", kDefaulted,
                                       "board power with no kernel running"),
    param<&H::power, &PowerSpec::static_power>("power", "static", "W", kDefaulted,
                                               "board power while kernels run, before work"),
    param<&H::power, &PowerSpec::tensor_energy>("power", "tensor_energy", "J", kDefaulted,
                                                "per bf16-equivalent tensor flop at sm.clock"),
    param<&H::power, &PowerSpec::hbm_energy>("power", "hbm_energy", "J", kDefaulted,
                                             "per byte read or written in HBM"),
    param<&H::power, &PowerSpec::window>("power", "window", "s", kDefaulted,
                                         "time constant of the power average under the limit"),
};

constexpr std::array<std::string_view, 14> kSections = {
    "sm",       "tma",  "ldst", "l2",     "hbm",  "copy_engine", "nvlink",
    "nvswitch", "pcie", "nic",  "launch", "host", "sync",        "power"};

}  // namespace

std::string Parameter::name() const { return fmt::format("{}.{}", section, key); }

std::span<const Parameter> hardware_parameters() { return kParameters; }
std::span<const std::string_view> hardware_sections() { return kSections; }

}  // namespace mgsim::models
