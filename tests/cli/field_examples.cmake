# Examples of the field (examples/field/): each pinned to the picosecond, so a model
# change that moves one fails here and must say why. Included from tests/cli/CMakeLists.txt
# (mgsim_cli_test is defined there). Where a number is simple enough it is derived; the others
# are the simulator's output, checked against their roofline (printed by `mgsim run`) when pinned.

# ParallelKittens Table 3 (docs/VALIDATION.md, "A paper's table"): K = 512, 2048, 8192 of both schedules on
# dgx-h100-8 with the h100 preset. The paper's times are 2.071 / 5.567 / 23.285 ms (GEMM) and
# 6.483 / 7.531 / 25.325 ms (GEMM+RS); the misses are explained in docs/VALIDATION.md, "A paper's table".
# GEMM+RS at K <= 2048 is NVLink-bound: 7/8 x 2 GiB of TMA store-adds at the TMA peer rate
# 350.01 GB/s x tma.reduce_efficiency 0.9008 = 315.29 GB/s = 5.96 ms (its bound) plus the first
# tiles; at K = 8192 the communication hides under the GEMM (GEMM+RS is the GEMM plus the last
# tiles' store-adds).
mgsim_cli_test(field.pk_gemm.K512 0 "total: 1814.291426 us (1814291426 ps)"
  run examples/field/pk_gemm.yaml --topology dgx-h100-8 --hw h100 -D K=512)
mgsim_cli_test(field.pk_gemm.K2048 0 "total: 5989.588487 us (5989588487 ps)"
  run examples/field/pk_gemm.yaml --topology dgx-h100-8 --hw h100 -D K=2048)
mgsim_cli_test(field.pk_gemm.K8192 0 "total: 22690.776231 us (22690776231 ps)"
  run examples/field/pk_gemm.yaml --topology dgx-h100-8 --hw h100 -D K=8192)
mgsim_cli_test(field.pk_gemm_rs.K512 0 "total: 6420.624156 us (6420624156 ps)"
  run examples/field/pk_gemm_rs.yaml --topology dgx-h100-8 --hw h100 -D K=512)
mgsim_cli_test(field.pk_gemm_rs.K2048 0 "total: 6437.405880 us (6437405880 ps)"
  run examples/field/pk_gemm_rs.yaml --topology dgx-h100-8 --hw h100 -D K=2048)
mgsim_cli_test(field.pk_gemm_rs.K8192 0 "total: 22488.875993 us (22488875993 ps)"
  run examples/field/pk_gemm_rs.yaml --topology dgx-h100-8 --hw h100 -D K=8192)
set_tests_properties(cli.field.pk_gemm.K512 cli.field.pk_gemm.K2048 cli.field.pk_gemm.K8192
  cli.field.pk_gemm_rs.K512 cli.field.pk_gemm_rs.K2048 cli.field.pk_gemm_rs.K8192
  PROPERTIES TIMEOUT 120)

# All-gather + GEMM three ways, M = 16384 gathered rows, N = K = 4096, on hgx-h200-8. All three
# are bound by the L2 of each GPU: it carries (128 + 256) x 4096 x 2 B per tile x 2048 tiles =
# 6442450944 B of operand loads and what the GPU's SMs store locally (stores cross the L2 too):
# the C tiles, 16384 x 4096 x 2 B (708.787683 us at 9278.757 GB/s, the copy-engine and inter-SM
# runs), and in the sequential run the ring's writes of the gathered rows as much again
# (723.253179 us). Sequential (ring all-gather, then the
# GEMM) is slowest; copy engines overlapped with per-shard GEMMs (G's
# examples/kernels/ag_gemm_copy_engine.yaml) keep all SMs for math and win at this size (each
# shard is 256 tiles, 1.9 waves); inter-SM (G's ag_gemm_inter_sm.yaml) gives 16 SMs to TMA pushes.
mgsim_cli_test(field.ag_gemm.collective 0 "total: 1122.620585 us (1122620585 ps)"
  run examples/field/ag_gemm_collective.yaml --topology hgx-h200-8)
mgsim_cli_test(field.ag_gemm.collective.bound 0
  "bound: 723.253179 us (723253179 ps), bottleneck gpu0.l2 (l2)"
  run examples/field/ag_gemm_collective.yaml --topology hgx-h200-8)
mgsim_cli_test(field.ag_gemm.copy_engine 0 "total: 760.272048 us (760272048 ps)"
  run examples/kernels/ag_gemm_copy_engine.yaml --topology hgx-h200-8 -D M=16384)
mgsim_cli_test(field.ag_gemm.inter_sm 0 "total: 986.094720 us (986094720 ps)"
  run examples/kernels/ag_gemm_inter_sm.yaml --topology hgx-h200-8 -D M=16384)

# GEMM + all-reduce, inter-SM, NVSwitch in-network reduction (4096 x 4096 x 2048 per rank).
mgsim_cli_test(field.gemm_ar_multimem 0 "total: 210.034352 us (210034352 ps)"
  run examples/field/gemm_ar_multimem.yaml --topology hgx-h200-8)

# All-reduce of 4 MiB: NCCL (host collective, its NVLS: 28.14 us, pinned in tests/cli/CMakeLists.txt as
# example.all_reduce_ring.cli_sweep), one-shot ld/st (G's examples/kernels/, 102.47 us), two-shot
# ld/st (here), NVLS (G's examples/kernels/all_reduce_nvls.yaml at 4 MiB, here).
mgsim_cli_test(field.all_reduce_twoshot_ldst 0 "total: 37.638571 us (37638571 ps)"
  run examples/field/all_reduce_twoshot_ldst.yaml --topology hgx-h200-8)
mgsim_cli_test(field.all_reduce_nvls_4mib 0 "total: 32.174014 us (32174014 ps)"
  run examples/kernels/all_reduce_nvls.yaml --topology hgx-h200-8 -D SIZE=4MiB)
# NVLS's bound: each CTA of 132 handles 4 MiB / 8 / 132 = 3971 B (integer division) of a slice;
# each GPU's ld/st ingress port receives the sum of its own slice and the multicast of all 8
# GPUs' (its own included): 9 x 132 x 3971 = 4717548 B at 450 GB/s x 0.8196 x 0.929125 =
# 342.68 GB/s = 13.766633 us.
mgsim_cli_test(field.all_reduce_nvls_4mib.bound 0
  "bound: 13.766633 us (13766633 ps), bottleneck gpu0.ldst.peer.in (peer_in)"
  run examples/kernels/all_reduce_nvls.yaml --topology hgx-h200-8 -D SIZE=4MiB)

# Sequence parallel attention, S = 32768, 8 heads of 128: ring (KV blocks by copy engine,
# overlapped) and Ulysses (all-to-all, attention, all-to-all).
mgsim_cli_test(field.ring_attention 0 "total: 679.475112 us (679475112 ps)"
  run examples/field/ring_attention.yaml --topology hgx-h200-8)
mgsim_cli_test(field.ulysses_attention 0 "total: 760.607616 us (760607616 ps)"
  run examples/field/ulysses_attention.yaml --topology hgx-h200-8)

# MoE dispatch and combine: 4096 tokens x 4096 hidden per rank, top-4 of 64 experts. The bound is
# the L2: the experts' GEMMs carry 6442450944 B of operand loads and 234881024 B of tiles their
# SMs store locally (stores cross the L2 too) at 9278.757 GB/s = 719.636471 us, just above the
# TMA peer ingress: each rank receives 7 x 16 MiB in the dispatch and again in the combine,
# 234881024 B at (0.949 x 0.8196 = 0.7778004) x 450 GB/s = 350.01018 GB/s = 671.068482 us.
mgsim_cli_test(field.moe_dispatch_combine 0 "total: 1482.408792 us (1482408792 ps)"
  run examples/field/moe_dispatch_combine.yaml --topology hgx-h200-8)
mgsim_cli_test(field.moe_dispatch_combine.bound 0
  "bound: 719.636471 us (719636471 ps), bottleneck gpu0.l2 (l2)"
  run examples/field/moe_dispatch_combine.yaml --topology hgx-h200-8)
