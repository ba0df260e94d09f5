// What each fluid resource of a simulation is in hardware terms: which GPU (or switch, NIC,
// network link) it belongs to, which kind of unit it is, and which unit group it is summed into
// for the roofline (roofline.hpp) and the per-unit utilisation that `mgsim run` prints.
//
// Contract:
//   - A resource is registered at most once, right after sim::FluidNetwork::add_resource by
//     whoever created it. Unregistered resources are legal; they simply take no part in the
//     roofline (nothing is guessed from resource names).
//   - A unit group ("gpu3.nvlink.out", "gpu3.copy_engine", "gpu3.tensor") is a set of
//     resources of one kind that together form one hardware unit: the roofline sums their
//     capacities and the amounts they carried. All resources of a group share one kind (checked).
//   - The "bytes" a resource carries are bytes moved for every kind but tensor_pipe, whose
//     "bytes" are flops and whose capacity is flops per second (measure_of()).
//   - Group names for a GPU's units are gpu_group(rank, unit): "gpu<rank>.<unit>", with the
//     schedule's rank (not the topology's vertex name), so groups line up with the trace's tracks
//     and with "rank N" in `mgsim run`'s output.
//
// Who registers: models::Gpu (models/gpu.hpp) every unit of a GPU, traces::register_fabric
// (traces/fabric_catalog.hpp) the topology's trunks. Every SM's pipe of one GPU goes in the
// same group, so the roofline's compute term for that GPU is (flops of all its SMs) / (sum of
// the SMs' peaks). Pass the catalog down as a nullable pointer: a simulation without one (unit
// tests, benchmarks) costs nothing extra.
//
// Thread-safety: none; one catalog per simulation, like the FluidNetwork it describes.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sim/fluid.hpp"

namespace mgsim::models {

enum class UnitKind {
  hbm,            // a GPU's HBM (reads and writes share it)
  l2,             // a GPU's L2
  tensor_pipe,    // SM tensor cores; amounts are flops
  copy_engine,    // one DMA copy engine
  peer_out,       // a GPU's peer-copy egress after NVLink protocol efficiency
  peer_in,        // ... and ingress
  nvlink_out,     // a GPU's NVLink trunk, GPU -> switch or GPU -> GPU (raw bandwidth)
  nvlink_in,      // ... switch -> GPU or GPU -> GPU, seen from the receiving GPU
  nvswitch_port,  // an NVLink trunk between two switches (no GPU end)
  pcie_out,       // a PCIe trunk leaving a GPU
  pcie_in,        // ... entering a GPU
  pcie,           // a PCIe trunk between two non-GPU vertices (switch, CPU, NIC)
  nic_out,        // a NIC's network egress (NIC -> IB/Ethernet switch)
  nic_in,         // ... ingress
  network_link,   // a network trunk between two switches
};

std::string_view to_string(UnitKind kind);

// What a resource's "bytes" count.
enum class Measure { bytes, flops };
Measure measure_of(UnitKind kind);

struct CatalogEntry {
  sim::ResourceId resource;
  UnitKind kind = UnitKind::hbm;
  int gpu = -1;       // the rank it belongs to; -1 for a switch, a NIC or a network link
  std::string group;  // its unit group
};

// "gpu<rank>.<unit>": the group name of a GPU's unit. REQUIRES: rank >= 0.
std::string gpu_group(int rank, std::string_view unit);

class ResourceCatalog {
 public:
  // REQUIRES: `resource` not registered yet; `group` non-empty and, if already used, used with
  // the same kind.
  void add(sim::ResourceId resource, UnitKind kind, int gpu, std::string group);

  // In registration order (deterministic for a deterministic simulation).
  const std::vector<CatalogEntry>& entries() const { return entries_; }
  // nullptr when `resource` was not registered.
  const CatalogEntry* find(sim::ResourceId resource) const;

 private:
  std::vector<CatalogEntry> entries_;
  std::vector<std::int64_t> entry_of_;  // by resource id: its index in entries_, or -1
  std::unordered_map<std::string, UnitKind> group_kinds_;
};

}  // namespace mgsim::models
