#pragma once
// AMD matrix-core (MFMA) micro-kernels for CDNA2 (gfx90a: MI210, MI250X) and later (gfx940, the
// nearest CDNA3 target that this machine's LLVM 15 knows; MI300X is gfx942). They implement the
// warp-level form of micro_tile.hpp's contract, as the CUDA DMMA and HMMA micro-kernels do, with a
// wavefront of 64 lanes in place of a warp of 32.
//
// One instruction, kS x kS x kK, single block (the forms below; AMD lab notes "AMD matrix cores",
// examples mfma_fp64_16x16x4fp64, mfma_fp32_32x32x2fp32 and mfma_fp32_32x32x8fp16). With G = 64 / kS
// lane groups and kAV = kK / G input values per lane, lane l holds
//   A (kS x kK)   a[e] = A(l % kS, (l / kS) kAV + e)         e < kAV
//   B (kK x kS)   b[e] = B((l / kS) kAV + e, l % kS)         e < kAV
//   D (kS x kS)   d[r] = D(d_row(l, r), l % kS)              r < kDR = kS kS / 64
// where for the FP32-output forms d_row(l, r) = 4 G (r / 4) + 4 (l / kS) + r % 4 (each lane holds runs
// of 4 consecutive rows of one column), and for v_mfma_f64_16x16x4f64 d_row(l, r) = 4 r + l / 16 (rows
// 4 apart: the FP64 form's D is laid out like its B, row block by row block).
//
// A wave owns a wave_m x wave_n tile of the team's C tile, (wave_m / kS) x (wave_n / kS) instructions;
// a lane's accumulators form the contract's grid: kTM = (wave_m / kS) kDR rows and kTN = wave_n / kS
// columns, rows in runs of 4 for the FP32-output forms (kRowRun 4, so the epilogue stores a run of a
// column-major C as one 16-byte vector) and 1 for FP64.
//
// Scratch is the team kernel's k-major layout, As (BK, BM + pad_a) and Bs (BK, BN + pad_b). For the
// one-value forms (FP64, FP32) the kS lanes of a group read kS consecutive elements of one k line: the
// 16 doubles (128 bytes) or 32 floats of a group cover LDS's 32 banks once, so no pad is needed for
// conflict-free reads. The 16-bit form reads its four k values per lane from four k lines (four
// 2-byte reads): correct, and the staging's limit until a k-contiguous staged layout exists for it
// (scripts/hip_code_objects.py counts these reads per MFMA).
//
// Nothing here has run on an AMD GPU: none is lent. tests/test_mfma_layout.cpp runs these
// micro-kernels on the host against an emulation of each instruction written from AMD's documented
// layouts, and the HIP build compiles them for gfx90a.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <ridgeline/detail/compat.hpp>
#include <ridgeline/detail/micro_tile.hpp>
#include <ridgeline/half.hpp>
#include <type_traits>

#if defined(__HIP_DEVICE_COMPILE__) && \
    (defined(__gfx90a__) || defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__))
#define RIDGELINE_HIP_MFMA_DEVICE 1
#else
#define RIDGELINE_HIP_MFMA_DEVICE 0
#endif

namespace ridgeline::backends::hip {

inline constexpr int kWaveLanes = 64;

// The lane layout of one single-block MFMA form (above). kF64Out: the FP64 form's D layout.
template <int kS_, int kK_, bool kF64Out>
struct MfmaLayout {
  static constexpr int kS = kS_, kK = kK_;
  static constexpr int kGroups = kWaveLanes / kS, kAV = kK / kGroups, kDR = kS * kS / kWaveLanes;
  static_assert(kK % kGroups == 0, "every lane holds the same number of A and B values");
  static constexpr int kRowRun = kF64Out ? 1 : 4;
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int a_row(int lane) { return lane % kS; }
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int a_k(int lane, int e) { return (lane / kS) * kAV + e; }
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int b_col(int lane) { return lane % kS; }
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int b_k(int lane, int e) { return (lane / kS) * kAV + e; }
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int d_row(int lane, int r) {
    if constexpr (kF64Out) return 4 * r + lane / kS;
    return 4 * kGroups * (r / 4) + 4 * (lane / kS) + r % 4;
  }
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int d_col(int lane) { return lane % kS; }
};

// The forms the tables use. In: the operand storage type; Out: the accumulator.
struct MfmaF64x16x16x4 : MfmaLayout<16, 4, true> {
  using In = double;
  using Out = double;
  static constexpr const char* name = "mfma-f64-16x16x4";
};
struct MfmaF32x32x32x2 : MfmaLayout<32, 2, false> {
  using In = float;
  using Out = float;
  static constexpr const char* name = "mfma-f32-32x32x2";
};
struct MfmaF16x32x32x8 : MfmaLayout<32, 8, false> {
  using In = half_t;
  using Out = float;
  static constexpr const char* name = "mfma-f16-32x32x8";
};
struct MfmaBf16x32x32x8 : MfmaLayout<32, 8, false> {
  using In = bhalf_t;
  using Out = float;
  static constexpr const char* name = "mfma-bf16-32x32x8-1k";
};

// How one instruction runs: d += A B for one lane's values. On gfx90a and later it is the compiler
// builtin; anywhere else (the host pass of a HIP build, other targets) it must not be reached, since
// the table names these micro-kernels only for HIP builds. Tests substitute their own Issue.
template <class Inst>
struct MfmaIssue {
  using In = typename Inst::In;
  using Out = typename Inst::Out;
  KOKKOS_FORCEINLINE_FUNCTION static void run(Out (&d)[Inst::kDR], const In (&a)[Inst::kAV],
                                              const In (&b)[Inst::kAV]) {
#if RIDGELINE_HIP_MFMA_DEVICE
    if constexpr (std::is_same_v<Inst, MfmaF64x16x16x4>) {
      typedef double V4d __attribute__((ext_vector_type(4)));
      V4d c = {d[0], d[1], d[2], d[3]};
      c = __builtin_amdgcn_mfma_f64_16x16x4f64(a[0], b[0], c, 0, 0, 0);
      RIDGELINE_UNROLL
      for (int r = 0; r < 4; ++r) d[r] = c[r];
    } else {
      typedef float V16f __attribute__((ext_vector_type(16)));
      V16f c;
      RIDGELINE_UNROLL
      for (int r = 0; r < 16; ++r) c[r] = d[r];
      if constexpr (std::is_same_v<Inst, MfmaF32x32x32x2>) {
        c = __builtin_amdgcn_mfma_f32_32x32x2f32(a[0], b[0], c, 0, 0, 0);
      } else {
        // The 16-bit values go in as their bits: half_t and bhalf_t are 2-byte storage types here.
        typedef short V4s __attribute__((ext_vector_type(4)));
        V4s ab, bb;
        RIDGELINE_UNROLL
        for (int e = 0; e < 4; ++e) {
          short sa, sb;
          __builtin_memcpy(&sa, &a[e], 2);
          __builtin_memcpy(&sb, &b[e], 2);
          ab[e] = sa, bb[e] = sb;
        }
        if constexpr (std::is_same_v<Inst, MfmaF16x32x32x8>) {
          typedef _Float16 V4h __attribute__((ext_vector_type(4)));
          c = __builtin_amdgcn_mfma_f32_32x32x8f16(__builtin_bit_cast(V4h, ab), __builtin_bit_cast(V4h, bb),
                                                   c, 0, 0, 0);
        } else {
          c = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(ab, bb, c, 0, 0, 0);
        }
      }
      RIDGELINE_UNROLL
      for (int r = 0; r < 16; ++r) d[r] = c[r];
    }
#else
    (void)d, (void)a, (void)b;
    Kokkos::abort("ridgeline: an MFMA micro-kernel ran where there is no MFMA (gfx90a or later only)");
#endif
  }
};

// The micro-kernel for an entry Cfg with wave_m x wave_n wave tiles of instruction Inst.
template <class Cfg, class T, class Acc, class Inst, class Issue = MfmaIssue<Inst>>
struct MfmaMicroKernel {
  static_assert(std::is_same_v<T, typename Inst::In> && std::is_same_v<Acc, typename Inst::Out>,
                "the entry's MFMA form multiplies T into Acc");
  static constexpr int kS = Inst::kS, kK = Inst::kK, kAV = Inst::kAV, kDR = Inst::kDR;
  static constexpr int WM = Cfg::wave_m, WN = Cfg::wave_n, BK = Cfg::bk;
  static constexpr int LDA = Cfg::bm + Cfg::pad_a, LDB = Cfg::bn + Cfg::pad_b;
  static constexpr int kMmaM = WM / kS, kMmaN = WN / kS;  // instructions per wave tile and k slice
  static constexpr int kWavesM = Cfg::bm / WM, kWavesN = Cfg::bn / WN;
  static_assert(WM % kS == 0 && WN % kS == 0 && Cfg::bm % WM == 0 && Cfg::bn % WN == 0,
                "wave tiles are whole instructions and tile the team tile");
  static_assert(kWavesM * kWavesN * kWaveLanes == Cfg::team_size, "one wavefront per wave tile");
  static_assert(BK % kK == 0, "the K step is whole instructions");
  static constexpr int kSlices = BK / kK;

  static constexpr int kTM = kMmaM * kDR, kTN = kMmaN, kRowRun = Inst::kRowRun;
  static_assert(Cfg::tm == kTM && Cfg::tn == kTN,
                "the entry's tm x tn must be the accumulators a lane holds: (wave_m / kS) kDR x wave_n / kS");

  // The wave tile's origin in the team tile, and the lane.
  struct Owner {
    int wm, wn, lane;
  };
  KOKKOS_FORCEINLINE_FUNCTION static Owner owner(int t) {
    const int wave = t / kWaveLanes;
    return {(wave % kWavesM) * WM, (wave / kWavesM) * WN, t % kWaveLanes};
  }
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int row(const Owner& o, int i) {
    return o.wm + (i / kDR) * kS + Inst::d_row(o.lane, i % kDR);
  }
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int col(const Owner& o, int j) {
    return o.wn + j * kS + Inst::d_col(o.lane);
  }

  struct Accumulator {
    Acc v[kMmaM][kMmaN][kDR];
  };
  KOKKOS_FORCEINLINE_FUNCTION static void zero(Accumulator& acc) {
    RIDGELINE_UNROLL
    for (int i = 0; i < kMmaM; ++i) {
      RIDGELINE_UNROLL
      for (int j = 0; j < kMmaN; ++j) {
        RIDGELINE_UNROLL
        for (int r = 0; r < kDR; ++r) acc.v[i][j][r] = Acc(0);
      }
    }
  }
  KOKKOS_FORCEINLINE_FUNCTION static Acc get(const Accumulator& acc, int i, int j) {
    return acc.v[i / kDR][j][i % kDR];
  }

  KOKKOS_FORCEINLINE_FUNCTION static void store_scratch(T* p, T v) { *p = v; }
  template <int W>
  KOKKOS_FORCEINLINE_FUNCTION static void store_scratch_packet(T* p, const T* v) {
    detail::PlainScratchAccess::template store_packet<W>(p, v);
  }

  // One k slice's operand values: kAV per instruction row block (A) and column block (B).
  struct Fragments {
    T a[kMmaM][kAV], b[kMmaN][kAV];
  };
  KOKKOS_FORCEINLINE_FUNCTION static void load_slice(Fragments& f, const T* As, const T* Bs, const Owner& o,
                                                     int s) {
    RIDGELINE_UNROLL
    for (int i = 0; i < kMmaM; ++i) {
      RIDGELINE_UNROLL
      for (int e = 0; e < kAV; ++e)
        f.a[i][e] = As[(s * kK + Inst::a_k(o.lane, e)) * LDA + o.wm + i * kS + Inst::a_row(o.lane)];
    }
    RIDGELINE_UNROLL
    for (int j = 0; j < kMmaN; ++j) {
      RIDGELINE_UNROLL
      for (int e = 0; e < kAV; ++e)
        f.b[j][e] = Bs[(s * kK + Inst::b_k(o.lane, e)) * LDB + o.wn + j * kS + Inst::b_col(o.lane)];
    }
  }
  KOKKOS_FORCEINLINE_FUNCTION static void mma_slice(Accumulator& acc, const Fragments& f) {
    RIDGELINE_UNROLL
    for (int i = 0; i < kMmaM; ++i) {
      RIDGELINE_UNROLL
      for (int j = 0; j < kMmaN; ++j) Issue::run(acc.v[i][j], f.a[i], f.b[j]);
    }
  }
  // acc(i, j) += sum_{k < BK} As[k][row(o, i)] Bs[k][col(o, j)]. Every lane of the wave calls it: the
  // instruction is collective, and the team kernel calls mac from every thread.
  KOKKOS_FORCEINLINE_FUNCTION static void mac(Accumulator& acc, const T* As, const T* Bs, const Owner& o) {
    RIDGELINE_UNROLL
    for (int s = 0; s < kSlices; ++s) {
      Fragments f;
      load_slice(f, As, Bs, o, s);
      mma_slice(acc, f);
    }
  }
};

}  // namespace ridgeline::backends::hip
