// bf16 GEMM helpers shared by gemm.cu and overlap.cu: random inputs that the host can recompute
// without copying them back, the cuBLAS call, and a sampled check against a float64 reference.
//
// Layout (row-major words): C[M x N] = A[M x K] * B[N x K]^T, all K-contiguous ("TN"), bf16
// inputs and output, fp32 accumulation. Rows of A and C are contiguous, so a GEMM on a block of
// rows is the same call on offset pointers (what the chunked overlap schedules need).
#pragma once

#include <tuple>
#include <vector>

#include <cublas_v2.h>
#include <cuda_bf16.h>

#include "common.cuh"

#define CUBLAS_CHECK(call)                                                                        \
  do {                                                                                            \
    cublasStatus_t st_ = (call);                                                                  \
    if (st_ != CUBLAS_STATUS_SUCCESS) {                                                           \
      std::fprintf(stderr, "%s:%d: %s failed: status %d\n", __FILE__, __LINE__, #call, int(st_)); \
      std::exit(2);                                                                               \
    }                                                                                             \
  } while (0)

namespace mgbench {

using bf16 = __nv_bfloat16;

// Uniform in [-1, 1) from a 64-bit element index: a 32-bit integer hash, then an exact float
// conversion (24 significant bits), so host and device produce the same float.
__host__ __device__ inline float hash_unit(uint64_t idx, uint32_t seed) {
  uint32_t x = uint32_t(idx) * 0x9E3779B1u ^ uint32_t(idx >> 32) * 0x85EBCA77u ^ seed;
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return float(x >> 8) * (2.0f / 16777216.0f) - 1.0f;
}

// Round-to-nearest-even float -> bf16 -> float on the host, as __float2bfloat16_rn does.
inline float host_bf16_round(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u += 0x7FFFu + ((u >> 16) & 1u);
  u &= 0xFFFF0000u;
  std::memcpy(&f, &u, 4);
  return f;
}

// Element (r, c) of a logical matrix with global leading dimension ld_global; the buffer holds the
// block of rows x cols starting at (row0, col0), stored contiguously with leading dimension cols.
__global__ void fill_bf16_kernel(bf16* p, size_t rows, size_t cols, size_t row0, size_t col0,
                                 size_t ld_global, uint32_t seed) {
  size_t n = rows * cols;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    size_t r = i / cols, c = i % cols;
    p[i] = __float2bfloat16_rn(hash_unit((row0 + r) * ld_global + col0 + c, seed));
  }
}

inline void fill_bf16(int device, bf16* p, size_t rows, size_t cols, size_t row0, size_t col0,
                      size_t ld_global, uint32_t seed) {
  DeviceScope ds(device);
  fill_bf16_kernel<<<2048, 256>>>(p, rows, cols, row0, col0, ld_global, seed);
  LAUNCH_CHECK();
  CUDA_CHECK(cudaDeviceSynchronize());
}

// C[M x N] (leading dimension ldc) = A[M x K] * B[N x K]^T on `stream`.
inline void gemm_bf16(cublasHandle_t h, cudaStream_t stream, int M, int N, int K, const bf16* A,
                      const bf16* B, bf16* C, int ldc) {
  const float one = 1.0f, zero = 0.0f;
  CUBLAS_CHECK(cublasSetStream(h, stream));
  // cuBLAS is column-major: compute C^T (N x M) = B (N x K, "T" of a K x N column-major) * A^T.
  CUBLAS_CHECK(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, B, CUDA_R_16BF, K, A,
                            CUDA_R_16BF, K, &zero, C, CUDA_R_16BF, ldc, CUBLAS_COMPUTE_32F,
                            CUBLAS_GEMM_DEFAULT));
}

// The logical problem a check compares against: A_global[i][k] = hash(i * K + k, seed_a),
// B_global[j][k] = hash(j * K + k, seed_b), over the full K.
struct GemmRef {
  size_t K;
  uint32_t seed_a, seed_b;
  float (*round)(float) = host_bf16_round;  // the operands' type, as the fill rounded them
  double at(size_t i, size_t j) const {
    double acc = 0;
    for (size_t k = 0; k < K; ++k)
      acc +=
          double(round(hash_unit(i * K + k, seed_a))) * double(round(hash_unit(j * K + k, seed_b)));
    return acc;
  }
};

// Compares `samples` entries of a device C block against the reference. c_row0/c_col0 place the
// block in the logical C; the block is c_rows x c_cols with leading dimension ldc. Returns 1 when
// ||out - ref|| / ||ref|| < 1e-2 over the samples (bf16 output rounding gives ~2e-3) and no sample
// is NaN (the poison), else prints why and returns 0.
inline int check_gemm(int device, const bf16* C, size_t c_rows, size_t c_cols, size_t ldc,
                      size_t c_row0, size_t c_col0, const GemmRef& ref, int samples = 48) {
  DeviceScope ds(device);
  double num = 0, den = 0;
  uint64_t state = 0x9E3779B97F4A7C15ull ^ (c_rows * 31 + c_cols);
  for (int s = 0; s < samples; ++s) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    size_t r = size_t(state >> 33) % c_rows;
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    size_t c = size_t(state >> 33) % c_cols;
    if (s == 0) r = 0, c = 0;  // the corners catch off-by-one blocks
    if (s == 1) r = c_rows - 1, c = c_cols - 1;
    bf16 v;
    CUDA_CHECK(cudaMemcpy(&v, C + r * ldc + c, sizeof v, cudaMemcpyDeviceToHost));
    double got = double(__bfloat162float(v));
    double want = ref.at(c_row0 + r, c_col0 + c);
    if (std::isnan(got)) {
      std::fprintf(stderr, "VERIFY FAILED: gemm C[%zu][%zu] is NaN (unwritten)\n", c_row0 + r,
                   c_col0 + c);
      return 0;
    }
    num += (got - want) * (got - want);
    den += want * want;
  }
  double rel = std::sqrt(num / std::max(den, 1e-30));
  if (!(rel < 1e-2)) {
    std::fprintf(stderr, "VERIFY FAILED: gemm relative error %.3e\n", rel);
    return 0;
  }
  return 1;
}

// Operand buffers large enough for every (m, n, k) of `shapes`: A[m x k], B[n x k], C[m x n].
struct GemmBuffers {
  bf16 *a = nullptr, *b = nullptr, *c = nullptr;
};

inline GemmBuffers alloc_gemm_buffers(int device,
                                      const std::vector<std::tuple<int, int, int>>& shapes) {
  size_t max_a = 0, max_b = 0, max_c = 0;
  for (auto [m, n, k] : shapes) {
    max_a = std::max(max_a, size_t(m) * k);
    max_b = std::max(max_b, size_t(n) * k);
    max_c = std::max(max_c, size_t(m) * n);
  }
  return {static_cast<bf16*>(device_alloc(device, max_a * sizeof(bf16))),
          static_cast<bf16*>(device_alloc(device, max_b * sizeof(bf16))),
          static_cast<bf16*>(device_alloc(device, max_c * sizeof(bf16)))};
}

inline void free_gemm_buffers(const GemmBuffers& g) {
  CUDA_CHECK(cudaFree(g.a));
  CUDA_CHECK(cudaFree(g.b));
  CUDA_CHECK(cudaFree(g.c));
}

inline std::string cublas_version_string(cublasHandle_t h) {
  int v = 0;
  CUBLAS_CHECK(cublasGetVersion(h, &v));
  return std::to_string(v);
}

}  // namespace mgbench
