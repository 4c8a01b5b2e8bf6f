#pragma once
// FP16 and BF16 tensor-core micro-kernel: mma.sync.aligned.m16n8k16 with FP32 accumulation (HMMA),
// fed by ldmatrix from scratch. The instruction exists from sm_80 on; on the H200 it ran 598-626 TF/s
// register-resident, 61-63% of the FP16 peak (../shared/TOOLCHAIN.md, "Matrix units"); the rest of
// the peak needs wgmma (sm_90a).
//
// A warp owns a warp_m x warp_n tile of the team's C tile, as (warp_m / 16) x (warp_n / 8)
// instructions per k16. Per instruction and lane (g = lane / 4, q = lane % 4; PTX ISA, "Matrix
// fragments for mma.m16n8k16" with .f16/.bf16), each register holding two k-adjacent elements:
//   A (16 x 16, row)  a[0] = A(g, 2q..2q+1)      a[1] = A(g + 8, 2q..)
//                     a[2] = A(g, 2q+8..)        a[3] = A(g + 8, 2q+8..)
//   B (16 x 8, col)   b[0] = B(2q..2q+1, g)      b[1] = B(2q+8.., g)
//   C (16 x 8, f32)   c[h * 2 + c] = C(g + 8 h, 2 q + c)
// The accumulator grid the epilogue sees is DMMA's (dmma_sm90.hpp): rows g, g + 8 of each 16-row
// block, columns 2q, 2q + 1 of each 8-column block; kTM = warp_m / 8, kTN = warp_n / 4, kRowRun 1.
//
// Fragments come from scratch through ldmatrix.x4: four 8 x 8 matrices of 16-bit elements, each row
// a 16-byte line whose address one lane supplies (matrix j from lanes 8j .. 8j + 7). A lane receives
// elements (l / 4, 2 (l % 4) .. + 1) of each: exactly an A or B register above when a line runs along
// k. So a k-contiguous tile (ScratchLayout k_stride 1) is read as it is, and an m- or n-contiguous one
// (i_stride 1) with .trans, which transposes each 8 x 8 matrix on the way. Either way a matrix's 8
// lines lie L elements apart (L the layout's other stride), and they hit 8 different 16-byte bank
// groups exactly when L * 2 / 16 is odd (L = 8 mod 16): conflict_free() checks it at compile time,
// and the table's pads (8 elements) provide it.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <cstring>
#include <ridgeline/detail/compat.hpp>
#include <ridgeline/detail/micro_tile.hpp>
#include <ridgeline/half.hpp>
#include <type_traits>

namespace ridgeline::backends::cuda {

template <class Cfg, class T, class Acc>
struct HmmaSm80MicroKernel {
  static_assert(sizeof(T) == 2 && std::is_same_v<Acc, float>, "HMMA multiplies 16-bit values into float");
  static_assert(std::is_same_v<T, half_t> || std::is_same_v<T, bhalf_t>, "FP16 or BF16");
  static constexpr bool kBf16 = std::is_same_v<T, bhalf_t>;
  static constexpr int WM = Cfg::warp_m, WN = Cfg::warp_n, BK = Cfg::bk;
  static constexpr int LDA = Cfg::bm + Cfg::pad_a, LDB = Cfg::bn + Cfg::pad_b;
  static constexpr int kMmaM = WM / 16, kMmaN = WN / 8;  // instructions per warp tile and k16
  static constexpr int kWarpsM = Cfg::bm / WM, kWarpsN = Cfg::bn / WN;
  static_assert(
      WM % 16 == 0 && WN % 16 == 0 && Cfg::bm % WM == 0 && Cfg::bn % WN == 0,
      "warp tiles are whole 16 x 16 blocks (B loads two 8-column blocks at once) and tile the team tile");
  static_assert(kWarpsM * kWarpsN * 32 == Cfg::team_size, "one warp per warp tile");
  static_assert(BK % 16 == 0, "the K step is whole k16 instructions");

  static constexpr int kTM = 2 * kMmaM, kTN = 2 * kMmaN, kRowRun = 1;
  static_assert(Cfg::tm == kTM && Cfg::tn == kTN,
                "the entry's tm x tn must be the accumulators a lane holds: (warp_m / 8) x (warp_n / 4)");

  struct Owner {
    int wm, wn, g, q, lane;
  };
  KOKKOS_FORCEINLINE_FUNCTION static Owner owner(int t) {
    const int warp = t / 32, lane = t % 32;
    return {(warp % kWarpsM) * WM, (warp / kWarpsM) * WN, lane / 4, lane % 4, lane};
  }
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int row(const Owner& o, int i) {
    return o.wm + (i / 2) * 16 + (i % 2) * 8 + o.g;
  }
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int col(const Owner& o, int j) {
    return o.wn + (j / 2) * 8 + 2 * o.q + j % 2;
  }

  struct Accumulator {
    float v[kMmaM][kMmaN][4];
  };
  KOKKOS_FORCEINLINE_FUNCTION static void zero(Accumulator& acc) {
    RIDGELINE_UNROLL
    for (int i = 0; i < kMmaM; ++i) {
      RIDGELINE_UNROLL
      for (int j = 0; j < kMmaN; ++j) {
        RIDGELINE_UNROLL
        for (int e = 0; e < 4; ++e) acc.v[i][j][e] = 0.0f;
      }
    }
  }
  KOKKOS_FORCEINLINE_FUNCTION static float get(const Accumulator& acc, int i, int j) {
    return acc.v[i / 2][j / 2][(i % 2) * 2 + j % 2];
  }

  // Register staging writes 16-bit elements (and packets of them) as raw bits to the scratch window.
  KOKKOS_FORCEINLINE_FUNCTION static void store_scratch(T* p, T v) {
#if defined(__CUDA_ARCH__)
    std::uint16_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(p));
    asm volatile("st.shared.u16 [%0], %1;" ::"r"(s), "h"(bits) : "memory");
#else
    *p = v;
#endif
  }
  template <int W>
  KOKKOS_FORCEINLINE_FUNCTION static void store_scratch_packet(T* p, const T* v) {
    RIDGELINE_UNROLL
    for (int e = 0; e < W; ++e) store_scratch(p + e, v[e]);
  }

  // The stride between the 8 lines of one ldmatrix matrix, for layout S.
  template <class S>
  KOKKOS_INLINE_FUNCTION static constexpr int line_stride() {
    return S::k_stride == 1 ? S::i_stride : S::k_stride;
  }
  template <class S>
  KOKKOS_INLINE_FUNCTION static constexpr bool conflict_free() {
    constexpr int L = line_stride<S>();
    return (S::k_stride == 1 || S::i_stride == 1) && L % 8 == 0 && (L / 8) % 2 == 1;
  }

  KOKKOS_FORCEINLINE_FUNCTION static void mac(Accumulator& acc, const T* As, const T* Bs, const Owner& o) {
    mac_in<detail::ScratchLayout<1, LDA>, detail::ScratchLayout<1, LDB>>(acc, As, Bs, o);
  }

  template <class SA, class SB>
  KOKKOS_FORCEINLINE_FUNCTION static void mac_in(Accumulator& acc, const T* As, const T* Bs, const Owner& o) {
    static_assert(conflict_free<SA>() && conflict_free<SB>(),
                  "scratch layout that ldmatrix cannot read, or reads with bank conflicts");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const SliceBase base = slice_base<SA, SB>(As, Bs, o);
    Fragments f;
    RIDGELINE_UNROLL
    for (int s = 0; s < kSlices; ++s) {
      load_slice<SA, SB>(f, base, 0u, 0u, s);
      mma_slice(acc, f);
    }
#else
    (void)acc, (void)As, (void)Bs, (void)o;
    Kokkos::abort("ridgeline: the HMMA micro-kernel runs on sm_80 and later devices only");
#endif
  }

  // mac_in split at k16 (micro_tile.hpp; gemm_team_async.hpp's fragments_across_steps loop, and mac_in
  // itself): slice s of the K step is k in [16 s, 16 s + 16).
  static constexpr int kSlices = BK / 16;
  struct Fragments {
    unsigned a[kMmaM][4];
    unsigned b[kMmaN][2];
  };
  // The lane's ldmatrix line addresses for the first stage buffers; load_slice adds a stage's byte
  // offset. The line a lane addresses: matrix j = lane / 8, line r = lane % 8. A's matrices are (rows 0-7,
  // k 0-7), (rows 8-15, k 0-7), (rows 0-7, k 8-15), (rows 8-15, k 8-15); B's two 8-column blocks are
  // (n 0-7, k 0-7), (n 0-7, k 8-15), (n 8-15, k 0-7), (n 8-15, k 8-15).
  struct SliceBase {
    unsigned a, b;
  };
  template <class SA, class SB>
  KOKKOS_FORCEINLINE_FUNCTION static SliceBase slice_base(const T* As, const T* Bs, const Owner& o) {
#if defined(__CUDA_ARCH__)
    constexpr bool kATrans = SA::k_stride != 1, kBTrans = SB::k_stride != 1;
    constexpr int AI = SA::i_stride, AK = SA::k_stride, BI = SB::i_stride, BKs = SB::k_stride;
    const int j = o.lane / 8, r = o.lane % 8;
    const int ai = (j % 2) * 8 + (kATrans ? 0 : r), ak = (j / 2) * 8 + (kATrans ? r : 0);
    const int bi = (j / 2) * 8 + (kBTrans ? 0 : r), bk = (j % 2) * 8 + (kBTrans ? r : 0);
    return {static_cast<unsigned>(__cvta_generic_to_shared(As + (o.wm + ai) * AI + ak * AK)),
            static_cast<unsigned>(__cvta_generic_to_shared(Bs + (o.wn + bi) * BI + bk * BKs))};
#else
    (void)As, (void)Bs, (void)o;
    return {0u, 0u};
#endif
  }
  template <class SA, class SB>
  KOKKOS_FORCEINLINE_FUNCTION static void load_slice(Fragments& f, const SliceBase& base, unsigned stage_a,
                                                     unsigned stage_b, int s) {
    static_assert(conflict_free<SA>() && conflict_free<SB>(),
                  "scratch layout that ldmatrix cannot read, or reads with bank conflicts");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    constexpr bool kATrans = SA::k_stride != 1, kBTrans = SB::k_stride != 1;
    constexpr int AI = SA::i_stride, AK = SA::k_stride, BI = SB::i_stride, BKs = SB::k_stride;
    const unsigned sa = base.a + stage_a, sb = base.b + stage_b;
    RIDGELINE_UNROLL
    for (int i = 0; i < kMmaM; ++i) ldsm<kATrans>(sa + 2u * (i * 16 * AI + s * 16 * AK), f.a[i]);
    RIDGELINE_UNROLL
    for (int p = 0; p < kMmaN / 2; ++p) {
      unsigned x[4];
      ldsm<kBTrans>(sb + 2u * (p * 16 * BI + s * 16 * BKs), x);
      f.b[2 * p][0] = x[0], f.b[2 * p][1] = x[1], f.b[2 * p + 1][0] = x[2], f.b[2 * p + 1][1] = x[3];
    }
#else
    (void)f, (void)base, (void)stage_a, (void)stage_b, (void)s;
#endif
  }
  KOKKOS_FORCEINLINE_FUNCTION static void mma_slice(Accumulator& acc, const Fragments& f) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    RIDGELINE_UNROLL
    for (int i = 0; i < kMmaM; ++i) {
      RIDGELINE_UNROLL
      for (int n = 0; n < kMmaN; ++n) mma(acc.v[i][n], f.a[i], f.b[n]);
    }
#else
    (void)acc, (void)f;
    Kokkos::abort("ridgeline: the HMMA micro-kernel runs on sm_80 and later devices only");
#endif
  }

#if defined(__CUDA_ARCH__)
  // volatile: no scratch load may move across the team barriers around mac.
  template <bool kTrans>
  __device__ static __forceinline__ void ldsm(unsigned addr, unsigned (&r)[4]) {
    if constexpr (kTrans) {
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                   : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                   : "r"(addr));
    } else {
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                   : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                   : "r"(addr));
    }
  }
  __device__ static __forceinline__ void mma(float (&c)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
    if constexpr (kBf16) {
      asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
          "{%8, %9}, {%0, %1, %2, %3};"
          : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    } else {
      asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
          "{%8, %9}, {%0, %1, %2, %3};"
          : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
  }
#endif
};

}  // namespace ridgeline::backends::cuda
