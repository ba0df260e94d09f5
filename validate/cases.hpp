// The validation manifest (validate/cases/manifest.yaml): which schedule predicts each measured
// row, and running every case through the simulator in process.
//
//   topology: h200x2.yaml              # the measured machine (relative to the manifest)
//   families:
//     - data: peer_ce.csv              # a file of the data folder ("{gpu}" is the folder's name:
//                                      # ../{gpu}-single/mlp.csv, the one-GPU folder beside it)
//       category: primitive            # primitive (fitted by calibrate) | held-out (never fitted)
//       schedule: peer_ce.yaml         # relative to the manifest
//       measured: us_per_copy_median   # a column in microseconds (or nanoseconds): the time
//       divide_by: copies_per_rep      # optional count column, a number, or a param of the
//                                      # schedule (its value in the row's run): time per loop op
//       define: {SIZE: bytes}          # schedule param <- column, for every row
//       capture:                       # optional: params out of a text column: a kernel's tile
//         column: kernels              # from its name. The pattern is literal text with {PARAM}
//         pattern: "_{TILE_N}x{TILE_M}_" # slots that match digits, found anywhere in the text;
//         optional: true               # a row it does not match is an error naming the row. A
//                                      # file without the column keeps the schedule's params
//                                      # when `optional`.
//       less: {FENCE: 0}               # optional: the prediction less the same case with these
//                                      # params (a measured difference: a loop with and without
//                                      # its fence)
//       host: h200.single_host         # optional: the rows were measured on another host than
//                                      # the GPU data; its costs (host.*, launch.latency) come
//                                      # from this preset (or file, relative to the manifest)
//                                      # over the validated hardware (models::with_host)
//       stream: {name: gemm, rank: 0}  # optional: predict the end of this stream (default: the
//                                      # end of the whole schedule), e.g. one side of two
//                                      # concurrent loops
//       measure: end                   # optional, also per group: end (default: the GPU end),
//                                      # host (when the host thread returned from its last call:
//                                      # of `stream`, else the latest), or {from: start, to: stop}
//                                      # (per rank the time between the first records of two
//                                      # events, as cudaEventElapsedTime measures; the slowest)
//       groups:                        # every row must match exactly one group
//         - where: {direction: 0to1_push}   # text columns that select the rows
//           set: {SRC: 0, DST: 1}           # constant params for them
//           schedule: other.yaml            # optional: this group's own schedule
//           skip: "why"                     # optional: its rows are not predicted (listed with
//                                           # the families not yet predictable, with this)
//     - data: hbm.csv
//       category: primitive
//       status: needs-kernels          # not predictable yet
//       why: "..."                     # shown in the report
//
// Contract: every key is checked (MapReader); a row matched by no group or by two is a
// ConfigError naming the data file and line, so every measured row has a schedule. A case's
// prediction is what `measure` says (by default the simulated end of the whole schedule or of the
// named `stream`), divided by `divide_by`. Deterministic. Ignores: the measurements' spread
// (medians are compared).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace mgsim::validate {

struct CaseResult {
  std::string family;    // the data file: "peer_ce.csv"
  std::string category;  // "primitive" | "held-out"
  int line = 0;          // the row's line in the data file
  std::string label;     // the row's selecting and defining columns: "0to1_push bytes=1024"
  double measured_us = 0;
  double predicted_us = 0;
  double error() const { return predicted_us / measured_us - 1.0; }  // signed, 0.05 = 5 % slow
};

struct PendingFamily {
  std::string family, category, status, why;
  std::size_t rows = 0;
};

struct ValidationRun {
  std::vector<CaseResult> cases;       // in manifest order, then file order
  std::vector<PendingFamily> pending;  // families with a status
};

// `hw` is a hardware preset name or path (models::load_hardware). "{gpu}" in a family's data
// file or host stands for the data folder's name (expand_data_name). With `partial` (a folder
// measured on a machine that ran only some programs, one GPU say), a family whose file the folder
// lacks is listed as pending ("not measured") instead of failing the run.
ValidationRun run_validation(const std::string& manifest_path, const std::string& data_dir,
                             const std::string& hw, bool partial = false);

}  // namespace mgsim::validate
