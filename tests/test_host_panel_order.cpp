// The host packed-panel kernel's league order (HostGemmPanels::block_of_rank, backends/host/gemm_panels.hpp):
// for awkward shapes, split-K slices and thread counts, the ranks of a launch run every block exactly once,
// each thread's range of Kokkos's partition runs its blocks largest first, and blocks of one size keep the
// rank order. Pure index arithmetic: nothing is launched.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <array>
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
  for (int threads : {1, 2, 3, 4, 7}) {
    const std::string what = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
                             " slices " + std::to_string(slices) + " threads " + std::to_string(threads);
    // A block's size under the launch's cuts on these threads (panel_cuts).
    const auto cuts = f.cuts(threads);
    const auto cost = [&](int r) {
      const auto b = f.block_at(r, cuts);
      return std::int64_t(b.mb) * b.nb * (b.tile.k_end - b.tile.k_begin);
    };
    bool uniform = true;
    for (int r = 1; r < league; ++r) uniform = uniform && cost(r) == cost(0);
    std::vector<int> seen(league, 0);
    std::vector<int> block(league);
    for (int r = 0; r < league; ++r) {
      block[r] = f.block_of_rank(r, league, threads, cuts);
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

// 1280^3 on two threads: each thread's range starts with one of the largest blocks of the launch's cuts, and
// the last rank of the first range (what the second thread steals first) is one of the smallest.
TEST(HostPanelOrder, Square1280) {
  using Cfg = backends::host::PanelEntryOf<float>;
  using K = backends::host::HostGemmPanels<Kokkos::OpenMP, Cfg, float, float, true, false>;
  K f;
  f.a = {nullptr, 1280, 1280, 1, 1280};
  f.b = {nullptr, 1280, 1280, 1, 1280};
  f.c = {nullptr, 1280, 1280, 1, 1280};
  f.tiles_m = 2, f.tiles_n = 3;
  const auto cuts = f.cuts(2);
  const auto size = [&](int r) {
    const auto b = f.block_at(f.block_of_rank(r, 6, 2, cuts), cuts);
    return std::int64_t(b.mb) * b.nb;
  };
  std::int64_t largest = 0, smallest = size(0);
  for (int r = 0; r < 6; ++r) largest = std::max(largest, size(r)), smallest = std::min(smallest, size(r));
  EXPECT_EQ(size(0), largest);
  EXPECT_EQ(size(3), largest);
  EXPECT_EQ(size(2), smallest);
}

// The work each thread ends up with when a launch runs as Kokkos 3.4's OpenMP TeamPolicy<Dynamic> runs it:
// thread t owns the ranks [t * part, (t + 1) * part) (chunk 1: leagues of at most 40 blocks a thread), runs
// them from the front through block_of_rank, and once its range is empty steals the last rank of the next
// thread's range that has one; the thread free first moves next. Each block costs its rows x columns x depth.
template <class K>
std::vector<std::int64_t> thread_work(const K& f, int league, int threads) {
  const auto cuts = f.cuts(threads);
  const int part = (league + threads - 1) / threads;
  std::vector<int> lo(threads), hi(threads);
  for (int t = 0; t < threads; ++t)
    lo[t] = std::min(league, t * part), hi[t] = std::min(league, (t + 1) * part);
  std::vector<std::int64_t> busy(threads, 0), work(threads, 0);
  for (int done = 0; done < league; ++done) {
    int t = 0;
    for (int u = 1; u < threads; ++u)
      if (busy[u] < busy[t]) t = u;
    int r = -1;
    if (lo[t] < hi[t]) r = lo[t]++;
    for (int o = 1; o < threads && r < 0; ++o) {
      const int v = (t + o) % threads;
      if (lo[v] < hi[v]) r = --hi[v];
    }
    const auto b = f.block_at(f.block_of_rank(r, league, threads, cuts), cuts);
    const std::int64_t cost = std::int64_t(b.mb) * b.nb * (b.tile.k_end - b.tile.k_begin);
    busy[t] += cost;
    work[t] += cost;
  }
  return work;
}

template <class T>
backends::host::HostGemmPanels<Kokkos::OpenMP, backends::host::PanelEntryOf<T>, T, T, true, false> square(
    std::int64_t m, std::int64_t n, std::int64_t k) {
  using Cfg = backends::host::PanelEntryOf<T>;
  backends::host::HostGemmPanels<Kokkos::OpenMP, Cfg, T, T, true, false> f;
  f.a = {nullptr, m, k, 1, m};
  f.b = {nullptr, k, n, 1, k};
  f.c = {nullptr, m, n, 1, m};
  f.tiles_m = static_cast<int>((m + Cfg::bm - 1) / Cfg::bm);
  f.tiles_n = static_cast<int>((n + Cfg::bn - 1) / Cfg::bn);
  return f;
}

// DGEMM and SGEMM 1536^3 on two threads (1024 x 512 blocks): the entry's six blocks, three 1024 x 512 and
// three 512 x 512, gave the threads 5 : 4 units of 512 x 512 x 1536 (perf/results/2026-12-07-host-3c210e9/);
// the launch's cuts give each thread half of the product. 1280^3 (six blocks of four sizes, 13 : 12 units of
// 256^2): the busier thread within 1% of half.
template <class T>
void balanced_cases() {
  {
    const auto f = square<T>(1536, 1536, 1536);
    const auto w = thread_work(f, 6, 2);
    EXPECT_EQ(w[0], w[1]);
    EXPECT_EQ(w[0] + w[1], std::int64_t(1536) * 1536 * 1536);
  }
  {
    const auto f = square<T>(1280, 1280, 1280);
    const auto w = thread_work(f, 6, 2);
    const std::int64_t total = std::int64_t(1280) * 1280 * 1280;
    EXPECT_EQ(w[0] + w[1], total);
    EXPECT_LE(100 * std::max(w[0], w[1]), 101 * total / 2);
  }
  // The rows of the issue 15 record keep the entry's blocks: 2048^3 (one size), 2047^3 (nearly), 4097^2 x 256
  // (45 blocks: 32 whole ones, 16 a thread).
  using Cfg = backends::host::PanelEntryOf<T>;
  for (const auto& s :
       {std::array<std::int64_t, 3>{2048, 2048, 2048}, std::array<std::int64_t, 3>{2047, 2047, 2047},
        std::array<std::int64_t, 3>{4097, 4097, 256}}) {
    const auto cuts = square<T>(s[0], s[1], s[2]).cuts(2);
    EXPECT_EQ(cuts.bm, Cfg::bm) << s[0];
    EXPECT_EQ(cuts.bn, Cfg::bn) << s[0];
  }
}

TEST(HostPanelOrder, BalancedCuts1536) {
  balanced_cases<float>();
  balanced_cases<double>();
}

// Over awkward shapes and thread counts the launch's cuts are at most the entry's blocks, in whole
// micro-panels (or the entry's own), keep the plan's tile counts, cover C exactly (every row and column in
// one block), and never end the busiest thread later than the entry's blocks would (panel_makespan, the model
// they are chosen by).
template <class T>
void cut_cases() {
  using Cfg = backends::host::PanelEntryOf<T>;
  using K = backends::host::HostGemmPanels<Kokkos::OpenMP, Cfg, T, T, true, false>;
  const std::int64_t extents[] = {1,    17,   500,  1000, 1024, 1025, 1280,
                                  1536, 1537, 2047, 2048, 2560, 3000, 4097};
  for (std::int64_t m : extents)
    for (std::int64_t n : extents)
      for (int threads : {1, 2, 3, 4, 8}) {
        const auto f = square<T>(m, n, 300);
        const auto cuts = f.cuts(threads);
        const std::string what =
            std::to_string(m) + "x" + std::to_string(n) + " threads " + std::to_string(threads);
        ASSERT_LE(cuts.bm, Cfg::bm) << what;
        ASSERT_LE(cuts.bn, Cfg::bn) << what;
        EXPECT_TRUE(cuts.bm == Cfg::bm || cuts.bm % K::MR == 0) << what;
        EXPECT_TRUE(cuts.bn == Cfg::bn || cuts.bn % K::NR == 0) << what;
        EXPECT_EQ((m + cuts.bm - 1) / cuts.bm, f.tiles_m) << what;
        EXPECT_EQ((n + cuts.bn - 1) / cuts.bn, f.tiles_n) << what;
        std::vector<int> rows(m, 0), cols(n, 0);
        for (int r = 0; r < f.tiles_m * f.tiles_n; ++r) {
          const auto b = f.block_at(r, cuts);
          ASSERT_GT(b.mb, 0) << what;
          ASSERT_GT(b.nb, 0) << what;
          if (b.tile.n0 == 0)
            for (int i = 0; i < b.mb; ++i) ++rows[b.tile.m0 + i];
          if (b.tile.m0 == 0)
            for (int j = 0; j < b.nb; ++j) ++cols[b.tile.n0 + j];
        }
        for (std::int64_t i = 0; i < m; ++i) ASSERT_EQ(rows[i], 1) << what << " row " << i;
        for (std::int64_t j = 0; j < n; ++j) ASSERT_EQ(cols[j], 1) << what << " column " << j;
        EXPECT_LE(backends::host::panel_makespan(m, n, cuts, threads),
                  backends::host::panel_makespan(m, n, {Cfg::bm, Cfg::bn}, threads))
            << what;
      }
}

TEST(HostPanelOrder, CutsCoverAndNeverLoseBalance) {
  cut_cases<float>();
  cut_cases<double>();
}

}  // namespace
#endif
