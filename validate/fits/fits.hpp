// The fit functions of calibrate()'s table (validate/calibrate.cpp, calibration_fits()): one per
// fitted parameter group. Each reads and writes only through the Calibrator and only what its
// table row declares; the row is the contract (inputs -> outputs), the function's comment says
// what is fitted and why. Internal to validate/.
#pragma once

#include "validate/calibrator.hpp"

namespace mgsim::validate::fits {

// The single-GPU measurements the fits read beside validate/data/h200 (their paths from there).
inline constexpr const char* kMlpCsv = "../{gpu}-single/mlp.csv";
inline constexpr const char* kMlpWarpsCsv = "../{gpu}-single/mlp_warps.csv";
inline constexpr const char* kFenceCsv = "../{gpu}-single/fence.csv";
inline constexpr const char* kSmGroupsCsv = "../{gpu}-single/sm_groups.csv";

// links.cpp: the NVLink port and the paths over it.
void nvlink_latency(Calibrator& c);
void flags(Calibrator& c);
void fences(Calibrator& c);
void copy_engine(Calibrator& c);
void nvlink_port(Calibrator& c);
void peer_ldst(Calibrator& c);
void peer_tma(Calibrator& c);

// memory.cpp: HBM and L2.
void hbm_spread(Calibrator& c);
void hbm(Calibrator& c);
void l2(Calibrator& c);
void l2_latency(Calibrator& c);
void hbm_queue(Calibrator& c);
void tma_store_add(Calibrator& c);
void sm_pipe(Calibrator& c);
void sm_store_add(Calibrator& c);

// compute.cpp: launches, the host's API calls and the tensor pipes.
void launch(Calibrator& c);
void host_api(Calibrator& c);
void tensor_clock(Calibrator& c);

}  // namespace mgsim::validate::fits
