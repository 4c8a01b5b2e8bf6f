#pragma once
// Host GEMV kernels for unit-stride real operands, y = alpha * op(A) * x + beta * y, a team being one
// thread. The portable kernels (detail/gemv_team.hpp) are shaped for a GPU; on a CPU core the
// auto-vectorizer turned GemvDot's 4 x 16 scalar partial sums into permutes and stack spills, and both
// ran 4096^2 fp32 at 12-16 GB/s where a loop over vector registers reads 40-64 GB/s on the same two
// cores (perf/results/2026-12-04-host-8468301/). Here the accumulators are GCC/Clang vector types:
//
//   HostGemvRows (op(A) rows contiguous, "N" on LayoutLeft): a team owns a block of rows, its sums in
//     a (block_rows) array in L1; per pass of kCols columns, each vector of the block loads its sums
//     once and adds kCols columns of A into them: kCols streams of A, one long run each per block.
//   HostGemvDot (op(A) columns contiguous, "T" on LayoutLeft): a team owns Cfg::rows rows; kRows rows
//     at once, kU vectors of each per step, every x vector serving kRows rows. Rows of at most
//     Cfg::short_row_bytes run one at a time instead, kShortU vectors a step, then whole vectors, so that
//     the team reads one stream through its rows, and a short row's scalar tail is under one vector.
//
// Sums run in a fixed order (column order per element in Rows; per vector lane, then the lanes and the
// scalar tail in a fixed tree in Dot), so reruns are bit-identical. The vector types are micro_kernel.hpp's
// (RIDGELINE_HOST_VECTOR_MICRO_KERNEL); the table names these kernels only where they exist.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <cstring>
#include <ridgeline/backends/host/micro_kernel.hpp>
#include <ridgeline/detail/strided.hpp>
#include <type_traits>

namespace ridgeline::backends::host {

#if defined(RIDGELINE_HOST_VECTOR_MICRO_KERNEL)

template <class Acc, int kBytes>
struct GemvVec {
  typedef Acc type __attribute__((vector_size(kBytes)));
  static constexpr int W = kBytes / int(sizeof(Acc));
  static type load(const Acc* p) { return host::load_vec<type>(p); }
  static void store(Acc* p, const type& v) { host::store_vec(p, v); }
  // Lanes summed pairwise in a fixed tree.
  static Acc sum(type v) {
    Acc s[W];
    std::memcpy(s, &v, sizeof(type));
    for (int w = 1; w < W; w *= 2)
      for (int e = 0; e + w < W; e += 2 * w) s[e] += s[e + w];
    return s[0];
  }
};

// Cfg: simd_bytes, max_block_rows (the most rows a team sums in its array), cols (kCols).
template <class ExecSpace, class Cfg, class T>
struct HostGemvRows {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "real types only");
  using policy_type = Kokkos::TeamPolicy<ExecSpace>;
  using member_type = typename policy_type::member_type;
  using V = GemvVec<T, Cfg::simd_bytes>;
  using Vec = typename V::type;
  static constexpr int W = V::W;
  static constexpr int kMaxRows = Cfg::max_block_rows;
  static constexpr int kCols = Cfg::cols;
  static_assert(kMaxRows % W == 0, "a block is whole vectors");

  detail::Strided2D<const T> a;  // op(A): rows x cols, a.rs == 1
  detail::Strided1D<const T> x;
  detail::Strided1D<T> y;
  T alpha, beta;
  std::int64_t block_rows = kMaxRows;  // a multiple of W, at most kMaxRows

  // Rows per team: the rows spread over the threads, in whole vectors, at most kMaxRows.
  static std::int64_t plan_block_rows(std::int64_t rows, int threads) {
    const std::int64_t t = threads > 0 ? threads : 1;
    std::int64_t per = (rows + t - 1) / t;
    per = (per + W - 1) / W * W;
    return per < kMaxRows ? per : kMaxRows;
  }
  std::int64_t teams() const { return (a.rows + block_rows - 1) / block_rows; }
  static constexpr std::size_t scratch_bytes() { return 0; }

  void operator()(const member_type& team) const {
    const std::int64_t i0 = std::int64_t(team.league_rank()) * block_rows;
    const std::int64_t n = i0 + block_rows < a.rows ? block_rows : a.rows - i0;
    const std::int64_t nv = n / W * W;  // rows in whole vectors; the rest one by one
    alignas(64) T acc[kMaxRows];        // (block_rows): the block's sums, in column order
    for (std::int64_t r = 0; r < n; ++r) acc[r] = T(0);
    const T* a0 = a.data + i0;
    const std::int64_t ncols = a.cols, cs = a.cs;
    std::int64_t j = 0;
    for (; j + kCols <= ncols; j += kCols) {
      T xs[kCols];
      const T* col[kCols];
      for (int c = 0; c < kCols; ++c) xs[c] = x(j + c), col[c] = a0 + (j + c) * cs;
      for (std::int64_t r = 0; r < nv; r += W) {
        Vec s = V::load(acc + r);
        RIDGELINE_UNROLL
        for (int c = 0; c < kCols; ++c) s += V::load(col[c] + r) * xs[c];
        V::store(acc + r, s);
      }
      for (std::int64_t r = nv; r < n; ++r)
        for (int c = 0; c < kCols; ++c) acc[r] += col[c][r] * xs[c];
    }
    for (; j < ncols; ++j) {
      const T xj = x(j);
      const T* col = a0 + j * cs;
      for (std::int64_t r = 0; r < nv; r += W) V::store(acc + r, V::load(acc + r) + V::load(col + r) * xj);
      for (std::int64_t r = nv; r < n; ++r) acc[r] += col[r] * xj;
    }
    for (std::int64_t r = 0; r < n; ++r) {
      T v = alpha * acc[r];
      if (beta != T(0)) v += beta * y(i0 + r);
      y(i0 + r) = v;
    }
  }
};

// Cfg: simd_bytes, rows (per team), row_block (kRows), unroll (kU vectors per row and step),
// short_row_bytes and short_unroll (kShortU) for short rows.
template <class ExecSpace, class Cfg, class T>
struct HostGemvDot {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "real types only");
  using policy_type = Kokkos::TeamPolicy<ExecSpace>;
  using member_type = typename policy_type::member_type;
  using V = GemvVec<T, Cfg::simd_bytes>;
  using Vec = typename V::type;
  static constexpr int W = V::W;
  static constexpr int kRows = Cfg::row_block, kU = Cfg::unroll, kShortU = Cfg::short_unroll;
  static constexpr std::int64_t kShortBytes = Cfg::short_row_bytes;
  static constexpr int BR = Cfg::rows;
  static_assert(BR % kRows == 0, "a team's rows are whole row blocks");

  detail::Strided2D<const T> a;  // op(A): rows x cols, a.cs == 1
  detail::Strided1D<const T> x;  // x.s == 1
  detail::Strided1D<T> y;
  T alpha, beta;

  std::int64_t teams() const { return (a.rows + BR - 1) / BR; }
  static constexpr std::size_t scratch_bytes() { return 0; }
  // Whether rows of `cols` elements run one at a time (dot_short); gemv_config names them from this too.
  static bool short_rows(std::int64_t cols) { return cols * std::int64_t(sizeof(T)) <= kShortBytes; }

  // out[r] = row (rb + r) . x for kR rows.
  template <int kR>
  void dots(std::int64_t rb, T* out) const {
    Vec acc[kR][kU];
    for (int r = 0; r < kR; ++r)
      for (int u = 0; u < kU; ++u) acc[r][u] = Vec{};
    const T* row[kR];
    for (int r = 0; r < kR; ++r) row[r] = a.data + (rb + r) * a.rs;
    const std::int64_t ncols = a.cols, step = std::int64_t(kU) * W, full = ncols / step * step;
    for (std::int64_t j = 0; j < full; j += step) {
      Vec xv[kU];
      RIDGELINE_UNROLL
      for (int u = 0; u < kU; ++u) xv[u] = V::load(x.data + j + u * W);
      RIDGELINE_UNROLL
      for (int r = 0; r < kR; ++r) {
        RIDGELINE_UNROLL
        for (int u = 0; u < kU; ++u) acc[r][u] += V::load(row[r] + j + u * W) * xv[u];
      }
    }
    for (int r = 0; r < kR; ++r) {
      for (int w = 1; w < kU; w *= 2)
        for (int u = 0; u + w < kU; u += 2 * w) acc[r][u] += acc[r][u + w];
      T tail(0);
      for (std::int64_t j = full; j < ncols; ++j) tail += row[r][j] * x.data[j];
      out[r] = V::sum(acc[r][0]) + tail;
    }
  }

  // Row i . x for a short row: kShortU vectors a step, then whole vectors, then the scalar tail; the
  // vectors summed in a fixed tree.
  T dot_short(std::int64_t i) const {
    const T* row = a.data + i * a.rs;
    const std::int64_t ncols = a.cols, step = std::int64_t(kShortU) * W, full = ncols / step * step,
                       whole = ncols / W * W;
    Vec acc[kShortU];
    for (int u = 0; u < kShortU; ++u) acc[u] = Vec{};
    for (std::int64_t j = 0; j < full; j += step) {
      RIDGELINE_UNROLL
      for (int u = 0; u < kShortU; ++u) acc[u] += V::load(row + j + u * W) * V::load(x.data + j + u * W);
    }
    for (std::int64_t j = full; j < whole; j += W) acc[0] += V::load(row + j) * V::load(x.data + j);
    for (int w = 1; w < kShortU; w *= 2)
      for (int u = 0; u + w < kShortU; u += 2 * w) acc[u] += acc[u + w];
    T tail(0);
    for (std::int64_t j = whole; j < ncols; ++j) tail += row[j] * x.data[j];
    return V::sum(acc[0]) + tail;
  }

  void write(std::int64_t i, T s) const {
    T v = alpha * s;
    if (beta != T(0)) v += beta * y(i);
    y(i) = v;
  }

  void operator()(const member_type& team) const {
    const std::int64_t i0 = std::int64_t(team.league_rank()) * BR;
    const std::int64_t i1 = i0 + BR < a.rows ? i0 + BR : a.rows;
    if (short_rows(a.cols)) {
      for (std::int64_t i = i0; i < i1; ++i) write(i, dot_short(i));
      return;
    }
    std::int64_t rb = i0;
    for (; rb + kRows <= i1; rb += kRows) {
      T s[kRows];
      dots<kRows>(rb, s);
      for (int r = 0; r < kRows; ++r) write(rb + r, s[r]);
    }
    for (; rb < i1; ++rb) {
      T s[1];
      dots<1>(rb, s);
      write(rb, s[0]);
    }
  }
};

#endif

}  // namespace ridgeline::backends::host
