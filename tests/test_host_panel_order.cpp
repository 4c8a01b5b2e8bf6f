// The host packed-panel kernel's league order (HostGemmPanels::block_of_rank, backends/host/gemm_panels.hpp):
// for awkward shapes, split-K slices and thread counts, the ranks of a launch run every block exactly once,
// each thread's range of Kokkos's partition runs its blocks largest first, and blocks of one size keep the
// rank order. Pure index arithmetic: nothing is launched.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <ridgeline/backends/host/tile_table.hpp>
#include <string>
#include <vector>

#if defined(RIDGELINE_HOST_VECTOR_MICRO_KERNEL) && defined(KOKKOS_ENABLE_OPENMP)
namespace {

using namespace ridgeline;

template <class Cfg, class T>
void check_order(std::int64_t m, std::int64_t n, std::int64_t k, int slices, std::int64_t k_chunk) {
  using K = backends::host::HostGemmPanels<Kokkos::OpenMP, Cfg, T, T, true, false>;
  K f;
  f.a = {nullptr, m, k, 1, m};
  f.b = {nullptr, k, n, 1, k};
  f.c = {nullptr, m, n, 1, m};
  f.tiles_m = static_cast<int>((m + Cfg::bm - 1) / Cfg::bm);
  f.tiles_n = static_cast<int>((n + Cfg::bn - 1) / Cfg::bn);
  f.k_slices = slices;
  f.k_chunk = slices > 1 ? k_chunk : 0;
  const int league = f.tiles_m * f.tiles_n * slices;
  const auto cost = [&](int r) {
    const auto t = detail::GemmTileOrigin::of<Cfg::bm, Cfg::bn, Cfg::group_m>(r, f.tiles_m, f.tiles_n, slices,
                                                                              f.k_chunk, k);
    return std::min<std::int64_t>(Cfg::bm, m - t.m0) * std::min<std::int64_t>(Cfg::bn, n - t.n0) *
           (t.k_end - t.k_begin);
  };
  bool uniform = true;
  for (int r = 1; r < league; ++r) uniform = uniform && cost(r) == cost(0);
  for (int threads : {1, 2, 3, 4, 7}) {
    const std::string what = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
                             " slices " + std::to_string(slices) + " threads " + std::to_string(threads);
    std::vector<int> seen(league, 0);
    std::vector<int> block(league);
    for (int r = 0; r < league; ++r) {
      block[r] = f.block_of_rank(r, league, threads);
      ASSERT_GE(block[r], 0) << what;
      ASSERT_LT(block[r], league) << what;
      ++seen[block[r]];
      if (threads == 1 || uniform) {
        EXPECT_EQ(block[r], r) << what;
      }
    }
    for (int b = 0; b < league; ++b) EXPECT_EQ(seen[b], 1) << what << " block " << b;
    // Kokkos 3.4's partition (chunk 1 for leagues of at most 40 per thread): ranges of ceil(L / T) ranks. One
    // thread keeps the rank order.
    if (threads > 1 && league <= 40 * threads) {
      const int part = (league + threads - 1) / threads;
      for (int r = 1; r < league; ++r)
        if (r % part != 0) {
          EXPECT_GE(cost(block[r - 1]), cost(block[r])) << what << " rank " << r;
        }
    }
  }
}

template <class T>
void order_cases() {
  using Big = backends::host::PanelEntryOf<T>;
  using Small = backends::host::SmallPanelTiles<T>;
  for (std::int64_t s : {1280, 2048, 1536, 2047, 3000, 1000, 5000}) check_order<Big, T>(s, s, s, 1, 0);
  check_order<Big, T>(4097, 4097, 256, 1, 0);
  check_order<Big, T>(1, 1, 7, 1, 0);
  check_order<Big, T>(1025, 3, 300, 1, 0);
  check_order<Big, T>(1280, 1280, 1000, 3, 256);  // slices of 256, 256 and 488
  check_order<Big, T>(2048, 2048, 1024, 4, 256);  // uniform across slices
  for (std::int64_t s : {250, 256, 300, 97}) check_order<Small, T>(s, s + 5, s, 1, 0);
  check_order<Small, T>(1000, 900, 64, 1, 0);  // past 40 blocks per thread: chunks of 2 and more
}

TEST(HostPanelOrder, EveryBlockOnceLargestFirst) {
  order_cases<float>();
  order_cases<double>();
}

// 1280^3 on two threads: each thread's range starts with a 1024-row, full-width block, and the last rank of
// the first range (what the second thread steals first) is one of the smallest left there.
TEST(HostPanelOrder, Square1280) {
  using Cfg = backends::host::PanelEntryOf<float>;
  using K = backends::host::HostGemmPanels<Kokkos::OpenMP, Cfg, float, float, true, false>;
  K f;
  f.a = {nullptr, 1280, 1280, 1, 1280};
  f.b = {nullptr, 1280, 1280, 1, 1280};
  f.c = {nullptr, 1280, 1280, 1, 1280};
  f.tiles_m = 2, f.tiles_n = 3;
  const auto origin = [&](int r) {
    return detail::GemmTileOrigin::of<Cfg::bm, Cfg::bn, Cfg::group_m>(f.block_of_rank(r, 6, 2), 2, 3, 1, 0,
                                                                      1280);
  };
  for (int r : {0, 3}) {
    EXPECT_EQ(origin(r).m0, 0) << r;
    EXPECT_LT(origin(r).n0, 1024) << r;
  }
}

}  // namespace
#endif
