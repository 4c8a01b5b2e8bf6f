#pragma once
// FP16, BF16 and TF32 warpgroup micro-kernel (wgmma.mma_async m64nNk16, TF32 m64nNk8, FP32
// accumulation) for the
// asynchronous-staging team kernel (gemm_team_async.hpp), on sm_90a through the PTX-8 route
// (wgmma_sm90a.hpp says when it exists; a build or device without it never selects this kernel:
// tile_table.hpp names it only when wgmma::kBuiltWithSm90a).
//
// T = float means TF32: the tensor core reads the FP32 bit patterns staged in scratch and ignores
// their 13 low mantissa bits (truncation), so the caller must have asked for it (ridgeline::Math);
// TF32 operands are K-major only (the PTX ISA has no transposed form for them).
//
// A warpgroup (4 warps, 128 consecutive team ranks) owns a warp_m x warp_n tile of the team's C
// tile: warp_m / 64 instructions m64n{warp_n}k16 per k16, both operands read by the tensor core
// straight from scratch through descriptors, so no fragment passes through registers and a thread
// holds only its warp_m / 64 x warp_n / 2 accumulators. Against mma.sync (hmma_sm80.hpp), whose
// ldmatrix reads kept that kernel at about half the HMMA rate (shared-memory bandwidth), one m64n256k16
// reads (64 + 256) x 16 x 2 bytes for 64 x 256 x 16 FMAs: 2.5x fewer scratch bytes per FMA than a
// 64x64 mma.sync warp tile.
//
// Contract additions (micro_tile.hpp):
//   staged_layout<kRows, kK, kMNMajor>
//                   the scratch layout this micro-kernel reads an operand tile in (the tensor core
//                   reads fixed layouts): kRows x kK elements, rows M (A) or N (B), staged MN-major
//                   (rows contiguous in 16-byte packets: a column-major A) or K-major; offset(f, s)
//                   places the element at fast index f and slow index s, and the team kernel puts
//                   each 16-byte packet there (packets stay contiguous in both swizzled layouts).
//   kInFlight       K steps whose products mac_in may leave running when it returns (the entry's
//                   wgmma_in_flight, default 1: the wgmmas of step kt run while the team waits for
//                   step kt + 1's copies; 0 waits for them and frees the buffer a step earlier); the team
//                   kernel then refills a buffer only kInFlight + 1 steps after it was read, and calls
//                   drain(acc) before the epilogue.
// The staged tiles must reach the tensor core through the async proxy: the entry's copy component is
// AsyncCopyToAsyncProxy (below), whose wait fences this thread's landed copies for it, or the entry
// stages through TMA (tma_boxes, gemm_team_tma_sm90a.hpp), which writes through that proxy itself.
//   producer_threads  team ranks before the warpgroups that multiply (TMA entries: 128), which
//                   owner() does not count: the team kernel passes consumer ranks.
//
// Accumulator grid for the epilogue: wgmma's D fragment is mma.sync m16n8's C fragment per warp,
// repeated over the warp_n / 8 column blocks (wgmma_sm90a.hpp), so the grid is HMMA's: kTM = 2 per
// 64-row instruction (rows g and g + 8 of the warp's 16), kTN = warp_n / 4, kRowRun = 1.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <ridgeline/backends/cuda/async_copy_sm80.hpp>
#include <ridgeline/backends/cuda/wgmma_sm90a.hpp>
#include <ridgeline/detail/compat.hpp>
#include <ridgeline/detail/micro_tile.hpp>
#include <ridgeline/half.hpp>
#include <type_traits>

namespace ridgeline::backends::cuda {

// cp.async whose wait also hands the landed bytes to the async proxy that wgmma reads through
// (fence.proxy.async after the copies complete, before the team barrier that follows every wait).
struct AsyncCopyToAsyncProxy : AsyncCopySm80 {
  static constexpr const char* name = "cp.async+fence.proxy.async";
  template <int N>
  KOKKOS_FORCEINLINE_FUNCTION static void wait() {
    AsyncCopySm80::wait<N>();
#if RIDGELINE_WGMMA_ENABLED
    wgmma::fence_proxy_async();
#endif
  }
};

// The K-major layout for kElemBytes-byte elements, and the MN-major one where the instruction has
// a transposed form.
// K-major tiles take the widest swizzle their K step fills (128 bytes, or 64 for a 16-bit K step of 32).
// kBlocked: the MN-major form with its 64-row blocks outermost, as TMA boxes land (the entry's
// tma_boxes).
template <int kElemBytes, int kKBytes, bool kMNMajor, bool kBlocked = false>
struct WgmmaLayoutFor {
  static_assert(!kMNMajor || kElemBytes == 2, "TF32 operands must be staged K-major (k contiguous)");
  static constexpr int kSwizzle = kKBytes >= 128 ? 128 : kKBytes;
  using MNMajor = std::conditional_t<kBlocked, wgmma::MNMajorSwizzle128Blocked, wgmma::MNMajorSwizzle128>;
  using type = std::conditional_t<kMNMajor, MNMajor, wgmma::KMajorSwizzleOf<kElemBytes, kSwizzle>>;
};
// An entry's wgmma_in_flight, or 1.
template <class Cfg, class = void>
struct WgmmaInFlight : std::integral_constant<int, 1> {};
template <class Cfg>
struct WgmmaInFlight<Cfg, std::void_t<decltype(Cfg::wgmma_in_flight)>>
    : std::integral_constant<int, Cfg::wgmma_in_flight> {};

// An entry's tma_boxes (default false): its team kernel stages through TMA boxes (gemm_team_tma_sm90a.hpp).
template <class Cfg, class = void>
struct TmaBoxesOf : std::false_type {};
template <class Cfg>
struct TmaBoxesOf<Cfg, std::void_t<decltype(Cfg::tma_boxes)>> : std::bool_constant<Cfg::tma_boxes> {};

// One operand's staged tile in a wgmma layout L: kRows x kK elements.
template <class L, int kRows, int kK>
struct WgmmaStagedTile {
  using layout = L;
  static constexpr int rows = kRows, depth = kK;
  static constexpr bool mn_major = L::mn_major;
  static constexpr int elements = kRows * kK, alignment = L::alignment;
  // f: the fast (contiguous in global memory) index, s: the slow one.
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int offset(int f, int s) {
    return mn_major ? L::offset(f, s, kRows, kK) : L::offset(s, f, kRows, kK);
  }
};

template <class Cfg, class T, class Acc>
struct WgmmaSm90aMicroKernel {
  static_assert(std::is_same_v<Acc, float>, "wgmma accumulates in float");
  static_assert(std::is_same_v<T, half_t> || std::is_same_v<T, bhalf_t> || std::is_same_v<T, float>,
                "FP16, BF16, or float read as TF32");
  static constexpr bool kTf32 = std::is_same_v<T, float>;
  using Elem = std::conditional_t<kTf32, wgmma::TF32,
                                  std::conditional_t<std::is_same_v<T, bhalf_t>, wgmma::BF16, wgmma::F16>>;
  static constexpr int WM = Cfg::warp_m, WN = Cfg::warp_n, BK = Cfg::bk;
  static constexpr int kElemBytes = int(sizeof(T));
  static constexpr int kInstrK = 32 / kElemBytes;  // one instruction's K: 32 bytes of each row
  static constexpr int kMmaM = WM / 64;            // instructions per warpgroup tile and k16
  static constexpr int kGroupsM = Cfg::bm / WM, kGroupsN = Cfg::bn / WN;
  static_assert(WM % 64 == 0 && (WN == 64 || WN == 128 || WN == 256), "m64n{64,128,256}k16 instructions");
  static_assert(Cfg::bm % WM == 0 && Cfg::bn % WN == 0, "warpgroup tiles tile the team tile");
  static_assert(kGroupsM * kGroupsN * 128 + detail::ProducerThreadsOf<Cfg>::value == Cfg::team_size,
                "one warpgroup per warpgroup tile, after the producers");
  static_assert(BK * kElemBytes % 128 == 0 || BK * kElemBytes == 64,
                "K-major staging swizzles 128-byte K columns, or one 64-byte column");
  static constexpr int kTM = 2 * kMmaM, kTN = WN / 4, kRowRun = 1;
  static_assert(Cfg::tm == kTM && Cfg::tn == kTN,
                "the entry's tm x tn must be the accumulators a thread holds: (warp_m / 32) x (warp_n / 4)");
  static constexpr int kInFlight = WgmmaInFlight<Cfg>::value;
  static_assert(kInFlight == 0 || kInFlight == 1, "wait_group<0> or <1> after each K step");

  template <int kRows, int kK, bool kMNMajor>
  using staged_layout = WgmmaStagedTile<
      typename WgmmaLayoutFor<kElemBytes, kK * kElemBytes, kMNMajor, TmaBoxesOf<Cfg>::value>::type, kRows,
      kK>;

  struct Owner {
    int wm, wn;  // the warpgroup tile's origin in the team tile
    int r, q;    // the thread's row in its 64-row block (16 warp + g) and its column pair q
  };
  KOKKOS_FORCEINLINE_FUNCTION static Owner owner(int t) {
    const int group = t / 128, u = t % 128;
    return {(group % kGroupsM) * WM, (group / kGroupsM) * WN, 16 * (u / 32) + (u % 32) / 4, u % 4};
  }
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int row(const Owner& o, int i) {
    return o.wm + (i / 2) * 64 + o.r + 8 * (i % 2);
  }
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int col(const Owner& o, int j) {
    return o.wn + (j / 2) * 8 + 2 * o.q + j % 2;
  }

  struct Accumulator {
    float d[kMmaM][WN / 2];  // instruction i's fragment (wgmma_sm90a.hpp's map)
  };
  KOKKOS_FORCEINLINE_FUNCTION static void zero(Accumulator& acc) {
    RIDGELINE_UNROLL
    for (int i = 0; i < kMmaM; ++i) {
      RIDGELINE_UNROLL
      for (int e = 0; e < WN / 2; ++e) acc.d[i][e] = 0.0f;
    }
  }
  // Grid (i, j): row block i / 2, half i % 2 (rows g / g + 8), column block j / 2, column j % 2.
  KOKKOS_FORCEINLINE_FUNCTION static float get(const Accumulator& acc, int i, int j) {
    return acc.d[i / 2][(j / 2) * 4 + (i % 2) * 2 + j % 2];
  }

  KOKKOS_FORCEINLINE_FUNCTION static void fence_accumulators(Accumulator& acc) {
    RIDGELINE_UNROLL
    for (int i = 0; i < kMmaM; ++i) wgmma::fence_operands(acc.d[i]);
  }

  // mac_in issues step kt's BK / kInstrK x kMmaM wgmmas on the staged tiles SA (A: bm x BK) and SB
  // (B: bn x BK) as one group, and returns once at most kInFlight groups (this one) are still
  // running: mac_issue, then mac_wait. The team kernel may run its copies between the two
  // (products_first), so the tensor core gets step kt before the copies are issued.
  template <class SA, class SB>
  KOKKOS_FORCEINLINE_FUNCTION static void mac_in(Accumulator& acc, const T* As, const T* Bs, const Owner& o) {
    mac_issue<SA, SB>(acc, As, Bs, o);
    mac_wait(acc);
  }
  KOKKOS_FORCEINLINE_FUNCTION static void mac_wait(Accumulator& acc) {
#if RIDGELINE_WGMMA_ENABLED
    wgmma::wait_group<kInFlight>();
    fence_accumulators(acc);
#else
    (void)acc;
#endif
  }
  template <class SA, class SB>
  KOKKOS_FORCEINLINE_FUNCTION static void mac_issue(Accumulator& acc, const T* As, const T* Bs,
                                                    const Owner& o) {
#if RIDGELINE_WGMMA_ENABLED
    using LA = typename SA::layout;
    using LB = typename SB::layout;
    static_assert(SA::rows == Cfg::bm && SB::rows == Cfg::bn && SA::depth == BK && SB::depth == BK,
                  "staged tiles are the team's");
    const std::uint32_t a0 = wgmma::smem_address(As) + LA::row_offset_bytes(o.wm, SA::rows, BK);
    const std::uint32_t b0 = wgmma::smem_address(Bs) + LB::row_offset_bytes(o.wn, SB::rows, BK);
    fence_accumulators(acc);
    wgmma::fence();
    RIDGELINE_UNROLL
    for (int ks = 0; ks < BK / kInstrK; ++ks) {
      const std::uint64_t db = LB::descriptor(b0, ks, SB::rows, BK);
      RIDGELINE_UNROLL
      for (int i = 0; i < kMmaM; ++i) {
        const std::uint64_t da =
            LA::descriptor(a0 + LA::row_offset_bytes(64 * i, SA::rows, BK), ks, SA::rows, BK);
        wgmma::mma<Elem, WN, SA::mn_major, SB::mn_major>(acc.d[i], da, db, true);
      }
    }
    wgmma::commit_group();
#else
    (void)acc, (void)As, (void)Bs, (void)o;
    wgmma::unavailable();
#endif
  }

  // Waits for every product still running; the accumulators are final after it.
  KOKKOS_FORCEINLINE_FUNCTION static void drain(Accumulator& acc) {
#if RIDGELINE_WGMMA_ENABLED
    wgmma::wait_group<0>();
    fence_accumulators(acc);
#else
    (void)acc;
#endif
  }
};

}  // namespace ridgeline::backends::cuda
