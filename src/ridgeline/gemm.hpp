#pragma once
// Public GEMM entry: C = alpha * op(A) * op(B) + beta * C.
//
// A, B, C are rank-2 Views in LayoutLeft, LayoutRight or LayoutStride (strided subviews of larger
// matrices), mixed freely. A and B share one element type: float, double, Kokkos::complex<float>,
// Kokkos::complex<double>, or a 16-bit type (ridgeline::half_t, ridgeline::bhalf_t; half.hpp). C has
// that type too, or float when A and B are 16-bit; 16-bit products accumulate in float, and alpha and
// beta are then float (the accumulator's type, detail::GemmScalar); complex alpha and beta are complex.
// transA/transB are "N", "T" or "C" (conjugate transpose; "T" for real types), each independently. Every
// check runs before any launch and throws std::invalid_argument naming the shapes: extents, transpose
// letters, memory spaces the execution space cannot access, and an output that overlaps an input. Degenerate
// cases follow BLAS: M or N == 0 does nothing; K == 0 or alpha == 0 scales C by beta without reading A or B;
// beta == 0 never reads C. A product with one column and op(B) = B is a GEMV.
//
// Math (the last argument, default Math::exact) says what arithmetic a float product may use.
// Math::exact computes in FP32 throughout. Math::allow_tf32 lets the tensor cores read A and B as
// TF32 (10 stored mantissa bits: the 13 low bits of each input are dropped) while accumulating in
// FP32, like cuBLAS's CUBLAS_TF32_TENSOR_OP_MATH: expect relative errors near 2^-10 * sum|a b| rather
// than K * 2^-24. It is a permission, not a promise: where the backend has no TF32 path (host, HIP,
// a CUDA build without the sm_90a route), where a one-column product becomes a GEMV, or where the
// workspace cannot hold the copies the TF32 kernel needs, the product is exact FP32. Other element
// types ignore it.
#include <Kokkos_Core.hpp>
#include <string>
#include <type_traits>

#include "ridgeline/detail/dispatch.hpp"
#include "ridgeline/detail/scale.hpp"
#include "ridgeline/detail/strided.hpp"
#include "ridgeline/detail/validate.hpp"
#include "ridgeline/gemv.hpp"
#include "ridgeline/tile_config.hpp"

namespace ridgeline {

enum class Math { exact, allow_tf32 };

// Split-K partials and aligned operand copies live in device buffers that each stream keeps
// between calls, so that repeated calls do not allocate. workspace_bytes() says how much is held;
// release_workspace() waits for the device and frees it all (Kokkos::finalize does too).
inline std::size_t workspace_bytes() {
  return detail::workspace_bytes_held();
}
inline void release_workspace() {
  detail::release_all_workspaces();
}
// Caps the bytes that all streams' workspace buffers may hold together (default: no cap). A call
// whose copies or split-K partials would take the workspace past the cap runs without them:
// element staging instead of copies, one K slice instead of several. Slower, never wrong. Lowering
// the cap frees nothing by itself; release_workspace() does.
inline void set_workspace_limit(std::size_t bytes) {
  detail::workspace_registry().limit.store(bytes);
}
inline std::size_t workspace_limit() {
  return detail::workspace_registry().limit.load();
}

template <class ExecSpace, class AV, class BV, class CV>
void gemm(const ExecSpace& exec, const char* transA, const char* transB, const detail::GemmScalar<AV>& alpha,
          const AV& A, const BV& B, const detail::GemmScalar<AV>& beta, const CV& C,
          Math math = Math::exact) {
  static_assert(Kokkos::is_view<AV>::value && Kokkos::is_view<BV>::value && Kokkos::is_view<CV>::value,
                "ridgeline::gemm takes Kokkos::Views");
  static_assert(detail::compat::view_rank<AV>() == 2 && detail::compat::view_rank<BV>() == 2 &&
                    detail::compat::view_rank<CV>() == 2,
                "ridgeline::gemm: A, B and C must be rank 2");
  using T = typename AV::non_const_value_type;
  using TC = typename CV::non_const_value_type;
  using S = detail::GemmScalar<AV>;
  static_assert(std::is_same_v<TC, typename CV::value_type>, "ridgeline::gemm: C must be non-const");
  static_assert(std::is_same_v<T, typename BV::non_const_value_type>,
                "ridgeline::gemm: A and B must share one element type");
  static_assert(detail::is_gemm_input_v<T> || detail::is_complex_gemm_input_v<T>,
                "ridgeline::gemm: A and B must be float, double, Kokkos::complex<float>, "
                "Kokkos::complex<double>, ridgeline::half_t or ridgeline::bhalf_t");
  static_assert(detail::is_gemm_output_v<T, TC>,
                "ridgeline::gemm: C must have A's element type, or be float when A and B are 16-bit");

  const detail::Trans ta = detail::parse_trans(transA, "gemm", "transA");
  const detail::Trans tb = detail::parse_trans(transB, "gemm", "transB");
  detail::require_accessible<ExecSpace>(A, "gemm", "A");
  detail::require_accessible<ExecSpace>(B, "gemm", "B");
  detail::require_accessible<ExecSpace>(C, "gemm", "C");
  const auto a = detail::strided_op(A, ta);
  const auto b = detail::strided_op(B, tb);
  const auto c = detail::strided_op(C, detail::Trans::N);
  if (a.cols != b.rows || a.rows != c.rows || b.cols != c.cols) {
    throw std::invalid_argument(std::string("ridgeline::gemm: op(A) is ") + std::to_string(a.rows) + "x" +
                                std::to_string(a.cols) + " (A " + detail::shape_of(A) +
                                ", transA=" + detail::trans_name(ta) + "), op(B) is " +
                                std::to_string(b.rows) + "x" + std::to_string(b.cols) + " (B " +
                                detail::shape_of(B) + ", transB=" + detail::trans_name(tb) + "), C is " +
                                detail::shape_of(C) + ": need op(A) MxK, op(B) KxN, C MxN");
  }
  detail::require_no_overlap(C, "C", A, "A", "gemm", detail::OverlapTest::elements);
  detail::require_no_overlap(C, "C", B, "B", "gemm", detail::OverlapTest::elements);

  const std::int64_t M = c.rows, N = c.cols, K = a.cols;
  if (M == 0 || N == 0) return;
  if (K == 0 || alpha == S(0)) {
    if (beta != S(1)) detail::scale_matrix(exec, c, static_cast<S>(beta));
    return;
  }
  if (N == 1 && tb == detail::Trans::N) {
    auto x = Kokkos::subview(B, Kokkos::ALL, 0);
    auto y = Kokkos::subview(C, Kokkos::ALL, 0);
    gemv(exec, detail::trans_name(ta), alpha, A, x, beta, y);
    return;
  }
  const detail::Strided2D<const T> ac = detail::as_const(a), bc = detail::as_const(b);
  detail::gemm_dispatch(exec, ac, bc, c, static_cast<S>(alpha), static_cast<S>(beta), true,
                        std::is_same_v<T, float> && math == Math::allow_tf32);
}

template <class AV, class BV, class CV>
void gemm(const char* transA, const char* transB, const detail::GemmScalar<AV>& alpha, const AV& A,
          const BV& B, const detail::GemmScalar<AV>& beta, const CV& C, Math math = Math::exact) {
  gemm(typename CV::execution_space(), transA, transB, alpha, A, B, beta, C, math);
}

namespace detail {
template <class Cfg, class Kernel, class ExecSpace, class Scalar>
TileConfig describe_tile_config(bool packets) {
  TileConfig t;
  t.bm = Cfg::bm, t.bn = Cfg::bn, t.bk = Cfg::bk;
  t.tm = Cfg::tm, t.tn = Cfg::tn;
  t.team_size = Cfg::team_size, t.vector_length = Cfg::vector_length;
  t.stages = Cfg::stages, t.scratch_level = Cfg::scratch_level;
  t.scratch_bytes = static_cast<std::int64_t>(Kernel::scratch_bytes());
  t.micro_kernel =
      detail::EntryMicroKernelName<Cfg>::get(detail::Backend<ExecSpace, Scalar>::micro_kernel_name);
  t.matrix_unit = detail::EntryMatrixUnit<Cfg>::value;
  t.staging = packets ? "packets" : "elements";
  t.pipeline = detail::EntryPipelineName<Cfg>::get();
  return t;
}

// A plan, as the tile configuration it runs (the bulk's, where it peels).
template <class ExecSpace, class T>
TileConfig describe_plan(const GemmPlan& plan) {
  TileConfig t;
  GemmEntriesOf<ExecSpace, T>::visit(plan.entry, [&](auto e) {
    using E = decltype(e);
    using Cfg = typename E::Cfg;
    if constexpr (E::When::role == GemmRole::multi_vector) {
      // Not a tile kernel: rows per team x the most columns, one packet of rows per thread.
      t.bm = Cfg::bm, t.bn = Cfg::bn, t.bk = Cfg::unroll, t.tm = Cfg::tm, t.tn = Cfg::tn;
      t.team_size = Cfg::team_size, t.vector_length = 1, t.stages = 1, t.scratch_level = 0;
      // The staged rows of op(B) at the entry's most columns (fewer columns take less).
      t.scratch_bytes = static_cast<std::int64_t>(
          MultiVectorKernelOf<ExecSpace, Cfg, T, T, Cfg::max_vectors, true, T>::type::scratch_bytes());
      t.micro_kernel = Cfg::micro_kernel_name;
      t.staging = MultiVectorStaging<Cfg>::name;
      t.pipeline = "registers";
    } else if constexpr (E::When::role == GemmRole::multi_vector_dot) {
      // Not a tile kernel: rows per team x the most columns, K staged per pass of op(B); a group of
      // lanes per row_block rows.
      t.bm = Cfg::bm, t.bn = Cfg::bn, t.bk = Cfg::b_rows, t.tm = Cfg::tm, t.tn = Cfg::tn;
      t.team_size = Cfg::team_size, t.vector_length = 1, t.stages = 1, t.scratch_level = 0;
      // The staged pass at the entry's most columns (fewer columns take less).
      t.scratch_bytes = static_cast<std::int64_t>(
          GemmMultiVectorDot<ExecSpace, Cfg, T, T, Cfg::max_vectors, true, T>::scratch_bytes());
      t.micro_kernel = Cfg::micro_kernel_name;
      t.staging = "op(B) in scratch; A read once, in packets along its rows";
      t.pipeline = "registers";
    } else {
      constexpr bool kTf32 = E::When::role == GemmRole::tf32;  // its kernel reads k-contiguous operands only
      using Kernel = GemmKernelFor<ExecSpace, Cfg, T, !kTf32, false, false>;
      t = describe_tile_config<Cfg, Kernel, ExecSpace, T>(E::When::needs_packets);
    }
  });
  t.entry = role_name(plan.role);
  if (plan.role == GemmRole::in_place) t.staging = "elements in place (one-element copies)";
  if (plan.copies_aligned())
    t.staging = std::string("packets (") + aligned_copies_name(plan) + " copied aligned)";
  if (plan.copy_a || plan.copy_b) t.staging = "packets (operands copied k-contiguous)";
  t.k_slices = plan.split.slices;
  t.calling_thread = plan.calling_thread;
  t.peel_m = plan.peel.m0, t.peel_n = plan.peel.n0;
  t.transposed = plan.transposed;
  return t;
}

// What gemm runs for these operands, C's strides (c_rs, c_cs) and a beta that is zero or not (beta_zero):
// the plan of the table's entries or the tune cache's choice, or, for a complex product that runs as a real
// one, the real product's plan (chunk 0) and how it came about. Nothing is launched or allocated.
template <class ExecSpace, class T>
TileConfig describe_gemm_call(const ExecSpace& exec, const Strided2D<const T>& a, const Strided2D<const T>& b,
                              std::int64_t c_rs, std::int64_t c_cs, bool tf32, bool beta_zero = true) {
  if constexpr (is_complex_v<T>) {
    const ComplexAsRealPlan p = complex_as_real_plan<ExecSpace>(a, b, c_rs, c_cs);
    if (p.applies) {
      using R = typename T::value_type;
      const auto o = oriented_operands(p.transposed, a, b, Strided2D<T>{nullptr, a.rows, b.cols, c_rs, c_cs});
      const std::int64_t m = o.x.rows, n = o.y.cols, kc = p.k_chunk;
      const Strided2D<const R> xr = expanded_view<R>(nullptr, m, kc, o.x_rows, expanded_lead(o, kc));
      const Strided2D<const R> yr = p.copy_b ? real_view(Strided2D<const T>{nullptr, kc, n, 1, even_up(kc)})
                                             : real_view(block_of(o.y, 0, kc, 0, n));
      std::string tuned;
      TileConfig t =
          describe_plan<ExecSpace, R>(gemm_call_plan(exec, xr, yr, false, true, beta_zero, &tuned));
      t.tuned = tuned;
      const std::int64_t chunks = (o.x.cols + kc - 1) / kc;
      t.complex_as_real = std::string(p.transposed ? "C^T = op(B)^T op(A)^T, op(B)^T" : "op(A)") +
                          " expanded, " + (p.transposed ? "op(A)^T" : "op(B)") +
                          (p.copy_b ? " copied K-contiguous" : " read as reals in place") + ", real " +
                          std::to_string(2 * m) + "x" + std::to_string(n) + "x" +
                          std::to_string(2 * o.x.cols) + " product" +
                          (chunks > 1 ? " in " + std::to_string(chunks) + " K chunks" : "");
      return t;
    }
  }
  std::string tuned;
  TileConfig t = describe_plan<ExecSpace, T>(gemm_call_plan(exec, a, b, tf32, true, beta_zero, &tuned));
  t.tuned = tuned;
  return t;
}
}  // namespace detail

// The tile configuration of a table entry for ExecSpace and Scalar, for reports and the roofline:
// packets = false is the table's general entry (any strides and alignment), packets = true the
// entry for operands that stage in 16-byte packets (the same entry where the table has no other).
template <class ExecSpace, class Scalar>
TileConfig gemm_tile_config(bool packets = false) {
  if (packets) {
    using Kernel = detail::GemmPacketKernel<ExecSpace, Scalar, true, false>;
    return detail::describe_tile_config<detail::GemmPacketCfg<ExecSpace, Scalar>, Kernel, ExecSpace, Scalar>(
        Kernel::vector_capable);
  }
  return detail::describe_tile_config<detail::GemmCfg<ExecSpace, Scalar>,
                                      detail::GemmKernel<ExecSpace, Scalar, true, false>, ExecSpace, Scalar>(
      false);
}

// The plan gemm(exec, transA, transB, alpha, A, B, beta, C, math) would execute for these operands,
// as the tile configuration it runs: the table entry and its role (or the tune cache's choice, TileConfig::
// tuned), the staging and copies, the K slices and the peeled bulk, and for complex products whether they run
// as real ones (the operands are not validated here, and nothing is launched). Only whether beta is zero
// matters (a tune cache keeps the two apart); the overloads without beta describe a call with beta = 0.
template <class ExecSpace, class AV, class BV, class CV, class = std::enable_if_t<Kokkos::is_view<CV>::value>>
TileConfig gemm_tile_config(const ExecSpace& exec, const char* transA, const char* transB, const AV& A,
                            const BV& B, const CV& C, const detail::GemmScalar<AV>& beta,
                            Math math = Math::exact) {
  using T = typename AV::non_const_value_type;
  const auto a = detail::strided_op(A, detail::parse_trans(transA, "gemm", "transA"));
  const auto b = detail::strided_op(B, detail::parse_trans(transB, "gemm", "transB"));
  const auto c = detail::strided_op(C, detail::Trans::N);
  return detail::describe_gemm_call(exec, detail::as_const(a), detail::as_const(b), c.rs, c.cs,
                                    std::is_same_v<T, float> && math == Math::allow_tf32,
                                    beta == detail::GemmScalar<AV>(0));
}
template <class ExecSpace, class AV, class BV, class CV, class = std::enable_if_t<Kokkos::is_view<CV>::value>>
TileConfig gemm_tile_config(const ExecSpace& exec, const char* transA, const char* transB, const AV& A,
                            const BV& B, const CV& C, Math math = Math::exact) {
  return gemm_tile_config(exec, transA, transB, A, B, C, detail::GemmScalar<AV>(0), math);
}
// The same for a C of column-major M x N.
template <class ExecSpace, class AV, class BV>
TileConfig gemm_tile_config(const ExecSpace& exec, const char* transA, const char* transB, const AV& A,
                            const BV& B, Math math = Math::exact) {
  using T = typename AV::non_const_value_type;
  const auto a = detail::strided_op(A, detail::parse_trans(transA, "gemm", "transA"));
  const auto b = detail::strided_op(B, detail::parse_trans(transB, "gemm", "transB"));
  return detail::describe_gemm_call(exec, detail::as_const(a), detail::as_const(b), 1, a.rows,
                                    std::is_same_v<T, float> && math == Math::allow_tf32, true);
}

}  // namespace ridgeline
