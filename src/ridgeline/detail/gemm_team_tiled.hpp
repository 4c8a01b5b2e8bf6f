#pragma once
// The team tile level: one Kokkos team computes one BM x BN tile of C.
//
//   league rank --(grouped order)--> (tile_m, tile_n)
//   for each BK-deep step of K:
//     op(A)(tile rows, k step) -> As (BK, BM+pad_a)   zero-filled past M and K
//     op(B)(k step, tile cols) -> Bs (BK, BN+pad_b)   zero-filled past K and N
//     barrier; every thread: micro-kernel mac on its TM x TN micro-tile(s)
//   epilogue: C = alpha*acc (+ beta*C when beta != 0), masked at the M/N edges
//
// With stages == 2 a thread holds its share of the next K step in registers while the current one
// is computed, and writes it to the other scratch buffer afterwards: one barrier per K step, and
// global-load latency hidden behind the math. With stages == 1 (the host tables) the tile is copied
// straight into scratch. When a thread owns one micro-tile its accumulator stays in registers for
// the whole K loop; when it owns several (a host team is one thread), they live in a BM x BN scratch
// accumulator and each is loaded into registers for one K step at a time.
#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ridgeline/detail/compat.hpp"
#include "ridgeline/detail/complex.hpp"
#include "ridgeline/detail/gemm_epilogue.hpp"
#include "ridgeline/detail/micro_tile.hpp"
#include "ridgeline/detail/strided.hpp"

namespace ridgeline::detail {

constexpr std::size_t scratch_align = 16;
KOKKOS_INLINE_FUNCTION constexpr std::size_t align_up(std::size_t n) {
  return (n + scratch_align - 1) / scratch_align * scratch_align;
}

// Whether a tile configuration asks for fragment prefetch (k_loop_prefetch below); off unless named.
template <class Cfg, class = void>
struct PrefetchFragments : std::false_type {};
template <class Cfg>
struct PrefetchFragments<Cfg, std::void_t<decltype(Cfg::prefetch_fragments)>>
    : std::bool_constant<Cfg::prefetch_fragments> {};

template <class Cfg, class = void>
struct UnmaskedInteriorStoreNn : std::false_type {};
template <class Cfg>
struct UnmaskedInteriorStoreNn<Cfg, std::void_t<decltype(Cfg::unmasked_interior_store_nn)>>
    : std::bool_constant<Cfg::unmasked_interior_store_nn> {};

// Whether micro-kernel MK has mac_upto (micro_tile.hpp's contract: mac over the first kk values of a step).
template <class MK, class = void>
struct HasMacUpto : std::false_type {};
template <class MK>
struct HasMacUpto<MK, std::void_t<decltype(&MK::mac_upto)>> : std::true_type {};
// The blocks in which micro-kernel MK stages transposing copies itself (copy_transposed, micro_tile.hpp);
// 0 where it does not.
template <class MK, class = void>
struct TransposeBlockOf : std::integral_constant<int, 0> {};
template <class MK>
struct TransposeBlockOf<MK, std::void_t<decltype(MK::kTransposeBlock)>>
    : std::integral_constant<int, MK::kTransposeBlock> {};

// T: the element type of A and B; TC: that of C (T, or float for 16-bit inputs); Acc: the accumulator.
template <class ExecSpace, class Cfg, class T, class Acc, class MK, bool kAFastM, bool kBFastN,
          bool kVec = false, class TC = T>
struct GemmTeamTiled
    : GemmEpilogue<GemmTeamTiled<ExecSpace, Cfg, T, Acc, MK, kAFastM, kBFastN, kVec, TC>, TC, Acc, MK> {
  static_assert(Cfg::vector_length == 1, "the GEMM team tile maps one micro-tile set to each team thread");
  using policy_type = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<Cfg::team_size, Cfg::min_blocks>>;
  using member_type = typename policy_type::member_type;
  using config = Cfg;
  using accumulator_type = Acc;
  static constexpr bool a_fast_m = kAFastM, b_fast_n = kBFastN;

  static constexpr int BM = Cfg::bm, BN = Cfg::bn, BK = Cfg::bk;
  static constexpr int LDA = BM + Cfg::pad_a, LDB = BN + Cfg::pad_b;
  static constexpr int kThreads = Cfg::team_size;
  static constexpr int kTilesM = BM / Cfg::tm, kTilesN = BN / Cfg::tn;
  static constexpr int kPerThread = kTilesM * kTilesN / kThreads;
  static constexpr bool kRegisterAcc = (kPerThread == 1);
  static constexpr int kStages = Cfg::stages;
  static_assert(kTilesM * kTilesN % kThreads == 0, "micro-tiles must divide evenly among the team's threads");
  static_assert(kStages == 1 || kStages == 2, "one or two scratch stages");
  static_assert(kStages == 1 || (BM * BK % kThreads == 0 && BK * BN % kThreads == 0),
                "register staging needs the K step to divide evenly among the team's threads");

  // Each operand tile is walked as (fast, slow): the fast index follows the contiguous direction
  // of op(A)/op(B) in memory, so consecutive threads read consecutive addresses.
  static constexpr int kAF = kAFastM ? BM : BK, kAS = kAFastM ? BK : BM;
  static constexpr int kBF = kBFastN ? BN : BK, kBS = kBFastN ? BK : BN;

  Strided2D<const T> a;  // op(A): M x K
  Strided2D<const T> b;  // op(B): K x N
  Strided2D<TC> c;       // M x N
  Acc alpha, beta;
  int tiles_m, tiles_n;
  // Split-K (stages == 2 only): league rank / (tiles_m * tiles_n) is the slice, which covers
  // k_chunk of K and writes alpha * its partial product to work[slice] (M x N, column-major);
  // SplitKReduce then sums the slices in order into C. With k_slices == 1, work is unused.
  Acc* work = nullptr;
  int k_slices = 1;
  std::int64_t k_chunk = 0;
  // The dispatcher proved that C's rows are unit-stride and every column starts 16-byte aligned,
  // so kCV consecutive rows of a micro-tile piece are one vector store (and load, when beta != 0).
  bool c_packets = false;
  using Epilogue = GemmEpilogue<GemmTeamTiled, TC, Acc, MK>;
  static constexpr int kCV = Epilogue::kCV;
  static constexpr bool c_packet_capable = Epilogue::c_packet_capable;
  using Owner = typename MK::Owner;

  KOKKOS_INLINE_FUNCTION static constexpr std::size_t scratch_bytes() {
    return align_up(sizeof(T) * kStages * BK * LDA) + align_up(sizeof(T) * kStages * BK * LDB) +
           (kRegisterAcc ? 0 : align_up(sizeof(Acc) * BM * BN)) + 3 * scratch_align;
  }

  // (m, k) -> As(k, m) and (k, n) -> Bs(k, n), mapped from a (fast, slow) position.
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int a_m(int f, int s) { return kAFastM ? f : s; }
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int a_k(int f, int s) { return kAFastM ? s : f; }
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int b_n(int f, int s) { return kBFastN ? f : s; }
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int b_k(int f, int s) { return kBFastN ? s : f; }

  // Padded lanes read nothing: an element outside op(A) or op(B) is a zero in scratch. A conjugated
  // complex operand is conjugated here, on its way to scratch (every staging path does the same).
  KOKKOS_FORCEINLINE_FUNCTION T a_at(std::int64_t m, std::int64_t k) const {
    return (m < a.rows && k < a.cols) ? conj_if(a(m, k), a.conj) : T(0);
  }
  KOKKOS_FORCEINLINE_FUNCTION T b_at(std::int64_t k, std::int64_t n) const {
    return (k < b.rows && n < b.cols) ? conj_if(b(k, n), b.conj) : T(0);
  }

  // Copies kS lines of kF elements: line sl starts at src(sl) with stride fs, and goes to dst(sl)
  // with stride kDs. When kDs != 1 the copy transposes; it then walks the lines in blocks of 16
  // fast elements so that the 16 scratch rows it writes stay in L1 while consecutive lines fill
  // them, instead of touching a new cache line per element. cj: conjugate (complex operands of 'C').
  template <int kF, int kS, int kDs, class Src, class Dst>
  KOKKOS_FORCEINLINE_FUNCTION void copy_lines(int t, std::int64_t fs, bool cj, Src&& src, Dst&& dst) const {
    constexpr int kTB = TransposeBlockOf<MK>::value;
    if constexpr (kDs != 1 && kThreads == 1 && kTB > 0 && kF % kTB == 0 && kS % kTB == 0) {
      // Lines equally spaced in memory (a tile of a strided operand) and consecutive in scratch.
      if (fs == 1 && !cj && dst(1) == dst(0) + 1)
        return MK::template copy_transposed<kF, kS, kDs>(dst(0), src(0), src(1) - src(0));
    }
    copy_part<kDs>(t, fs, cj, std::integral_constant<int, kF>{}, std::integral_constant<int, kS>{}, src, dst);
  }

  // The K tail of copy_lines, for a tile inside M and N whose step has kk < BK values of K left: a line
  // along K (kFastIsK) is copied for its first kk elements, a line across K only when it is one of the
  // first kk, and the rest of the step is zero, as the element-wise path would leave it. Those zeros are
  // written row by row of scratch: along a transposed line they were a store per cache line, 71% of the
  // host's 2048^2 x 16 GEMM (perf annotate). Micro-kernels that read only the first kk values of the
  // step need no zeros, and stage() copies their K tails with copy_part.
  template <int kF, int kS, int kDs, bool kFastIsK, class Src, class Dst>
  KOKKOS_FORCEINLINE_FUNCTION void copy_lines_k_tail(int t, std::int64_t fs, bool cj, int kk, Src&& src,
                                                     Dst&& dst) const {
    for (int sl = t; sl < kS; sl += kThreads) {
      const int f_end = kFastIsK ? kk : (sl < kk ? kF : 0);
      T* d = dst(sl);
      if (f_end > 0) {
        const T* s = src(sl);
        if (fs == 1) {
          for (int f = 0; f < f_end; ++f) MK::store_scratch(d + f * kDs, conj_if(s[f], cj));
        } else {
          for (int f = 0; f < f_end; ++f) MK::store_scratch(d + f * kDs, conj_if(s[f * fs], cj));
        }
      }
      if constexpr (!kFastIsK)  // a whole line of scratch, contiguous (kDs == 1)
        for (int f = f_end; f < kF; ++f) MK::store_scratch(d + f * kDs, T(0));
    }
    if constexpr (kFastIsK) {
      // Scratch rows kk .. kF - 1 (K past its end), each across the lines.
      for (int f = kk; f < kF; ++f)
        for (int sl = t; sl < kS; sl += kThreads) MK::store_scratch(dst(sl) + f * kDs, T(0));
    }
  }

  // The first nf elements of the first ns lines (copy_lines: all of them, as compile-time constants):
  // line sl from src(sl) with stride fs, to dst(sl) with stride kDs, in blocks of 16 fast elements where
  // the copy transposes.
  template <int kDs, class NF, class NS, class Src, class Dst>
  KOKKOS_FORCEINLINE_FUNCTION void copy_part(int t, std::int64_t fs, bool cj, NF nf, NS ns, Src&& src,
                                             Dst&& dst) const {
    constexpr int kBlock = kDs == 1 ? (1 << 30) : 16;
    for (int f0 = 0; f0 < nf; f0 += kBlock) {
      const int f1 = nf - f0 < kBlock ? nf : f0 + kBlock;
      for (int sl = t; sl < ns; sl += kThreads) {
        const T* s = src(sl);
        T* d = dst(sl);
        if (fs == 1) {
          for (int f = f0; f < f1; ++f) MK::store_scratch(d + f * kDs, conj_if(s[f], cj));
        } else {
          for (int f = f0; f < f1; ++f) MK::store_scratch(d + f * kDs, conj_if(s[f * fs], cj));
        }
      }
    }
  }

  // stages == 1: copy one K step straight into scratch. An interior tile is copied as whole lines
  // of the fast index with no bounds tests, unit-stride where memory allows, so the compiler turns
  // the copy into vector moves: per element, staging must cost far less than the BN (or BM) FMAs
  // that use it.
  // Where the micro-kernel reads only up to K (kReadsKTailOnly: the host's scratch-accumulator teams,
  // mac_upto), every other step copies only the part inside the product, line by line: a K tail, and a
  // tile that overhangs M or N (the product is narrower than a tile there). The rest of scratch keeps
  // what it held: rows of As past M and columns of Bs past N reach only accumulators outside C, which
  // the epilogue never stores, and values past K are never read. Element by element with bounds tests,
  // the overhanging tiles made 4096 x 32 x 4096 fp32 take 47-55 ms, 0.14-0.19 of OpenBLAS (cliffs-host,
  // -ad34574-).
  // Elsewhere, a tile inside M and N whose step is the K tail copies the K left as whole lines and
  // zero-fills the rest (every tile's last step where BK does not divide K), and only tiles that
  // overhang M or N (tile_inside_origin moves the others inside) take the element-wise path, which
  // zero-fills.
  static constexpr bool kReadsKTailOnly = HasMacUpto<MK>::value && !kRegisterAcc;
  KOKKOS_FORCEINLINE_FUNCTION void stage(int t, std::int64_t m0, std::int64_t n0, std::int64_t k0, T* As,
                                         T* Bs) const {
    const bool inside_mn = m0 + BM <= a.rows && n0 + BN <= b.cols;
    if (inside_mn && k0 + BK <= a.cols) {
      const std::int64_t a_fs = kAFastM ? a.rs : a.cs;  // source stride along the fast index
      constexpr int a_ds = kAFastM ? 1 : LDA;           // scratch stride along the fast index
      copy_lines<kAF, kAS, a_ds>(
          t, a_fs, a.conj, [&](int sl) { return &a(m0 + a_m(0, sl), k0 + a_k(0, sl)); },
          [&](int sl) { return As + a_k(0, sl) * LDA + a_m(0, sl); });
      const std::int64_t b_fs = kBFastN ? b.cs : b.rs;
      constexpr int b_ds = kBFastN ? 1 : LDB;
      copy_lines<kBF, kBS, b_ds>(
          t, b_fs, b.conj, [&](int sl) { return &b(k0 + b_k(0, sl), n0 + b_n(0, sl)); },
          [&](int sl) { return Bs + b_k(0, sl) * LDB + b_n(0, sl); });
      return;
    }
    if constexpr (kReadsKTailOnly) {
      const auto least = [](std::int64_t x, int cap) { return static_cast<int>(x < cap ? x : cap); };
      const int mv = least(a.rows - m0, BM), nv = least(b.cols - n0, BN), kk = least(a.cols - k0, BK);
      copy_part<kAFastM ? 1 : LDA>(
          t, kAFastM ? a.rs : a.cs, a.conj, kAFastM ? mv : kk, kAFastM ? kk : mv,
          [&](int sl) { return &a(m0 + a_m(0, sl), k0 + a_k(0, sl)); },
          [&](int sl) { return As + a_k(0, sl) * LDA + a_m(0, sl); });
      copy_part<kBFastN ? 1 : LDB>(
          t, kBFastN ? b.cs : b.rs, b.conj, kBFastN ? nv : kk, kBFastN ? kk : nv,
          [&](int sl) { return &b(k0 + b_k(0, sl), n0 + b_n(0, sl)); },
          [&](int sl) { return Bs + b_k(0, sl) * LDB + b_n(0, sl); });
      return;
    }
    if (inside_mn) {
      const int kk = static_cast<int>(a.cols - k0);
      copy_lines_k_tail<kAF, kAS, kAFastM ? 1 : LDA, !kAFastM>(
          t, kAFastM ? a.rs : a.cs, a.conj, kk, [&](int sl) { return &a(m0 + a_m(0, sl), k0 + a_k(0, sl)); },
          [&](int sl) { return As + a_k(0, sl) * LDA + a_m(0, sl); });
      copy_lines_k_tail<kBF, kBS, kBFastN ? 1 : LDB, !kBFastN>(
          t, kBFastN ? b.cs : b.rs, b.conj, kk, [&](int sl) { return &b(k0 + b_k(0, sl), n0 + b_n(0, sl)); },
          [&](int sl) { return Bs + b_k(0, sl) * LDB + b_n(0, sl); });
      return;
    }
    for (int e = t; e < BM * BK; e += kThreads) {
      const int f = e % kAF, s = e / kAF;
      MK::store_scratch(As + a_k(f, s) * LDA + a_m(f, s), a_at(m0 + a_m(f, s), k0 + a_k(f, s)));
    }
    for (int e = t; e < BK * BN; e += kThreads) {
      const int f = e % kBF, s = e / kBF;
      MK::store_scratch(Bs + b_k(f, s) * LDB + b_n(f, s), b_at(k0 + b_k(f, s), n0 + b_n(f, s)));
    }
  }

  // stages == 2: register staging. Each operand's K-step tile is cut into kV-element packets along
  // its fast index, and packet e = t + r * kThreads goes to thread t. Because the team size and the
  // packets per line divide one another, packet r of a thread sits at a compile-time (fast, slow)
  // offset from its packet 0, so a thread needs one pointer and the operand's strides, not a table
  // of offsets: the earlier table of 64-bit offsets and flags cost ~30 registers and ~440 of the
  // ~1600 instructions per fp32 K step (SASS of the 8x8 kernel).
  //
  // kVec: the dispatcher proved that the fast index has unit stride and every packet is 16-byte
  // aligned, so an interior packet is one vector load (LDG.128 on CUDA).
  static constexpr int kV = kVec ? int(16 / sizeof(T)) : 1;
  template <int kF, int kS>
  struct Share {
    static constexpr int kPerLine = kF / kV;                  // packets per line of the fast index
    static constexpr int kPackets = kF * kS / kV / kThreads;  // packets per thread
    static_assert(kF % kV == 0 && (kF * kS / kV) % kThreads == 0,
                  "a K-step tile must split into whole packets per thread");
    static_assert(kThreads % kPerLine == 0 || kPerLine % kThreads == 0,
                  "the team size and the packets per line must divide one another");
    static constexpr bool kWholeLines = kThreads % kPerLine == 0;
    static constexpr int kQ = kWholeLines ? 1 : kPerLine / kThreads;
    // (fast, slow) of a thread's packet 0, and packet r's offset from it.
    KOKKOS_FORCEINLINE_FUNCTION static constexpr int f0(int t) { return (t % kPerLine) * kV; }
    KOKKOS_FORCEINLINE_FUNCTION static constexpr int s0(int t) { return t / kPerLine; }
    KOKKOS_FORCEINLINE_FUNCTION static constexpr int df(int r) {
      return kWholeLines ? 0 : (r % kQ) * kThreads * kV;
    }
    KOKKOS_FORCEINLINE_FUNCTION static constexpr int ds(int r) {
      return kWholeLines ? r * (kThreads / kPerLine) : r / kQ;
    }
  };
  // Whether the kVec variant exists for this configuration (the dispatcher asks before choosing it).
  template <int kF, int kS, int W>
  static constexpr bool packets_fit = kF % W == 0 && (kF * kS / W) % kThreads == 0 &&
                                      (kThreads % (kF / W) == 0 || (kF / W) % kThreads == 0);
  static constexpr int kVecW = int(16 / sizeof(T));
  static constexpr bool vector_capable = kStages == 2 && LDA % kVecW == 0 && LDB % kVecW == 0 &&
                                         packets_fit<kAF, kAS, kVecW> && packets_fit<kBF, kBS, kVecW>;
  static_assert(!kVec || vector_capable, "no 16-byte packet staging for this tile configuration");
  using ShareA = Share<kAF, kAS>;
  using ShareB = Share<kBF, kBS>;
  static constexpr int kLoadA = kStages == 2 ? BM * BK / kThreads : 1;
  static constexpr int kLoadB = kStages == 2 ? BK * BN / kThreads : 1;

  // Fast and slow strides of op(A) and op(B) in memory.
  KOKKOS_FORCEINLINE_FUNCTION std::int64_t a_fs() const { return kAFastM ? a.rs : a.cs; }
  KOKKOS_FORCEINLINE_FUNCTION std::int64_t a_ss() const { return kAFastM ? a.cs : a.rs; }
  KOKKOS_FORCEINLINE_FUNCTION std::int64_t b_fs() const { return kBFastN ? b.cs : b.rs; }
  KOKKOS_FORCEINLINE_FUNCTION std::int64_t b_ss() const { return kBFastN ? b.rs : b.cs; }

  // Loads one operand's share of a K step into regs. p points at the thread's packet 0 for this
  // step; (o0, k0) is the step's origin in (m or n, k), lim_o and lim_k the operand's extents.
  // kChecked tests every element against the extents and reads zero outside them (edge tiles and
  // the K tail); otherwise nothing is tested.
  template <bool kChecked, class Sh, bool kFastIsK, int kN>
  KOKKOS_FORCEINLINE_FUNCTION static void fetch_share(const T* p, std::int64_t fs, std::int64_t ss, int t,
                                                      std::int64_t o0, std::int64_t k0, std::int64_t lim_o,
                                                      std::int64_t lim_k, T (&regs)[kN]) {
    RIDGELINE_UNROLL
    for (int r = 0; r < Sh::kPackets; ++r) {
      const T* q = p + (kV > 1 ? std::int64_t(Sh::df(r)) : Sh::df(r) * fs) + Sh::ds(r) * ss;
      if constexpr (!kChecked && kV > 1) {
        const auto v = load_packet<kV, T>(q);
        RIDGELINE_UNROLL
        for (int c = 0; c < kV; ++c) regs[r * kV + c] = v.v[c];
      } else {
        RIDGELINE_UNROLL
        for (int c = 0; c < kV; ++c) {
          const T* qc = kV > 1 ? q + c : q;
          if constexpr (kChecked) {
            const int f = Sh::f0(t) + Sh::df(r) + c, s = Sh::s0(t) + Sh::ds(r);
            const std::int64_t o = o0 + (kFastIsK ? s : f), k = k0 + (kFastIsK ? f : s);
            regs[r * kV + c] = (o < lim_o && k < lim_k) ? *qc : T(0);
          } else {
            regs[r * kV + c] = *qc;
          }
        }
      }
    }
  }

  // Writes one operand's share to its (BK, LD) scratch tile. When the fast index is the scratch
  // tile's contiguous one, a packet is one vector store; otherwise it is transposed element-wise.
  template <class Sh, bool kFastIsK, int kLD, int kN>
  KOKKOS_FORCEINLINE_FUNCTION static void commit_share(int t, const T (&regs)[kN], T* S) {
    RIDGELINE_UNROLL
    for (int r = 0; r < Sh::kPackets; ++r) {
      const int f = Sh::f0(t) + Sh::df(r), s = Sh::s0(t) + Sh::ds(r);
      if constexpr (kFastIsK) {
        RIDGELINE_UNROLL
        for (int c = 0; c < kV; ++c) MK::store_scratch(S + (f + c) * kLD + s, regs[r * kV + c]);
      } else {
        MK::template store_scratch_packet<kV>(S + s * kLD + f, regs + r * kV);
      }
    }
  }

  // A thread's packet-0 pointers at k = 0; a K step advances them by BK along k.
  struct Cursor {
    const T* a;
    const T* b;
  };
  KOKKOS_FORCEINLINE_FUNCTION Cursor cursor(int t, std::int64_t m0, std::int64_t n0) const {
    const int fa = ShareA::f0(t), sa = ShareA::s0(t), fb = ShareB::f0(t), sb = ShareB::s0(t);
    return {a.data + (m0 + a_m(fa, sa)) * a.rs + a_k(fa, sa) * a.cs,
            b.data + b_k(fb, sb) * b.rs + (n0 + b_n(fb, sb)) * b.cs};
  }

  // k_end: where this team's K range stops (K, or the end of its split-K slice).
  template <bool kChecked>
  KOKKOS_FORCEINLINE_FUNCTION void fetch(int t, const Cursor& cur, std::int64_t m0, std::int64_t n0,
                                         std::int64_t k0, std::int64_t k_end, T (&ra)[kLoadA],
                                         T (&rb)[kLoadB]) const {
    fetch_share<kChecked, ShareA, !kAFastM>(cur.a + k0 * a.cs, a_fs(), a_ss(), t, m0, k0, a.rows, k_end, ra);
    fetch_share<kChecked, ShareB, !kBFastN>(cur.b + k0 * b.rs, b_fs(), b_ss(), t, n0, k0, b.cols, k_end, rb);
    if constexpr (is_complex_v<T>) {  // conjugated in registers, between the loads and the scratch stores
      RIDGELINE_UNROLL
      for (int r = 0; r < kLoadA; ++r) ra[r] = conj_if(ra[r], a.conj);
      RIDGELINE_UNROLL
      for (int r = 0; r < kLoadB; ++r) rb[r] = conj_if(rb[r], b.conj);
    }
  }
  KOKKOS_FORCEINLINE_FUNCTION void commit(int t, const T (&ra)[kLoadA], const T (&rb)[kLoadB], T* As,
                                          T* Bs) const {
    commit_share<ShareA, !kAFastM, LDA>(t, ra, As);
    commit_share<ShareB, !kBFastN, LDB>(t, rb, Bs);
  }

  // One team's K steps as register staging walks them: nk steps, of which the first nk_full are
  // whole and inside the tile, so they load without bounds tests (only edge tiles and the K tail
  // pay for them); cur0 is the thread's packet 0 at k = 0.
  struct Steps {
    Cursor cur0;
    std::int64_t m0, n0, k_begin, k_end;
    int t, nk, nk_full;
  };
  KOKKOS_FORCEINLINE_FUNCTION Steps steps(int t, std::int64_t m0, std::int64_t n0, std::int64_t k_begin,
                                          std::int64_t k_end) const {
    const bool interior = m0 + BM <= a.rows && n0 + BN <= b.cols;
    return {cursor(t, m0, n0),
            m0,
            n0,
            k_begin,
            k_end,
            t,
            static_cast<int>((k_end - k_begin + BK - 1) / BK),
            interior ? static_cast<int>((k_end - k_begin) / BK) : 0};
  }
  // Loads step kt's share into (ra, rb); kWhole: the caller knows that kt < nk_full.
  template <bool kWhole = false>
  KOKKOS_FORCEINLINE_FUNCTION void fetch_step(const Steps& s, int kt, T (&ra)[kLoadA],
                                              T (&rb)[kLoadB]) const {
    const std::int64_t k0 = s.k_begin + std::int64_t(kt) * BK;
    if (kWhole || kt < s.nk_full) {
      fetch<false>(s.t, s.cur0, s.m0, s.n0, k0, s.k_end, ra, rb);
    } else {
      fetch<true>(s.t, s.cur0, s.m0, s.n0, k0, s.k_end, ra, rb);
    }
  }

  // Runs body(As, Bs, kt) for every K step of [k_begin, k_end), with the step's tiles staged in
  // scratch. k_begin is a multiple of BK; without split-K the range is all of K.
  template <class Body>
  KOKKOS_FORCEINLINE_FUNCTION void k_loop(const member_type& team, std::int64_t m0, std::int64_t n0,
                                          std::int64_t k_begin, std::int64_t k_end, T* As, T* Bs,
                                          Body&& body) const {
    const int t = team.team_rank();
    const int nk = static_cast<int>((k_end - k_begin + BK - 1) / BK);
    if constexpr (kStages == 2) {
      const Steps st = steps(t, m0, n0, k_begin, k_end);
      const int nk_full = st.nk_full;
      T ra[kLoadA], rb[kLoadB];
      fetch_step(st, 0, ra, rb);
      commit(t, ra, rb, As, Bs);
      team.team_barrier();
      int kt = 0;
      // Steady state, while the next step is whole: no branch between the next step's loads, this
      // step's math and the commit, so the compiler can spread the loads and their address
      // arithmetic among the FMAs. With the branchy loop below alone, each step began with ~150
      // scalar instructions that both warps of a scheduler issued while the FP64 pipe idled (SASS
      // and ncu of the fp64 kernel,
      // perf/results/2026-11-30-h200-373c650/h200-2026-11-30-ncu-dgemm-4096-373c650.txt).
      for (; kt + 1 < nk_full; ++kt) {
        const int cur = kt & 1;
        fetch_step<true>(st, kt + 1, ra, rb);
        body(As + cur * BK * LDA, Bs + cur * BK * LDB, kt);
        commit(t, ra, rb, As + (cur ^ 1) * BK * LDA, Bs + (cur ^ 1) * BK * LDB);
        team.team_barrier();
      }
      // The rest: edge tiles, the K tail and the last step.
      for (; kt < nk; ++kt) {
        const int cur = kt & 1;
        const bool more = kt + 1 < nk;
        if (more) fetch_step(st, kt + 1, ra, rb);
        body(As + cur * BK * LDA, Bs + cur * BK * LDB, kt);
        if (more) commit(t, ra, rb, As + (cur ^ 1) * BK * LDA, Bs + (cur ^ 1) * BK * LDB);
        team.team_barrier();
      }
    } else {
      for (int kt = 0; kt < nk; ++kt) {
        if (kt > 0) team.team_barrier();
        stage(t, m0, n0, k_begin + std::int64_t(kt) * BK, As, Bs);
        team.team_barrier();
        body(As, Bs, kt);
      }
    }
  }

  // k_loop with the micro-kernel split at k (stages == 2, one micro-tile per thread): the fragment
  // of k + 1 is loaded while k is computed, and the barrier between K steps comes before the last
  // k's math, so the next step's first fragment loads while that math runs. In k_loop every K step
  // starts with scratch loads that all warps wait on together right after the barrier (~70 of
  // ~2900 cycles per fp64 K step in the SASS), and ends with loop control and the barrier, during
  // which the FP64 pipe idles. The order of the sums is that of k_loop, so results are identical.
  static constexpr bool kPrefetch = PrefetchFragments<Cfg>::value;
  // An entry's unmasked_interior_store_nn (default false): in NN (op(A) m-contiguous, op(B) k-contiguous), a
  // tile that was not moved stores through the epilogue without the own-origin masks. Same values stored;
  // it is there for ptxas's schedule of the K loop, which follows the epilogue: with the masks in every
  // tile's store (since 655a0c8), the fp32 packet entry's NN loop loads its fragments in bursts and ran NN
  // 8192^3 in 23.4-23.6 ms on an H100 against 21.97 at e4e678c; with this, 22.05 (the 64 x 128 tiles 23.79
  // -> 23.25), while the same change in NT cost 8% and TN and TT were unchanged, so NN alone
  // (perf/results/2026-12-06-h100-fdd4611/).
  static constexpr bool kUnmaskedInteriorNn = UnmaskedInteriorStoreNn<Cfg>::value && kAFastM && !kBFastN;
  KOKKOS_FORCEINLINE_FUNCTION void k_loop_prefetch(const member_type& team, std::int64_t m0, std::int64_t n0,
                                                   std::int64_t k_begin, std::int64_t k_end, T* As, T* Bs,
                                                   typename MK::Accumulator& acc, const Owner& o) const {
    static_assert(kStages == 2 && kRegisterAcc, "fragment prefetch needs register staging and accumulators");
    static_assert(BK % 2 == 0, "fragment prefetch alternates two fragments over an even K step");
    const int t = team.team_rank();
    const Steps st = steps(t, m0, n0, k_begin, k_end);
    const int nk = st.nk, nk_full = st.nk_full;
    T ra[kLoadA], rb[kLoadB];
    typename MK::Fragment f[2];
    // All but the last k of a K step: f[0] holds k = 0 on entry, f[1] holds k = BK - 1 on exit.
    const auto math = [&](const T* as, const T* bs) {
      RIDGELINE_UNROLL
      for (int k = 0; k < BK - 1; ++k) {
        MK::load_fragment(f[(k + 1) & 1], as, bs, k + 1, o);
        MK::mac_fragment(acc, f[k & 1]);
      }
    };
    fetch_step(st, 0, ra, rb);
    commit(t, ra, rb, As, Bs);
    team.team_barrier();
    MK::load_fragment(f[0], As, Bs, 0, o);
    int kt = 0;
    for (; kt + 1 < nk_full; ++kt) {
      const int cur = kt & 1;
      T* as_next = As + (cur ^ 1) * BK * LDA;
      T* bs_next = Bs + (cur ^ 1) * BK * LDB;
      fetch_step<true>(st, kt + 1, ra, rb);
      math(As + cur * BK * LDA, Bs + cur * BK * LDB);
      commit(t, ra, rb, as_next, bs_next);
      team.team_barrier();
      MK::load_fragment(f[0], as_next, bs_next, 0, o);
      MK::mac_fragment(acc, f[1]);
    }
    for (; kt < nk; ++kt) {
      const int cur = kt & 1;
      T* as_next = As + (cur ^ 1) * BK * LDA;
      T* bs_next = Bs + (cur ^ 1) * BK * LDB;
      const bool more = kt + 1 < nk;
      if (more) fetch_step(st, kt + 1, ra, rb);
      math(As + cur * BK * LDA, Bs + cur * BK * LDB);
      if (more) {
        commit(t, ra, rb, as_next, bs_next);
        team.team_barrier();
        MK::load_fragment(f[0], as_next, bs_next, 0, o);
      }
      MK::mac_fragment(acc, f[1]);
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const { run(team, team.league_rank()); }

  // The tile of league rank `rank` (a batched league passes each matrix's own rank).
  KOKKOS_FORCEINLINE_FUNCTION void run(const member_type& team, int rank) const {
    run_in(team, rank, team.team_scratch(static_cast<int>(Cfg::scratch_level)));
  }

  // The same, its buffers taken from `scratch` (get_shmem_aligned(bytes, alignment), scratch_bytes() in
  // all): the team's own scratch, or a span that team_gemm's caller granted (TeamScratchSpan, team_gemm.hpp).
  template <class Scratch>
  KOKKOS_FORCEINLINE_FUNCTION void run_in(const member_type& team, int rank, const Scratch& scratch) const {
    const auto tile =
        GemmTileOrigin::of<BM, BN, Cfg::group_m>(rank, tiles_m, tiles_n, k_slices, k_chunk, a.cols);
    const std::int64_t m0 = tile.m0, n0 = tile.n0, k_begin = tile.k_begin, k_end = tile.k_end;
    const int slice = tile.slice;
    T* As = static_cast<T*>(
        scratch.get_shmem_aligned(sizeof(T) * kStages * BK * LDA, scratch_align));  // (BK,BM+pad)
    T* Bs = static_cast<T*>(
        scratch.get_shmem_aligned(sizeof(T) * kStages * BK * LDB, scratch_align));  // (BK,BN+pad)
    const int t = team.team_rank();
    // The origin the tile loads and computes from: an edge tile moves back inside C (tile_inside_origin),
    // so that its steps load as an interior tile's do, and stores only from its own origin (m0, n0) on.
    // Register staging's packets (kV elements along an operand's contiguous index) and C's packet stores
    // (kCV rows) stay 16-byte aligned when the move is a multiple of theirs; kV and kCV are powers of two.
    const int c_align = c_packet_capable && c_packets ? kCV : 1;
    const int m_align = kAFastM && kV > c_align ? kV : c_align;
    const std::int64_t ml = tile_inside_origin(m0, BM, a.rows, m_align);
    const std::int64_t nl = tile_inside_origin(n0, BN, b.cols, kBFastN ? kV : 1);

    if constexpr (kRegisterAcc) {
      const Owner o = MK::owner(t);
      typename MK::Accumulator acc;
      MK::zero(acc);
      if constexpr (kPrefetch) {
        k_loop_prefetch(team, ml, nl, k_begin, k_end, As, Bs, acc, o);
      } else {
        k_loop(team, ml, nl, k_begin, k_end, As, Bs,
               [&](const T* as, const T* bs, int) { MK::mac(acc, as, bs, o); });
      }
      // The tile's own origin again from the moved one (tile_own_origin), as GemmTeamAsync does, rather than
      // m0 and n0 kept live through the K loop. With them live (since 655a0c8) the fp32 packet entry, at 254
      // registers, ran 7-15% slower than at e4e678c on the H200 in one run: the same K-loop instructions,
      // 0.75 against 0.81 issued per scheduler cycle (ncu; perf/results/2026-12-05-h200-8ea7eb1/).
      if (k_slices > 1) {
        this->store_partial(acc, ml, nl, o, slice, tile_own_origin(ml, BM), tile_own_origin(nl, BN));
      } else if (kUnmaskedInteriorNn && ml == m0 && nl == n0) {
        this->store(acc, ml, nl, o);  // the same stores: a tile that did not move owns all it computed
      } else {
        this->store(acc, ml, nl, o, tile_own_origin(ml, BM), tile_own_origin(nl, BN));
      }
    } else {
      Acc* Cs =
          static_cast<Acc*>(scratch.get_shmem_aligned(sizeof(Acc) * BM * BN, scratch_align));  // (BM,BN)
      // Work a thread skips where the product ends inside the tile: micro-tiles with no row below M or
      // no column below N (a 64^3 product on the host's 96 x 128 fp32 tiles has 12 of 32 in it), and,
      // in K's last step, the zeros past K (mac_upto; 2048^2 x 16 used 16 of the step's 256 values).
      const std::int64_t rows_in = a.rows - ml, cols_in = b.cols - nl;
      const auto inside = [&](const Owner& o) {
        bool row = false, col = false;
        for (int i = 0; i < MK::kTM; ++i) row = row || MK::row(o, i) < rows_in;
        for (int j = 0; j < MK::kTN; ++j) col = col || MK::col(o, j) < cols_in;
        return row && col;
      };
      k_loop(team, ml, nl, k_begin, k_end, As, Bs, [&](const T* as, const T* bs, int kt) {
        const std::int64_t left = k_end - k_begin - std::int64_t(kt) * BK;
        for (int u = 0; u < kPerThread; ++u) {
          const int id = t * kPerThread + u;
          const Owner o = MK::owner_of_tile(id % kTilesM, id / kTilesM);
          if (!inside(o)) continue;
          typename MK::Accumulator acc;
          if (kt == 0) {
            MK::zero(acc);
          } else {
            MK::load(acc, Cs, o);
          }
          if constexpr (HasMacUpto<MK>::value) {
            if (left < BK) {
              MK::mac_upto(acc, as, bs, o, static_cast<int>(left));
            } else {
              MK::mac(acc, as, bs, o);
            }
          } else {
            MK::mac(acc, as, bs, o);
          }
          MK::store(acc, Cs, o);
        }
      });
      for (int u = 0; u < kPerThread; ++u) {
        const int id = t * kPerThread + u;
        const Owner o = MK::owner_of_tile(id % kTilesM, id / kTilesM);
        if (!inside(o)) continue;
        typename MK::Accumulator acc;
        MK::load(acc, Cs, o);
        this->store(acc, ml, nl, o, tile_own_origin(ml, BM), tile_own_origin(nl, BN));
      }
    }
  }
};

}  // namespace ridgeline::detail
