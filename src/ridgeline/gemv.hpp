#pragma once
// Public GEMV entry: y = alpha * op(A) * x + beta * y.
//
// A is a rank-2 View, x and y rank-1 Views, in any layout (strided subviews included). A and x share
// one element type: float, double, Kokkos::complex<float>, Kokkos::complex<double>, ridgeline::half_t or
// ridgeline::bhalf_t; y has it too, or float for the 16-bit types, which accumulate in float (alpha and
// beta are then float). trans is "N", "T" or "C" (conjugate transpose: A's elements are conjugated as
// they are loaded; "T" for real types); x is never conjugated, as in BLAS. Every check below runs before any
// launch and throws std::invalid_argument naming the shapes. beta == 0 never reads y; alpha == 0 or an empty
// reduction never reads A or x.
#include <Kokkos_Core.hpp>
#include <string>
#include <type_traits>

#include "ridgeline/detail/dispatch.hpp"
#include "ridgeline/detail/scale.hpp"
#include "ridgeline/detail/strided.hpp"
#include "ridgeline/detail/validate.hpp"
#include "ridgeline/tile_config.hpp"

namespace ridgeline {

template <class ExecSpace, class AV, class XV, class YV>
void gemv(const ExecSpace& exec, const char* trans, const detail::GemmScalar<AV>& alpha, const AV& A,
          const XV& x, const detail::GemmScalar<AV>& beta, const YV& y) {
  static_assert(Kokkos::is_view<AV>::value && Kokkos::is_view<XV>::value && Kokkos::is_view<YV>::value,
                "ridgeline::gemv takes Kokkos::Views");
  static_assert(detail::compat::view_rank<AV>() == 2 && detail::compat::view_rank<XV>() == 1 &&
                    detail::compat::view_rank<YV>() == 1,
                "ridgeline::gemv: A must be rank 2, x and y rank 1");
  using T = typename AV::non_const_value_type;
  using TY = typename YV::non_const_value_type;
  using S = detail::GemmScalar<AV>;
  static_assert(std::is_same_v<TY, typename YV::value_type>, "ridgeline::gemv: y must be non-const");
  static_assert(std::is_same_v<T, typename XV::non_const_value_type>,
                "ridgeline::gemv: A and x must share one element type");
  static_assert(detail::is_gemm_input_v<T> || detail::is_complex_gemm_input_v<T>,
                "ridgeline::gemv: A and x must be float, double, Kokkos::complex<float>, "
                "Kokkos::complex<double>, ridgeline::half_t or ridgeline::bhalf_t");
  static_assert(detail::is_gemm_output_v<T, TY>,
                "ridgeline::gemv: y must have A's element type, or be float when A and x are 16-bit");

  const detail::Trans t = detail::parse_trans(trans, "gemv", "trans");
  detail::require_accessible<ExecSpace>(A, "gemv", "A");
  detail::require_accessible<ExecSpace>(x, "gemv", "x");
  detail::require_accessible<ExecSpace>(y, "gemv", "y");
  const auto a = detail::strided_op(A, t);
  if (static_cast<std::int64_t>(x.extent(0)) != a.cols || static_cast<std::int64_t>(y.extent(0)) != a.rows) {
    throw std::invalid_argument(std::string("ridgeline::gemv: op(A) is ") + std::to_string(a.rows) + "x" +
                                std::to_string(a.cols) + " (A " + detail::shape_of(A) +
                                ", trans=" + detail::trans_name(t) + "), so x must have " +
                                std::to_string(a.cols) + " entries and y " + std::to_string(a.rows) +
                                ", but x has " + detail::shape_of(x) + " and y " + detail::shape_of(y));
  }
  detail::require_no_overlap(y, "y", A, "A", "gemv", detail::OverlapTest::elements);
  detail::require_no_overlap(y, "y", x, "x", "gemv", detail::OverlapTest::elements);

  const auto yy = detail::strided_vec(y);
  if (a.rows == 0) return;
  if (a.cols == 0 || alpha == S(0)) {
    if (beta != S(1)) detail::scale_vector(exec, yy, static_cast<S>(beta));
    return;
  }
  const detail::Strided2D<const T> ac = detail::as_const(a);
  const auto xs = detail::strided_vec(x);
  detail::gemv_dispatch(exec, ac, detail::Strided1D<const T>{xs.data, xs.n, xs.s}, yy, static_cast<S>(alpha),
                        static_cast<S>(beta));
}

template <class AV, class XV, class YV>
void gemv(const char* trans, const detail::GemmScalar<AV>& alpha, const AV& A, const XV& x,
          const detail::GemmScalar<AV>& beta, const YV& y) {
  gemv(typename YV::execution_space(), trans, alpha, A, x, beta, y);
}

// The configuration gemv runs for ExecSpace and Scalar, for reports and the roofline. With exec and
// the shape of op(A) (rows x cols), it is the entry that would run for that shape: a table's tall rows
// entry, its split along the columns (a one-column multi-vector product) or its short-row dot entry,
// where they apply, for operands that stage in packets; without, the regular one.
template <class ExecSpace, class Scalar>
GemvConfig gemv_config(bool rows_contiguous = true, const ExecSpace* exec = nullptr, std::int64_t rows = 0,
                       std::int64_t cols = 0) {
  using Be = detail::Backend<ExecSpace, Scalar>;
  GemvConfig g;
  auto fill = [&](auto cfg, const char* kernel) {
    using Cfg = decltype(cfg);
    g.team_size = Cfg::team_size;
    g.vector_length = Cfg::vector_length;
    g.rows_per_team = Cfg::rows;
    g.unroll = Cfg::unroll;
    g.vec = Cfg::vec;
    g.scratch_level = Cfg::scratch_level;
    g.kernel = kernel;
  };
  if (rows_contiguous) {
    if constexpr (!std::is_void_v<detail::MultiVectorCfg<ExecSpace, Scalar>>) {
      if (exec && cols > 0 && detail::gemv_splits_columns<ExecSpace, Scalar, Scalar>(*exec, rows)) {
        using Cfg = detail::MultiVectorCfg<ExecSpace, Scalar>;
        g.team_size = Cfg::team_size, g.vector_length = Cfg::vector_length, g.rows_per_team = Cfg::bm;
        g.unroll = Cfg::unroll, g.vec = Cfg::vec, g.scratch_level = Cfg::scratch_level;
        g.kernel = "multi-vector (split along the columns)";
        g.k_slices =
            detail::gemv_column_split<Cfg>(rows, cols, detail::ComputeUnits<Be, ExecSpace>::of(*exec),
                                           sizeof(detail::AccumulatorType<Scalar>))
                .slices;
        return g;
      }
    }
    using Tall = typename detail::RowsTallCfgOf<Be, Scalar>::type;
    if constexpr (!std::is_void_v<Tall>) {
      if (exec && detail::gemv_uses_tall<ExecSpace, Scalar>(*exec, rows)) {
        fill(Tall{}, "rows");
        return g;
      }
    }
    using Rows = typename Be::template gemv_rows<Scalar>;
    fill(Rows{}, "rows");
    using Unit = typename detail::GemvUnitKernelOf<Rows, ExecSpace, Scalar, Scalar>::type;
    if constexpr (!std::is_void_v<Unit>) {
      g.kernel = "rows (vector registers, at unit stride)";
      g.rows_per_team =
          static_cast<int>(exec ? Unit::plan_block_rows(rows, exec->concurrency()) : Unit::kMaxRows);
      g.unroll = Unit::kCols;
      g.vec = Unit::W;
    }
  } else {
    const auto dot = [&](auto cfg, const char* kernel) {
      using Cfg = decltype(cfg);
      fill(Cfg{}, kernel);
      g.lanes = Cfg::lanes;
      g.row_block = Cfg::row_block;
    };
    using Short = detail::DotShortCfgOf<Be, Scalar>;
    if constexpr (Short::max_bytes > 0) {
      if (cols > 0 && detail::gemv_uses_short_dot<ExecSpace, Scalar>(cols)) {
        dot(typename Short::type{}, "dot (short rows)");
        return g;
      }
    }
    using Dot = typename Be::template gemv_dot<Scalar>;
    dot(Dot{}, "dot");
    using Unit = typename detail::GemvUnitKernelOf<Dot, ExecSpace, Scalar, Scalar>::type;
    if constexpr (!std::is_void_v<Unit>) {
      g.kernel = "dot (vector registers, at unit stride)";
      g.rows_per_team = Unit::BR, g.row_block = Unit::kRows, g.unroll = Unit::kU, g.vec = Unit::W;
      g.lanes = 1;
      if (cols > 0 && Unit::short_rows(cols)) {  // one row at a time
        g.kernel = "dot (vector registers, at unit stride; short rows)";
        g.row_block = 1, g.unroll = Unit::kShortU;
      }
    }
  }
  return g;
}

}  // namespace ridgeline
