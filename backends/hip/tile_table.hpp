#pragma once
// HIP tile table (compile-only here: no AMD GPU is lent). Wavefronts are 64 wide, LDS is 64 KB per
// CU; the SIMT shape follows the CUDA one, with 256-thread teams (4 wavefronts).
//
// Real GEMMs run on the matrix cores (MFMA, mfma_gfx90a.hpp) where the build targets gfx90a or later
// (RIDGELINE_HIP_MFMA, 1 unless defined 0: the bootstrap's compiler wrapper builds for gfx90a; a build
// for a target without MFMA defines it 0 and gets the SIMT entries). None of these entries was swept or
// timed: there is no AMD GPU. Each says what it was sized for, from gfx90a's per-CU resources: 4 SIMDs,
// 64 KB of LDS, and a register file of 512 registers (VGPRs and AGPRs together) per lane of each SIMD,
// so W waves per SIMD leave a wave 512 / W of them (at most 8 waves). waves_per_simd is the occupancy an
// entry claims; scripts/hip_code_objects.py reads it and fails CI when the code object allows fewer.
// min_blocks (teams per CU, Kokkos's launch bound) is set to match, so the compiler holds each wave to
// 512 / waves_per_simd registers.
#include <cstddef>
#include <cstdint>
#include <ridgeline/backends/hip/mfma_gfx90a.hpp>
#include <ridgeline/backends/hip/tune_space.hpp>
#include <ridgeline/detail/gemm_plan.hpp>
#include <ridgeline/detail/micro_tile.hpp>
#include <type_traits>

namespace ridgeline::backends::hip {

struct GemmTilesFp32 {
  static constexpr int bm = 128, bn = 128, bk = 8;
  static constexpr int tm = 8, tn = 8, fm = 4, fn = 4;
  static constexpr int pad_a = 4, pad_b = 4;
  static constexpr int team_size = 256, vector_length = 1, stages = 2, min_blocks = 1;
  static constexpr int scratch_level = 0, group_m = 8;
};

struct GemmTilesFp64 {
  static constexpr int bm = 64, bn = 64, bk = 8;
  static constexpr int tm = 4, tn = 4, fm = 2, fn = 2;
  static constexpr int pad_a = 2, pad_b = 2;
  static constexpr int team_size = 256, vector_length = 1, stages = 2, min_blocks = 1;
  static constexpr int scratch_level = 0, group_m = 8;
};

#ifndef RIDGELINE_HIP_MFMA
#define RIDGELINE_HIP_MFMA 1
#endif

// FP64, v_mfma_f64_16x16x4f64 (MI250X's FP64 matrix cores run 95.7 TF/s per package, twice its 47.9 of
// vector FP64). 128 x 64 team tile, four waves of 64 x 32 (4 x 2 instructions: 32 doubles, 64
// registers per lane), K steps of 8 (two instruction k slices). LDS: two stages of 8 x (130 + 66)
// doubles, 25 KB, so two teams per CU: 2 waves per SIMD. Registers allowed at 2 waves: 256 per lane; the
// first build's kernels took 156-160 VGPRs and no AGPRs (gfx90a's MFMA reads and writes either), no spills.
// Per k slice a wave issues 8 MFMAs (32 cycles each on CDNA2) against 6 LDS reads of 512 bytes: 48 B per
// clock per CU at full MFMA rate, of LDS's 128. pad 2 keeps each k line 16-byte aligned for packet staging; a
// group of 16 lanes reads 16 consecutive doubles, conflict-free at any 8-byte offset. A 128 x 128 tile would
// need 2 x 32 KB of LDS for two teams, over the 64 KB.
struct GemmTilesFp64Mfma {
  static constexpr int bm = 128, bn = 64, bk = 8;
  static constexpr int wave_m = 64, wave_n = 32;
  static constexpr int tm = 16, tn = 2;  // accumulators per lane: (64 / 16) x 4 rows, 32 / 16 columns
  static constexpr int fm = 1, fn = 1;
  static constexpr int pad_a = 2, pad_b = 2;
  static constexpr int team_size = 256, vector_length = 1, stages = 2, min_blocks = 2;
  static constexpr int waves_per_simd = 2;
  static constexpr int scratch_level = 0, group_m = 8;
  template <class T, class Acc>
  using micro_kernel = MfmaMicroKernel<GemmTilesFp64Mfma, T, Acc, MfmaF64x16x16x4>;
  static constexpr const char* micro_kernel_name = "mfma-f64-16x16x4";
  static constexpr bool matrix_unit = true;
};

// The FP32 and 16-bit entries: a 128 x 128 team tile of eight waves of 64 x 32 (2 x 1 instructions of
// 32 x 32, 32 accumulators per lane), K steps of kBk, one team per CU: 8 waves, 2 per SIMD, 256 registers
// per lane. kPad keeps each k line 16-byte aligned for packet staging.
template <class Self, class Inst, int kBk, int kPad>
struct MfmaEightWaves {
  static constexpr int bm = 128, bn = 128, bk = kBk;
  static constexpr int wave_m = 64, wave_n = 32;
  static constexpr int tm = (wave_m / Inst::kS) * Inst::kDR, tn = wave_n / Inst::kS;  // 32 x 1 per lane
  static constexpr int fm = 1, fn = 1;
  static constexpr int pad_a = kPad, pad_b = kPad;
  static constexpr int team_size = 512, vector_length = 1, stages = 2, min_blocks = 1;
  static constexpr int waves_per_simd = 2;
  static constexpr int scratch_level = 0, group_m = 8;
  template <class T, class Acc>
  using micro_kernel = MfmaMicroKernel<Self, T, Acc, Inst>;
  static constexpr const char* micro_kernel_name = Inst::name;
  static constexpr bool matrix_unit = true;
};

// FP32, v_mfma_f32_32x32x2f32 (the matrix cores double MI250X's FP32 vector rate), K steps of 16 (eight k
// slices). The 32 x 32 form reads one value per lane per operand, half as many LDS reads per flop as
// 16x16x4f32, and a half-wave's 32 consecutive floats cover the 32 banks once. LDS: two stages of
// 16 x (132 + 132) floats, 34 KB. Per k slice a wave issues 2 MFMAs (64 cycles each) against 3 LDS reads of
// 256 bytes: 24 B per clock per CU at full rate. pad 4 (4 values per thread per operand and K step). The
// first forms, four waves of 64 x 64 (64 accumulators), spilled: 5-113 VGPRs at 3 waves per SIMD (168
// registers) in every kernel, and at 2 waves 6-8 VGPRs in the grouped GEMM's league
// (scripts/hip_code_objects.py on the HIP test binaries, 2026-12-05;
// perf/results/2026-12-05-gfx90a-c1a58e8/).
struct GemmTilesFp32Mfma : MfmaEightWaves<GemmTilesFp32Mfma, MfmaF32x32x32x2, 16, 4> {};

// FP16 and BF16 in, FP32 accumulate: v_mfma_f32_32x32x8f16 and v_mfma_f32_32x32x8bf16_1k, K steps of 32
// (four k slices of 8). LDS: two stages of 32 x (136 + 136) 16-bit values, 35 KB. The first form, four
// waves of 64 x 64 at two teams per CU (K steps of 16), took 216-226 VGPRs for gfx90a and spilled 6-24 for
// gfx940 at the same budget (tests/hip_mfma_kernels.cpp); this one took 153-228 and 214-235, no spills.
// Each lane reads its four k values from four k lines (mfma_gfx90a.hpp): 12 two-byte LDS reads per 2 MFMAs
// of 64 cycles, 48 B per clock per CU at full rate, where a k-contiguous layout would need 3 reads. pad 8
// (8 values per thread per operand and K step).
template <class Inst>
struct GemmTilesHalfMfma : MfmaEightWaves<GemmTilesHalfMfma<Inst>, Inst, 32, 8> {};
using GemmTilesF16Mfma = GemmTilesHalfMfma<MfmaF16x32x32x8>;
using GemmTilesBf16Mfma = GemmTilesHalfMfma<MfmaBf16x32x32x8>;

// Complex GEMM (Kokkos::complex<float>, Kokkos::complex<double>): the portable micro-kernel with complex
// accumulators, 4 x 4 per thread on 256 threads; 2 x kBk x (65 + 65) x sizeof(T) bytes of LDS. K steps of 8
// for complex<float> (224-228 VGPRs, two waves per SIMD), of 4 for complex<double>: at 8 it took 256 VGPRs
// and spilled 2 into 142 AGPRs (one wave per SIMD; the unrolled step keeps eight k values of fragments in
// flight); at 4, 242 VGPRs, no AGPRs, two waves; 4 x 2 tiles at 8 took 256 + 24 AGPRs (hipcc 5.2, gfx90a,
// one kernel probed alone with -Rpass-analysis=kernel-resource-usage;
// perf/results/2026-12-06-gfx90a-aea176e/). Compile-only, not swept.
template <int kBk>
struct GemmTilesComplex {
  static constexpr int bm = 64, bn = 64, bk = kBk;
  static constexpr int tm = 4, tn = 4, fm = 1, fn = 1;
  static constexpr int pad_a = 1, pad_b = 1;
  static constexpr int team_size = 256, vector_length = 1, stages = 2, min_blocks = 1;
  static constexpr int scratch_level = 0, group_m = 8;
  static constexpr const char* micro_kernel_name = "portable-complex";
};
template <class T>
using GemmTilesComplexOf = GemmTilesComplex<sizeof(T) == 16 ? 4 : 8>;

template <class T>
struct GemvRowsTiles {
  static constexpr int team_size = 512, vector_length = 1, rows = 128, unroll = 8, vec = 16 / sizeof(T);
  static constexpr int scratch_level = 0;
};
template <class T>
struct GemvDotTiles {
  static constexpr int team_size = 256, vector_length = 1, lanes = 64, row_block = 2, rows = 8, unroll = 4;
  static constexpr int vec = 16 / sizeof(T);
  static constexpr int scratch_level = 0;
};

// Batched products of small matrices (gemm_batched, gemm_batched_small.hpp): the CUDA table's shape with
// a team of four wavefronts, and 16 KB of the 64 KB of LDS per team. Compile-only, not swept.
struct GemmBatchedSmallTiles {
  static constexpr int team_size = 256, min_blocks = 4, cols_per_thread = 4;
  static constexpr int max_extent = 16, max_per_team = 64;
  static constexpr std::size_t scratch_bytes = 16 * 1024;
};

struct Tiles {
  static constexpr const char* name = "hip";
  // What `ridgeline tune` tries (tune_space.hpp).
  using tune_space = TuneSpace;
  // The SIMT entries: every real type where the build has no MFMA.
  template <class T>
  using gemm_simt = std::conditional_t<sizeof(T) == 8, GemmTilesFp64, GemmTilesFp32>;
  // The MFMA entry of a real type: by its storage type (half_t and bhalf_t are distinct types).
  template <class T>
  using gemm_mfma = std::conditional_t<
      std::is_same_v<T, double>, GemmTilesFp64Mfma,
      std::conditional_t<std::is_same_v<T, float>, GemmTilesFp32Mfma,
                         std::conditional_t<std::is_same_v<T, half_t>, GemmTilesF16Mfma, GemmTilesBf16Mfma>>>;
  template <class T>
  using gemm = std::conditional_t<RIDGELINE_HIP_MFMA != 0, gemm_mfma<T>, gemm_simt<T>>;
  // One entry, staging 16-byte packets where its kernel and the operands allow it (gemm_plan.hpp).
  // Complex types: the one complex entry, any strides.
  template <class T>
  using gemm_entries =
      std::conditional_t<detail::is_complex_v<T>,
                         detail::GemmEntries<detail::GemmEntry<GemmTilesComplexOf<T>, detail::when::any>>,
                         detail::GemmEntries<detail::GemmEntry<gemm<T>, detail::when::packets>,
                                             detail::GemmEntry<gemm<T>, detail::when::any>>>;
  // Batched products (dispatch_batched.hpp): the small path, and the one tile entry for medium matrices.
  template <class T>
  using gemm_batched_small = GemmBatchedSmallTiles;
  template <class T>
  using gemm_batched_entries = gemm_entries<T>;
  // An entry's own micro-kernel where it names one (the MFMA entries), else the portable one.
  template <class Cfg, class T, class Acc>
  using micro_kernel =
      typename detail::EntryMicroKernel<Cfg, T, Acc, detail::PortableMicroKernel<Cfg, T, Acc>>::type;
  static constexpr const char* micro_kernel_name = "portable";
  // CUs of the current device, for split K, operand copies and peeling as on CUDA. A template so that
  // this header also compiles where Kokkos has no HIP backend.
  template <class Exec>
  static auto compute_units(const Exec& exec) -> decltype(exec.hip_device_prop().multiProcessorCount) {
    return exec.hip_device_prop().multiProcessorCount;
  }
  // Calls on a HIP instance are asynchronous: their workspace is per stream.
  template <class Exec>
  static auto instance_key(const Exec& exec) -> decltype(static_cast<const void*>(exec.hip_stream())) {
    return static_cast<const void*>(exec.hip_stream());
  }
  template <class T>
  using gemv_rows = GemvRowsTiles<T>;
  template <class T>
  using gemv_dot = GemvDotTiles<T>;
  // Operands that cannot stage in 16-byte packets are copied aligned into the stream's workspace when M, N
  // and K reach this (dispatch.hpp). The CUDA table's values, unmeasured here: the copies cost about
  // (1/M + 1/N) of the product's time at the rates of either vendor's matrix units, where element staging
  // would run the MFMA entries' K loops on scalar global loads.
  template <class T>
  static constexpr std::int64_t pack_min_extent = sizeof(T) == 8 ? 1500 : 2048;
};

}  // namespace ridgeline::backends::hip
