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
# sustained work, how fast the clock comes down, bf16 against fp8 GEMMs cool and sustained; power
# and power_fp8 with the SM clock by a probe kernel beside each batch since session 39),
# memcpy_local (device-local copies by size, warm and with the L2 overwritten first, a write-only
# kernel, and whether a copy needs SMs), sm_pipes (the SFU, FP32
# and INT32 pipes' rates per SM), tensor_pipes (issue 15: wgmma and mma.sync in bf16 and fp8, per
# SM cycle, and mma.sync with operands through shared memory by ldmatrix), stream_wake (issue 9:
# what a stream blocked on another stream's event costs the GPU), membound (issue 15: elementwise
# copy / add / triad kernels by size, launched flat or grid-stride), small_kernel (issues 9 and 15:
# a small kernel's time between events by the work before it, split into its own span and the
# rest), event_gap (issues 9 and 15: the GPU time timing events and small copies add between
# queued work), host_memcpy (issue 9: the host cost of device-to-device cudaMemcpyAsync by pointer
# reuse, batch and size), nccl_host (issue 10: NCCL's host cost per call on a one-rank communicator, beside the
# CUDA calls the host model charges for it), attention (issue 15: PyTorch's attention backends,
# FlashAttention-2, cuDNN and the memory-efficient kernel, by shape: validate/torch/attention.py),
# attention_clock (the SM clock the attention kernels run at, by a probe kernel, against NVML's),
# sm_groups (issue 9: an SM's L2 re-read rate and fence cost beside other SMs chosen by %smid),
# fence_warps (issue 9: fences by warps of one SM out of step, with a timeline of each warp's),
# launch (launch.cu on GPU 0: the launch modes of launch.csv on this host), host_again (host_api,
# memcpy_local and launch once more into again/: the same host minutes later), hbm_mix (issue 9:
# HBM under reads and writes together, copies by access pattern and CTAs split between the two),
# hbm_turnaround (issue 9: one CTA's load latency beside other SMs streaming reads, writes or
# copies: what written bytes do to reads' wait),
# mlp_warps (issue 9: mlp.cu --warps, one or two CTAs of 1-8 warps by width and unroll),
# gemm_probe (issue 15: gemm.csv's shapes through cuBLAS in bf16 and fp8 with the SM clock they
# ran at, by a probe kernel: validate/torch/gemm_clock.py --shapes), gemm_cu_probe (gemm.cu --probe:
# gemm.csv's own program with the probe beside each call), probe_check (issue 15: the probe's
# timer and its readings alone and beside FMA load, against NVML);
# MEASURE_ONLY="..." picks some.
# Results: $OUT/results.tar.gz (folder h200-single/, or h100-single/ when the GPU is an H100: one CSV per program plus system/*.txt) and
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
# The device tool may hand out an H100 for an H200: the folder says which GPU measured.
case "$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)" in
  *H100*) SET=h100-single ;;
  *) SET=h200-single ;;
esac
RES=$STAGE/$SET
mkdir -p "$RES/system"
exec > >(tee -a "$OUT/log.txt") 2>&1
DEADLINE=${MEASURE_DEADLINE_S:-560}  # seconds after start; the device tool stops a command at 600

pack() {
  cp "$OUT/log.txt" "$RES/system/run_log.txt" 2>/dev/null
  tar -czf "$OUT/results.tar.gz.tmp" -C "$STAGE" "$SET" && mv "$OUT/results.tar.gz.tmp" "$OUT/results.tar.gz"
}

STEP_STDOUT=1
# step NAME LIMIT_S CMD... (scripts/measure_step.sh)
. "$(dirname "$0")/measure_step.sh"

echo "=== system $(date -u +%FT%TZ)"
nvidia-smi >"$RES/system/nvidia-smi.txt" 2>&1
nvidia-smi -q -d CLOCK,PERFORMANCE,POWER >"$RES/system/clocks_start.txt" 2>&1
nvidia-smi --query-gpu=index,name,uuid,serial,pci.bus_id,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,power.limit \
  --format=csv >"$RES/system/gpus.txt" 2>&1
{ nvcc --version; cmake --version | head -1; uname -r; nproc; lscpu 2>/dev/null | grep -E "Model name|^CPU\(s\)|MHz"; } \
  >"$RES/system/toolchain.txt" 2>&1
cat "$RES/system/gpus.txt" "$RES/system/toolchain.txt"
nvidia-smi dmon -s pc -d 1 -o T >"$RES/system/dmon.txt" 2>&1 &
DMON=$!

echo "=== build start $(date -u +%H:%M:%S)"
t0=$SECONDS
BIN=$REPO/build-cuda-single
# NCCL from PyTorch's wheel (nccl_host); without it that one program is skipped.
NCCL_ROOT=$(python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0])' 2>/dev/null || true)
echo "NCCL_ROOT=${NCCL_ROOT:-none}"
[ -n "$NCCL_ROOT" ] && export NCCL_ROOT LD_LIBRARY_PATH=$NCCL_ROOT/lib:${LD_LIBRARY_PATH:-}
cmake -S validate/cuda -B "$BIN" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  >"$RES/system/build.txt" 2>&1
# MEASURE_BUILD="..." builds only those programs (a short run's build minutes are device time).
ninja -C "$BIN" -k 0 ${MEASURE_BUILD:-probe_check gemm host_api mlp tma_local sync_prims sm_groups fence_warps sm_share intra_sm peer_sync power memcpy_local sm_pipes tensor_pipes stream_wake membound small_kernel event_gap host_memcpy nccl_host launch hbm_mix hbm_turnaround} >>"$RES/system/build.txt" 2>&1
echo "=== build rc=$? in $((SECONDS - t0))s"
grep -iE "error|warning" "$RES/system/build.txt" | head -20
# The TMA program must really use the bulk-copy unit (UBLKCP) and mbarriers (SYNCS); the mlp
# kernels' loads must be 32-, 64- and 128-bit; the sync program's fences are MEMBARs.
# The FMA loops (sm_share, intra_sm) must be FFMAs executed by every thread.
for p in tma_local intra_sm mlp sync_prims sm_groups fence_warps sm_share sm_pipes tensor_pipes hbm_turnaround; do
  cuobjdump -sass "$BIN/$p" 2>/dev/null |
    grep -oE "UBLKCP[.A-Z0-9]*|SYNCS[.A-Z0-9]*|LDG[.A-Z0-9]*|STG[.A-Z0-9]*|MEMBAR[.A-Z0-9]*|FENCE[.A-Z0-9]*|RED[.A-Z0-9]*|ATOM[.A-Z0-9]*|ATOMG[.A-Z0-9]*|ERRBAR|CCTL[.A-Z0-9]*|FFMA|[HQ]MMA[.A-Z0-9]*|HGMMA[.A-Za-z0-9]*|MUFU[.A-Z0-9]*|IMAD[.A-Z0-9]*" |
    sort | uniq -c >"$RES/system/sass_$p.txt"
  echo "--- sass $p"
  cat "$RES/system/sass_$p.txt"
done
# tensor_pipes: the MMA instructions of each kernel (wgmma -> HGMMA; mma.sync bf16 -> HMMA;
# mma.sync e4m3 -> QMMA where the GPU has it).
cuobjdump -sass "$BIN/tensor_pipes" 2>/dev/null |
  awk '/Function :/ {f=$3} match($0, /[HQ]G?MMA[.A-Za-z0-9]*|LDSM[.A-Za-z0-9]*/) {n[f" "substr($0, RSTART, RLENGTH)]++}
       END {for (k in n) print n[k], k}' | sort -k2 >"$RES/system/sass_tensor_pipes_by_kernel.txt"
cat "$RES/system/sass_tensor_pipes_by_kernel.txt"
# The mma.sync kernels' MMA, unpack (F2FP), FADD and loop instructions: sm_90 runs e4m3
# mma.sync as f16 HMMAs on unpacked operands.
cuobjdump -sass "$BIN/tensor_pipes" 2>/dev/null |
  awk '/Function :/ {print; p = ($3 ~ /mma_(ldsm_)?kernel/)} p && /MMA|LDSM|BRA|F2FP|FADD|ISETP/' |
  sed 's#/\* 0x[0-9a-f]* \*/##; s/ *$//' >"$RES/system/sass_tensor_pipes_mma_sync.txt"
pack

step host_api 120 "$BIN/host_api" --out .
step mlp 200 "$BIN/mlp" --out .
step mlp_warps 120 "$BIN/mlp" --out . --warps
step tma_local 120 "$BIN/tma_local" --out .
step sync_prims 90 "$BIN/sync_prims" --out .
step sm_groups 60 "$BIN/sm_groups" --out .
step fence_warps 60 "$BIN/fence_warps" --out .
step sm_share 60 "$BIN/sm_share" --out .
step intra_sm 60 "$BIN/intra_sm" --out .
step host_api_library 60 "$BIN/host_api" --out . --library
step power 240 "$BIN/power" --out .
step power_ramp 120 "$BIN/power" --out . --ramp
step power_fp8 300 "$BIN/power" --out . --fp8
step memcpy_local 120 "$BIN/memcpy_local" --out .
step sm_pipes 60 "$BIN/sm_pipes" --out .
step tensor_pipes 60 "$BIN/tensor_pipes" --out .
step stream_wake 60 "$BIN/stream_wake" --out .
step membound 120 "$BIN/membound" --out .
step small_kernel 60 "$BIN/small_kernel" --out .
step event_gap 60 "$BIN/event_gap" --out .
step host_memcpy 60 "$BIN/host_memcpy" --out .
step nccl_host 90 "$BIN/nccl_host" --out .
step launch 120 "$BIN/launch" --out .
step hbm_mix 120 "$BIN/hbm_mix" --out .
step hbm_turnaround 60 "$BIN/hbm_turnaround" --out .
mkdir -p "$RES/again"
step host_again 200 sh -c "'$BIN/host_api' --out again && '$BIN/memcpy_local' --out again && '$BIN/launch' --out again"
step attention 450 env PYTHONUNBUFFERED=1 python3 "$REPO/validate/torch/attention.py" --out .
step gemm_cu_probe 120 "$BIN/gemm" --out . --probe
step gemm_probe 240 env PYTHONUNBUFFERED=1 python3 "$REPO/validate/torch/gemm_clock.py" --out . \
  --shapes "$REPO/validate/data/h200/gemm.csv" --fp8
step probe_check 60 "$BIN/probe_check" --out .
step attention_clock 120 env PYTHONUNBUFFERED=1 python3 "$REPO/validate/torch/attention_clock.py" --out .

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
