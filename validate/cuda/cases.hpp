// The 2-GPU overlap cases (overlap.cu), shared with gemm.cu so that every GEMM shape the overlapped
// schedules run (whole and per chunk) is also measured alone in gemm.csv.
#pragma once

#include <vector>

namespace mgbench {

constexpr int kWorld = 2;

// All-gather GEMM: A[M x K] is sharded by rows (M/world each) and all-gathered; each rank holds
// the columns N_local of B and computes C[M x N_local] = A * B_r^T.
struct AgGemmCase {
  int m_total, n_local, k;
};
inline std::vector<AgGemmCase> ag_gemm_cases() {
  return {{8192, 4096, 8192}, {16384, 2048, 8192}, {16384, 8192, 8192}};
}

// GEMM reduce-scatter: each rank holds K/world of A's columns and B's; it computes the partial
// C[M x N] = A_r * B_r^T and the partials are summed, rank r keeping rows [r M/world, (r+1)
// M/world).
struct GemmRsCase {
  int m_total, n, k_total;
};
inline std::vector<GemmRsCase> gemm_rs_cases() {
  return {{8192, 8192, 8192}, {16384, 8192, 8192}, {16384, 4096, 16384}};
}

// Chunks per peer shard in the overlapped schedules.
inline std::vector<int> overlap_chunks() { return {1, 2, 4, 8}; }

}  // namespace mgbench
