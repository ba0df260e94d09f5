#!/usr/bin/env bash
# Builds validate/cuda and runs the single-GPU measurements of issue 9 (the fine-grained regime:
# host API costs, memory-level parallelism, local TMA, fences/flags/atomics, SM sharing, intra-SM
# copy warps) in one go, on one H200.
#
# Run through the device tool on kind nvidia-h200 from any folder that holds validate/cuda (the
# repository root, or a copy of validate/cuda and scripts/ sent with `carry`):
#   run(kind="nvidia-h200", timeout_s=600, command="bash scripts/measure_h200_single.sh")
# Steps: host_api mlp tma_local sync_prims sm_share intra_sm host_api_library (NCCL's other host calls,
# host_api.cu --library), power, power_ramp and power_fp8 (issue 15: power and clocks under
# sustained work, how fast the clock comes down, bf16 against fp8 GEMMs cool and sustained),
# memcpy_local (device-local copies by size, and whether they need SMs), sm_pipes (the SFU, FP32
# and INT32 pipes' rates per SM);
# MEASURE_ONLY="..." picks some.
# Results: $OUT/results.tar.gz (folder h200-single/: one CSV per program plus system/*.txt) and
# $OUT/log.txt. The tarball is rewritten after every program, so a run cut short still returns
# what finished. Unpack into validate/data/ and commit; validate/data/h200-single/README.md says
# what is what. The peer-side program (peer_sync) needs 2 GPUs and is built but not run here.
set -u -o pipefail

# NVLink multicast (NVLS) must stay off on these shared machines; nothing here uses multimem.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export MGSIM_LAUNCHED_BY="scripts/measure_h200_single.sh (device tool, nvidia-h200)"
export PATH=/usr/local/cuda/bin:$PATH

REPO=$(pwd)
OUT=${OUT:-$REPO/measure-out}
mkdir -p "$OUT"
STAGE=$(mktemp -d)
RES=$STAGE/h200-single
mkdir -p "$RES/system"
exec > >(tee -a "$OUT/log.txt") 2>&1
DEADLINE=${MEASURE_DEADLINE_S:-560}  # seconds after start; the device tool stops a command at 600

pack() {
  cp "$OUT/log.txt" "$RES/system/run_log.txt" 2>/dev/null
  tar -czf "$OUT/results.tar.gz.tmp" -C "$STAGE" h200-single && mv "$OUT/results.tar.gz.tmp" "$OUT/results.tar.gz"
}

STEP_STDOUT=1
# step NAME LIMIT_S CMD... (scripts/measure_step.sh)
. "$(dirname "$0")/measure_step.sh"

echo "=== system $(date -u +%FT%TZ)"
nvidia-smi >"$RES/system/nvidia-smi.txt" 2>&1
nvidia-smi -q -d CLOCK,PERFORMANCE,POWER >"$RES/system/clocks_start.txt" 2>&1
nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,power.limit \
  --format=csv >"$RES/system/gpus.txt" 2>&1
{ nvcc --version; cmake --version | head -1; uname -r; nproc; lscpu 2>/dev/null | grep -E "Model name|^CPU\(s\)|MHz"; } \
  >"$RES/system/toolchain.txt" 2>&1
cat "$RES/system/gpus.txt" "$RES/system/toolchain.txt"
nvidia-smi dmon -s pc -d 1 -o T >"$RES/system/dmon.txt" 2>&1 &
DMON=$!

echo "=== build start $(date -u +%H:%M:%S)"
t0=$SECONDS
BIN=$REPO/build-cuda-single
cmake -S validate/cuda -B "$BIN" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  >"$RES/system/build.txt" 2>&1
ninja -C "$BIN" -k 0 host_api mlp tma_local sync_prims sm_share intra_sm peer_sync power memcpy_local sm_pipes >>"$RES/system/build.txt" 2>&1
echo "=== build rc=$? in $((SECONDS - t0))s"
grep -iE "error|warning" "$RES/system/build.txt" | head -20
# The TMA program must really use the bulk-copy unit (UBLKCP) and mbarriers (SYNCS); the mlp
# kernels' loads must be 32-, 64- and 128-bit; the sync program's fences are MEMBARs.
# The FMA loops (sm_share, intra_sm) must be FFMAs executed by every thread.
for p in tma_local intra_sm mlp sync_prims sm_share sm_pipes; do
  cuobjdump -sass "$BIN/$p" 2>/dev/null |
    grep -oE "UBLKCP[.A-Z0-9]*|SYNCS[.A-Z0-9]*|LDG[.A-Z0-9]*|STG[.A-Z0-9]*|MEMBAR[.A-Z0-9]*|FENCE[.A-Z0-9]*|RED[.A-Z0-9]*|ATOM[.A-Z0-9]*|ATOMG[.A-Z0-9]*|ERRBAR|CCTL[.A-Z0-9]*|FFMA|HMMA[.A-Z0-9]*|MUFU[.A-Z0-9]*|IMAD[.A-Z0-9]*" |
    sort | uniq -c >"$RES/system/sass_$p.txt"
  echo "--- sass $p"
  cat "$RES/system/sass_$p.txt"
done
pack

step host_api 120 "$BIN/host_api" --out .
step mlp 200 "$BIN/mlp" --out .
step tma_local 120 "$BIN/tma_local" --out .
step sync_prims 60 "$BIN/sync_prims" --out .
step sm_share 60 "$BIN/sm_share" --out .
step intra_sm 60 "$BIN/intra_sm" --out .
step host_api_library 60 "$BIN/host_api" --out . --library
step power 240 "$BIN/power" --out .
step power_ramp 120 "$BIN/power" --out . --ramp
step power_fp8 300 "$BIN/power" --out . --fp8
step memcpy_local 120 "$BIN/memcpy_local" --out .
step sm_pipes 60 "$BIN/sm_pipes" --out .

nvidia-smi -q -d CLOCK,PERFORMANCE,POWER >"$RES/system/clocks_end.txt" 2>&1
kill "$DMON" 2>/dev/null
echo "=== done in ${SECONDS}s"
grep -h "VERIFY FAILED" "$OUT/log.txt" "$RES"/system/stdout_*.txt 2>/dev/null | sort | uniq -c | head -20
for f in "$RES"/*.csv; do
  [ -e "$f" ] || continue
  echo "$(basename "$f"): $(grep -vc '^#' "$f") lines, ok=0 rows: $(grep -v '^#' "$f" | grep -c ',0$')"
done
pack
sleep 1  # let tee flush the log
exit 0
