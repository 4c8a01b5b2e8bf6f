#pragma once
// Host GEMM for small products, float and double, reading op(A) and op(B) where they lie: no packing of
// op(B) ever, none of op(A) where its rows are contiguous (column-major A with 'N', any M tail). The packed
// panels (gemm_panels.hpp) copy both operands into micro-panels, or (their in-place blocks) still pack a
// partial micro-panel of op(A) and read op(B) through an array of NR column pointers; here, per block of C:
//
//   for each K step p0 of KC (a block of the plan's products is whole K: KC covers it):
//     for each MR rows ir of the block:
//       op(A)'s MR x KC panel: read in place (a.rs == 1: MR / W vector loads down column k, the last
//         vector masked where M ends inside it), else packed into Ap (k-major, zero past M; W x W
//         in-register transposes where op(A) is k-contiguous, gemm_panels.hpp's pack_panels)
//       for each NR columns jr: MR x NR accumulators (MR / W vectors down each of NR columns), per k
//         MR / W vector loads of A and NR broadcasts of op(B)(k, j) from op(B) itself: column-major op(B)
//         (b.rs == 1) through one pointer moving down k and fixed offsets of the columns; rows-contiguous
//         op(B) (b.cs == 1) NR consecutive values. An op(B) whose walking index (k, or n where kBFastN) is
//         not unit-stride is first copied, the step's K x nb block, into a buffer of the thread's own in
//         that layout: so each orientation compiles one source of op(B) for its micro-tiles, not two (the
//         micro-tiles for strided op(B) were half of the direct kernel's code, and it half of the host's
//         float and double instance objects, which CI compiles twice)
//       C(ir, jr) = alpha * acc + beta * C on the first K step (beta == 0 never reads C), += after it
//   K slices > 1: the same into slice s of the workspace (beta 0), which split_k_reduce sums.
//
// A last micro-tile of nr < NR columns computes exactly nr (a piece of 8 or 4 columns, then 3, 2 or 1), so
// no column past N is read; one of mr <= W rows uses one vector per column. The k loop sums in k order, so
// reruns are bit-identical.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <ridgeline/backends/host/gemm_panels.hpp>
#include <ridgeline/backends/host/micro_kernel.hpp>
#include <ridgeline/backends/host/partial_vector_avx512.hpp>
#include <ridgeline/detail/gemm_epilogue.hpp>
#include <ridgeline/detail/strided.hpp>
#include <type_traits>
#include <vector>

namespace ridgeline::backends::host {

#if defined(RIDGELINE_HOST_VECTOR_MICRO_KERNEL)

// Cfg: bm x bn the team's block of C, bk the K step (KC), tm x tn the micro-tile (MR x NR, MR two vectors),
// simd_bytes the vector width.
template <class ExecSpace, class Cfg, class T, class Acc, bool kAFastM, bool kBFastN, class TC = T>
struct HostGemmSmallDirect {
  static_assert(std::is_same_v<T, Acc> && std::is_same_v<T, TC>, "float or double throughout");
  using policy_type = Kokkos::TeamPolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>;
  using member_type = typename policy_type::member_type;
  using config = Cfg;
  using accumulator_type = Acc;
  static constexpr bool a_fast_m = kAFastM, b_fast_n = kBFastN, vector_capable = false;
  static constexpr bool c_packet_capable = false;

  static constexpr int BM = Cfg::bm, BN = Cfg::bn, KC = Cfg::bk;
  static constexpr int MR = Cfg::tm, NR = Cfg::tn;
  static constexpr int W = Cfg::simd_bytes / static_cast<int>(sizeof(T));
  static_assert(MR == 2 * W && NR == 12, "two vectors down 12 columns: 24 of the 32 vector registers");
  typedef T Vec __attribute__((vector_size(Cfg::simd_bytes)));
  // gemm_panels.hpp's packing of op(A) (MR-row micro-panels), for an op(A) whose rows are not contiguous.
  using Packing = HostGemmPanels<ExecSpace, Cfg, T, Acc, kAFastM, kBFastN, TC>;

  detail::Strided2D<const T> a;  // op(A): M x K
  detail::Strided2D<const T> b;  // op(B): K x N
  detail::Strided2D<TC> c;       // M x N
  Acc alpha, beta;
  int tiles_m = 0, tiles_n = 0;
  Acc* work = nullptr;  // split-K partials: slice s an M x N column-major block at work + s * M * N
  int k_slices = 1;
  std::int64_t k_chunk = 0;

  // Ap: one MR x KC micro-panel of op(A), 64-byte aligned.
  static constexpr std::size_t scratch_bytes() { return sizeof(T) * std::size_t(MR) * KC + 64; }

  static Vec load_vec(const T* p) { return host::load_vec<Vec>(p); }
  static void store_vec(T* p, const Vec& v) { host::store_vec(p, v); }

  void operator()(const member_type& team) const {
    auto scratch = team.team_scratch(Cfg::scratch_level);
    T* Ap = static_cast<T*>(scratch.get_shmem_aligned(sizeof(T) * MR * KC, 64));
    block(detail::GemmTileOrigin::of<BM, BN, Cfg::group_m>(team.league_rank(), tiles_m, tiles_n, k_slices,
                                                           k_chunk, a.cols),
          Ap);
  }

  // The whole league, one block after another, on the calling thread (the plan's calling_thread, and each
  // matrix of gemm_batched's panels path). Ap is a buffer of the thread's own, fetched only where op(A) is
  // packed: a one-block product spends a few tens of nanoseconds outside its micro-tiles (16^3).
  void run_on_calling_thread(int league) const {
    for (int r = 0; r < league; ++r)
      block(league == 1 && k_slices == 1 ? detail::GemmTileOrigin{0, 0, 0, a.cols, 0}
                                         : detail::GemmTileOrigin::of<BM, BN, Cfg::group_m>(
                                               r, tiles_m, tiles_n, k_slices, k_chunk, a.cols),
            nullptr);
  }
  // op(B) from a K step's first row and the block's first column on, as the micro-tiles read it.
  struct BView {
    const T* p;
    std::int64_t rs, cs;
  };
  // The K step's op(B) block (kk x nb from (p0, n0)): where it lies if its walking index (n where kBFastN,
  // else k) is unit-stride, else copied into the thread's buffer in that layout.
  BView b_block(std::int64_t p0, int kk, std::int64_t n0, int nb) const {
    const T* p = b.data + p0 * b.rs + n0 * b.cs;
    if constexpr (kBFastN) {
      if (b.cs == 1) return {p, b.rs, 1};
      T* buf = b_buffer();
      for (int k = 0; k < kk; ++k)
        for (int j = 0; j < nb; ++j) buf[std::int64_t(k) * nb + j] = p[k * b.rs + j * b.cs];
      return {buf, nb, 1};
    } else {
      if (b.rs == 1) return {p, 1, b.cs};
      T* buf = b_buffer();
      for (int j = 0; j < nb; ++j)
        for (int k = 0; k < kk; ++k) buf[std::int64_t(j) * kk + k] = p[k * b.rs + j * b.cs];
      return {buf, 1, kk};
    }
  }
  static T* b_buffer() {
    thread_local std::vector<T> buffer(std::size_t(KC) * BN);
    return buffer.data();
  }
  static T* thread_buffer() {
    thread_local std::vector<T> buffer;
    constexpr std::size_t kA = std::size_t(MR) * KC, kAlign = 64 / sizeof(T);
    if (buffer.size() < kA + kAlign) buffer.resize(kA + kAlign);
    return reinterpret_cast<T*>((reinterpret_cast<std::uintptr_t>(buffer.data()) + 63) & ~std::uintptr_t(63));
  }

  // The block of C at tile (and its K slice), with op(A)'s packed micro-panel at Ap (nullptr: the thread's
  // buffer, where one is needed).
  void block(const detail::GemmTileOrigin& tile, T* Ap) const {
    const int mb = static_cast<int>(std::min<std::int64_t>(BM, c.rows - tile.m0));
    const int nb = static_cast<int>(std::min<std::int64_t>(BN, c.cols - tile.n0));
    const bool partial = k_slices > 1;
    TC* const out = partial ? work + std::int64_t(tile.slice) * c.rows * c.cols : c.data;
    const std::int64_t out_rs = partial ? 1 : c.rs, out_cs = partial ? c.rows : c.cs;
    const Acc first_beta = partial ? Acc(0) : beta;
    for (std::int64_t p0 = tile.k_begin; p0 < tile.k_end; p0 += KC) {
      const int kk = static_cast<int>(std::min<std::int64_t>(KC, tile.k_end - p0));
      const Step s{kk, p0 == tile.k_begin, first_beta, out_rs, out_cs};
      const BView bv = b_block(p0, kk, tile.n0, nb);
      for (int ir = 0; ir < mb; ir += MR) {
        const int mr = std::min(MR, mb - ir);
        const T* a_rows = a.data + (tile.m0 + ir) * a.rs + p0 * a.cs;
        TC* cp = out + (tile.m0 + ir) * out_rs + tile.n0 * out_cs;
        if (kAFastM && a.rs == 1) {
          row_panel(s, InPlaceA{a_rows, a.cs}, bv, cp, mr, nb);
        } else {
          if (!Ap) Ap = thread_buffer();
          Packing::template pack_panels<MR>(Ap, a_rows, a.rs, a.cs, mr, kk);
          row_panel(s, PackedA{Ap}, bv, cp, mr, nb);
        }
      }
    }
  }

  // A K step's facts for the micro-tiles: its depth, whether it is the block's first, the beta of that
  // first step, and where C (or the slice's partials) lies.
  struct Step {
    int kk;
    bool first;
    Acc first_beta;
    std::int64_t rs, cs;
  };

  // op(A)'s rows at step k: MR (or the first mr) contiguous values.
  struct InPlaceA {  // op(A) itself, rows contiguous, ks apart along k
    const T* p;
    std::int64_t ks;
    const T* rows() const { return p; }
    void next() { p += ks; }
  };
  struct PackedA {  // the micro-panel in Ap: MR values per k, zero past M
    const T* p;
    const T* rows() const { return p; }
    void next() { p += MR; }
  };
  // op(B)'s value in column j at step k.
  struct ColsB {  // column-major op(B) (rs == 1): column j at p + j * cs, one pointer down k
    const T* p;
    std::int64_t cs;
    T col(int j) const { return p[j * cs]; }
    void next() { ++p; }
  };
  struct RowsB {  // rows-contiguous op(B) (cs == 1): a row's values side by side
    const T* p;
    std::int64_t rs;
    T col(int j) const { return p[j]; }
    void next() { p += rs; }
  };

  // MR rows (mr of them valid) of the block's C from ir, all nb columns, at cp.
  template <class ASrc>
  void row_panel(const Step& s, ASrc as, const BView& bv, TC* cp, int mr, int nb) const {
    if (mr == MR) return columns<2, false>(s, as, bv, cp, mr, nb);
    if (mr > W) return columns<2, true>(s, as, bv, cp, mr, nb);
    columns<1, true>(s, as, bv, cp, mr, nb);
  }

  // Micro-tiles of NR columns, then the last nr: 8 or 4 of them, then 3, 2 or 1, each exactly.
  template <int kNV, bool kMasked, class ASrc>
  void columns(const Step& s, ASrc as, const BView& bv, TC* cp, int mr, int nb) const {
    int j0 = 0;
    for (; j0 + NR <= nb; j0 += NR) tile<kNV, NR, kMasked>(s, as, bv, cp, mr, j0);
    if (nb - j0 >= 8) tile<kNV, 8, kMasked>(s, as, bv, cp, mr, j0), j0 += 8;
    if (nb - j0 >= 4) tile<kNV, 4, kMasked>(s, as, bv, cp, mr, j0), j0 += 4;
    switch (nb - j0) {
      case 3:
        return tile<kNV, 3, kMasked>(s, as, bv, cp, mr, j0);
      case 2:
        return tile<kNV, 2, kMasked>(s, as, bv, cp, mr, j0);
      case 1:
        return tile<kNV, 1, kMasked>(s, as, bv, cp, mr, j0);
      default:
        return;
    }
  }

  // The micro-tile at column j0, reading the step's op(B) block (b_block) along the orientation's walking
  // index: kBFastN says op(B) walks n contiguously.
  template <int kNV, int kNR, bool kMasked, class ASrc>
  void tile(const Step& s, ASrc as, const BView& bv, TC* cp, int mr, int j0) const {
    const T* p = bv.p + j0 * bv.cs;
    TC* cj = cp + j0 * s.cs;
    if constexpr (kBFastN) {
      micro<kNV, kNR, kMasked>(s, as, RowsB{p, bv.rs}, cj, mr);
    } else {
      micro<kNV, kNR, kMasked>(s, as, ColsB{p, bv.cs}, cj, mr);
    }
  }

  // C(0:mr, 0:kNR) at cp takes alpha * op(A) rows * op(B) columns over s.kk steps: kNV vectors down each
  // column, the last one's lanes past mr neither loaded from op(A) nor stored (kMasked).
  // Never inlined: inlined into columns(), GCC kept the accumulators of the one-vector tiles in memory too,
  // storing all of them on every k.
  template <int kNV, int kNR, bool kMasked, class ASrc, class BSrc>
  [[gnu::noinline]] void micro(const Step s, ASrc as, BSrc bs, TC* cp, int mr) const {
    const int tail = mr - (kNV - 1) * W;  // lanes of the last vector (kMasked)
    const Acc al = alpha;
    Vec acc[kNR][kNV];
    RIDGELINE_UNROLL
    for (int j = 0; j < kNR; ++j) RIDGELINE_UNROLL
    for (int q = 0; q < kNV; ++q) acc[j][q] = Vec{};
#pragma GCC unroll 2
    for (int k = 0; k < s.kk; ++k, as.next(), bs.next()) {
      Vec av[kNV];
      RIDGELINE_UNROLL
      for (int q = 0; q < kNV; ++q)
        av[q] = kMasked && q == kNV - 1 ? load_vec_first<Vec>(as.rows() + q * W, tail)
                                        : load_vec(as.rows() + q * W);
      RIDGELINE_UNROLL
      for (int j = 0; j < kNR; ++j) {
        const T bj = bs.col(j);
        RIDGELINE_UNROLL
        for (int q = 0; q < kNV; ++q) acc[j][q] += av[q] * bj;
      }
    }
    // beta == 0 on the first step never reads C (NaN there cannot survive); later steps add to it.
    const bool read_c = !s.first || s.first_beta != Acc(0);
    const Acc scale_c = s.first ? s.first_beta : Acc(1);
    if (s.rs == 1) {
      RIDGELINE_UNROLL
      for (int j = 0; j < kNR; ++j) RIDGELINE_UNROLL
      for (int q = 0; q < kNV; ++q) {
        TC* p = cp + j * s.cs + q * W;
        Vec v = acc[j][q] * al;
        if (kMasked && q == kNV - 1) {
          if (read_c) v += load_vec_first<Vec>(p, tail) * scale_c;
          store_vec_first(p, v, tail);
        } else {
          if (read_c) v += load_vec(p) * scale_c;
          store_vec(p, v);
        }
      }
    } else {
      // C's rows not contiguous: element by element, each vector through memory. Every loop over acc is
      // unrolled: one indexed at run time keeps the accumulators in memory through the k loop.
      RIDGELINE_UNROLL
      for (int j = 0; j < kNR; ++j) RIDGELINE_UNROLL
      for (int q = 0; q < kNV; ++q) {
        alignas(64) T lanes[W];
        store_vec(lanes, acc[j][q] * al);
        for (int i = q * W; i < std::min(mr, (q + 1) * W); ++i) {
          TC* p = cp + j * s.cs + i * s.rs;
          Acc v = lanes[i - q * W];
          if (read_c) v += scale_c * *p;
          *p = v;
        }
      }
    }
  }
};

#endif

}  // namespace ridgeline::backends::host
