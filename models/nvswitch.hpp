// NVSwitch, as seen from one GPU's port: a non-blocking crossbar with multicast and in-network
// reduction (NVLink SHARP, used through multimem ld_reduce / red / st).
//
// Models: whether multicast and reduction exist, the reduction rate per port, and the added
// latency of one traversal. A multimem reduction uses each contributor's ingress once and the
// result's egress once; the reduction rate caps it per port.
// Ignores: switch-internal buffering and arbitration (non-blocking), the number of switches
// (the topology has it), and reduction data types other than the common bf16/fp32 case.
#pragma once

#include "sim/units.hpp"

namespace mgsim::models {

struct NvSwitchSpec {
  bool multicast = true;                                           // multimem.st / ld replicate
  bool reduction = true;                                           // multimem.red / ld_reduce
  sim::Bandwidth reduction_bandwidth = sim::Bandwidth::GBps(450);  // per port, result bytes
  sim::Duration latency = sim::Duration::ns(100);                  // added by one traversal
};

}  // namespace mgsim::models
