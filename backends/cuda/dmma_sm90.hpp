#pragma once
// FP64 tensor-core micro-kernel for sm_90: DMMA through mma.sync.aligned.m16n8k16 .f64.
//
// Why this shape: on the H200 the Ampere shape m8n8k4 (DMMA.8) tops out at 33 TF/s, half of the
// FP64 tensor-core peak, while m16n8k16 (DMMA.16) ran 66 TF/s register-resident, 99% of it
// (../shared/TOOLCHAIN.md, "Matrix units"). CUDA 11.8's ptxas accepts the shape for sm_90 and emits
// DMMA.16. It does not exist before sm_90: this header is for the project's sm_90 build only.
//
// A warp owns a warp_m x warp_n tile of the team's C tile, as (warp_m / 16) x (warp_n / 8)
// instructions. Per instruction and lane (g = lane / 4, q = lane % 4; PTX ISA, "Matrix fragments
// for mma.m16n8k16" and "mma.m16n8k8" with .f64; kK the instruction's k, 16 or 8):
//   A (16 x kK, row)  a[v0 + 2 v1] = A(g + 8 v0, q + 4 v1)       v0 < 2, v1 < kK / 4
//   B (kK x 8, col)   b[v]         = B(q + 4 v, g)               v < kK / 4
//   C (16 x 8)        c[h * 2 + c] = C(g + 8 h, 2 q + c)         h, c < 2
// The entry picks the instruction (dmma_k, default 16). m16n8k8 (DMMA.16x8x8) holds half the fragment
// registers per k16, which leaves room for two sets: the K loop can load the next k8 slice while the
// current one multiplies, across the K steps' barriers too (load_slice / mma_slice, used by
// gemm_team_async.hpp's fragments_across_steps loop). cuBLAS 13.1's DGEMM on the H200 is that kernel:
// sm90_xmma_gemm_f64f64_..._tilesize128x64x16_stage3_warpsize2x2x1_tensor16x8x8, 246 registers, and
// ncu had its DP tensor pipe 97.7% busy where the m16n8k16 kernel without fragment prefetch reached
// 81.5% (perf/results/2026-12-02-h200-f7cfece/).
// so a lane's accumulators form a grid: rows g, g + 8 of every 16-row block and columns 2q, 2q + 1
// of every 8-column block. That grid is what the epilogue sees (micro_tile.hpp's contract):
// kTM = 2 warp_m / 16 rows and kTN = 2 warp_n / 8 columns, no two rows consecutive (kRowRun 1).
//
// Scratch is the team kernel's k-major layout, As (BK, BM + pad_a) and Bs (BK, BN + pad_b), or with
// mac_in any ScratchLayout (asynchronous copies keep k-contiguous operands k-contiguous). A fragment
// is one 8-byte ld.shared per element: lanes of a half-warp read k offsets q = 0..3 at m (or n)
// offsets g = 0..3 (4..7), so with a leading dimension of 4 (mod 16) doubles those 16 reads hit 16
// different 8-byte bank pairs; conflict_free() checks each layout at compile time.
#include <Kokkos_Core.hpp>
#include <ridgeline/backends/cuda/micro_kernel.hpp>
#include <ridgeline/detail/compat.hpp>
#include <ridgeline/detail/micro_tile.hpp>
#include <type_traits>

namespace ridgeline::backends::cuda {

// The entry's DMMA instruction k (dmma_k): 16 unless it names 8.
template <class Cfg, class = void>
struct DmmaKOf : std::integral_constant<int, 16> {};
template <class Cfg>
struct DmmaKOf<Cfg, std::void_t<decltype(Cfg::dmma_k)>> : std::integral_constant<int, Cfg::dmma_k> {};

template <class Cfg, class T, class Acc>
struct DmmaSm90MicroKernel {
  static_assert(std::is_same_v<T, double> && std::is_same_v<Acc, double>, "DMMA multiplies doubles");
  static constexpr int kK = DmmaKOf<Cfg>::value;  // the instruction's k
  static_assert(kK == 16 || kK == 8, "DMMA m16n8k16 or m16n8k8");
  static constexpr int kAV = kK / 2, kBV = kK / 4;  // A and B fragment values per lane and instruction
  static constexpr int WM = Cfg::warp_m, WN = Cfg::warp_n, BK = Cfg::bk;
  static constexpr int LDA = Cfg::bm + Cfg::pad_a, LDB = Cfg::bn + Cfg::pad_b;
  static constexpr int kMmaM = WM / 16, kMmaN = WN / 8;  // instructions per warp tile and k16
  static constexpr int kWarpsM = Cfg::bm / WM, kWarpsN = Cfg::bn / WN;
  static_assert(WM % 16 == 0 && WN % 8 == 0 && Cfg::bm % WM == 0 && Cfg::bn % WN == 0,
                "warp tiles are whole 16 x 8 instructions and tile the team tile");
  static_assert(kWarpsM * kWarpsN * 32 + detail::ProducerThreadsOf<Cfg>::value == Cfg::team_size,
                "one warp per warp tile, after the producers");
  static_assert(BK % kK == 0, "the K step is whole instructions");
  static constexpr int kSlices = BK / kK;  // instruction k slices per K step

  static constexpr int kTM = 2 * kMmaM, kTN = 2 * kMmaN, kRowRun = 1;
  static_assert(Cfg::tm == kTM && Cfg::tn == kTN,
                "the entry's tm x tn must be the accumulators a lane holds: (warp_m / 8) x (warp_n / 4)");

  // The warp tile's origin in the team tile, and the lane's place in the fragments.
  struct Owner {
    int wm, wn, g, q;
  };
  KOKKOS_FORCEINLINE_FUNCTION static Owner owner(int t) {
    const int warp = t / 32, lane = t % 32;
    return {(warp % kWarpsM) * WM, (warp / kWarpsM) * WN, lane / 4, lane % 4};
  }
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int row(const Owner& o, int i) {
    return o.wm + (i / 2) * 16 + (i % 2) * 8 + o.g;
  }
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int col(const Owner& o, int j) {
    return o.wn + (j / 2) * 8 + 2 * o.q + j % 2;
  }

  struct Accumulator {
    double v[kMmaM][kMmaN][4];
  };
  KOKKOS_FORCEINLINE_FUNCTION static void zero(Accumulator& acc) {
    RIDGELINE_UNROLL
    for (int i = 0; i < kMmaM; ++i) {
      RIDGELINE_UNROLL
      for (int j = 0; j < kMmaN; ++j) {
        RIDGELINE_UNROLL
        for (int e = 0; e < 4; ++e) acc.v[i][j][e] = 0.0;
      }
    }
  }
  KOKKOS_FORCEINLINE_FUNCTION static double get(const Accumulator& acc, int i, int j) {
    return acc.v[i / 2][j / 2][(i % 2) * 2 + j % 2];
  }

  KOKKOS_FORCEINLINE_FUNCTION static void store_scratch(T* p, T v) { SharedScratchAccess::store(p, v); }
  template <int W>
  KOKKOS_FORCEINLINE_FUNCTION static void store_scratch_packet(T* p, const T* v) {
    if constexpr (W == 1) {
      SharedScratchAccess::store(p, v[0]);
    } else {
      SharedScratchAccess::template store_packet<W>(p, v);
    }
  }

  // Fragment reads are conflict-free when the 16 (g, q) offsets of a half-warp, g * i_stride +
  // q * k_stride for g, q < 4, fall in 16 different 8-byte bank pairs.
  template <class S>
  KOKKOS_INLINE_FUNCTION static constexpr bool conflict_free() {
    bool hit[16] = {};
    for (int g = 0; g < 4; ++g)
      for (int q = 0; q < 4; ++q) {
        const int slot = (g * S::i_stride + q * S::k_stride) % 16;
        if (hit[slot]) return false;
        hit[slot] = true;
      }
    return true;
  }

  KOKKOS_FORCEINLINE_FUNCTION static void mac(Accumulator& acc, const T* As, const T* Bs, const Owner& o) {
    mac_in<detail::ScratchLayout<1, LDA>, detail::ScratchLayout<1, LDB>>(acc, As, Bs, o);
  }

  template <class SA, class SB>
  KOKKOS_FORCEINLINE_FUNCTION static void mac_in(Accumulator& acc, const T* As, const T* Bs, const Owner& o) {
    static_assert(conflict_free<SA>() && conflict_free<SB>(), "scratch layout with bank conflicts");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if constexpr (kK == 16) {
      // m16n8k16 loads A per 16-row block just before its products (8 values, not load_slice's 8 per
      // block at once), which keeps the 64x32 warp tile inside 255 registers.
      constexpr int AI = SA::i_stride, AK = SA::k_stride, BI = SB::i_stride, BKs = SB::k_stride;
      const SliceBase base = slice_base<SA, SB>(As, Bs, o);
      const unsigned sa = base.a, sb = base.b;
      RIDGELINE_UNROLL
      for (int kb = 0; kb < BK / 16; ++kb) {
        double b[kMmaN][4];
        RIDGELINE_UNROLL
        for (int j = 0; j < kMmaN; ++j) {
          RIDGELINE_UNROLL
          for (int v = 0; v < 4; ++v) b[j][v] = lds(sb + 8u * ((kb * 16 + 4 * v) * BKs + j * 8 * BI));
        }
        RIDGELINE_UNROLL
        for (int i = 0; i < kMmaM; ++i) {
          double a[8];
          RIDGELINE_UNROLL
          for (int v = 0; v < 8; ++v)
            a[v] = lds(sa + 8u * ((kb * 16 + 4 * (v / 2)) * AK + (i * 16 + 8 * (v % 2)) * AI));
          RIDGELINE_UNROLL
          for (int j = 0; j < kMmaN; ++j) mma(acc.v[i][j], a, b[j]);
        }
      }
    } else {
      Fragments f;
      const SliceBase base = slice_base<SA, SB>(As, Bs, o);
      RIDGELINE_UNROLL
      for (int s = 0; s < kSlices; ++s) {
        load_slice<SA, SB>(f, base, 0u, 0u, s);
        mma_slice(acc, f);
      }
    }
#else
    (void)acc, (void)As, (void)Bs, (void)o;
    Kokkos::abort("ridgeline: the DMMA micro-kernel runs on sm_90 devices only");
#endif
  }

  // mac_in split at the instruction's k: the fragments of slice s (k in [s kK, (s + 1) kK) of the K
  // step), and their products. mac_in == load_slice and mma_slice for each s < kSlices; a K loop that
  // holds two Fragments can load slice s + 1 while slice s multiplies. The lane's addresses are taken
  // once (slice_base, in the shared window, for the first stage buffers As and Bs); load_slice adds a
  // stage's byte offset, and every other offset is an immediate.
  struct Fragments {
    double a[kMmaM][kAV];
    double b[kMmaN][kBV];
  };
  struct SliceBase {
    unsigned a, b;
  };
  template <class SA, class SB>
  KOKKOS_FORCEINLINE_FUNCTION static SliceBase slice_base(const T* As, const T* Bs, const Owner& o) {
#if defined(__CUDA_ARCH__)
    return {static_cast<unsigned>(
                __cvta_generic_to_shared(As + (o.wm + o.g) * SA::i_stride + o.q * SA::k_stride)),
            static_cast<unsigned>(
                __cvta_generic_to_shared(Bs + (o.wn + o.g) * SB::i_stride + o.q * SB::k_stride))};
#else
    (void)As, (void)Bs, (void)o;
    return {0u, 0u};
#endif
  }
  template <class SA, class SB>
  KOKKOS_FORCEINLINE_FUNCTION static void load_slice(Fragments& f, const SliceBase& base, unsigned stage_a,
                                                     unsigned stage_b, int s) {
    static_assert(conflict_free<SA>() && conflict_free<SB>(), "scratch layout with bank conflicts");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    constexpr int AI = SA::i_stride, AK = SA::k_stride, BI = SB::i_stride, BKs = SB::k_stride;
    const unsigned sa = base.a + stage_a, sb = base.b + stage_b;
    RIDGELINE_UNROLL
    for (int j = 0; j < kMmaN; ++j) {
      RIDGELINE_UNROLL
      for (int v = 0; v < kBV; ++v) f.b[j][v] = lds(sb + 8u * ((s * kK + 4 * v) * BKs + j * 8 * BI));
    }
    RIDGELINE_UNROLL
    for (int i = 0; i < kMmaM; ++i) {
      RIDGELINE_UNROLL
      for (int v = 0; v < kAV; ++v)
        f.a[i][v] = lds(sa + 8u * ((s * kK + 4 * (v / 2)) * AK + (i * 16 + 8 * (v % 2)) * AI));
    }
#else
    (void)f, (void)base, (void)stage_a, (void)stage_b, (void)s;
#endif
  }
  KOKKOS_FORCEINLINE_FUNCTION static void mma_slice(Accumulator& acc, const Fragments& f) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    RIDGELINE_UNROLL
    for (int i = 0; i < kMmaM; ++i) {
      RIDGELINE_UNROLL
      for (int j = 0; j < kMmaN; ++j) mma(acc.v[i][j], f.a[i], f.b[j]);
    }
#else
    (void)acc, (void)f;
    Kokkos::abort("ridgeline: the DMMA micro-kernel runs on sm_90 devices only");
#endif
  }

#if defined(__CUDA_ARCH__)
  // volatile: no scratch load may move across the team barriers around mac.
  __device__ static __forceinline__ double lds(unsigned addr) {
    double x;
    asm volatile("ld.shared.f64 %0, [%1];" : "=d"(x) : "r"(addr));
    return x;
  }
  __device__ static __forceinline__ void mma(double (&c)[4], const double (&a)[8], const double (&b)[4]) {
    asm("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, "
        "{%12,%13,%14,%15}, {%0,%1,%2,%3};"
        : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]), "d"(b[0]),
          "d"(b[1]), "d"(b[2]), "d"(b[3]));
  }
  __device__ static __forceinline__ void mma(double (&c)[4], const double (&a)[4], const double (&b)[2]) {
    asm("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};"
        : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
  }
#endif
};

}  // namespace ridgeline::backends::cuda
