// Registers a topology's trunks in a simulation's resource catalog (models/resource_catalog.hpp):
// what each fabric resource is in hardware terms, for the roofline and per-unit utilisation.
// It lives here, not in models/, because it reads topologies::Fabric (topologies does not link
// models, and models does not link topologies).
#pragma once

#include "models/resource_catalog.hpp"

namespace mgsim::topologies {
class Fabric;
struct Topology;
struct Translation;
}  // namespace mgsim::topologies

namespace mgsim::traces {

// Registers every trunk direction of `fabric` (built from `topo`). Kinds come from the
// topology's link kinds and vertex kinds; trunks with a GPU end join that GPU's group
// ("gpu3.nvlink.out" for the GPU -> NVSwitch direction, "gpu3.nvlink.in" for NVSwitch -> GPU;
// on a direct GPU-GPU link the arc is the sender's out and the receiver's in, so it is
// registered in the sender's out group; the receiver's in-traffic is then visible only through
// the peer_in unit). Trunks with a NIC end form "<nic>.out" / "<nic>.in"; the rest are one group
// per trunk direction named like the resource ("leaf0->spine1").
// `folded` (a folded run, traces/fabric_interconnect.hpp): only the trunk directions that stand
// for themselves (and shared ones), as a folded run's flows load only those.
// REQUIRES: `fabric` was built from `topo`.
void register_fabric(models::ResourceCatalog& catalog, const topologies::Fabric& fabric,
                     const topologies::Topology& topo,
                     const topologies::Translation* folded = nullptr);

}  // namespace mgsim::traces
