#pragma once
// Public batched GEMM: C_g = alpha * op(A_g) * op(B_g) + beta * C_g for every matrix g of a uniform batch.
//
// A, B and C are rank-3 Views. The batch index is each View's first extent (BatchLayout::left,
// A(g, i, j), the default) or its last (BatchLayout::right, A(i, j, g)), as KokkosBatched's
// BatchLayout::Left and Right; the other two extents are a matrix, in whatever layout the View has
// (LayoutLeft, LayoutRight, LayoutStride), mixed freely. Element types, transposes, alpha and beta
// are those of ridgeline::gemm (gemm.hpp), 16-bit inputs with a float C included.
//
// Every check runs before any launch and throws std::invalid_argument naming the shapes: the batch
// counts must agree, op(A_g) must be M x K, op(B_g) K x N and C_g M x N; C must not overlap A or B,
// and C's matrices must not overlap one another. Degenerate cases follow gemm: an empty batch, M == 0
// or N == 0 does nothing; K == 0 or alpha == 0 scales C by beta without reading A or B; beta == 0
// never reads C.
//
// Dispatch (dispatch_batched.hpp), from the backend's table: matrices within its small entry's
// extents (16 on the GPUs) run several per team, staged whole in scratch; larger ones run as one
// league over every tile of every matrix, each team a tile of one matrix. gemm_batched_config says
// which.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "ridgeline/detail/dispatch_batched.hpp"
#include "ridgeline/detail/strided_batch.hpp"
#include "ridgeline/detail/validate.hpp"
#include "ridgeline/gemm.hpp"
#include "ridgeline/tile_config.hpp"

namespace ridgeline {

// Which extent of a rank-3 View is the batch index.
enum class BatchLayout { left, right };

namespace detail {

inline const char* batch_layout_name(BatchLayout l) {
  return l == BatchLayout::left ? "left (batch first)" : "right (batch last)";
}

// op(X_g) of every matrix of the rank-3 View v, its batch index where layout says.
template <class V>
StridedBatch<typename V::value_type> strided_batch_op(const V& v, Trans t, BatchLayout layout) {
  const int bi = layout == BatchLayout::left ? 0 : 2;
  const int ri = layout == BatchLayout::left ? 1 : 0, ci = ri + 1;
  const bool n = t == Trans::N;
  StridedBatch<typename V::value_type> x;
  x.data = v.data();
  x.count = static_cast<std::int64_t>(v.extent(bi));
  x.rows = static_cast<std::int64_t>(v.extent(n ? ri : ci));
  x.cols = static_cast<std::int64_t>(v.extent(n ? ci : ri));
  x.rs = static_cast<std::int64_t>(v.stride(n ? ri : ci));
  x.cs = static_cast<std::int64_t>(v.stride(n ? ci : ri));
  x.bs = static_cast<std::int64_t>(v.stride(bi));
  return x;
}

// Whether distinct (g, i, j) of x always reach distinct elements: sorted by stride, each index's
// stride must pass the span of the faster ones. Extents of 1 never move.
template <class T>
bool batch_elements_distinct(const StridedBatch<T>& x) {
  if (x.count == 0 || x.rows == 0 || x.cols == 0) return true;  // no elements at all
  std::int64_t ext[3] = {x.count, x.rows, x.cols}, str[3] = {x.bs, x.rs, x.cs};
  for (int i = 0; i < 3; ++i)
    for (int j = i + 1; j < 3; ++j)
      if (str[j] < str[i]) std::swap(str[i], str[j]), std::swap(ext[i], ext[j]);
  std::int64_t span = 1;  // elements the faster indices reach
  for (int i = 0; i < 3; ++i) {
    if (ext[i] <= 1) continue;
    if (str[i] < span) return false;
    span = str[i] * (ext[i] - 1) + span;
  }
  return true;
}

template <class T>
std::string batch_shape(const StridedBatch<T>& x) {
  return std::to_string(x.count) + " x (" + std::to_string(x.rows) + "x" + std::to_string(x.cols) + ")";
}

// A batched call's operands as strided batches (op(A_g), op(B_g), C_g), checked as gemm_batched
// documents: transposes, accessibility, batch counts, shapes, overlap of C with A or B and among C's
// matrices. func names the call in every message ("gemm_batched", "gemm_grouped (group 3)").
template <class T, class TC>
struct BatchedOperands {
  StridedBatch<T> a, b;
  StridedBatch<TC> c;
};
template <class ExecSpace, class AV, class BV, class CV>
BatchedOperands<typename AV::value_type, typename CV::value_type> checked_batched_operands(
    const std::string& func, const char* transA, const char* transB, const AV& A, const BV& B, const CV& C,
    BatchLayout layout) {
  const char* f = func.c_str();
  const Trans ta = parse_trans(transA, f, "transA");
  const Trans tb = parse_trans(transB, f, "transB");
  require_accessible<ExecSpace>(A, f, "A");
  require_accessible<ExecSpace>(B, f, "B");
  require_accessible<ExecSpace>(C, f, "C");
  BatchedOperands<typename AV::value_type, typename CV::value_type> ops{
      strided_batch_op(A, ta, layout), strided_batch_op(B, tb, layout),
      strided_batch_op(C, Trans::N, layout)};
  const auto& a = ops.a;
  const auto& b = ops.b;
  const auto& c = ops.c;
  const std::string shapes = std::string("A ") + shape_of(A) + " (op(A_g) " + batch_shape(a) +
                             ", transA=" + trans_name(ta) + "), B " + shape_of(B) + " (op(B_g) " +
                             batch_shape(b) + ", transB=" + trans_name(tb) + "), C " + shape_of(C) + " (" +
                             batch_shape(c) + "), batch layout " + batch_layout_name(layout);
  if (a.count != c.count || b.count != c.count) {
    throw std::invalid_argument("ridgeline::" + func + ": the batch counts differ: " + shapes);
  }
  if (a.cols != b.rows || a.rows != c.rows || b.cols != c.cols) {
    throw std::invalid_argument("ridgeline::" + func + ": need op(A_g) MxK, op(B_g) KxN, C_g MxN: " + shapes);
  }
  require_no_overlap(C, "C", A, "A", f);
  require_no_overlap(C, "C", B, "B", f);
  if (!batch_elements_distinct(c)) {
    throw std::invalid_argument("ridgeline::" + func + ": C's matrices overlap one another (strides " +
                                std::to_string(c.bs) + " between matrices, " + std::to_string(c.rs) +
                                " and " + std::to_string(c.cs) + " within one): " + shapes);
  }
  return ops;
}

}  // namespace detail

template <class ExecSpace, class AV, class BV, class CV>
void gemm_batched(const ExecSpace& exec, const char* transA, const char* transB,
                  const detail::GemmScalar<AV>& alpha, const AV& A, const BV& B,
                  const detail::GemmScalar<AV>& beta, const CV& C, BatchLayout layout = BatchLayout::left) {
  static_assert(Kokkos::is_view<AV>::value && Kokkos::is_view<BV>::value && Kokkos::is_view<CV>::value,
                "ridgeline::gemm_batched takes Kokkos::Views");
  static_assert(detail::compat::view_rank<AV>() == 3 && detail::compat::view_rank<BV>() == 3 &&
                    detail::compat::view_rank<CV>() == 3,
                "ridgeline::gemm_batched: A, B and C must be rank 3 (a batch index and a matrix)");
  using T = typename AV::non_const_value_type;
  using TC = typename CV::non_const_value_type;
  using S = detail::GemmScalar<AV>;
  static_assert(std::is_same_v<TC, typename CV::value_type>, "ridgeline::gemm_batched: C must be non-const");
  static_assert(std::is_same_v<T, typename BV::non_const_value_type>,
                "ridgeline::gemm_batched: A and B must share one element type");
  static_assert(
      detail::is_gemm_input_v<T>,
      "ridgeline::gemm_batched: A and B must be float, double, ridgeline::half_t or ridgeline::bhalf_t");
  static_assert(detail::is_gemm_output_v<T, TC>,
                "ridgeline::gemm_batched: C must have A's element type, or be float when A and B are 16-bit");

  const auto ops =
      detail::checked_batched_operands<ExecSpace>("gemm_batched", transA, transB, A, B, C, layout);
  const auto& a = ops.a;
  const auto& b = ops.b;
  const auto& c = ops.c;
  const std::int64_t M = c.rows, N = c.cols, K = a.cols;
  if (c.count == 0 || M == 0 || N == 0) return;
  if (K == 0 || alpha == S(0)) {
    if (beta != S(1)) detail::scale_batch(exec, c, static_cast<S>(beta));
    return;
  }
  detail::gemm_batched_dispatch(exec, detail::read_only(a), detail::read_only(b), c, static_cast<S>(alpha),
                                static_cast<S>(beta));
}

template <class AV, class BV, class CV>
void gemm_batched(const char* transA, const char* transB, const detail::GemmScalar<AV>& alpha, const AV& A,
                  const BV& B, const detail::GemmScalar<AV>& beta, const CV& C,
                  BatchLayout layout = BatchLayout::left) {
  gemm_batched(typename CV::execution_space(), transA, transB, alpha, A, B, beta, C, layout);
}

namespace detail {
// A batched plan as gemm_batched_config prints it.
template <class ExecSpace, class T>
std::string batched_config_text(const BatchedPlan& plan) {
  std::string s = batched_path_name(plan.path);
  if (plan.path == BatchedPath::small) s += ": " + std::to_string(plan.per_team) + " per team";
  if (plan.path == BatchedPath::tiles) {
    GemmBatchedEntriesOf<ExecSpace, T>::visit(
        plan.entry, [&](auto e) { s += ": " + describe_gemm_cfg<typename decltype(e)::Cfg>(); });
  }
  if (plan.path == BatchedPath::panels) {
    visit_batched_panels_cfg<ExecSpace, T>(plan, [&](auto cfg, bool direct) {
      s += std::string(direct ? ": direct " : ": ") + describe_gemm_cfg<typename decltype(cfg)::type>();
    });
  }
  return s;
}

template <class ExecSpace, class AV, class BV>
BatchedPlan batched_plan_of(const ExecSpace& exec, const char* transA, const char* transB, const AV& A,
                            const BV& B, BatchLayout layout,
                            StridedBatch<const typename AV::non_const_value_type>& a,
                            StridedBatch<const typename AV::non_const_value_type>& b) {
  a = read_only(strided_batch_op(A, parse_trans(transA, "gemm_batched", "transA"), layout));
  b = read_only(strided_batch_op(B, parse_trans(transB, "gemm_batched", "transB"), layout));
  return gemm_batched_plan(exec, a, b);
}
}  // namespace detail

// The path gemm_batched(exec, transA, transB, alpha, A, B, beta, C, layout) would take for these
// operands, and its numbers ("small (matrices per team): 8 per team", "tiles (one league): 64x64x16/..."):
// nothing is validated or launched.
template <class ExecSpace, class AV, class BV>
std::string gemm_batched_config(const ExecSpace& exec, const char* transA, const char* transB, const AV& A,
                                const BV& B, BatchLayout layout = BatchLayout::left) {
  using T = typename AV::non_const_value_type;
  detail::StridedBatch<const T> a, b;
  return detail::batched_config_text<ExecSpace, T>(
      detail::batched_plan_of(exec, transA, transB, A, B, layout, a, b));
}

// The same plan as a tile configuration, for reports and the roofline (gemm_tile_config's fields).
// The tiles path reports its entry's tile; the small path a "tile" of one whole matrix (bm x bn x bk =
// M x N x K), tn outputs per thread, and the scratch of its matrices per team.
template <class ExecSpace, class AV, class BV>
TileConfig gemm_batched_tile_config(const ExecSpace& exec, const char* transA, const char* transB,
                                    const AV& A, const BV& B, BatchLayout layout = BatchLayout::left) {
  using T = typename AV::non_const_value_type;
  detail::StridedBatch<const T> a, b;
  const detail::BatchedPlan plan = detail::batched_plan_of(exec, transA, transB, A, B, layout, a, b);
  TileConfig t;
  if (plan.path == detail::BatchedPath::tiles) {
    detail::GemmBatchedEntriesOf<ExecSpace, T>::visit(plan.entry, [&](auto e) {
      using E = decltype(e);
      using Kernel = detail::GemmKernelFor<ExecSpace, typename E::Cfg, T, true, false, false>;
      t = detail::describe_tile_config<typename E::Cfg, Kernel, ExecSpace, T>(E::When::needs_packets);
    });
    t.entry = "batched tiles (one league)";
    return t;
  }
  if (plan.path == detail::BatchedPath::panels &&
      detail::visit_batched_panels_cfg<ExecSpace, T>(plan, [&](auto cfg, bool direct) {
        using Cfg = typename decltype(cfg)::type;
        using Kernel = detail::GemmKernelFor<ExecSpace, Cfg, T, true, false, false>;
        t = detail::describe_tile_config<Cfg, Kernel, ExecSpace, T>(false);
        t.entry =
            std::string("batched panels (each matrix whole on one thread)") + (direct ? ", direct" : "");
        t.calling_thread = true;
      }))
    return t;
  using Small = detail::BatchedSmallCfgOf<ExecSpace, T>;
  t.bm = static_cast<int>(a.rows), t.bn = static_cast<int>(b.cols), t.bk = static_cast<int>(a.cols);
  t.tm = 1, t.tn = Small::cols_per_thread;
  t.team_size = Small::team_size, t.vector_length = 1, t.stages = 1, t.scratch_level = 0;
  t.scratch_bytes =
      plan.per_team * (detail::small_matrix_elems(a.rows, b.cols, a.cols) * std::int64_t(sizeof(T)) +
                       a.rows * b.cols * std::int64_t(sizeof(detail::AccumulatorType<T>)));
  t.micro_kernel = "team-product";
  t.staging = std::to_string(plan.per_team) + " whole matrices per team";
  t.pipeline = "team copy";
  t.entry = "batched small";
  return t;
}

}  // namespace ridgeline
