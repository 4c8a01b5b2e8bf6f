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
// kTM = 2 warp_m / 16 rows and kTN = 2 warp_n / 8 columns, no two rows consecutive (kRowRun 1; with pairs,
// below, rows 2 g and 2 g + 1 instead, kRowRun 2).
//
// Pairs (an entry's dmma_pairs, for NN: op(A) m-contiguous, op(B) k-contiguous). The instruction's rows,
// columns and k need not be the tile's in the same order: a k map that A and B share leaves the sum
// unchanged, and a row (column) map is undone by storing each accumulator where its row (column) came from.
// With pairs:
// - k: logical q + 4 v of k8 slice p (v < 2; m16n8k16 is slices 2 kb, 2 kb + 1) is scratch k 8 p + 2 q + v;
// - rows: logical rows g and g + 8 of a 16-row block are tile rows 2 g and 2 g + 1;
// - columns: logical column x of an 8-column block is tile column sigma(x), bits 0 and 1 of x swapped
//   (0 2 1 3 4 6 5 7), which puts the k-contiguous B reads of lanes g and g + 1 on different banks;
// so a lane reads A in 16-byte loads of rows 2 g, 2 g + 1 and B in 16-byte loads of k 2 q, 2 q + 1: 24
// LDS.128 per k16 of a 64x32 warp tile instead of 48 LDS.64, and the accumulators of rows 2 g, 2 g + 1 store
// as one 16-byte packet of a column-major C (kRowRun 2). A's m-lines are not padded (pads that make those
// reads conflict-free, 2 or 6 mod 8 doubles, leave the lines 16 bytes off 32, and the copies then took 33%
// more shared wavefronts: perf/results/2026-12-04-h200-ed29589/); instead each 128-byte segment's 16-byte
// chunks are XORed with 2 ((k >> 1) & 3) (DmmaPairedRows), which keeps 32-byte sectors whole. B's k-lines
// keep pad_k (20 doubles: 32-byte aligned). Other orientations of a pairs entry compute correctly with 8-byte
// reads where pairs do not fit; the table picks the entry for NN only.
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

// An entry's dmma_pairs (default false): the paired maps and reads above.
template <class Cfg, class = void>
struct DmmaPairsOf : std::false_type {};
template <class Cfg>
struct DmmaPairsOf<Cfg, std::void_t<decltype(Cfg::dmma_pairs)>> : std::bool_constant<Cfg::dmma_pairs> {};

// A pairs entry's m- or n-contiguous tile: one line of kRows elements per k, no pad; element f of line s at
// s kRows + (f ^ 4 ((s >> 1) & 3)), so the 16-byte chunks of each 128-byte segment are XORed with 2 ((s >> 1)
// & 3) and 32-byte sectors stay whole. Lanes q = 0..3 of a quarter-warp read k = 8 p + 2 q + v, so they meet
// distinct chunks.
template <int kK, int kRows>
struct DmmaPairedRows : detail::ScratchLayout<1, kRows> {
  static_assert(kRows % 16 == 0, "the XOR stays inside 16-element (128-byte) segments");
  static constexpr int elements = kK * kRows, alignment = 128;
  static constexpr bool paired_rows = true;
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int offset(int f, int s) {
    return s * kRows + (f ^ (((s >> 1) & 3) << 2));
  }
};
// A pairs entry's k-contiguous tile: kRows lines of kLd elements (kK and the entry's pad_k).
template <int kRows, int kLd>
struct DmmaPaddedK : detail::ScratchLayout<kLd, 1> {
  static constexpr int elements = kRows * kLd, alignment = 128;
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int offset(int f, int s) { return s * kLd + f; }
};
template <class S, class = void>
struct PairedRowsOf : std::false_type {};
template <class S>
struct PairedRowsOf<S, std::void_t<decltype(S::paired_rows)>> : std::bool_constant<S::paired_rows> {};
// The staged layouts a pairs entry declares (micro_tile.hpp's staged_layout); other entries declare none.
template <class Cfg, bool kPairs>
struct DmmaStagedLayouts {};
template <class Cfg>
struct DmmaStagedLayouts<Cfg, true> {
  template <int kRows, int kK, bool kRowsFast>
  using staged_layout =
      std::conditional_t<kRowsFast, DmmaPairedRows<kK, kRows>, DmmaPaddedK<kRows, kK + Cfg::pad_k>>;
};

template <class Cfg, class T, class Acc>
struct DmmaSm90MicroKernel : DmmaStagedLayouts<Cfg, DmmaPairsOf<Cfg>::value> {
  static constexpr bool kPairs = DmmaPairsOf<Cfg>::value;
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

  static constexpr int kTM = 2 * kMmaM, kTN = 2 * kMmaN, kRowRun = kPairs ? 2 : 1;
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
  // The tile column of logical column x of an 8-column block with pairs (sigma): bits 0 and 1 swapped.
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int sigma(int x) {
    return (x & ~3) | ((x & 1) << 1) | ((x >> 1) & 1);
  }
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int row(const Owner& o, int i) {
    if constexpr (kPairs) return o.wm + (i / 2) * 16 + 2 * o.g + i % 2;
    return o.wm + (i / 2) * 16 + (i % 2) * 8 + o.g;
  }
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int col(const Owner& o, int j) {
    if constexpr (kPairs) return o.wn + (j / 2) * 8 + sigma(2 * o.q + j % 2);
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
    if constexpr (kPairs) {
      mac_pairs<SA, SB>(acc, As, Bs, o);
      return;
    }
    static_assert(kPairs || (conflict_free<SA>() && conflict_free<SB>()),
                  "scratch layout with bank conflicts");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if constexpr (kK == 16) {
      // m16n8k16 loads A per 16-row block just before its products (k16_products; not load_slice's
      // fragments of every block at once).
      constexpr int AI = SA::i_stride, AK = SA::k_stride, BI = SB::i_stride, BKs = SB::k_stride;
      const SliceBase base = slice_base<SA, SB>(As, Bs, o);
      const unsigned sa = base.a, sb = base.b;
      k16_products(
          acc,
          [&](int kb, int j, double(&bj)[4]) {
            RIDGELINE_UNROLL
            for (int v = 0; v < 4; ++v) bj[v] = lds(sb + 8u * ((kb * 16 + 4 * v) * BKs + j * 8 * BI));
          },
          [&](int kb, int i, double(&a)[8]) {
            RIDGELINE_UNROLL
            for (int v = 0; v < 8; ++v)
              a[v] = lds(sa + 8u * ((kb * 16 + 4 * (v / 2)) * AK + (i * 16 + 8 * (v % 2)) * AI));
          });
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

  // ---- pairs (the header's maps) ----
  // How a lane reads each operand: A in 16-byte pairs of rows from DmmaPairedRows (XOR-swizzled) or from
  // m-lines of even stride, else 8-byte values; B in 16-byte pairs along k from k-lines, else 8-byte values.
  template <class SA>
  static constexpr bool a_swizzled = PairedRowsOf<SA>::value;
  template <class SA>
  static constexpr bool a_pairs = SA::i_stride == 1 && SA::k_stride % 2 == 0;
  template <class SB>
  static constexpr bool b_pairs = SB::k_stride == 1 && SB::i_stride % 2 == 0;
  // The element offset of the lane's first read of A (16-row block 0, slice 0) and of B (8-column block 0).
  template <class SA>
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int a_lane(int g, int q) {
    // In DmmaPairedRows, row 2 g at k 2 q (+ 8 p + v) sits at 2 (g ^ 2 q): (k >> 1) & 3 == q.
    if constexpr (a_swizzled<SA>) return 2 * (g ^ (2 * q)) + 2 * q * SA::k_stride;
    return 2 * g * SA::i_stride + 2 * q * SA::k_stride;
  }
  // In an n-contiguous DmmaPairedRows B, column c = 8 j + sigma(g) at k 8 p + 2 q + v sits at c ^ 4 q, and 4
  // q may reach bit 3, so the offset depends on the parity of the 8-column block (odd_block), relative to its
  // first column. Other layouts are linear.
  template <class SB>
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int b_lane(int g, int q, bool odd_block = false) {
    if constexpr (PairedRowsOf<SB>::value) {
      const int first = odd_block ? 8 : 0;
      return ((first + sigma(g)) ^ (4 * q)) - first + 2 * q * SB::k_stride;
    }
    return sigma(g) * SB::i_stride + 2 * q * SB::k_stride;
  }
  // NN's reads are conflict-free: 16-byte ones over eight 16-byte bank groups per quarter-warp.
  template <class SA, class SB>
  KOKKOS_INLINE_FUNCTION static constexpr bool pairs_conflict_free() {
    for (int first = 0; first < 32; first += 8) {
      bool hit_a[8] = {}, hit_b[8] = {};
      for (int lane = first; lane < first + 8; ++lane) {
        const int sa = (a_lane<SA>(lane / 4, lane % 4) / 2) % 8,
                  sb = (b_lane<SB>(lane / 4, lane % 4) / 2) % 8;
        if (hit_a[sa] || hit_b[sb]) return false;
        hit_a[sa] = hit_b[sb] = true;
      }
    }
    return true;
  }
  template <class SA, class SB>
  KOKKOS_FORCEINLINE_FUNCTION static void mac_pairs(Accumulator& acc, const T* As, const T* Bs,
                                                    const Owner& o) {
    static_assert(!(a_swizzled<SA> && b_pairs<SB>) || pairs_conflict_free<SA, SB>(),
                  "NN pairs with bank conflicts: see the header for the layouts");
    static_assert(kK == 16, "pairs read m16n8k16 fragments");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    constexpr int AI = SA::i_stride, AK = SA::k_stride, BI = SB::i_stride, BKs = SB::k_stride;
    const unsigned sa =
        static_cast<unsigned>(__cvta_generic_to_shared(As + o.wm * AI + a_lane<SA>(o.g, o.q)));
    // B's lane offsets in the warp's even and odd 8-column blocks (they differ only for DmmaPairedRows; the
    // warp's own first block may be odd: warp_n may be 8).
    const bool wn_odd = (o.wn / 8) % 2 != 0;
    const unsigned sb0 =
        static_cast<unsigned>(__cvta_generic_to_shared(Bs + o.wn * BI + b_lane<SB>(o.g, o.q, wn_odd)));
    const unsigned sb1 =
        static_cast<unsigned>(__cvta_generic_to_shared(Bs + o.wn * BI + b_lane<SB>(o.g, o.q, !wn_odd)));
    k16_products(
        acc,
        [&](int kb, int j, double(&bj)[4]) {
          RIDGELINE_UNROLL
          for (int h = 0; h < 2; ++h) {
            // bj[2 h + v] = B(scratch k 8 (2 kb + h) + 2 q + v, column 8 j + sigma(g))
            const unsigned at = (j % 2 ? sb1 : sb0) + 8u * (j * 8 * BI + (2 * kb + h) * 8 * BKs);
            if constexpr (b_pairs<SB>) {
              lds2(at, bj[2 * h], bj[2 * h + 1]);
            } else {
              bj[2 * h] = lds(at), bj[2 * h + 1] = lds(at + 8u * BKs);
            }
          }
        },
        [&](int kb, int i, double(&a)[8]) {
          RIDGELINE_UNROLL
          for (int h = 0; h < 2; ++h) {
            // a[4 h + v0 + 2 v] = A(tile row 16 i + 2 g + v0, scratch k 8 (2 kb + h) + 2 q + v)
            const unsigned at = sa + 8u * (i * 16 * AI + (2 * kb + h) * 8 * AK);
            if constexpr (a_pairs<SA>) {
              lds2(at, a[4 * h], a[4 * h + 1]);
              lds2(at + 8u * AK, a[4 * h + 2], a[4 * h + 3]);
            } else {
              a[4 * h] = lds(at), a[4 * h + 1] = lds(at + 8u * AI);
              a[4 * h + 2] = lds(at + 8u * AK), a[4 * h + 3] = lds(at + 8u * (AI + AK));
            }
          }
        });
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
    static_assert(!kPairs, "the slice loop reads the plain maps");
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
  // One K step of m16n8k16 products, k16 block by block: B's fragments of every 8-column block
  // (load_b(kb, j, b[j])), then for each 16-row block A's (load_a(kb, i, a)) just before its products, which
  // keeps the 64x32 warp tile inside 255 registers. The plain and the pairs reads (mac_in, mac_pairs) differ
  // only in their loads.
  template <class LoadB, class LoadA>
  __device__ static __forceinline__ void k16_products(Accumulator& acc, const LoadB& load_b,
                                                      const LoadA& load_a) {
    RIDGELINE_UNROLL
    for (int kb = 0; kb < BK / 16; ++kb) {
      double b[kMmaN][4];
      RIDGELINE_UNROLL
      for (int j = 0; j < kMmaN; ++j) load_b(kb, j, b[j]);
      RIDGELINE_UNROLL
      for (int i = 0; i < kMmaM; ++i) {
        double a[8];
        load_a(kb, i, a);
        RIDGELINE_UNROLL
        for (int j = 0; j < kMmaN; ++j) mma(acc.v[i][j], a, b[j]);
      }
    }
  }
  // volatile: no scratch load may move across the team barriers around mac.
  __device__ static __forceinline__ void lds2(unsigned addr, double& x, double& y) {
    asm volatile("ld.shared.v2.f64 {%0, %1}, [%2];" : "=d"(x), "=d"(y) : "r"(addr));
  }
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
