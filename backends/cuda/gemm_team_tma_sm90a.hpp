#pragma once
// The team tile level with a producer warpgroup: one Kokkos team computes one BM x BN tile of C, like
// GemmTeamAsync (gemm_team_async.hpp), but its first warpgroup only moves operand tiles and the
// others only multiply, handing stage buffers to each other through mbarriers instead of team
// barriers (Hopper, through the sm_90a route: TMA and wgmma):
//
//   producer (thread 0): for each K step kt, in stage s = kt % S:
//     wait until the consumers released s (step kt - S), arm full[s] with the stage's bytes,
//     issue the TMA boxes of op(A) and op(B) into s; they count themselves on full[s] as they land
//   consumers (the other warpgroups, one warpgroup tile each): for each K step kt:
//     wait for full[s]; issue the step's wgmmas on s; wait until the previous step's have finished
//     (MK::kInFlight = 1) and release its stage (one arrival per warp on empty[s - 1])
//   epilogue (gemm_epilogue.hpp), consumers only.
//
// Why: the asynchronous-copy kernel spent most of each K step waiting, at 60-67% of both the tensor
// and memory pipes (ncu on 8192^3): every thread waited for its copies, then the team barrier, then
// issued the next step's 16-byte copies before its products (tile_table.hpp,
// GemmTilesHalfWgmma). Here one thread issues a step's copies as a handful of TMA boxes, the
// consumers never meet at a barrier, and a stage is refilled as soon as the last warp has finished
// reading it.
//
// Staging: each operand tile lands in the micro-kernel's staged layout (MK::staged_layout, the
// entry's tma_boxes asks for the blocked MN-major form) as boxes of 128-byte lines: a k-contiguous
// operand as BK x 2 / 128 boxes of (128 bytes of K) x rows, an m- or n-contiguous one as rows / 64
// boxes of 64 rows x BK. TMA zero-fills what lies outside the operand, so edge tiles and the K tail
// need no code. The operands must stage in 16-byte packets (16-byte aligned origin and lines), which
// is also TMA's requirement: the dispatcher checks packet_staging_applies first. The tensor maps of
// op(A) and op(B) are device parameters (device_params), which launch_gemm puts in the workspace.
#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>
#include <ridgeline/backends/cuda/tma_sm90a.hpp>
#include <ridgeline/backends/cuda/wgmma_micro_kernel_sm90a.hpp>
#include <ridgeline/detail/gemm_epilogue.hpp>
#include <ridgeline/detail/strided.hpp>

namespace ridgeline::backends::cuda {

// The tensor maps a GemmTeamTmaSm90a reads, in global memory.
struct TmaGemmParams {
  tma::TensorMap a, b;  // op(A) and op(B)
};

template <class ExecSpace, class Cfg, class T, class Acc, class MK, bool kAFastM, bool kBFastN, class TC = T>
struct GemmTeamTmaSm90a
    : detail::GemmEpilogue<GemmTeamTmaSm90a<ExecSpace, Cfg, T, Acc, MK, kAFastM, kBFastN, TC>, TC, Acc, MK> {
  static_assert(Cfg::vector_length == 1, "one thread per team rank");
  using policy_type = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<Cfg::team_size, Cfg::min_blocks>>;
  using member_type = typename policy_type::member_type;
  using config = Cfg;
  using accumulator_type = Acc;
  using Owner = typename MK::Owner;
  using device_params = TmaGemmParams;
  static constexpr bool a_fast_m = kAFastM, b_fast_n = kBFastN, vector_capable = true;

  static constexpr int BM = Cfg::bm, BN = Cfg::bn, BK = Cfg::bk, kStages = Cfg::stages;
  // A whole warpgroup produces, so that the consumers' warpgroups stay aligned to 128 ranks.
  static constexpr int kProducers = Cfg::producer_threads, kConsumers = Cfg::team_size - kProducers;
  static constexpr int kConsumerWarps = kConsumers / 32;
  static_assert(kProducers == 128, "the producer is the first warpgroup");
  static_assert(Cfg::tm * Cfg::tn * kConsumers == BM * BN, "one micro-kernel share per consumer thread");
  static_assert(kStages >= 2, "a stage is refilled while another is read");
  static constexpr int kVecW = int(16 / sizeof(T));  // packet_staging_applies: TMA's 16-byte rule
  using Epilogue = detail::GemmEpilogue<GemmTeamTmaSm90a, TC, Acc, MK>;
  static constexpr int kCV = Epilogue::kCV;
  static constexpr bool c_packet_capable = Epilogue::c_packet_capable;

  // Element (m, k) of As and (n, k) of Bs, as the tensor core reads them.
  using LayoutA = typename MK::template staged_layout<BM, BK, kAFastM>;
  using LayoutB = typename MK::template staged_layout<BN, BK, kBFastN>;
  static constexpr int kAlign = LayoutA::alignment;  // bytes, of every stage buffer
  static_assert(kAlign == 1024 && LayoutB::alignment == kAlign, "TMA's 128-byte swizzle");

  // One operand's TMA boxes per stage: kRows x BK elements, rows contiguous (kMN) or k contiguous.
  template <int kRows, bool kMN>
  struct Boxes {
    static constexpr int kInner = kMN ? 64 : int(128 / sizeof(T));  // elements of one 128-byte line
    static constexpr int kOuter = kMN ? BK : kRows;                 // lines per box
    static constexpr int kCount = kMN ? kRows / 64 : BK / kInner;
    static constexpr int kElems = kInner * kOuter;  // each box's elements, the next one's offset
    static_assert(kInner * int(sizeof(T)) == 128 && kOuter <= 256 && kCount * kElems == kRows * BK,
                  "128-byte lines, at most 256 of them per box, boxes tiling the stage");
  };
  using BoxesA = Boxes<BM, kAFastM>;
  using BoxesB = Boxes<BN, kBFastN>;
  static constexpr int kElemsA = BM * BK, kElemsB = BN * BK;  // per stage
  static constexpr unsigned kStageBytes = unsigned(kElemsA + kElemsB) * sizeof(T);

  detail::Strided2D<const T> a;  // op(A): M x K
  detail::Strided2D<const T> b;  // op(B): K x N
  detail::Strided2D<TC> c;       // M x N
  Acc alpha, beta;
  int tiles_m, tiles_n;
  // Split-K, as in GemmTeamTiled: every slice but the last is whole K steps, so only the last one
  // reads past its end, where TMA reads the operand's zeros.
  Acc* work = nullptr;
  int k_slices = 1;
  std::int64_t k_chunk = 0;
  bool c_packets = false;
  const TmaGemmParams* params = nullptr;  // device memory (launch_gemm)

  KOKKOS_INLINE_FUNCTION static constexpr std::size_t scratch_bytes() {
    return sizeof(T) * std::size_t(kStages) * (kElemsA + kElemsB) + 2 * std::size_t(kAlign) +
           16 * std::size_t(kStages) + 8;
  }

#if defined(KOKKOS_ENABLE_CUDA)
  // The tensor maps of this call's operands (host), for device_params.
  device_params make_device_params() const {
    return {map_of<BoxesA>(a.data, a.rows, a.cols, kAFastM ? a.cs : a.rs, kAFastM),
            map_of<BoxesB>(b.data, b.cols, b.rows, kBFastN ? b.rs : b.cs, kBFastN)};
  }
  // rows x depth, contiguous along rows (mn) or depth; slow: the other index's stride in elements.
  template <class Bx>
  static tma::TensorMap map_of(const T* p, std::int64_t rows, std::int64_t depth, std::int64_t slow,
                               bool mn) {
    return tma::make_tensor_map_2d(tma::data_type_of<T>(), p, mn ? rows : depth, mn ? depth : rows,
                                   std::uint64_t(slow) * sizeof(T), Bx::kInner, Bx::kOuter);
  }
#endif
  void bind_device_params(const device_params* p) {
    params = p;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
#if RIDGELINE_WGMMA_ENABLED
    const auto tile = detail::GemmTileOrigin::of<BM, BN, Cfg::group_m>(team.league_rank(), tiles_m, tiles_n,
                                                                       k_slices, k_chunk, a.cols);
    auto scratch = team.team_scratch(static_cast<int>(Cfg::scratch_level));
    // kStages x (BM x BK) in LayoutA
    T* As = static_cast<T*>(scratch.get_shmem_aligned(sizeof(T) * kStages * kElemsA, kAlign));
    // kStages x (BN x BK) in LayoutB
    T* Bs = static_cast<T*>(scratch.get_shmem_aligned(sizeof(T) * kStages * kElemsB, kAlign));
    // full[kStages] (the producer's, armed with the stage's bytes), then empty[kStages] (the
    // consumer warps' releases)
    auto* bars = static_cast<std::uint64_t*>(scratch.get_shmem_aligned(16 * kStages, 8));
    const std::uint32_t full0 = wgmma::smem_address(bars), empty0 = full0 + 8 * kStages;
    const int t = team.team_rank();
    if (t == 0) {
      for (int s = 0; s < kStages; ++s) {
        tma::mbarrier_init(full0 + 8 * s, 1);
        tma::mbarrier_init(empty0 + 8 * s, kConsumerWarps);
      }
      tma::fence_mbarrier_init();
    }
    team.team_barrier();
    const int nk = static_cast<int>((tile.k_end - tile.k_begin + BK - 1) / BK);

    if (t < kProducers) {
      if (t == 0) produce(nk, tile.m0, tile.n0, tile.k_begin, As, Bs, full0, empty0);
      return;  // the consumers wait for every box it issued, so the team outlives them
    }
    const Owner o = MK::owner(t - kProducers);
    typename MK::Accumulator acc;
    MK::zero(acc);
    int s = 0;
    unsigned phase = 0;
    for (int kt = 0; kt < nk; ++kt) {
      tma::mbarrier_wait(full0 + 8 * s, phase);
      MK::template mac_in<LayoutA, LayoutB>(acc, As + s * kElemsA, Bs + s * kElemsB, o);
      // At most MK::kInFlight steps (this one) are still running: step kt - 1's stage is free.
      static_assert(MK::kInFlight == 1, "the release below is for one step in flight");
      if (kt > 0) release(empty0 + 8 * (s == 0 ? kStages - 1 : s - 1), t);
      if (++s == kStages) s = 0, phase ^= 1;
    }
    MK::drain(acc);
    if (k_slices > 1) {
      this->store_partial(acc, tile.m0, tile.n0, o, tile.slice);
    } else {
      this->store(acc, tile.m0, tile.n0, o);
    }
#else
    (void)team;
    wgmma::unavailable();
#endif
  }

#if RIDGELINE_WGMMA_ENABLED
  // Thread 0: every K step's boxes, each stage once the consumers have released it.
  KOKKOS_FORCEINLINE_FUNCTION void produce(int nk, std::int64_t m0, std::int64_t n0, std::int64_t k_begin,
                                           T* As, T* Bs, std::uint32_t full0, std::uint32_t empty0) const {
    const tma::TensorMap* ma = &params->a;
    const tma::TensorMap* mb = &params->b;
    tma::prefetch_map(ma);
    tma::prefetch_map(mb);
    const std::uint32_t sa = wgmma::smem_address(As), sb = wgmma::smem_address(Bs);
    int s = 0;
    unsigned phase = 0;  // of the round of stages step kt is in
    for (int kt = 0; kt < nk; ++kt) {
      // Round r refills stage s after the consumers released it in round r - 1 (phase r - 1).
      if (kt >= kStages) tma::mbarrier_wait(empty0 + 8 * s, phase ^ 1);
      const std::uint32_t full = full0 + 8 * s;
      tma::mbarrier_arrive_expect_tx(full, kStageBytes);
      const int k0 = static_cast<int>(k_begin + std::int64_t(kt) * BK);
      issue<BoxesA, kAFastM>(ma, sa + std::uint32_t(s * kElemsA * sizeof(T)), static_cast<int>(m0), k0, full);
      issue<BoxesB, kBFastN>(mb, sb + std::uint32_t(s * kElemsB * sizeof(T)), static_cast<int>(n0), k0, full);
      if (++s == kStages) s = 0, phase ^= 1;
    }
  }
  // One operand's boxes of one K step: rows r0.., depth k0.., into the stage at scratch address dst.
  template <class Bx, bool kMN>
  KOKKOS_FORCEINLINE_FUNCTION static void issue(const tma::TensorMap* map, std::uint32_t dst, int r0, int k0,
                                                std::uint32_t full) {
    RIDGELINE_UNROLL
    for (int i = 0; i < Bx::kCount; ++i) {
      const std::uint32_t d = dst + std::uint32_t(i * Bx::kElems * sizeof(T));
      if constexpr (kMN) {
        tma::load_2d(d, map, r0 + 64 * i, k0, full);
      } else {
        tma::load_2d(d, map, k0 + i * Bx::kInner, r0, full);
      }
    }
  }
  // A consumer warp has finished reading a stage (its wgmmas on it completed); t: the team rank
  // (Kokkos puts team ranks along threadIdx.y, so warps are 32 consecutive ranks).
  KOKKOS_FORCEINLINE_FUNCTION static void release(std::uint32_t empty, int t) {
    __syncwarp();
    if (t % 32 == 0) tma::mbarrier_arrive(empty);
  }
#endif
};

}  // namespace ridgeline::backends::cuda
