#!/usr/bin/env bash
# Builds validate/cuda and runs every H200 measurement in one go, for mgsim's calibration.
#
# Run through the device tool on kind nvidia-h200-x2 (2 H200s), from the repository root:
#   run(kind="nvidia-h200-x2", timeout_s=600, command="bash scripts/measure_h200.sh")
# Steps: hbm_l2 launch gemm nccl overlap peer_ce peer_sm peer_reduce flag l2_contention
# stream_wake host_api_library (the last two into two_gpu/);
# MEASURE_ONLY="..." picks some. NCCL's forced settings (issue 10) run only when asked, in two
# commands of their own (each under the 10-minute limit):
#   MEASURE_ONLY="nccl_sweep_proto_LL nccl_sweep_proto_LL128 nccl_sweep_proto_Simple
#                 nccl_sweep_algo_tree nccl_sweep_bf16"
#   MEASURE_ONLY="nccl_sweep_channels_1 nccl_sweep_channels_2 nccl_sweep_channels_4
#                 nccl_sweep_channels_8 nccl_sweep_channels_16 nccl_sweep_channels_32"
# (MEASURE_ONLY="nccl_sweep" runs them all, if the time allows): nccl_bench once per
# NCCL_PROTO, NCCL_ALGO=Tree, NCCL_MIN/MAX_NCHANNELS and bfloat16, each writing
# nccl_sweep_<setting>.csv, with NCCL's per-call choice logged (NCCL_DEBUG_SUBSYS=TUNING) to
# system/nccl_debug_<setting>.<pid>.txt; scripts/nccl_choices.py turns those logs into
# nccl_choices.csv.
# Results: $OUT/results.tar.gz (folder h200/: one CSV per family plus system/*.txt) and
# $OUT/log.txt. The tarball is rewritten after every program, so a run cut short still returns
# what finished. Unpack into validate/data/ and commit; docs/MEASUREMENTS.md says what is what.
set -u -o pipefail

# NVLink multicast (NVLS) must stay off on these shared machines: a program using it can take the
# host's GPUs out of service. Nothing here uses multimem or cuMulticastCreate either.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export MGSIM_LAUNCHED_BY="scripts/measure_h200.sh (device tool, nvidia-h200-x2)"
export PATH=/usr/local/cuda/bin:$PATH

REPO=$(pwd)
OUT=${OUT:-$REPO/measure-out}
mkdir -p "$OUT"
STAGE=$(mktemp -d)
RES=$STAGE/h200
mkdir -p "$RES/system"
exec > >(tee -a "$OUT/log.txt") 2>&1
DEADLINE=${MEASURE_DEADLINE_S:-560}  # seconds after start; the device tool stops a command at 600

pack() { tar -czf "$OUT/results.tar.gz.tmp" -C "$STAGE" h200 && mv "$OUT/results.tar.gz.tmp" "$OUT/results.tar.gz"; }

# step NAME LIMIT_S CMD... (scripts/measure_step.sh)
. "$(dirname "$0")/measure_step.sh"

echo "=== system $(date -u +%FT%TZ)"
nvidia-smi >"$RES/system/nvidia-smi.txt" 2>&1
nvidia-smi topo -m >"$RES/system/topo.txt" 2>&1
nvidia-smi nvlink -s >"$RES/system/nvlink_status.txt" 2>&1
nvidia-smi -q -d CLOCK,PERFORMANCE,POWER >"$RES/system/clocks_start.txt" 2>&1
nvidia-smi --query-gpu=index,name,uuid,serial,pci.bus_id,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,power.limit \
  --format=csv >"$RES/system/gpus.txt" 2>&1
{ nvcc --version; cmake --version | head -1; uname -r; nproc; } >"$RES/system/toolchain.txt" 2>&1
cat "$RES/system/topo.txt" "$RES/system/gpus.txt" "$RES/system/nvlink_status.txt"
nvidia-smi dmon -s pc -d 1 -o T >"$RES/system/dmon.txt" 2>&1 &
DMON=$!

NCCL_ROOT=$(python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0])' 2>/dev/null || true)
echo "NCCL_ROOT=${NCCL_ROOT:-none}"
[ -n "$NCCL_ROOT" ] && export LD_LIBRARY_PATH=$NCCL_ROOT/lib:${LD_LIBRARY_PATH:-}
echo "=== build start $(date -u +%H:%M:%S)"
t0=$SECONDS
cmake -S validate/cuda -B build-cuda -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  ${NCCL_ROOT:+-DNCCL_ROOT=$NCCL_ROOT} >"$RES/system/build.txt" 2>&1
ninja -C build-cuda -k 0 >>"$RES/system/build.txt" 2>&1
echo "=== build rc=$? in $((SECONDS - t0))s"
grep -iE "error|warning|NCCL" "$RES/system/build.txt" | head -20
BIN=$REPO/build-cuda
# The TMA kernel must really use the bulk-copy unit (UBLKCP) and mbarriers (SYNCS) in SASS.
cuobjdump -sass "$BIN/peer_sm" 2>/dev/null | grep -oE "UBLKCP[.A-Z0-9]*|SYNCS[.A-Z0-9]*|LDG[.A-Z0-9]*|STG[.A-Z0-9]*" |
  sort | uniq -c >"$RES/system/sass_peer_sm.txt"
cat "$RES/system/sass_peer_sm.txt"
# The reduce kernels must use the bulk reduce (UBLKRED) beside the bulk copies.
cuobjdump -sass "$BIN/peer_reduce" 2>/dev/null | grep -oE "UBLK[A-Z]*[.A-Z0-9]*|SYNCS[.A-Z0-9]*" |
  sort | uniq -c >"$RES/system/sass_peer_reduce.txt"
cat "$RES/system/sass_peer_reduce.txt"
# The L2 contention reader must be 16-byte L1-bypassing loads, its writer the bulk copy and reduce.
cuobjdump -sass "$BIN/l2_contention" 2>/dev/null | grep -oE "UBLK[A-Z]*[.A-Z0-9]*|LDG[.A-Z0-9]*" |
  sort | uniq -c >"$RES/system/sass_l2_contention.txt"
cat "$RES/system/sass_l2_contention.txt"
pack

step hbm_l2 120 "$BIN/hbm_l2" --out .
step launch 90 "$BIN/launch" --out .
step gemm 150 "$BIN/gemm" --out .
NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH,ENV step nccl 180 "$BIN/nccl_bench" --out .
step overlap 180 "$BIN/overlap" --out .
step peer_ce 150 "$BIN/peer_ce" --out .
step peer_sm 240 "$BIN/peer_sm" --out .
step peer_reduce 180 "$BIN/peer_reduce" --out .
step flag 150 "$BIN/flag" --out .
step l2_contention 300 "$BIN/l2_contention" --out .
# A thread driving both GPUs (issue 9: the both-way rows of peer_ce and peer_sm are 4-10 us slower
# than the model): a cross-GPU stream wait against a same-GPU one (stream_wake's relay rows) and
# cudaSetDevice switching between the GPUs (host_api --library). Into two_gpu/, beside the
# single-GPU folders' stream_wake.csv and host_api_library.csv, not among the calibrated files.
mkdir -p "$RES/two_gpu"
step stream_wake 60 "$BIN/stream_wake" --out two_gpu
step host_api_library 60 "$BIN/host_api" --out two_gpu --library

# NCCL's forced settings (MEASURE_ONLY="nccl_sweep"). NCCL reads NCCL_* when a communicator is
# made, so each setting is a run of its own; sizes up to 256 MiB keep the whole sweep in one
# command.
sweep() {  # sweep NAME LIMIT_S ENV... -- nccl_bench options
  local name=$1 limit=$2
  shift 2
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  [[ " ${MEASURE_ONLY:-} " == *" nccl_sweep "* || " ${MEASURE_ONLY:-} " == *" nccl_sweep_$name "* ]] ||
    return 0
  (
    for e in "${envs[@]}"; do export "$e"; done
    export NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING
    export NCCL_DEBUG_FILE="$RES/system/nccl_debug_$name.%p.txt"
    MEASURE_ONLY=""
    step "nccl_sweep_$name" "$limit" "$BIN/nccl_bench" --out . --file "nccl_sweep_$name.csv" \
      --setting "${envs[*]:-default}" --max-bytes 268435456 "$@"
  )
}
for p in LL LL128 Simple; do
  sweep "proto_$p" 100 NCCL_PROTO=$p -- --ops all_reduce,all_gather,reduce_scatter
done
sweep algo_tree 60 NCCL_ALGO=Tree -- --ops all_reduce
for c in 1 2 4 8 16 32; do
  sweep "channels_$c" 80 NCCL_MIN_NCHANNELS=$c NCCL_MAX_NCHANNELS=$c -- --ops all_reduce,all_gather
done
sweep bf16 100 -- --dtypes bfloat16 --ops all_reduce,all_gather,reduce_scatter
if compgen -G "$RES/system/nccl_debug_*.txt" >/dev/null; then
  python3 "$REPO/scripts/nccl_choices.py" "$RES"/system/nccl_debug_*.txt >"$RES/nccl_choices.csv"
  pack
fi

nvidia-smi -q -d CLOCK,PERFORMANCE,POWER >"$RES/system/clocks_end.txt" 2>&1
kill "$DMON" 2>/dev/null
pack
echo "=== done in ${SECONDS}s"
grep -h "VERIFY FAILED" "$OUT/log.txt" | sort | uniq -c | head -20
for f in "$RES"/*.csv; do echo "$(basename "$f"): $(grep -vc '^#' "$f") lines, ok=0 rows: $(grep -v '^#' "$f" | grep -c ',0$')"; done
sleep 1  # let tee flush the log
exit 0
