// The HIP backend's MFMA micro-kernels (backends/hip/mfma_gfx90a.hpp) on the host, against an emulation
// of each matrix instruction. No AMD GPU is lent, so the instructions themselves never run here; what
// this proves is that each micro-kernel feeds every lane the values that AMD documents for that lane,
// and that the grid the epilogue stores through (row, col, get) is where the documented results land.
//
// The documented layouts are written out below from AMD's own description (AMD lab notes, "AMD matrix
// cores": mfma_fp64_16x16x4fp64, mfma_fp32_32x32x2fp32 and mfma_fp32_32x32x8fp16; the bf16_1k form
// shares the f16 form's layout), in their words rather than through mfma_gfx90a.hpp's formulas, so that
// a mistake in one shows against the other. The emulator multiplies what each wave's 64 lanes handed to
// one instruction exactly as the documentation places it.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <random>
#include <ridgeline/backends/hip/mfma_gfx90a.hpp>
#include <ridgeline/backends/hip/tile_table.hpp>
#include <set>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

namespace rh = ridgeline::backends::hip;

// ---- AMD's documentation, form by form -----------------------------------------------------------
// Where lane l's operand value e sits: A (row, k) and B (k, column); where its result register r sits.
struct Place {
  int row, col;
};

template <class Inst>
struct Documented;

// v_mfma_f64_16x16x4f64: "For the four A columns: lanes 0-15 cover the 1st column, ..., lanes 48-63
// cover the 4th column. For the four B rows: lanes 0-15 cover the 1st row, ..., lanes 48-63 cover the
// 4th row." D: "the layout of rows 0-3, 4-7, 8-11, and 12-15 of the matrices D (and C) is the same as
// the layout for B": register i holds rows 4 i .. 4 i + 3, lane group l / 16 the row within them.
template <>
struct Documented<rh::MfmaF64x16x16x4> {
  static Place a(int l, int) { return {l % 16, l / 16}; }  // (row, k)
  static Place b(int l, int) { return {l / 16, l % 16}; }  // (k, column)
  static Place d(int l, int r) { return {4 * r + l / 16, l % 16}; }
};

// The FP32-output 32 x 32 forms: "d[0:3] cover rows 0-7, d[4:7] rows 8-15, d[8:11] rows 16-23, d[12:15]
// rows 24-31. Within each block of 4 registers: first 32 lanes of d[0] cover row 0, last 32 lanes of
// d[0] cover row 4; ... d[3] rows 3 and 7."
inline Place d_32x32(int l, int r) {
  const int block = r / 4, within = r % 4, half = l < 32 ? 0 : 4;
  return {8 * block + half + within, l % 32};
}

// v_mfma_f32_32x32x2f32: "For the two A columns: lanes 0-31 cover the 1st column, lanes 32-63 cover the
// 2nd column. For the two B rows: lanes 0-31 cover the 1st row, lanes 32-63 cover the 2nd row."
template <>
struct Documented<rh::MfmaF32x32x32x2> {
  static Place a(int l, int) { return {l % 32, l < 32 ? 0 : 1}; }
  static Place b(int l, int) { return {l < 32 ? 0 : 1, l % 32}; }
  static Place d(int l, int r) { return d_32x32(l, r); }
};

// v_mfma_f32_32x32x8f16 (and bf16_1k): "first 32 lanes of a[i] cover column i, last 32 lanes of a[i]
// cover column 4 + i"; "first 32 lanes of b[i] cover row i, last 32 lanes of b[i] cover row 4 + i".
struct Documented32x32x8 {
  static Place a(int l, int e) { return {l % 32, (l < 32 ? 0 : 4) + e}; }
  static Place b(int l, int e) { return {(l < 32 ? 0 : 4) + e, l % 32}; }
  static Place d(int l, int r) { return d_32x32(l, r); }
};
template <>
struct Documented<rh::MfmaF16x32x32x8> : Documented32x32x8 {};
template <>
struct Documented<rh::MfmaBf16x32x32x8> : Documented32x32x8 {};

template <class X>
double to_double(const X& x) {
  if constexpr (std::is_arithmetic_v<X>) {
    return static_cast<double>(x);
  } else {
    return static_cast<double>(static_cast<float>(x));
  }
}

// ---- the layouts in mfma_gfx90a.hpp against the documentation ------------------------------------
template <class Inst>
void layout_matches_documentation() {
  using Doc = Documented<Inst>;
  std::set<std::pair<int, int>> a_seen, b_seen, d_seen;
  for (int l = 0; l < rh::kWaveLanes; ++l) {
    for (int e = 0; e < Inst::kAV; ++e) {
      EXPECT_EQ(Inst::a_row(l), Doc::a(l, e).row) << Inst::name << " A lane " << l << " value " << e;
      EXPECT_EQ(Inst::a_k(l, e), Doc::a(l, e).col) << Inst::name << " A lane " << l << " value " << e;
      EXPECT_EQ(Inst::b_k(l, e), Doc::b(l, e).row) << Inst::name << " B lane " << l << " value " << e;
      EXPECT_EQ(Inst::b_col(l), Doc::b(l, e).col) << Inst::name << " B lane " << l << " value " << e;
      a_seen.insert({Doc::a(l, e).row, Doc::a(l, e).col});
      b_seen.insert({Doc::b(l, e).row, Doc::b(l, e).col});
    }
    for (int r = 0; r < Inst::kDR; ++r) {
      EXPECT_EQ(Inst::d_row(l, r), Doc::d(l, r).row) << Inst::name << " D lane " << l << " register " << r;
      EXPECT_EQ(Inst::d_col(l), Doc::d(l, r).col) << Inst::name << " D lane " << l << " register " << r;
      d_seen.insert({Doc::d(l, r).row, Doc::d(l, r).col});
    }
  }
  // Every element of A (kS x kK), B (kK x kS) and D (kS x kS) is in exactly one lane's register.
  EXPECT_EQ(a_seen.size(), std::size_t(Inst::kS * Inst::kK)) << Inst::name;
  EXPECT_EQ(b_seen.size(), std::size_t(Inst::kS * Inst::kK)) << Inst::name;
  EXPECT_EQ(d_seen.size(), std::size_t(Inst::kS * Inst::kS)) << Inst::name;
  EXPECT_EQ(a_seen.size() + b_seen.size(), std::size_t(2 * rh::kWaveLanes * Inst::kAV)) << Inst::name;
  EXPECT_EQ(d_seen.size(), std::size_t(rh::kWaveLanes * Inst::kDR)) << Inst::name;
}

TEST(MfmaLayout, MatchesDocumentation) {
  layout_matches_documentation<rh::MfmaF64x16x16x4>();
  layout_matches_documentation<rh::MfmaF32x32x32x2>();
  layout_matches_documentation<rh::MfmaF16x32x32x8>();
  layout_matches_documentation<rh::MfmaBf16x32x32x8>();
}

// ---- the micro-kernels' mac against the emulated instruction --------------------------------------
// Issue for the tests: one lane at a time runs mac, and each instruction it issues is logged (which
// accumulator block, and the lane's operand values); the emulator then multiplies each instruction
// with all 64 lanes' values at once.
struct IssuedCall {
  int slot;
  double a[8], b[8];
};
struct IssueLog {
  static inline std::vector<IssuedCall>* calls = nullptr;
  static inline const void* acc_base = nullptr;
};
template <class Inst>
struct RecordingIssue {
  using In = typename Inst::In;
  using Out = typename Inst::Out;
  static void run(Out (&d)[Inst::kDR], const In (&a)[Inst::kAV], const In (&b)[Inst::kAV]) {
    IssuedCall c{};
    c.slot = static_cast<int>((&d[0] - static_cast<const Out*>(IssueLog::acc_base)) / Inst::kDR);
    for (int e = 0; e < Inst::kAV; ++e) c.a[e] = to_double(a[e]), c.b[e] = to_double(b[e]);
    IssueLog::calls->push_back(c);
  }
};

// What the wave's lanes hold after mac, per the documentation (Doc; a wrong one for the negative test).
template <class MK, class Inst, class Doc>
std::vector<std::vector<double>> emulate_wave(const std::vector<std::vector<IssuedCall>>& lanes) {
  const int calls = static_cast<int>(lanes[0].size());
  std::vector<std::vector<double>> acc(rh::kWaveLanes,
                                       std::vector<double>(MK::kMmaM * MK::kMmaN * Inst::kDR, 0.0));
  for (int c = 0; c < calls; ++c) {
    std::vector<double> A(Inst::kS * Inst::kK), B(Inst::kK * Inst::kS);
    for (int l = 0; l < rh::kWaveLanes; ++l) {
      EXPECT_EQ(lanes[l][c].slot, lanes[0][c].slot) << "lanes of one wave issued different instructions";
      for (int e = 0; e < Inst::kAV; ++e) {
        A[Doc::a(l, e).row * Inst::kK + Doc::a(l, e).col] = lanes[l][c].a[e];
        B[Doc::b(l, e).row * Inst::kS + Doc::b(l, e).col] = lanes[l][c].b[e];
      }
    }
    for (int l = 0; l < rh::kWaveLanes; ++l)
      for (int r = 0; r < Inst::kDR; ++r) {
        const Place p = Doc::d(l, r);
        double s = 0;
        for (int k = 0; k < Inst::kK; ++k) s += A[p.row * Inst::kK + k] * B[k * Inst::kS + p.col];
        acc[l][lanes[l][c].slot * Inst::kDR + r] += s;
      }
  }
  return acc;
}

// Runs MK's mac for every lane of the team on random small integers (every sum exact in any of the
// types), emulates the instructions, and counts the accumulator elements that differ from the product
// of the scratch tiles at (row(o, i), col(o, j)). Also checks that the lanes' grids cover the C tile once.
template <class Cfg, class Inst, class Doc = Documented<Inst>>
int mac_mismatches(std::uint64_t seed) {
  using T = typename Inst::In;
  using Acc = typename Inst::Out;
  using MK = rh::MfmaMicroKernel<Cfg, T, Acc, Inst, RecordingIssue<Inst>>;
  std::mt19937_64 gen(seed);
  std::uniform_int_distribution<int> val(-4, 4);
  std::vector<T> As(Cfg::bk * MK::LDA), Bs(Cfg::bk * MK::LDB);
  for (auto& x : As) x = T(static_cast<float>(val(gen)));
  for (auto& x : Bs) x = T(static_cast<float>(val(gen)));
  int bad = 0;
  std::set<std::pair<int, int>> covered;
  for (int w = 0; w < Cfg::team_size / rh::kWaveLanes; ++w) {
    std::vector<std::vector<IssuedCall>> lanes(rh::kWaveLanes);
    for (int l = 0; l < rh::kWaveLanes; ++l) {
      typename MK::Accumulator acc;
      MK::zero(acc);
      IssueLog::calls = &lanes[l];
      IssueLog::acc_base = &acc.v[0][0][0];
      MK::mac(acc, As.data(), Bs.data(), MK::owner(w * rh::kWaveLanes + l));
    }
    EXPECT_EQ(lanes[0].size(), std::size_t(MK::kSlices * MK::kMmaM * MK::kMmaN));
    const auto emu = emulate_wave<MK, Inst, Doc>(lanes);
    for (int l = 0; l < rh::kWaveLanes; ++l) {
      const auto o = MK::owner(w * rh::kWaveLanes + l);
      typename MK::Accumulator acc;
      for (int i = 0; i < MK::kMmaM; ++i)
        for (int j = 0; j < MK::kMmaN; ++j)
          for (int r = 0; r < Inst::kDR; ++r)
            acc.v[i][j][r] = static_cast<Acc>(emu[l][(i * MK::kMmaN + j) * Inst::kDR + r]);
      for (int i = 0; i < MK::kTM; ++i)
        for (int j = 0; j < MK::kTN; ++j) {
          const int row = MK::row(o, i), col = MK::col(o, j);
          covered.insert({row, col});
          double want = 0;
          for (int k = 0; k < Cfg::bk; ++k)
            want += to_double(As[k * MK::LDA + row]) * to_double(Bs[k * MK::LDB + col]);
          bad += to_double(MK::get(acc, i, j)) != want;
        }
    }
  }
  EXPECT_EQ(covered.size(), std::size_t(Cfg::bm * Cfg::bn)) << "the lanes' grids must cover the C tile";
  for (const auto& rc : covered) {
    EXPECT_TRUE(rc.first >= 0 && rc.first < Cfg::bm && rc.second >= 0 && rc.second < Cfg::bn);
  }
  return bad;
}

// A small entry whose team has waves along both M and N, and several k slices per K step.
template <class Inst, int kWaveM, int kWaveN, int kWavesM, int kWavesN, int kSlices>
struct SmallMfmaTiles {
  static constexpr int bm = kWaveM * kWavesM, bn = kWaveN * kWavesN, bk = kSlices * Inst::kK;
  static constexpr int wave_m = kWaveM, wave_n = kWaveN;
  static constexpr int tm = (kWaveM / Inst::kS) * Inst::kDR, tn = kWaveN / Inst::kS;
  static constexpr int pad_a = 3, pad_b = 5;
  static constexpr int team_size = kWavesM * kWavesN * rh::kWaveLanes;
};

TEST(MfmaMicroKernel, TableEntriesMatchEmulation) {
  EXPECT_EQ((mac_mismatches<rh::GemmTilesFp64Mfma, rh::MfmaF64x16x16x4>(1)), 0);
  EXPECT_EQ((mac_mismatches<rh::GemmTilesFp32Mfma, rh::MfmaF32x32x32x2>(2)), 0);
  EXPECT_EQ((mac_mismatches<rh::GemmTilesF16Mfma, rh::MfmaF16x32x32x8>(3)), 0);
  EXPECT_EQ((mac_mismatches<rh::GemmTilesBf16Mfma, rh::MfmaBf16x32x32x8>(4)), 0);
}

TEST(MfmaMicroKernel, SmallTilesMatchEmulation) {
  // Two waves along M and two along N, odd pads, three k slices per K step.
  EXPECT_EQ((mac_mismatches<SmallMfmaTiles<rh::MfmaF64x16x16x4, 32, 16, 2, 2, 3>, rh::MfmaF64x16x16x4>(5)),
            0);
  EXPECT_EQ((mac_mismatches<SmallMfmaTiles<rh::MfmaF32x32x32x2, 32, 64, 2, 2, 3>, rh::MfmaF32x32x32x2>(6)),
            0);
  EXPECT_EQ((mac_mismatches<SmallMfmaTiles<rh::MfmaF16x32x32x8, 64, 32, 2, 2, 3>, rh::MfmaF16x32x32x8>(7)),
            0);
}

// The emulation has teeth: with another form's D layout (the FP32 forms' for FP64, and FP64's rows for
// the 32 x 32 forms) the same micro-kernels must mismatch.
struct WrongF64 : Documented<rh::MfmaF64x16x16x4> {
  static Place d(int l, int r) { return {4 * (l / 16) + r, l % 16}; }
};
struct WrongF32 : Documented<rh::MfmaF32x32x32x2> {
  static Place d(int l, int r) { return {(4 * r + l / 32) % 32, l % 32}; }
};
TEST(MfmaMicroKernel, WrongDocumentationIsCaught) {
  EXPECT_GT((mac_mismatches<rh::GemmTilesFp64Mfma, rh::MfmaF64x16x16x4, WrongF64>(8)), 0);
  EXPECT_GT((mac_mismatches<rh::GemmTilesFp32Mfma, rh::MfmaF32x32x32x2, WrongF32>(9)), 0);
}

// The table's MFMA entries: on a HIP build of a target with MFMA, every real type takes one.
TEST(MfmaTable, RealTypesTakeTheMatrixCores) {
  using Tiles = rh::Tiles;
  EXPECT_TRUE((std::is_same_v<Tiles::gemm_mfma<double>, rh::GemmTilesFp64Mfma>));
  EXPECT_TRUE((std::is_same_v<Tiles::gemm_mfma<float>, rh::GemmTilesFp32Mfma>));
  EXPECT_TRUE((std::is_same_v<Tiles::gemm_mfma<ridgeline::half_t>, rh::GemmTilesF16Mfma>));
  EXPECT_TRUE((std::is_same_v<Tiles::gemm_mfma<ridgeline::bhalf_t>, rh::GemmTilesBf16Mfma>));
  EXPECT_EQ(RIDGELINE_HIP_MFMA != 0, (std::is_same_v<Tiles::gemm<double>, rh::GemmTilesFp64Mfma>));
}

}  // namespace
