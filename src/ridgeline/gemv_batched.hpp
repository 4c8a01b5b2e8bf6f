#pragma once
// Public batched GEMV: y_g = alpha * op(A_g) * x_g + beta * y_g for every g of a uniform batch.
//
// A is a rank-3 View as gemm_batched takes it; x and y are rank-2 Views with the batch index on the same
// side: x(g, i) and y(g, i) with BatchLayout::left (the default), x(i, g) and y(i, g) with right. Any
// layouts, mixed. Element types, trans, alpha and beta are those of ridgeline::gemv (gemv.hpp).
//
// Every check runs before any launch and throws std::invalid_argument naming the shapes: the batch
// counts must agree, x_g must have op(A_g)'s columns and y_g its rows, y must not overlap A or x, and
// y's vectors must not overlap one another. An empty batch or op(A_g) without rows does nothing; without
// columns, or with alpha == 0, y is scaled by beta without reading A or x; beta == 0 never reads y.
//
// A batch of GEMVs is a batch of one-column GEMMs (x_g an op(A_g)-columns x 1 matrix), and runs as
// gemm_batched's plan for it: matrices within the table's small entry several per team in scratch,
// larger ones as one league of tiles. gemv_batched_config names the path.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "ridgeline/gemm_batched.hpp"
#include "ridgeline/gemv.hpp"

namespace ridgeline {
namespace detail {

// The vectors of the rank-2 View v as a batch of one-column matrices, the batch index where layout
// says. The column stride is never stepped; it is that of a column-major length x 1 matrix, so that
// contiguous vectors count as dense ones.
template <class V>
StridedBatch<typename V::value_type> strided_batch_vector(const V& v, BatchLayout layout) {
  const int bi = layout == BatchLayout::left ? 0 : 1, ii = 1 - bi;
  StridedBatch<typename V::value_type> x;
  x.data = v.data();
  x.count = static_cast<std::int64_t>(v.extent(bi));
  x.rows = static_cast<std::int64_t>(v.extent(ii));
  x.cols = 1;
  x.rs = static_cast<std::int64_t>(v.stride(ii));
  x.bs = static_cast<std::int64_t>(v.stride(bi));
  x.cs = x.rows * x.rs > 0 ? x.rows * x.rs : 1;
  return x;
}

}  // namespace detail

template <class ExecSpace, class AV, class XV, class YV>
void gemv_batched(const ExecSpace& exec, const char* trans, const detail::GemmScalar<AV>& alpha, const AV& A,
                  const XV& x, const detail::GemmScalar<AV>& beta, const YV& y,
                  BatchLayout layout = BatchLayout::left) {
  static_assert(Kokkos::is_view<AV>::value && Kokkos::is_view<XV>::value && Kokkos::is_view<YV>::value,
                "ridgeline::gemv_batched takes Kokkos::Views");
  static_assert(
      detail::compat::view_rank<AV>() == 3 && detail::compat::view_rank<XV>() == 2 &&
          detail::compat::view_rank<YV>() == 2,
      "ridgeline::gemv_batched: A must be rank 3 (a batch index and a matrix), x and y rank 2 (a batch "
      "index and a vector)");
  using T = typename AV::non_const_value_type;
  using TY = typename YV::non_const_value_type;
  using S = detail::GemmScalar<AV>;
  static_assert(std::is_same_v<TY, typename YV::value_type>, "ridgeline::gemv_batched: y must be non-const");
  static_assert(std::is_same_v<T, typename XV::non_const_value_type>,
                "ridgeline::gemv_batched: A and x must share one element type");
  static_assert(
      detail::is_gemm_input_v<T>,
      "ridgeline::gemv_batched: A and x must be float, double, ridgeline::half_t or ridgeline::bhalf_t");
  static_assert(detail::is_gemm_output_v<T, TY>,
                "ridgeline::gemv_batched: y must have A's element type, or be float when A and x are 16-bit");

  const detail::Trans t = detail::parse_trans(trans, "gemv_batched", "trans");
  detail::require_accessible<ExecSpace>(A, "gemv_batched", "A");
  detail::require_accessible<ExecSpace>(x, "gemv_batched", "x");
  detail::require_accessible<ExecSpace>(y, "gemv_batched", "y");
  const auto a = detail::strided_batch_op(A, t, layout);
  const auto xb = detail::strided_batch_vector(x, layout);
  const auto yb = detail::strided_batch_vector(y, layout);
  const std::string shapes = std::string("A ") + detail::shape_of(A) + " (op(A_g) " + detail::batch_shape(a) +
                             ", trans=" + detail::trans_name(t) + "), x " + detail::shape_of(x) + " (" +
                             std::to_string(xb.count) + " vectors of " + std::to_string(xb.rows) + "), y " +
                             detail::shape_of(y) + " (" + std::to_string(yb.count) + " vectors of " +
                             std::to_string(yb.rows) + "), batch layout " + detail::batch_layout_name(layout);
  if (a.count != yb.count || xb.count != yb.count) {
    throw std::invalid_argument("ridgeline::gemv_batched: the batch counts differ: " + shapes);
  }
  if (xb.rows != a.cols || yb.rows != a.rows) {
    throw std::invalid_argument(
        "ridgeline::gemv_batched: need x_g with op(A_g)'s columns and y_g with its rows: " + shapes);
  }
  detail::require_no_overlap(y, "y", A, "A", "gemv_batched");
  detail::require_no_overlap(y, "y", x, "x", "gemv_batched");
  if (!detail::batch_elements_distinct(yb)) {
    throw std::invalid_argument("ridgeline::gemv_batched: y's vectors overlap one another (stride " +
                                std::to_string(yb.bs) + " between vectors, " + std::to_string(yb.rs) +
                                " within one): " + shapes);
  }

  if (yb.count == 0 || yb.rows == 0) return;
  if (a.cols == 0 || alpha == S(0)) {
    if (beta != S(1)) detail::scale_batch(exec, yb, static_cast<S>(beta));
    return;
  }
  detail::gemm_batched_dispatch(exec, detail::read_only(a), detail::read_only(xb), yb, static_cast<S>(alpha),
                                static_cast<S>(beta));
}

template <class AV, class XV, class YV>
void gemv_batched(const char* trans, const detail::GemmScalar<AV>& alpha, const AV& A, const XV& x,
                  const detail::GemmScalar<AV>& beta, const YV& y, BatchLayout layout = BatchLayout::left) {
  gemv_batched(typename YV::execution_space(), trans, alpha, A, x, beta, y, layout);
}

// The path gemv_batched would take for these operands (gemm_batched_config's text for its one-column
// products); nothing is validated or launched.
template <class ExecSpace, class AV, class XV>
std::string gemv_batched_config(const ExecSpace& exec, const char* trans, const AV& A, const XV& x,
                                BatchLayout layout = BatchLayout::left) {
  using T = typename AV::non_const_value_type;
  const auto a = detail::read_only(
      detail::strided_batch_op(A, detail::parse_trans(trans, "gemv_batched", "trans"), layout));
  const auto xb = detail::read_only(detail::strided_batch_vector(x, layout));
  return detail::batched_config_text<ExecSpace, T>(detail::gemm_batched_plan(exec, a, xb));
}

}  // namespace ridgeline
