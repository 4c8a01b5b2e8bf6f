#pragma once
// The team tile level with asynchronous staging: one Kokkos team computes one BM x BN tile of C,
// like GemmTeamTiled, but the operand tiles travel from global memory to scratch through the copy
// component that the table entry names (Cfg::async_copy; cp.async on CUDA), kStages K steps deep:
//
//   prologue: issue K steps 0 .. S-2, one copy group each
//   for each K step kt:
//     wait until step kt's group has landed (this thread's copies), team barrier (everyone's)
//     issue step kt + S - 1 into the buffer that step kt - 1 was computed from
//     micro-kernel mac on step kt's buffer (every thread; warp-level kernels need whole warps)
//   epilogue (gemm_epilogue.hpp)
//
// One barrier per K step; it also tells every thread that the buffer it is about to refill is no
// longer read. A micro-kernel whose products outlive mac_in (MK::kInFlight > 0: wgmma) keeps
// kInFlight more steps between a buffer's read and its refill, so S - 1 - kInFlight steps are in
// flight, and drains before the epilogue; an entry with products_first issues step kt's products
// (MK::mac_issue) before step kt's copies and waits for them (MK::mac_wait) after. Staging costs no
// registers, which register staging (gemm_team_tiled.hpp) cannot offer to a tensor-core micro-kernel
// that already holds 64 or more accumulators.
//
// An entry with fragments_across_steps runs the K loop one instruction slice at a time instead
// (micro-kernels with load_slice / mma_slice, the DMMA m16n8k8 one), with two fragment sets:
//
//   prologue: issue K steps 0 .. S-1, wait for step 0, team barrier, load slice 0 of step 0
//   for each K step kt, for each slice s:
//     s not last: load slice s + 1 of step kt
//     s last:     wait for step kt + 1, team barrier, issue step kt + S into step kt's buffer (every
//                 thread holds step kt's last slice by then), load slice 0 of step kt + 1
//     multiply slice s
//
// so the barrier and the next step's first loads overlap the last slice's products, and every stage
// buffer holds a step in flight (S - 1 of them while a step is computed).
//
// The copies move 16 bytes (or one element, copy_bytes) and cannot transpose, so each operand keeps its
// contiguous index contiguous in scratch: op(A) walking m contiguously is staged k-major, (BK, BM + pad_a),
// and op(A) walking k contiguously m-major, (BM, BK + pad_k); likewise B. The micro-kernel reads either
// through mac_in (micro_tile.hpp). A micro-kernel whose instruction reads a fixed layout (wgmma's
// swizzled tiles) declares it as MK::staged_layout, and the packets go there instead. Operands must
// stage in packets (unit stride along the contiguous index; for 16-byte copies, 16-byte aligned lines too):
// the dispatcher checks packet_staging_applies, or for one-element copies the in-place entry's condition.
// Tile edges and the K tail read zeros: a packet's copy is cut to its valid bytes, the rest filled.
#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ridgeline/detail/compat.hpp"
#include "ridgeline/detail/gemm_epilogue.hpp"
#include "ridgeline/detail/gemm_team_tiled.hpp"
#include "ridgeline/detail/micro_tile.hpp"
#include "ridgeline/detail/strided.hpp"

namespace ridgeline::detail {

// A staged operand tile of kS lines of its fast index, kLd elements apart: element (fast f, slow s)
// at s * kLd + f. As a ScratchLayout it gives the micro-kernel element (i, k) of the tile.
template <int kS, int kLd, int kIStride, int kKStride>
struct PaddedStage : ScratchLayout<kIStride, kKStride> {
  static constexpr int elements = kS * kLd, alignment = int(scratch_align);
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int offset(int f, int s) { return s * kLd + f; }
};
// The micro-kernel's own layout (MK::staged_layout<rows, BK, rows fast>) where it declares one.
template <class MK, int kRows, int kK, bool kRowsFast, class Padded, class = void>
struct StagedLayoutOf {
  using type = Padded;
};
template <class MK, int kRows, int kK, bool kRowsFast, class Padded>
struct StagedLayoutOf<MK, kRows, kK, kRowsFast, Padded,
                      std::void_t<typename MK::template staged_layout<kRows, kK, kRowsFast>>> {
  using type = typename MK::template staged_layout<kRows, kK, kRowsFast>;
};
// An entry's products_first (default false): with a micro-kernel that splits mac_in into
// mac_issue and mac_wait, issue step kt's products before step kt + kAhead's copies.
template <class Cfg, class = void>
struct ProductsFirstOf : std::false_type {};
template <class Cfg>
struct ProductsFirstOf<Cfg, std::void_t<decltype(Cfg::products_first)>>
    : std::bool_constant<Cfg::products_first> {};
// An entry's copies_after_products (default false): issue step kt + kAhead's copies after step kt's
// products rather than before, so that the tensor pipe starts on the step right after the barrier.
// The buffer they fill was last read by step kt - 1, so the barrier at the top of step kt already
// guards it; the copies get one step's products less to land in.
template <class Cfg, class = void>
struct CopiesAfterProductsOf : std::false_type {};
template <class Cfg>
struct CopiesAfterProductsOf<Cfg, std::void_t<decltype(Cfg::copies_after_products)>>
    : std::bool_constant<Cfg::copies_after_products> {};
// An entry's steady_loop (default false): an interior tile runs the K steps whose copies are whole
// steps in a loop of their own, with no edge checks and no branch between a step's copies and its
// products. The copies' address arithmetic and issue then share one basic block with the products,
// so the assembler can place them in the issue slots that it leaves empty between tensor-core
// instructions (DMMA.16x8x16 issues 64 cycles apart from one warp) instead of before them.
template <class Cfg, class = void>
struct SteadyLoopOf : std::false_type {};
template <class Cfg>
struct SteadyLoopOf<Cfg, std::void_t<decltype(Cfg::steady_loop)>> : std::bool_constant<Cfg::steady_loop> {};
template <class MK, class = void>
struct InFlightOf : std::integral_constant<int, 0> {};
template <class MK>
struct InFlightOf<MK, std::void_t<decltype(MK::kInFlight)>> : std::integral_constant<int, MK::kInFlight> {};
// An entry's fragments_across_steps (default false): the slice-at-a-time K loop above.
template <class Cfg, class = void>
struct FragmentsAcrossStepsOf : std::false_type {};
template <class Cfg>
struct FragmentsAcrossStepsOf<Cfg, std::void_t<decltype(Cfg::fragments_across_steps)>>
    : std::bool_constant<Cfg::fragments_across_steps> {};

// An entry's copy_bytes (default 16): the bytes each copy moves. One element (8 for fp64) reads operands
// whose lines are not 16-byte aligned in place (when::in_place, gemm_plan.hpp), at kVecW = 1: more copies
// per step, no aligned copies of the operands first.
template <class Cfg, class = void>
struct CopyBytesOf : std::integral_constant<int, 16> {};
template <class Cfg>
struct CopyBytesOf<Cfg, std::void_t<decltype(Cfg::copy_bytes)>>
    : std::integral_constant<int, Cfg::copy_bytes> {};

// Always packet staging, so unlike GemmTeamTiled it takes no kVec: the dispatcher's kVec choice
// does not apply (GemmKernelFor). T: A and B; TC: C; Acc: the accumulator.
template <class ExecSpace, class Cfg, class T, class Acc, class MK, bool kAFastM, bool kBFastN, class TC = T>
struct GemmTeamAsync
    : GemmEpilogue<GemmTeamAsync<ExecSpace, Cfg, T, Acc, MK, kAFastM, kBFastN, TC>, TC, Acc, MK> {
  static_assert(Cfg::vector_length == 1, "the GEMM team tile maps one micro-tile set to each team thread");
  using policy_type = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<Cfg::team_size, Cfg::min_blocks>>;
  using member_type = typename policy_type::member_type;
  using config = Cfg;
  using accumulator_type = Acc;
  using Copy = typename Cfg::async_copy;
  using Owner = typename MK::Owner;
  static constexpr bool a_fast_m = kAFastM, b_fast_n = kBFastN;

  static constexpr int BM = Cfg::bm, BN = Cfg::bn, BK = Cfg::bk;
  static constexpr int kThreads = Cfg::team_size, kStages = Cfg::stages;
  static constexpr int kInFlight = InFlightOf<MK>::value;  // steps the micro-kernel leaves running
  static constexpr int kAhead = kStages - 1 - kInFlight;   // steps whose copies are in flight
  static_assert(kAhead >= 1, "at least one K step in flight while another is computed");
  static constexpr bool kCopiesAfter = CopiesAfterProductsOf<Cfg>::value;
  static_assert(!(kCopiesAfter && (ProductsFirstOf<Cfg>::value || kInFlight > 0)),
                "copies after the products only for micro-kernels that finish their products in mac_in");
  static constexpr bool kSteady = SteadyLoopOf<Cfg>::value;
  static_assert(!(kSteady && (ProductsFirstOf<Cfg>::value || kInFlight > 0)),
                "the steady loop only for micro-kernels that finish their products in mac_in");
  static constexpr bool kAcross = FragmentsAcrossStepsOf<Cfg>::value;
  static_assert(
      !(kAcross && (kCopiesAfter || kSteady || ProductsFirstOf<Cfg>::value || kInFlight > 0)),
      "fragments across steps is a K loop of its own: no steady loop, copies after or products first");
  static_assert(!kAcross || kStages >= 2, "fragments across steps keeps a step in flight");
  static_assert(Cfg::tm * Cfg::tn * kThreads == BM * BN, "one micro-kernel share per thread");
  static constexpr int kCopyBytes = CopyBytesOf<Cfg>::value;
  static_assert(kCopyBytes % int(sizeof(T)) == 0 && (kCopyBytes == 16 || kCopyBytes == int(sizeof(T))),
                "copies of 16 bytes or of one element");
  static constexpr int kVecW = int(kCopyBytes / sizeof(T));  // elements per copy
  using Epilogue = GemmEpilogue<GemmTeamAsync, TC, Acc, MK>;
  static constexpr int kCV = Epilogue::kCV;
  static constexpr bool c_packet_capable = Epilogue::c_packet_capable;

  // One operand's tile per stage, as lines of its contiguous ("fast") index: kF elements per line,
  // kS lines, placed by Layout (the padded lines, kLd elements apart, or the micro-kernel's layout).
  template <int kF, int kS, class Layout_>
  struct Tile {
    using Layout = Layout_;
    static constexpr int kPerLine = kF / kVecW;                  // packets per line
    static constexpr int kPackets = kF * kS / kVecW / kThreads;  // packets per thread
    static_assert(kF % kVecW == 0, "lines are whole packets");
    static_assert(kThreads % kPerLine == 0 && (kF * kS / kVecW) % kThreads == 0,
                  "a K step's packets split evenly, each thread keeping one place in the line");
    static constexpr int kLineStep = kThreads / kPerLine;  // lines between a thread's packets
    static constexpr int kElems = Layout::elements;        // scratch elements per stage
    static constexpr int kAlign = Layout::alignment;       // bytes, of every stage's buffer
    static_assert(kElems * sizeof(T) % kAlign == 0, "every stage starts aligned");
  };
  static constexpr int kLdA = kAFastM ? BM + Cfg::pad_a : BK + Cfg::pad_k;
  static constexpr int kLdB = kBFastN ? BN + Cfg::pad_b : BK + Cfg::pad_k;
  static_assert(kLdA % kVecW == 0 && kLdB % kVecW == 0, "padded lines start 16-byte aligned");
  // Element (m, k) of As and (n, k) of Bs, for the micro-kernel: the padded lines, or its own.
  using LayoutA = typename StagedLayoutOf<
      MK, BM, BK, kAFastM,
      PaddedStage<kAFastM ? BK : BM, kLdA, kAFastM ? 1 : kLdA, kAFastM ? kLdA : 1>>::type;
  using LayoutB = typename StagedLayoutOf<
      MK, BN, BK, kBFastN,
      PaddedStage<kBFastN ? BK : BN, kLdB, kBFastN ? 1 : kLdB, kBFastN ? kLdB : 1>>::type;
  using TileA = Tile<kAFastM ? BM : BK, kAFastM ? BK : BM, LayoutA>;
  using TileB = Tile<kBFastN ? BN : BK, kBFastN ? BK : BN, LayoutB>;
  static constexpr bool vector_capable = true;

  Strided2D<const T> a;  // op(A): M x K
  Strided2D<const T> b;  // op(B): K x N
  Strided2D<TC> c;       // M x N
  Acc alpha, beta;
  int tiles_m, tiles_n;
  // Split-K, as in GemmTeamTiled.
  Acc* work = nullptr;
  int k_slices = 1;
  std::int64_t k_chunk = 0;
  bool c_packets = false;

  KOKKOS_INLINE_FUNCTION static constexpr std::size_t scratch_bytes() {
    return align_up(sizeof(T) * kStages * TileA::kElems) + align_up(sizeof(T) * kStages * TileB::kElems) +
           std::size_t(TileA::kAlign) + std::size_t(TileB::kAlign);
  }

  // The thread's first packet of a K step in each operand: (fast, slow) inside the step's tile.
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int f0_of(int t, int per_line) {
    return (t % per_line) * kVecW;
  }
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int s0_of(int t, int per_line) { return t / per_line; }

  // Issues K step kt (of the team's range) into stage buffers (As, Bs); kChecked for edge tiles
  // and the K tail.
  template <bool kChecked>
  KOKKOS_FORCEINLINE_FUNCTION void issue(int t, std::int64_t m0, std::int64_t n0, std::int64_t k0,
                                         std::int64_t k_end, T* As, T* Bs) const {
    {
      const int f0 = f0_of(t, TileA::kPerLine), s0 = s0_of(t, TileA::kPerLine);
      // op(A)(m, k) = a.data[m * rs + k * cs]; fast index m (kAFastM) or k.
      const std::int64_t m = m0 + (kAFastM ? f0 : s0), k = k0 + (kAFastM ? s0 : f0);
      const T* p = a.data + m * a.rs + k * a.cs;
      const std::int64_t ss = kAFastM ? a.cs : a.rs;
      const std::int64_t lim_f = kAFastM ? a.rows - m0 : k_end - k0;
      const std::int64_t lim_s = kAFastM ? k_end - k0 : a.rows - m0;
      issue_lines<TileA, kChecked>(As, a.data, p, ss, f0, s0, lim_f, lim_s);
    }
    {
      const int f0 = f0_of(t, TileB::kPerLine), s0 = s0_of(t, TileB::kPerLine);
      // op(B)(k, n) = b.data[k * rs + n * cs]; fast index n (kBFastN) or k.
      const std::int64_t n = n0 + (kBFastN ? f0 : s0), k = k0 + (kBFastN ? s0 : f0);
      const T* p = b.data + k * b.rs + n * b.cs;
      const std::int64_t ss = kBFastN ? b.rs : b.cs;
      const std::int64_t lim_f = kBFastN ? b.cols - n0 : k_end - k0;
      const std::int64_t lim_s = kBFastN ? k_end - k0 : b.cols - n0;
      issue_lines<TileB, kChecked>(Bs, b.data, p, ss, f0, s0, lim_f, lim_s);
    }
  }

  // One operand's copies of one K step into its stage buffer S. p: the thread's first packet in
  // the operand, at (fast, slow) = (f0, s0) of the step's tile; the fast stride is 1 (packet
  // precondition), ss the slow one. lim_f and lim_s: the elements left along the fast and slow index
  // from the tile's origin (zero or negative: none). kChecked cuts each packet to what is inside;
  // otherwise nothing is tested.
  template <class Tl, bool kChecked>
  KOKKOS_FORCEINLINE_FUNCTION static void issue_lines(T* S, const T* origin, const T* p, std::int64_t ss,
                                                      int f0, int s0, std::int64_t lim_f,
                                                      std::int64_t lim_s) {
    RIDGELINE_UNROLL
    for (int r = 0; r < Tl::kPackets; ++r) {
      const int s = s0 + r * Tl::kLineStep;
      T* dst = S + Tl::Layout::offset(f0, s);
      const T* src = p + std::int64_t(r) * Tl::kLineStep * ss;
      if constexpr (kChecked) {
        const std::int64_t left = lim_f - f0;
        const int n = s < lim_s ? (left >= kVecW ? kVecW : (left > 0 ? int(left) : 0)) : 0;
        // A packet with nothing inside reads nothing; it still gets an address inside the operand.
        copy_packet(dst, n > 0 ? src : origin, n * int(sizeof(T)));
      } else {
        copy_packet(dst, src);
      }
    }
  }

  // One packet of kCopyBytes: the copy component's 16-byte copy, or its one-element copy.
  KOKKOS_FORCEINLINE_FUNCTION static void copy_packet(T* dst, const T* src) {
    if constexpr (kCopyBytes == 16) {
      Copy::copy16(dst, src);
    } else {
      Copy::template copy<kCopyBytes>(dst, src);
    }
  }
  KOKKOS_FORCEINLINE_FUNCTION static void copy_packet(T* dst, const T* src, int src_bytes) {
    if constexpr (kCopyBytes == 16) {
      Copy::copy16(dst, src, src_bytes);
    } else {
      Copy::template copy<kCopyBytes>(dst, src, src_bytes);
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const { run(team, team.league_rank()); }

  // The tile of league rank `rank` (a batched league passes each matrix's own rank).
  KOKKOS_FORCEINLINE_FUNCTION void run(const member_type& team, int rank) const {
    run_in(team, rank, team.team_scratch(static_cast<int>(Cfg::scratch_level)));
  }

  // The same, its buffers taken from `scratch` (GemmTeamTiled::run_in).
  template <class Scratch>
  KOKKOS_FORCEINLINE_FUNCTION void run_in(const member_type& team, int rank, const Scratch& scratch) const {
    const auto tile =
        GemmTileOrigin::of<BM, BN, Cfg::group_m>(rank, tiles_m, tiles_n, k_slices, k_chunk, a.cols);
    // kStages x (BK, BM+pad) or (BM, BK+pad), or BM x BK in the micro-kernel's layout
    T* As = static_cast<T*>(scratch.get_shmem_aligned(sizeof(T) * kStages * TileA::kElems, TileA::kAlign));
    // kStages x (BK, BN+pad) or (BN, BK+pad), or BN x BK in the micro-kernel's layout
    T* Bs = static_cast<T*>(scratch.get_shmem_aligned(sizeof(T) * kStages * TileB::kElems, TileB::kAlign));
    const int t = team.team_rank();
    // An edge tile loads and computes from the last whole tile of the extent (tile_inside_origin), so
    // that its steps copy as an interior tile's do, and stores only its own rows and columns. Packets
    // stay 16-byte aligned when the move is a multiple of kVecW along an operand's contiguous index, and
    // of kCV along C's rows where C is stored in packets.
    const int c_align = c_packet_capable && c_packets ? kCV : 1;
    const std::int64_t m0 =
        tile_inside_origin(tile.m0, BM, a.rows, kAFastM && kVecW > c_align ? kVecW : c_align);
    const std::int64_t n0 = tile_inside_origin(tile.n0, BN, b.cols, kBFastN ? kVecW : 1);
    const std::int64_t k_begin = tile.k_begin, k_end = tile.k_end;
    const int nk = static_cast<int>((k_end - k_begin + BK - 1) / BK);
    const bool interior = m0 + BM <= a.rows && n0 + BN <= b.cols;
    const int nk_full = interior ? static_cast<int>((k_end - k_begin) / BK) : 0;
    const auto issue_step = [&](int kt, int stage) {
      const std::int64_t k0 = k_begin + std::int64_t(kt) * BK;
      T* as = As + stage * TileA::kElems;
      T* bs = Bs + stage * TileB::kElems;
      if (kt < nk_full) {
        issue<false>(t, m0, n0, k0, k_end, as, bs);
      } else {
        issue<true>(t, m0, n0, k0, k_end, as, bs);
      }
    };

    const Owner o = MK::owner(t);
    typename MK::Accumulator acc;
    MK::zero(acc);
    if constexpr (kAcross) {
      k_loop_across_steps(team, t, o, acc, As, Bs, m0, n0, k_begin, nk, nk_full, issue_step);
    } else {
      k_loop(team, t, o, acc, As, Bs, m0, n0, k_end, k_begin, nk, nk_full, issue_step);
    }
    Copy::template wait<0>();  // nothing may still write this team's scratch when it ends

    if (k_slices > 1) {
      this->store_partial(acc, m0, n0, o, tile.slice, tile_own_origin(m0, BM), tile_own_origin(n0, BN));
    } else {
      this->store(acc, m0, n0, o, tile_own_origin(m0, BM), tile_own_origin(n0, BN));
    }
  }

  // The slice-at-a-time K loop (fragments_across_steps, above). The micro-kernel keeps two fragment
  // sets beside its accumulators, so the loop keeps few registers of its own: the lanes' fragment
  // addresses are taken once (MK::slice_base) and a stage is a byte offset; steps whose copies are whole
  // interior steps (all but the last kStages of an interior tile) copy from two running pointers
  // without checks, the rest through issue_step.
  template <class Member, class IssueStep>
  KOKKOS_FORCEINLINE_FUNCTION void k_loop_across_steps(const Member& team, int t, const Owner& o,
                                                       typename MK::Accumulator& acc, T* As, T* Bs,
                                                       std::int64_t m0, std::int64_t n0, std::int64_t k_begin,
                                                       int nk, int nk_full,
                                                       const IssueStep& issue_step) const {
    constexpr int kSlices = MK::kSlices;
    static_assert(kSlices % 2 == 0,
                  "an even number of slices per K step keeps the fragment sets in registers");
    constexpr unsigned kStageA = TileA::kElems * sizeof(T), kStageB = TileB::kElems * sizeof(T);
    static_assert(TileA::Layout::offset(0, 2) == 2 * TileA::Layout::offset(0, 1) &&
                      TileB::Layout::offset(0, 2) == 2 * TileB::Layout::offset(0, 1),
                  "the slice loop stages padded lines (issue_packets steps lines by a constant)");
    RIDGELINE_UNROLL
    for (int s = 0; s < kStages; ++s) {
      if (s < nk) issue_step(s, s);
      Copy::commit();  // empty groups keep the count that wait<> relies on
    }
    if (nk <= 0) return;
    // This thread's packets of step kStages, the first one the loop issues, and their strides.
    const int fa = f0_of(t, TileA::kPerLine), sa = s0_of(t, TileA::kPerLine);
    const int fb = f0_of(t, TileB::kPerLine), sb = s0_of(t, TileB::kPerLine);
    const std::int64_t step_a = BK * a.cs, step_b = BK * b.rs;
    const std::int64_t line_a = TileA::kLineStep * (kAFastM ? a.cs : a.rs);
    const std::int64_t line_b = TileB::kLineStep * (kBFastN ? b.rs : b.cs);
    const T* src_a = a.data + (m0 + (kAFastM ? fa : sa)) * a.rs + (k_begin + (kAFastM ? sa : fa)) * a.cs +
                     kStages * step_a;
    const T* src_b = b.data + (k_begin + (kBFastN ? sb : fb)) * b.rs + (n0 + (kBFastN ? fb : sb)) * b.cs +
                     kStages * step_b;
    T* const dst_a = As + TileA::Layout::offset(fa, sa);
    T* const dst_b = Bs + TileB::Layout::offset(fb, sb);
    const auto base = MK::template slice_base<LayoutA, LayoutB>(As, Bs, o);

    Copy::template wait<kStages - 1>();
    team.team_barrier();
    typename MK::Fragments f[2];
    MK::template load_slice<LayoutA, LayoutB>(f[0], base, 0u, 0u, 0);
    int read = 0;  // the stage of K step kt
    // One K step: its slices, with step kt + 1's first slice loaded at the barrier before the last one
    // multiplies; copies() issues step kt + kStages into step kt's buffer there.
    const auto step = [&](int kt, const auto& copies) {
      const unsigned off_a = read * kStageA, off_b = read * kStageB;
      const int next = read + 1 == kStages ? 0 : read + 1;
      RIDGELINE_UNROLL
      for (int s = 0; s < kSlices; ++s) {
        if (s + 1 < kSlices) {
          MK::template load_slice<LayoutA, LayoutB>(f[(s + 1) % 2], base, off_a, off_b, s + 1);
        } else if (kt + 1 < nk) {
          // Step kt + 1 has landed for every thread, and every thread holds step kt's last slice, so
          // step kt's buffer takes step kt + kStages.
          Copy::template wait<kStages - 2>();
          team.team_barrier();
          copies();
          Copy::commit();
          MK::template load_slice<LayoutA, LayoutB>(f[(s + 1) % 2], base, next * kStageA, next * kStageB, 0);
        }
        MK::mma_slice(acc, f[s % 2]);
      }
      read = next;
    };
    int kt = 0;
    for (const int nk_steady = nk_full - kStages; kt < nk_steady; ++kt) {
      step(kt, [&] {
        issue_packets<TileA>(dst_a + read * TileA::kElems, src_a, line_a);
        issue_packets<TileB>(dst_b + read * TileB::kElems, src_b, line_b);
        src_a += step_a, src_b += step_b;
      });
    }
    for (; kt < nk; ++kt) {
      step(kt, [&] {
        if (kt + kStages < nk) issue_step(kt + kStages, read);
      });
    }
  }
  // A whole interior step of one operand: the thread's packets, line by line from src.
  template <class Tl>
  KOKKOS_FORCEINLINE_FUNCTION static void issue_packets(T* dst, const T* src, std::int64_t line) {
    RIDGELINE_UNROLL
    for (int r = 0; r < Tl::kPackets; ++r) {
      copy_packet(dst + r * Tl::kLineStep * (Tl::Layout::offset(0, 1) - Tl::Layout::offset(0, 0)), src);
      src += line;
    }
  }

  // The K loop of one mac_in per K step (above).
  template <class Member, class IssueStep>
  KOKKOS_FORCEINLINE_FUNCTION void k_loop(const Member& team, int t, const Owner& o,
                                          typename MK::Accumulator& acc, T* As, T* Bs, std::int64_t m0,
                                          std::int64_t n0, std::int64_t k_end, std::int64_t k_begin, int nk,
                                          int nk_full, const IssueStep& issue_step) const {
    RIDGELINE_UNROLL
    for (int s = 0; s < kAhead; ++s) {
      if (s < nk) issue_step(s, s);
      Copy::commit();  // empty groups keep the count that wait<> relies on
    }
    int read = 0, write = kAhead;  // the stages of K step kt and kt + kAhead
    int kt = 0;
    if constexpr (kSteady) {
      // Steps kt whose step kt + kAhead is a whole interior step: copies without checks or branches.
      const int nk_steady = nk_full - kAhead;
      for (; kt < nk_steady; ++kt) {
        Copy::template wait<kAhead - 1>();
        team.team_barrier();
        const T* as = As + read * TileA::kElems;
        const T* bs = Bs + read * TileB::kElems;
        const std::int64_t k0 = k_begin + std::int64_t(kt + kAhead) * BK;
        if constexpr (!kCopiesAfter) {
          issue<false>(t, m0, n0, k0, k_end, As + write * TileA::kElems, Bs + write * TileB::kElems);
          Copy::commit();
        }
        MK::template mac_in<LayoutA, LayoutB>(acc, as, bs, o);
        if constexpr (kCopiesAfter) {
          issue<false>(t, m0, n0, k0, k_end, As + write * TileA::kElems, Bs + write * TileB::kElems);
          Copy::commit();
        }
        read = read + 1 == kStages ? 0 : read + 1;
        write = write + 1 == kStages ? 0 : write + 1;
      }
    }
    for (; kt < nk; ++kt) {
      Copy::template wait<kAhead - 1>();
      team.team_barrier();
      // Step kt + kAhead's buffer was last read by step kt - 1 - kInFlight, whose products every
      // thread saw complete before this barrier.
      const T* as = As + read * TileA::kElems;
      const T* bs = Bs + read * TileB::kElems;
      if constexpr (ProductsFirstOf<Cfg>::value) MK::template mac_issue<LayoutA, LayoutB>(acc, as, bs, o);
      if constexpr (!kCopiesAfter) {
        if (kt + kAhead < nk) issue_step(kt + kAhead, write);
        Copy::commit();
      }
      if constexpr (ProductsFirstOf<Cfg>::value) {
        MK::mac_wait(acc);
      } else {
        MK::template mac_in<LayoutA, LayoutB>(acc, as, bs, o);
      }
      if constexpr (kCopiesAfter) {
        if (kt + kAhead < nk) issue_step(kt + kAhead, write);
        Copy::commit();
      }
      read = read + 1 == kStages ? 0 : read + 1;
      write = write + 1 == kStages ? 0 : write + 1;
    }
    if constexpr (kInFlight > 0) MK::drain(acc);
  }
};

}  // namespace ridgeline::detail
