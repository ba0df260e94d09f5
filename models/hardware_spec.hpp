// One GPU type's hardware parameters: every unit's spec together, and where each number came from.
//
// Contract: a HardwareSpec is plain data, loaded once at the edge (models/hardware_loader.hpp)
// and read by the executor; nothing here changes during a simulation. `sources` maps a dotted
// parameter name ("hbm.bandwidth") to the provenance its file recorded ("datasheet: ...",
// "measured: ...", "fit: ...", "assumed: ..."); a parameter with no recorded source is absent.
// Calibration factors (the *_efficiency fields) live next to, not inside, the datasheet rates:
// effective = datasheet rate x efficiency, computed once here.
#pragma once

#include <map>
#include <string>

#include "models/copy_engine.hpp"
#include "models/hbm.hpp"
#include "models/host.hpp"
#include "models/l2.hpp"
#include "models/launch.hpp"
#include "models/ldst.hpp"
#include "models/nic.hpp"
#include "models/nvlink.hpp"
#include "models/nvswitch.hpp"
#include "models/pcie.hpp"
#include "models/power.hpp"
#include "models/sm.hpp"
#include "models/sync.hpp"
#include "models/tma.hpp"

namespace mgsim::models {

struct HardwareSpec {
  std::string name;
  SmSpec sm;
  TmaSpec tma;
  LdStSpec ldst;
  L2Spec l2;
  HbmSpec hbm;
  CopyEngineSpec copy_engine;
  NvlinkSpec nvlink;
  NvSwitchSpec nvswitch;
  PcieSpec pcie;
  NicSpec nic;
  LaunchSpec launch;
  HostSpec host;
  SyncSpec sync;
  PowerSpec power;
  std::map<std::string, std::string> sources;  // "hbm.bandwidth" -> "datasheet: ..."
};

// The three ways a GPU moves bytes to a peer over NVLink.
// tma_reduce: TMA bulk reduce-adds (store-adds), at tma.reduce_efficiency of a TMA store's rate.
enum class PeerPath { copy_engine, tma, ldst, tma_reduce };

// The most one GPU can push to peers over NVLink in one direction through `path` with enough
// engines or SMs to saturate it: port bandwidth x protocol efficiency x the path's efficiency,
// rounded down once to whole bytes per second. (Reproduces the ParallelKittens Table 1 figures
// the efficiencies were fitted to; see docs/MODELS.md.)
sim::Bandwidth peer_bandwidth(const HardwareSpec& spec, PeerPath path);

// `gpu` driven from `host`'s host: every host.* parameter and the launch parameters that cross
// the host (launch.latency, from the call's return to the kernel's start over the host's PCIe
// root; launch.wake_1ms and wake_100ms) are `host`'s, with their sources; the rest is `gpu`'s.
// For data measured on another machine of the same GPU (validate/cases.hpp's `host:`).
HardwareSpec with_host(HardwareSpec gpu, const HardwareSpec& host);

// `bw` x `factor`, rounded down to whole bytes per second (exact). REQUIRES: 0 <= factor < 2^53.
sim::Bandwidth scale_bandwidth(sim::Bandwidth bw, double factor);

}  // namespace mgsim::models
