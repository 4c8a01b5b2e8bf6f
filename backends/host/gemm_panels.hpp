#pragma once
// Host GEMM on packed panels, for float and double: the loop nest of BLIS (Van Zee and van de Geijn),
// with a team of one thread per BM x BN block of C. The tile kernel (GemmTeamTiled) stages op(A) and op(B)
// again for every C tile and K step, keeps its accumulators in scratch between K steps, and its
// micro-tiles read scratch rows 384 and 512 bytes apart, which fall on few L1 sets. Here:
//
//   team (block (m0, n0) of C, BM x BN; K slice s):
//     for each K step p0 of KC:
//       pack op(B)(p0 : p0 + KC, n0 : n0 + BN) into Bp: micro-panels of NR columns, each KC x NR,
//         k-major (row k: NR contiguous values), zero past N          (once per K step, for BM rows)
//       for each MC rows i0 of the block:
//         pack op(A)(i0 : i0 + MC, p0 : p0 + KC) into Ap: micro-panels of MR rows, each KC x MR,
//           k-major, zero past M                                       (L2; read BN / NR times)
//         for each micro-panel of Bp (jr), for each micro-panel of Ap (ir):
//           MR x NR accumulators in vector registers (MR / W vectors down each of NR columns): per k,
//           MR / W vector loads of Ap and NR broadcasts of Bp; then C(ir, jr) = alpha * acc + beta * C
//           on the first K step (beta == 0 never reads C), C += alpha * acc after it
//   K slices > 1: the same into slice s of the workspace (beta 0), which split_k_reduce sums.
//
// Small blocks (Cfg::in_place_bytes: op(A) and op(B) of the block's whole K range at most that many bytes)
// skip the packing: the micro-kernel reads op(B) where it lies, and op(A) too where its rows are contiguous
// (column-major A, a.rs == 1) and a micro-panel is whole; packing there is copying what already sits in L1,
// an O(n^2) pass that a one-block product cannot amortize (at 64^3 about a fifth of the call). A
// micro-tile past N computes only the columns it needs, in steps of 4 (reads_in_place, tail_columns).
//
// Vectors run down C's columns (MR = 2 W), so a micro-tile's update of a column-major C is whole-vector
// loads and stores. Packing copies op(A) and op(B) whatever their strides: unit-stride lines go as vector
// copies, lines across the packed direction through W x W in-register transposes (VectorTranspose, GCC),
// everything else element by element. The k loop sums in k order, so reruns are bit-identical.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <ridgeline/backends/host/micro_kernel.hpp>
#include <ridgeline/backends/host/partial_vector_avx512.hpp>
#include <ridgeline/detail/gemm_epilogue.hpp>
#include <ridgeline/detail/strided.hpp>
#include <type_traits>
#include <vector>
#if defined(KOKKOS_ENABLE_OPENMP)
#include <omp.h>
#endif

namespace ridgeline::backends::host {

#if defined(RIDGELINE_HOST_VECTOR_MICRO_KERNEL)

// The cuts of C into blocks that a launch runs: blocks of bm rows and bn columns, the last of each extent
// shorter. The plan counts the league in the entry's BM x BN blocks (tiles_m x tiles_n); a launch may cut C
// into as many blocks of other sizes, at most BM x BN, so that its threads get even work.
struct PanelCuts {
  int bm, bn;
};

// When the threads finish, in elements of C (every block of a launch has the same depth): m x n cut into
// bm x bn blocks, largest first, each to the thread that is free first, which is what the league's dealing
// (block_of_rank: ranges run largest first) and Kokkos's stealing come to. 0 for more than 64 threads.
constexpr std::int64_t panel_makespan(std::int64_t m, std::int64_t n, PanelCuts cuts, int threads) {
  if (threads < 1 || threads > 64 || m <= 0 || n <= 0) return 0;
  const std::int64_t tm = (m + cuts.bm - 1) / cuts.bm, tn = (n + cuts.bn - 1) / cuts.bn;
  const std::int64_t lm = m - (tm - 1) * cuts.bm, ln = n - (tn - 1) * cuts.bn;
  // The four sizes (whole or edge in each extent) with their counts, largest first.
  std::int64_t area[4] = {std::int64_t(cuts.bm) * cuts.bn, lm * cuts.bn, std::int64_t(cuts.bm) * ln, lm * ln};
  std::int64_t count[4] = {(tm - 1) * (tn - 1), tn - 1, tm - 1, 1};
  for (int i = 1; i < 4; ++i)
    for (int j = i; j > 0 && area[j - 1] < area[j]; --j) {
      const std::int64_t a = area[j - 1], c = count[j - 1];
      area[j - 1] = area[j], count[j - 1] = count[j];
      area[j] = a, count[j] = c;
    }
  std::int64_t load[64] = {};
  for (int q = 0; q < 4; ++q)
    for (std::int64_t b = 0; b < count[q]; ++b) {
      int t = 0;
      for (int u = 1; u < threads; ++u)
        if (load[u] < load[t]) t = u;
      load[t] += area[q];
    }
  std::int64_t most = 0;
  for (int u = 0; u < threads; ++u) most = std::max(most, load[u]);
  return most;
}

// The cuts a launch of tiles_m x tiles_n blocks of the entry's BM x BN over m x n runs on `threads` threads:
// the entry's own, unless cutting either extent (or both) evenly into the same number of blocks, in multiples
// of MR rows and NR columns, ends the last thread at least 2% sooner (panel_makespan). The league, and so the
// count of blocks, is the plan's. Split-K launches (slices > 1), one thread, leagues of more than 16 blocks a
// thread (the imbalance is a small part of a thread's work) and a league that is not ceil(m / BM) x ceil(n /
// BN) keep the entry's cuts. At DGEMM 1536^3 on two threads (1024 x 512 blocks) the entry's six blocks, three
// 1024 x 512 and three 512 x 512, split 5 : 4 units of 512 x 512 over the threads; 768 x 512 splits 4.5
// : 4.5.
constexpr PanelCuts panel_cuts(std::int64_t m, std::int64_t n, int tiles_m, int tiles_n, int slices, int BM,
                               int BN, int MR, int NR, int threads) {
  const PanelCuts entry{BM, BN};
  if (threads <= 1 || threads > 64 || slices > 1 || m <= 0 || n <= 0) return entry;
  if ((m + BM - 1) / BM != tiles_m || (n + BN - 1) / BN != tiles_n) return entry;
  if (std::int64_t(tiles_m) * tiles_n > 16 * std::int64_t(threads)) return entry;
  // An extent cut evenly into `tiles` blocks of a multiple of g, or the entry's cut where that leaves the
  // last block empty.
  const auto even = [](std::int64_t extent, int tiles, int g, int entry_cut) {
    const std::int64_t cut = ((extent + tiles - 1) / tiles + g - 1) / g * g;
    return cut <= entry_cut && (tiles - 1) * cut < extent ? static_cast<int>(cut) : entry_cut;
  };
  const int em = even(m, tiles_m, MR, BM), en = even(n, tiles_n, NR, BN);
  const PanelCuts candidates[3] = {{em, BN}, {BM, en}, {em, en}};
  PanelCuts best = entry;
  const std::int64_t base = panel_makespan(m, n, entry, threads);
  std::int64_t best_span = base;
  for (const PanelCuts& x : candidates) {
    const std::int64_t span = panel_makespan(m, n, x, threads);
    if (span < best_span && 100 * span <= 98 * base) {
      best = x;
      best_span = span;
    }
  }
  return best;
}

// Cfg: bm x bn the team's block of C, bk the K step (KC), mc the rows of op(A) packed at once (MC),
// tm x tn the micro-tile (MR x NR, MR a multiple of the vector width), simd_bytes the vector width.
template <class ExecSpace, class Cfg, class T, class Acc, bool kAFastM, bool kBFastN, class TC = T>
struct HostGemmPanels {
  static_assert(std::is_same_v<T, Acc> && std::is_same_v<T, TC>, "float or double throughout");
  // Blocks of a product's last row and column are smaller: dynamic scheduling evens out the threads' work,
  // with the blocks handed out largest first in each thread's range (block_of_rank).
  using policy_type = Kokkos::TeamPolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>;
  using member_type = typename policy_type::member_type;
  using config = Cfg;
  using accumulator_type = Acc;
  // The dispatcher's names: any strides (no packet variant), C stored element-wise through the map below.
  static constexpr bool a_fast_m = kAFastM, b_fast_n = kBFastN, vector_capable = false;
  static constexpr bool c_packet_capable = false;

  // KC: the entry's kc where it names one (the K step of the packed panels; its bk is the plan's, for split-K
  // slices), else bk.
  template <class C, class = void>
  struct KStep : std::integral_constant<int, C::bk> {};
  template <class C>
  struct KStep<C, std::void_t<decltype(C::kc)>> : std::integral_constant<int, C::kc> {};
  static constexpr int BM = Cfg::bm, BN = Cfg::bn, KC = KStep<Cfg>::value, MC = Cfg::mc;
  static constexpr int MR = Cfg::tm, NR = Cfg::tn;
  static constexpr int W = Cfg::simd_bytes / static_cast<int>(sizeof(T));
  static constexpr int NV = MR / W;                    // vectors down a column of the micro-tile
  static constexpr int kPanelsB = (BN + NR - 1) / NR;  // micro-panels of op(B) per block
  // How far ahead software prefetches run, in k steps: C's lines before a micro-tile's update, and the
  // source of a packed step (pack_panels; past a block's last step that may lie past the operand's end, which
  // a prefetch does not fault on). 32 steps of a 32 x 12 fp32 micro-tile are about 800 cycles, more than a
  // miss to memory. Chosen in a paired probe of this header against its predecessor in one process (SGEMM
  // 2048^3, 16, 32, 64 and 256 steps tried for C, 16, 32 and 64 for the packing): 1.025x on NN and NT at 32;
  // in ridgeline-perf, five rounds against OpenBLAS, SGEMM NT 0.89-0.93 (0.82-0.93 before), NN level at
  // 0.86-0.94 (perf/results/2026-12-06-host-cf11e7a/).
  static constexpr int kPrefetchSteps = 32;
  static_assert(MR % W == 0 && MC % MR == 0 && BM % MC == 0, "whole vectors, micro-panels, row blocks");
  static_assert(KC % W == 0, "whole transposed blocks along K");
  typedef T Vec __attribute__((vector_size(Cfg::simd_bytes)));

  detail::Strided2D<const T> a;  // op(A): M x K
  detail::Strided2D<const T> b;  // op(B): K x N
  detail::Strided2D<TC> c;       // M x N
  Acc alpha, beta;
  int tiles_m = 0, tiles_n = 0;
  Acc* work = nullptr;  // split-K partials: slice s an M x N column-major block at work + s * M * N
  int k_slices = 1;
  std::int64_t k_chunk = 0;

  // Ap: MC x KC; Bp: kPanelsB x NR x KC; each 64-byte aligned.
  static constexpr std::size_t scratch_bytes() {
    return sizeof(T) * (std::size_t(MC) * KC + std::size_t(kPanelsB) * NR * KC) + 2 * 64;
  }

  static Vec load_vec(const T* p) { return host::load_vec<Vec>(p); }
  static void store_vec(T* p, const Vec& v) { host::store_vec(p, v); }

  void operator()(const member_type& team) const {
    auto scratch = team.team_scratch(Cfg::scratch_level);
    T* Ap = static_cast<T*>(scratch.get_shmem_aligned(sizeof(T) * MC * KC, 64));  // MC / MR x (KC, MR)
    T* Bp = static_cast<T*>(
        scratch.get_shmem_aligned(sizeof(T) * kPanelsB * NR * KC, 64));  // kPanelsB x (KC, NR)
    const int threads = league_threads();
    const PanelCuts cut = cuts(threads);
    block(block_of_rank(team.league_rank(), team.league_size(), threads, cut), Ap, Bp, cut);
  }

  // This launch's cuts of C on `threads` threads (panel_cuts).
  PanelCuts cuts(int threads) const {
    return panel_cuts(c.rows, c.cols, tiles_m, tiles_n, k_slices, BM, BN, MR, NR, threads);
  }

  // League rank r's block under the cuts: its origin and K range, and its rows and columns.
  struct Block {
    detail::GemmTileOrigin tile;
    int mb, nb;
  };
  Block block_at(int r, PanelCuts cut) const {
    auto tile =
        detail::GemmTileOrigin::of<BM, BN, Cfg::group_m>(r, tiles_m, tiles_n, k_slices, k_chunk, a.cols);
    tile.m0 = tile.m0 / BM * cut.bm;
    tile.n0 = tile.n0 / BN * cut.bn;
    return {tile, static_cast<int>(std::min<std::int64_t>(cut.bm, c.rows - tile.m0)),
            static_cast<int>(std::min<std::int64_t>(cut.bn, c.cols - tile.n0))};
  }

  // The threads Kokkos partitions the league over: OpenMP's pool (the league's parallel region), else 1 (the
  // rank order kept).
  static int league_threads() {
#if defined(KOKKOS_ENABLE_OPENMP)
    if constexpr (std::is_same_v<ExecSpace, Kokkos::OpenMP>) return omp_get_num_threads();
#endif
    return 1;
  }

  // The league rank (GemmTileOrigin's order) whose block the launch's rank r runs. Kokkos 3.4's OpenMP
  // TeamPolicy<Dynamic> gives thread t the ranks [t * part, (t + 1) * part) (part = ceil(L / T), in chunks of
  // its auto chunk size), which it runs from the front, and a thread that runs out steals chunks from the end
  // of another's range. In rank order a range can end on its largest block: at 1280^3 (fp32, 1024 x 512) the
  // second thread finished its three small blocks, stole the first one's last 1024 x 512 block and ran it
  // alone (perf/results/2026-12-06-host-bed39c5/). Here the blocks, sorted by size (at most 8 classes: whole
  // or edge in M, in N, and along K across split-K slices; the larger class first, within a class m fastest,
  // then n, then the slice), are dealt round robin over the threads' ranges: every range runs its largest
  // blocks first, and a steal takes the smallest left. Blocks of one size (2048^3), or one thread, keep the
  // rank order. The sizes are those of the launch's cuts on `threads` threads (cut, from cuts(threads)).
  // Which thread computes a block changes, never how: every element sums in the same order.
  int block_of_rank(int r, int league, int threads, PanelCuts cut) const {
    const std::int64_t k = a.cols;
    const std::int64_t last_depth = k_slices > 1 ? k - std::int64_t(k_slices - 1) * k_chunk : k;
    const std::int64_t full_depth = k_slices > 1 ? k_chunk : k;
    // A dimension's blocks as (first index, count, extent): the whole ones, then an edge one.
    struct Part {
      int first, count;
      std::int64_t extent;
    };
    const auto parts = [](int tiles, std::int64_t whole, std::int64_t last, Part* out) {
      if (last == whole) {
        out[0] = {0, tiles, whole};
        return 1;
      }
      int n = 0;
      if (tiles > 1) out[n++] = {0, tiles - 1, whole};
      out[n++] = {tiles - 1, 1, last};
      return n;
    };
    Part pm[2], pn[2], ps[2];
    const int nm = parts(tiles_m, cut.bm, c.rows - std::int64_t(tiles_m - 1) * cut.bm, pm);
    const int nn = parts(tiles_n, cut.bn, c.cols - std::int64_t(tiles_n - 1) * cut.bn, pn);
    const int ns = parts(k_slices, full_depth, last_depth, ps);
    if (threads <= 1 || nm * nn * ns == 1) return r;
    struct Class {
      Part m, n, s;
      std::int64_t cost, count;
    };
    Class cls[8];
    int classes = 0;
    for (int is = 0; is < ns; ++is)
      for (int in = 0; in < nn; ++in)
        for (int im = 0; im < nm; ++im) {
          const Class x{pm[im], pn[in], ps[is], pm[im].extent * pn[in].extent * ps[is].extent,
                        std::int64_t(pm[im].count) * pn[in].count * ps[is].count};
          int at = classes++;  // insertion by cost, descending, ties in order
          for (; at > 0 && cls[at - 1].cost < x.cost; --at) cls[at] = cls[at - 1];
          cls[at] = x;
        }
    // Kokkos's partition of [0, league): chunks of `chunk` ranks (TeamPolicy's auto chunk size), part of them
    // per thread; thread t's range holds cap(t) ranks.
    int chunk = 1;
    while (std::int64_t(chunk) * 100 * threads < league) chunk *= 2;
    if (chunk < 128) {
      chunk = 1;
      while (std::int64_t(chunk) * 40 * threads < league && chunk < 128) chunk *= 2;
    }
    const std::int64_t part = ((league + chunk - 1) / chunk + threads - 1) / threads * std::int64_t(chunk);
    const auto cap = [&](int t) { return std::clamp<std::int64_t>(league - t * part, 0, part); };
    const int t = static_cast<int>(r / part);
    const std::int64_t i = r - t * part;
    // Round robin: position i of every range that reaches it, in thread order, after all earlier positions.
    std::int64_t j = t;
    for (int u = 0; u < threads; ++u) j += std::min(cap(u), i);
    for (int q = 0; q < classes; ++q) {
      if (j >= cls[q].count) {
        j -= cls[q].count;
        continue;
      }
      const Class& x = cls[q];
      const int mi = x.m.first + static_cast<int>(j % x.m.count);
      const int ni = x.n.first + static_cast<int>(j / x.m.count % x.n.count);
      const int si = x.s.first + static_cast<int>(j / x.m.count / x.n.count);
      return detail::GemmTileOrigin::rank_of<Cfg::group_m>(mi, ni, si, tiles_m, tiles_n);
    }
    return r;  // not reached: the classes hold the whole league
  }

  // The whole league, one block after another, on the calling thread (the plan's calling_thread: products
  // too small to repay a parallel launch), with the packed panels in a buffer of the thread's own.
  void run_on_calling_thread(int league) const {
    thread_local std::vector<T> buffer;
    constexpr std::size_t kA = std::size_t(MC) * KC, kB = std::size_t(kPanelsB) * NR * KC;
    constexpr std::size_t kAlign = 64 / sizeof(T);
    if (buffer.size() < kA + kB + 2 * kAlign) buffer.resize(kA + kB + 2 * kAlign);
    const auto aligned = [](T* p) {
      return reinterpret_cast<T*>((reinterpret_cast<std::uintptr_t>(p) + 63) & ~std::uintptr_t(63));
    };
    T* Ap = aligned(buffer.data());
    T* Bp = aligned(Ap + kA);
    for (int r = 0; r < league; ++r) block(r, Ap, Bp, cuts(1));
  }

  // League rank r's block of C (and K slice) under the launch's cuts, with its panels packed at Ap and Bp.
  void block(int r, T* Ap, T* Bp, PanelCuts cut) const {
    const auto [tile, mb, nb] = block_at(r, cut);
    // Where this block's sums go: C itself, or its slice of the split-K partials.
    const bool partial = k_slices > 1;
    TC* const out = partial ? work + std::int64_t(tile.slice) * c.rows * c.cols : c.data;
    const std::int64_t out_rs = partial ? 1 : c.rs, out_cs = partial ? c.rows : c.cs;
    const Acc first_beta = partial ? Acc(0) : beta;
    if constexpr (Cfg::in_place_bytes > 0) {
      if (reads_in_place(mb, nb, tile.k_end - tile.k_begin)) {
        block_in_place(tile, mb, nb, Ap, out, out_rs, out_cs, first_beta);
        return;
      }
    }
    for (std::int64_t p0 = tile.k_begin; p0 < tile.k_end; p0 += KC) {
      const int kk = static_cast<int>(std::min<std::int64_t>(KC, tile.k_end - p0));
      const bool first = p0 == tile.k_begin;
      // op(B)'s block as NR-column micro-panels (lines are columns), op(A)'s as MR-row ones (lines are rows).
      pack_panels<NR>(Bp, b.data + p0 * b.rs + tile.n0 * b.cs, b.cs, b.rs, nb, kk);
      for (int i0 = 0; i0 < mb; i0 += MC) {
        const int mc = std::min(MC, mb - i0);
        pack_panels<MR>(Ap, a.data + (tile.m0 + i0) * a.rs + p0 * a.cs, a.rs, a.cs, mc, kk);
        for (int jr = 0; jr < nb; jr += NR)
          for (int ir = 0; ir < mc; ir += MR)
            micro_tail(kk, PackedA{Ap + std::int64_t(ir) * kk}, PackedB{Bp + std::int64_t(jr) * kk},
                       out + (tile.m0 + i0 + ir) * out_rs + (tile.n0 + jr) * out_cs, out_rs, out_cs,
                       std::min(MR, mc - ir), std::min(NR, nb - jr), first, first_beta);
      }
    }
  }

  // Whether a block of mb x nb over k steps reads its operands in place (the header says why): a pure
  // function of the block, tested without a launch.
  static constexpr bool reads_in_place(std::int64_t mb, std::int64_t nb, std::int64_t k) {
    return Cfg::in_place_bytes > 0 &&
           std::int64_t(sizeof(T)) * (mb + nb) * k <= std::int64_t(Cfg::in_place_bytes);
  }
  // The columns a micro-tile of nr <= NR columns computes: nr rounded up to a multiple of 4, at most NR.
  static constexpr int tail_columns(int nr) {
    return std::min(NR, (nr + 3) / 4 * 4);
  }

  // The block with op(B) read where it lies, and op(A) too where its rows are contiguous; a micro-panel of
  // op(A) that is not (strided rows, or fewer than MR rows left) is packed into Ap on its own.
  template <class Tile>
  void block_in_place(const Tile& tile, int mb, int nb, T* Ap, TC* out, std::int64_t out_rs,
                      std::int64_t out_cs, Acc first_beta) const {
    for (std::int64_t p0 = tile.k_begin; p0 < tile.k_end; p0 += KC) {
      const int kk = static_cast<int>(std::min<std::int64_t>(KC, tile.k_end - p0));
      const bool first = p0 == tile.k_begin;
      for (int ir = 0; ir < mb; ir += MR) {
        const int mr = std::min(MR, mb - ir);
        const T* a_rows = a.data + (tile.m0 + ir) * a.rs + p0 * a.cs;
        const bool a_in_place = kAFastM && a.rs == 1 && mr == MR;
        if (!a_in_place) pack_panels<MR>(Ap, a_rows, a.rs, a.cs, mr, kk);
        for (int jr = 0; jr < nb; jr += NR) {
          const int nr = std::min(NR, nb - jr);
          const InPlaceB bs(b.data + p0 * b.rs + (tile.n0 + jr) * b.cs, b.rs, b.cs, nr);
          TC* cp = out + (tile.m0 + ir) * out_rs + (tile.n0 + jr) * out_cs;
          if (a_in_place)
            micro_tail(kk, InPlaceA{a_rows, a.cs}, bs, cp, out_rs, out_cs, mr, nr, first, first_beta);
          else
            micro_tail(kk, PackedA{Ap}, bs, cp, out_rs, out_cs, mr, nr, first, first_beta);
        }
      }
    }
  }

  // Where the micro-kernel reads its operands, step by step along k: op(A)'s MR rows as NV vectors
  // (rows()), op(B)'s value in column j (col(j)); next() moves to the next k.
  struct PackedA {  // a micro-panel of Ap: MR values per k
    const T* p;
    const T* rows() const { return p; }
    void next() { p += MR; }
  };
  struct InPlaceA {  // op(A) itself, rows contiguous, ks apart along k
    const T* p;
    std::int64_t ks;
    const T* rows() const { return p; }
    void next() { p += ks; }
  };
  struct PackedB {  // a micro-panel of Bp: NR values per k
    const T* p;
    T col(int j) const { return p[j]; }
    void next() { p += NR; }
  };
  struct InPlaceB {  // op(B) itself: columns past nr read column nr - 1 (computed, never stored)
    const T* cols[NR];
    std::int64_t ks, k = 0;
    InPlaceB(const T* p, std::int64_t rs, std::int64_t cs, int nr) : ks(rs) {
      for (int j = 0; j < NR; ++j) cols[j] = p + std::min(j, nr - 1) * cs;
    }
    T col(int j) const { return cols[j][k]; }
    void next() { k += ks; }
  };

  // The micro-kernel on the columns nr needs (tail_columns), so that a last micro-panel of 4 columns does not
  // do the work of NR.
  template <class ASrc, class BSrc>
  void micro_tail(int kk, ASrc as, BSrc bs, TC* cp, std::int64_t rs, std::int64_t cs, int mr, int nr,
                  bool first, Acc first_beta) const {
    if constexpr (NR > 4) {
      if (nr <= 4) return micro<4>(kk, as, bs, cp, rs, cs, mr, nr, first, first_beta);
    }
    if constexpr (NR > 8) {
      if (nr <= 8) return micro<8>(kk, as, bs, cp, rs, cs, mr, nr, first, first_beta);
    }
    micro<NR>(kk, as, bs, cp, rs, cs, mr, nr, first, first_beta);
  }

  // The micro-kernel: C(0:mr, 0:nr) at cp (strides rs, cs) takes alpha * op(A) rows * op(B) columns over kk
  // steps, from the sources as and bs; kNR >= nr columns are computed.
  template <int kNR, class ASrc, class BSrc>
  void micro(int kk, ASrc as, BSrc bs, TC* cp, std::int64_t rs, std::int64_t cs, int mr, int nr, bool first,
             Acc first_beta) const {
    Vec acc[kNR][NV];
    for (int j = 0; j < kNR; ++j)
      for (int q = 0; q < NV; ++q) acc[j][q] = Vec{};
    const auto step = [&]() {
      Vec av[NV];
      RIDGELINE_UNROLL
      for (int q = 0; q < NV; ++q) av[q] = load_vec(as.rows() + q * W);
      RIDGELINE_UNROLL
      for (int j = 0; j < kNR; ++j) {
        const T bj = bs.col(j);
        RIDGELINE_UNROLL
        for (int q = 0; q < NV; ++q) acc[j][q] += av[q] * bj;
      }
      as.next();
      bs.next();
    };
    // C's lines (each column another line or two, C's columns far apart) are requested for writing
    // kPrefetchSteps steps before the end, so that the update below finds them in L1.
    int k = 0;
    for (; k < kk - kPrefetchSteps; ++k) step();
    if (rs == 1)
      for (int j = 0; j < nr; ++j) {
        const TC* p = cp + j * cs;
        for (int q = 0; q < NV; ++q) __builtin_prefetch(p + q * W, 1, 3);
        __builtin_prefetch(p + mr - 1, 1, 3);
      }
    for (; k < kk; ++k) step();
    // beta == 0 on the first step never reads C (NaN there cannot survive); later steps add to it.
    const bool read_c = !first || first_beta != Acc(0);
    const Acc scale_c = first ? first_beta : Acc(1);
    // A whole micro-tile of a column-major C: every index known at compile time, so the sums stay in
    // registers. The edges' loops below run to mr and nr, which index the sums at run time: while they read
    // acc itself, GCC gave the sums a stack array (zeroed before the k loop, stored after it and read back by
    // every update, whole tiles included), and the micro-kernel spent about 6% of its DGEMM 2048^3 samples
    // outside its k loop (perf record). Here the edges read a copy. Paired probe
    // (perf/results/2026-12-07-host-3c210e9/): 1.035x DGEMM NN 2048^3 on top of the 1024 x 512 blocks, 1.05x
    // SGEMM NN.
    if (mr == MR && nr == kNR && rs == 1) {
      RIDGELINE_UNROLL
      for (int j = 0; j < kNR; ++j) {
        RIDGELINE_UNROLL
        for (int q = 0; q < NV; ++q) update_vec(cp + j * cs + q * W, acc[j][q], read_c, scale_c);
      }
      return;
    }
    Vec sums[kNR][NV];
    RIDGELINE_UNROLL
    for (int j = 0; j < kNR; ++j) {
      RIDGELINE_UNROLL
      for (int q = 0; q < NV; ++q) sums[j][q] = acc[j][q];
    }
    update_edge<kNR>(sums, cp, rs, cs, mr, nr, read_c, scale_c);
  }

  // One whole vector of sums into C at p: alpha times the sums, plus scale_c times C where read_c.
  void update_vec(TC* p, const Vec& sum, bool read_c, Acc scale_c) const {
    Vec v = sum * alpha;
    if (read_c) v += load_vec(p) * scale_c;
    store_vec(p, v);
  }

  // A micro-tile's sums into C(0:mr, 0:nr) at cp, where it is not a whole one of a column-major C (micro).
  template <int kNR>
  void update_edge(const Vec (&acc)[kNR][NV], TC* cp, std::int64_t rs, std::int64_t cs, int mr, int nr,
                   bool read_c, Acc scale_c) const {
    if (mr == MR && rs == 1) {
      for (int j = 0; j < nr; ++j)
        for (int q = 0; q < NV; ++q) update_vec(cp + j * cs + q * W, acc[j][q], read_c, scale_c);
    } else if (rs == 1) {
      // A last micro-panel of mr < MR rows: whole vectors, then the first lanes of one.
      for (int j = 0; j < nr; ++j)
        for (int q = 0; q < NV; ++q) {
          const int lanes = mr - q * W;
          if (lanes <= 0) break;
          TC* p = cp + j * cs + q * W;
          if (lanes >= W) {
            update_vec(p, acc[j][q], read_c, scale_c);
          } else {
            Vec v = acc[j][q] * alpha;
            if (read_c) v += load_vec_first<Vec>(p, lanes) * scale_c;
            store_vec_first(p, v, lanes);
          }
        }
    } else {
      for (int j = 0; j < nr; ++j)
        for (int i = 0; i < mr; ++i) {
          TC* p = cp + j * cs + i * rs;
          Acc v = alpha * acc[j][i / W][i % W];
          if (read_c) v += scale_c * *p;
          *p = v;
        }
    }
  }

  // n lines (line l at s + l * ls, its element k at + k * ks), kk elements along k, into micro-panels of
  // kLines lines at d, one after another, each kk x kLines (line l's element k at k * kLines + l), lines
  // past n zero. op(A)'s panels are MR rows (ls = rs, ks = cs), op(B)'s NR columns (ls = cs, ks = rs).
  template <int kLines>
  static void pack_panels(T* d, const T* s, std::int64_t ls, std::int64_t ks, int n, int kk) {
    if (ls == 1 && n % kLines == 0) {
      // Whole panels of lines contiguous across: each k's n contiguous elements into the n / kLines panels,
      // with the elements kPrefetchSteps steps ahead requested. Steps lie ks apart (a column of op(A) in NN,
      // a row of op(B) in NT: another page each), where no hardware prefetcher follows.
      constexpr int kLine = 64 / int(sizeof(T));
      for (int k = 0; k < kk; ++k) {
        const T* f = s + std::int64_t(k + kPrefetchSteps) * ks;
        for (int e = 0; e < n; e += kLine) __builtin_prefetch(f + e, 0, 3);
        __builtin_prefetch(f + n - 1, 0, 3);
        const T* sk = s + std::int64_t(k) * ks;
        for (int l0 = 0; l0 < n; l0 += kLines)
          std::memcpy(d + std::int64_t(l0) * kk + k * kLines, sk + l0, sizeof(T) * kLines);
      }
      return;
    }
    for (int l0 = 0; l0 < n; l0 += kLines, d += std::int64_t(kLines) * kk) {
      const int nl = std::min(kLines, n - l0);
      const T* sp = s + l0 * ls;
      if (nl == kLines && ls == 1) {  // lines contiguous across the panel: kLines elements per k
        for (int k = 0; k < kk; ++k) std::memcpy(d + k * kLines, sp + k * ks, sizeof(T) * kLines);
      } else if (nl == kLines && ks == 1) {  // lines contiguous along k: transposed W x W
        pack_transposed<kLines>(d, sp, ls, kk);
      } else {
        pack_elements<kLines>(d, sp, ls, ks, nl, kk);
      }
    }
  }

  // kLines lines, line l at s + l * ls, contiguous along k, to d[k * kLines + l] for k < kk. Whole W x W
  // blocks transposed in registers, a last partial group of lines padded with zero lines; the K tail
  // element by element.
  template <int kLines>
  static void pack_transposed(T* d, const T* s, std::int64_t ls, int kk) {
    int k0 = 0;
#if defined(RIDGELINE_HOST_VECTOR_TRANSPOSE)
    for (; k0 + W <= kk; k0 += W)
      for (int l0 = 0; l0 < kLines; l0 += W) {
        Vec v[W];
        for (int r = 0; r < W; ++r) v[r] = l0 + r < kLines ? load_vec(s + (l0 + r) * ls + k0) : Vec{};
        VectorTranspose<T, Cfg::simd_bytes>::transpose(v);
        if (l0 + W <= kLines) {
          for (int r = 0; r < W; ++r) store_vec(d + (k0 + r) * kLines + l0, v[r]);
        } else {
          constexpr int kRest = kLines % W;
          for (int r = 0; r < W; ++r) std::memcpy(d + (k0 + r) * kLines + l0, &v[r], sizeof(T) * kRest);
        }
      }
#endif
    for (int k = k0; k < kk; ++k)
      for (int l = 0; l < kLines; ++l) d[k * kLines + l] = s[l * ls + k];
  }

  // n lines of kk elements (line l at s + l * ls, element k at + k * ks) to d[k * kLines + l], lines n ..
  // kLines zero.
  template <int kLines>
  static void pack_elements(T* d, const T* s, std::int64_t ls, std::int64_t ks, int n, int kk) {
    for (int k = 0; k < kk; ++k) {
      for (int l = 0; l < n; ++l) d[k * kLines + l] = s[l * ls + k * ks];
      for (int l = n; l < kLines; ++l) d[k * kLines + l] = T(0);
    }
  }
};

#endif

}  // namespace ridgeline::backends::host
