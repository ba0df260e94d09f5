#!/usr/bin/env python3
"""One attention forward call per PyTorch SDPA backend, for Nsight Compute (issue 15).

attention.csv's `flash` (FlashAttention-2, mma.sync) rows are 15-28 % slower on the H200 than
the model's tensor-pipe and operand-read times, and `efficient` (CUTLASS's memory-efficient
kernel) about 2x; this runs each backend once on (B, H, S, D) = (4, 16, 4096, 128), bf16, after
warm-up, between cudaProfilerStart and cudaProfilerStop, so that

  ncu --clock-control none --profile-from-start off --section ... python3 attention_ncu.py

profiles exactly one launch of each attention kernel (and any helper kernel the backend
launches) at the GPU's own clocks. It checks nothing itself: attention.py verifies the outputs.
"""
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

BACKENDS = [("flash", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION),
            ("efficient", SDPBackend.EFFICIENT_ATTENTION)]


def main():
    torch.manual_seed(0)
    b, h, s, d = 4, 16, 4096, 128
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    for _, backend in BACKENDS:
        with sdpa_kernel(backend):
            for _ in range(3):
                F.scaled_dot_product_attention(q, k, v)
    torch.cuda.synchronize()
    torch.cuda.profiler.start()
    for name, backend in BACKENDS:
        with sdpa_kernel(backend):
            F.scaled_dot_product_attention(q, k, v)
        torch.cuda.synchronize()
        print(f"ran {name}", flush=True)
    torch.cuda.profiler.stop()


if __name__ == "__main__":
    main()
