// Per-SM throughput of the tensor pipes by instruction class and data type on GPU 0
// (tensor_pipes.csv, issue 15): Hopper's asynchronous warpgroup MMA (wgmma.mma_async, operand A
// from shared memory or from registers, B from shared memory) against the Ampere-style warp MMA
// (mma.sync, every operand in registers), in bf16 and fp8 (e4m3), and mma.sync in f16 too, fp32
// accumulate; dense flops per SM clock cycle.
//
// wgmma: one CTA per SM of 1 or 2 warpgroups; each warpgroup issues `kBatch` m64n256 wgmmas on
// one accumulator (128 fp32 registers a thread) between a fence and a commit, then waits for them,
// `kWgIters` times. A and B are K-major tiles in shared memory without swizzle (descriptors with
// 128-byte leading and 256-byte stride offsets), filled with small values; the RS rows take A
// from four registers a thread. mma.sync: one CTA of 256 or 1024 threads per SM; each warp runs
// `kChains` independent accumulators through m16n8k16 (bf16, f16) or m16n8k32 (e4m3), `kMmaIters`
// times, each chain with its own A registers; `r_ldsm` rows load B from shared memory by ldmatrix
// before every MMA (FlashAttention-2's pattern), `r_ldsm_reuse<k>` once per k MMAs, `ldsm_ldsm`
// A as well; the `ldmatrix` row loads alone (shared memory's rate). smem_bytes_per_sm counts the
// bytes ldmatrix reads on one SM. Flops per instruction: 2 m n k. Cycles from
// clock64() read by every CTA at its start and end (one CTA per SM: the slowest CTA's span); the
// accumulators are written out. The kernels are built for sm_90a (wgmma needs it); the script logs
// the SASS instruction counts (HGMMA, QGMMA, HMMA). Each row is the median of 9 launches after 2
// warm-ups.
#include "common.cuh"

using namespace mgbench;

namespace {

constexpr int kDev = 0;
constexpr int kBatch = 8;
constexpr int kWgIters = 256;
constexpr int kMmaIters = 2048;
constexpr int kChains = 4;
constexpr int kSmemBytes = 16 * 1024;  // A (2 KiB) and B (8 KiB) tiles, with room

#define D128                                                                                     \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                       \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "             \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "             \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "             \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "             \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "             \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
  "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
#define D128_OPERANDS                                                                             \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),    \
      "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]),  \
      "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]),  \
      "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),  \
      "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]),  \
      "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]),  \
      "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]),  \
      "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),  \
      "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]),  \
      "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]),  \
      "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]),  \
      "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]),  \
      "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]),  \
      "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]),          \
      "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]),         \
      "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]),         \
      "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]),         \
      "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
#define WGMMA_SS_BF16                                            \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"                  \
  "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {" D128 \
  "}, %128, %129, p, 1, 1, 0, 0;\n}\n"
#define WGMMA_RS_BF16                                            \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"                  \
  "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {" D128 \
  "}, {%128, %129, %130, %131}, %132, p, 1, 1, 0;\n}\n"
#define WGMMA_SS_E4M3                           \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n" \
  "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3 {" D128 "}, %128, %129, p, 1, 1;\n}\n"
#define WGMMA_RS_E4M3                                            \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"                  \
  "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3 {" D128 \
  "}, {%128, %129, %130, %131}, %132, p, 1, 1;\n}\n"

// A shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format"): start address >> 4,
// leading and stride byte offsets >> 4, no swizzle.
__device__ __forceinline__ unsigned long long desc(const void* smem) {
  const auto addr = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  return static_cast<unsigned long long>((addr & 0x3FFFF) >> 4) |
         (static_cast<unsigned long long>(128 >> 4) << 16) |
         (static_cast<unsigned long long>(256 >> 4) << 32);
}

enum class Kind { ss_bf16, rs_bf16, ss_e4m3, rs_e4m3 };

template <Kind kind>
__device__ __forceinline__ void wgmma(float (&d)[128], unsigned long long da, unsigned long long db,
                                      const unsigned (&a)[4]) {
  const int scale_d = 1;
  if constexpr (kind == Kind::ss_bf16)
    asm volatile(WGMMA_SS_BF16:D128_OPERANDS : "l"(da), "l"(db), "r"(scale_d));
  if constexpr (kind == Kind::ss_e4m3)
    asm volatile(WGMMA_SS_E4M3:D128_OPERANDS : "l"(da), "l"(db), "r"(scale_d));
  if constexpr (kind == Kind::rs_bf16)
    asm volatile(WGMMA_RS_BF16:D128_OPERANDS
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d));
  if constexpr (kind == Kind::rs_e4m3)
    asm volatile(WGMMA_RS_E4M3:D128_OPERANDS
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d));
}

template <Kind kind>
__global__ void __launch_bounds__(256, 1)
    wgmma_kernel(float* out, long long* t0, long long* t1, unsigned* smid) {
  __shared__ alignas(128) unsigned char smem[kSmemBytes];
  for (int i = threadIdx.x; i < kSmemBytes / 4; i += blockDim.x)
    reinterpret_cast<unsigned*>(smem)[i] = 0x3c003c00u ^ (unsigned(i) & 0x00030003u);
  __syncthreads();
  const long long start = clock64();
  float d[128];
#pragma unroll
  for (int i = 0; i < 128; ++i) d[i] = 0.f;
  const unsigned a[4] = {0x3c003c00u, 0x3c003c00u, 0x3c003c00u, 0x3c003c00u};
  const unsigned long long da = desc(smem), db = desc(smem + 2048);
  for (int it = 0; it < kWgIters; ++it) {
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
    for (int b = 0; b < kBatch; ++b) wgmma<kind>(d, da, db, a);
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  }
  float s = 0;
#pragma unroll
  for (int i = 0; i < 128; ++i) s += d[i];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
  record_cta_span(start, t0, t1, smid);
}

enum class MmaType { bf16, f16, e4m3 };

// One warp MMA into accumulator c: m16n8k16 (bf16, f16) or m16n8k32 (e4m3), fp32 accumulate; A
// is one register's value in all four A registers, B is b0 and b1.
template <MmaType type>
__device__ __forceinline__ void mma_sync(float (&c)[4], unsigned a, unsigned b0, unsigned b1) {
  if constexpr (type == MmaType::e4m3)
    asm volatile(
        "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a), "r"(a), "r"(a), "r"(a), "r"(b0), "r"(b1));
  else if constexpr (type == MmaType::f16)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a), "r"(a), "r"(a), "r"(a), "r"(b0), "r"(b1));
  else
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a), "r"(a), "r"(a), "r"(a), "r"(b0), "r"(b1));
}

// A warp's kChains independent accumulators, each with its own A (from the thread index, so not
// known to the compiler: ptxas merges chains with identical operands into one).
struct Chains {
  float c[kChains][4];
  unsigned a[kChains];
  __device__ Chains() {
#pragma unroll
    for (int k = 0; k < kChains; ++k) {
#pragma unroll
      for (int j = 0; j < 4; ++j) c[k][j] = 0.f;
      a[k] = 0x3c003c00u ^ ((threadIdx.x + 5u * k) & 0x00070007u);
    }
  }
  // Written out by the caller, so the compiler keeps the chains.
  __device__ float sum() const {
    float s = 0;
#pragma unroll
    for (int k = 0; k < kChains; ++k)
#pragma unroll
      for (int j = 0; j < 4; ++j) s += c[k][j];
    return s;
  }
};

template <MmaType type>
__global__ void __launch_bounds__(1024, 1)
    mma_kernel(float* out, long long* t0, long long* t1, unsigned* smid) {
  const long long start = clock64();
  Chains ch;
  const unsigned b0 = 0x3c003c00u;
  for (int it = 0; it < kMmaIters; ++it) {
#pragma unroll
    for (int k = 0; k < kChains; ++k) {
      // e4m3: A changes every iteration, or the whole path (sm_90 has no fp8 mma.sync: A and B
      // are unpacked to f16, multiplied into a zero accumulator by two HMMAs and added to the
      // chain with FADDs) is hoisted out of the loop. bf16 / f16 chain through the accumulator
      // and keep A fixed (an extra instruction per MMA here costs the HMMA rate 40 %).
      const unsigned a0 = type == MmaType::e4m3 ? ch.a[k] ^ (unsigned(it) & 0x00010001u) : ch.a[k];
      mma_sync<type>(ch.c[k], a0, b0, b0);
    }
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = ch.sum();
  record_cta_span(start, t0, t1, smid);
}

// One bf16 m16n8k16 warp MMA with A in four registers (a fragment loaded by ldmatrix .x4).
__device__ __forceinline__ void mma_bf16_a4(float (&c)[4], const unsigned (&a)[4], unsigned b0,
                                            unsigned b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

constexpr int kLdsmSmem = 16384;

// Fills the kernel's shared tile with small bf16 values and returns its shared-space address.
__device__ unsigned fill_ldsm_tile(unsigned char* smem) {
  for (int i = threadIdx.x; i < kLdsmSmem / 4; i += blockDim.x)
    reinterpret_cast<unsigned*>(smem)[i] = 0x3c003c00u ^ (unsigned(i) & 0x00070007u);
  __syncthreads();
  return static_cast<unsigned>(__cvta_generic_to_shared(smem));
}

// bf16 mma.sync with operands loaded from shared memory by ldmatrix, as FlashAttention-2 reads
// its K and V fragments: B (ldmatrix .x2: two 8 x 8 matrices, 256 B a warp) once per `kReuse`
// MMAs (a warp tile 16 x kReuse rows tall reuses each B fragment that often), and with `kLoadA`
// A too (ldmatrix .x4, 512 B a warp) before every MMA. Shared-memory bytes per MMA (4096 flops):
// 256 / kReuse, plus 512 with A. The addresses move every iteration (within 16 KiB), so the loads
// stay in the loop.
template <int kReuse, bool kLoadA>
__global__ void __launch_bounds__(1024, 1)
    mma_ldsm_kernel(float* out, long long* t0, long long* t1, unsigned* smid) {
  __shared__ alignas(128) unsigned char smem[kLdsmSmem];
  const unsigned tile = fill_ldsm_tile(smem);
  const long long start = clock64();
  Chains ch;
  // B: lanes 0-15 give the 16 row addresses of the two 8 x 8 matrices (16 B each, contiguous);
  // A: lanes 0-31 give the 32 row addresses of four.
  const unsigned base_b = tile + (threadIdx.x % 16) * 16;
  const unsigned base_a = tile + (threadIdx.x % 32) * 16;
  unsigned b0 = 0, b1 = 0;
  for (int it = 0; it < kMmaIters; ++it) {
#pragma unroll
    for (int k = 0; k < kChains; ++k) {
      const unsigned step = unsigned((it * kChains + k) & 31) * 512;
      if (k % kReuse == 0)
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
                     : "=r"(b0), "=r"(b1)
                     : "r"(base_b + step));
      if constexpr (kLoadA) {
        unsigned a[4];
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
                     : "r"(base_a + (step ^ 8192u)));
        mma_bf16_a4(ch.c[k], a, b0, b1);
      } else {
        mma_sync<MmaType::bf16>(ch.c[k], ch.a[k], b0, b1);
      }
    }
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = ch.sum();
  record_cta_span(start, t0, t1, smid);
}

// ldmatrix .x4 alone (512 B a warp each), kChains independent loads an iteration, folded into a
// register by XOR so they are kept: shared memory's read rate per SM through ldmatrix.
__global__ void __launch_bounds__(1024, 1)
    ldsm_only_kernel(float* out, long long* t0, long long* t1, unsigned* smid) {
  __shared__ alignas(128) unsigned char smem[kLdsmSmem];
  const unsigned tile = fill_ldsm_tile(smem);
  const long long start = clock64();
  const unsigned base = tile + (threadIdx.x % 32) * 16;
  unsigned acc = 0;
  for (int it = 0; it < kMmaIters; ++it) {
#pragma unroll
    for (int k = 0; k < kChains; ++k) {
      unsigned a[4];
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                   : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
                   : "r"(base + unsigned((it * kChains + k) & 15) * 512));
      acc ^= a[0] ^ a[1] ^ a[2] ^ a[3];
    }
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = float(acc & 0xffu);
  record_cta_span(start, t0, t1, smid);
}

}  // namespace

int main(int argc, char** argv) {
  CUDA_CHECK(cudaSetDevice(kDev));
  int sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, kDev));
  Csv csv(argc, argv, "tensor_pipes.csv",
          "Per-SM dense tensor throughput on GPU 0 by instruction class (wgmma SS / RS, mma.sync) "
          "and type (bf16, e4m3), fp32 accumulate: flops per SM clock cycle from clock64() spans",
          {kDev},
          {{"wgmma", "m64n256k16 (bf16) / m64n256k32 (e4m3), " + std::to_string(kBatch) +
                         " per commit, " + std::to_string(kWgIters) + " commits per warpgroup"},
           {"mma_sync", "m16n8k16 (bf16) / m16n8k32 (e4m3), " + std::to_string(kChains) +
                            " chains per warp, " + std::to_string(kMmaIters) + " iterations"}},
          "instr,operands,dtype,threads_per_cta,flops_per_sm,cycles_median,flops_per_cycle_median,"
          "flops_per_cycle_min,flops_per_cycle_max,us_median,clock_mhz_median,reps,ok,"
          "smem_bytes_per_sm,smem_bytes_per_cycle_median");
  const size_t max_threads = size_t(sms) * 1024;
  float* out = static_cast<float*>(device_alloc(kDev, sizeof(float) * max_threads));
  CtaSpans spans(kDev, sms);
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  EventPair ev(kDev);

  // smem_bytes_per_sm: what the kernel reads from shared memory by ldmatrix on one SM.
  auto measure = [&](const char* instr, const char* operands, const char* dtype, auto kernel,
                     int threads, double flops_per_sm, double smem_bytes_per_sm = 0) {
    std::vector<double> rates, cycles, times, mhz;
    int ok = 1;
    for (int rep = 0; rep < 11; ++rep) {
      ev.start(s);
      kernel<<<sms, threads, 0, s>>>(out, spans.t0(), spans.t1(), spans.smid());
      LAUNCH_CHECK();
      ev.stop(s);
      const double us = ev.elapsed_us();
      bool all = true;  // one CTA on every SM
      const long long span = spans.slowest_sm(sms, sms, 1, all);
      if (!all) ok = 0;
      if (rep < 2) continue;
      rates.push_back(flops_per_sm / double(span));
      cycles.push_back(double(span));
      times.push_back(us);
      mhz.push_back(double(span) / us);
    }
    std::vector<float> host(size_t(sms) * size_t(threads));
    CUDA_CHECK(cudaMemcpy(host.data(), out, sizeof(float) * host.size(), cudaMemcpyDeviceToHost));
    for (float v : host)
      if (!std::isfinite(v)) ok = 0;
    const Stats r = summarize(rates), c = summarize(cycles), t = summarize(times),
                f = summarize(mhz);
    csv.row("%s,%s,%s,%d,%.0f,%.0f,%.1f,%.1f,%.1f,%.3f,%.0f,%d,%d,%.0f,%.1f", instr, operands,
            dtype, threads, flops_per_sm, c.median, r.median, r.min, r.max, t.median, f.median, r.n,
            ok, smem_bytes_per_sm, smem_bytes_per_sm / c.median);
  };
  const double wg_flops = 2.0 * 64 * 256 * 16 * kBatch * kWgIters;  // per warpgroup, bf16
  for (int wgs : {1, 2}) {
    measure("wgmma", "ss", "bf16", wgmma_kernel<Kind::ss_bf16>, 128 * wgs, wgs * wg_flops);
    measure("wgmma", "rs", "bf16", wgmma_kernel<Kind::rs_bf16>, 128 * wgs, wgs * wg_flops);
    measure("wgmma", "ss", "e4m3", wgmma_kernel<Kind::ss_e4m3>, 128 * wgs, 2 * wgs * wg_flops);
    measure("wgmma", "rs", "e4m3", wgmma_kernel<Kind::rs_e4m3>, 128 * wgs, 2 * wgs * wg_flops);
  }
  const double mma_flops = 32.0 * kChains * kMmaIters * (2.0 * 16 * 8 * 16);  // per CTA, bf16
  for (int threads : {256, 1024}) {
    measure("mma_sync", "rr", "bf16", mma_kernel<MmaType::bf16>, threads,
            threads / 32 * mma_flops / 32);
    measure("mma_sync", "rr", "f16", mma_kernel<MmaType::f16>, threads,
            threads / 32 * mma_flops / 32);
    measure("mma_sync", "rr", "e4m3", mma_kernel<MmaType::e4m3>, threads,
            2 * threads / 32 * mma_flops / 32);
    // Per warp and MMA, 256 B of B over kReuse MMAs, + 512 B of A (ldsm_ldsm).
    const double mmas = threads / 32 * double(kChains) * kMmaIters;
    measure("mma_sync", "r_ldsm", "bf16", mma_ldsm_kernel<1, false>, threads,
            threads / 32 * mma_flops / 32, mmas * 256);
    measure("mma_sync", "r_ldsm_reuse2", "bf16", mma_ldsm_kernel<2, false>, threads,
            threads / 32 * mma_flops / 32, mmas * 128);
    measure("mma_sync", "r_ldsm_reuse4", "bf16", mma_ldsm_kernel<4, false>, threads,
            threads / 32 * mma_flops / 32, mmas * 64);
    measure("mma_sync", "ldsm_ldsm", "bf16", mma_ldsm_kernel<1, true>, threads,
            threads / 32 * mma_flops / 32, mmas * 768);
    measure("ldmatrix", "x4", "b16", ldsm_only_kernel, threads, 0, mmas * 512);
  }
  CUDA_CHECK(cudaFree(out));
  CUDA_CHECK(cudaStreamDestroy(s));
  return 0;
}
