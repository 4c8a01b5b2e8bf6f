#pragma once
// Public grouped GEMM: batches of different shapes in one call, as MAGMA's vbatched and cuBLAS's
// grouped GEMM take them. Each group is a uniform batch with its own transposes, alpha, beta and
// shapes, given as gemm_batched takes it:
//
//   std::vector<ridgeline::GemmGroup<AV, BV, CV>> groups = {
//       {"N", "N", 1.0, A8, B8, 0.0, C8},                         // 5000 products of 8 x 8 x 8
//       {"T", "N", 2.0, A64, B64, 1.0, C64, BatchLayout::right},  // 300 of 64 x 64 x 64, batch last
//   };
//   ridgeline::gemm_grouped(exec, groups);
//
// Every group is checked as gemm_batched checks a batch, before anything is launched, and the
// messages name the group ("ridgeline::gemm_grouped (group 1): ..."). The groups run together, in no
// set order, so no group's C may overlap another group's A, B or C: their memory ranges must be
// disjoint (checked by address range, like C against A and B within a group). A group with no matrices
// or empty ones does nothing; one with K == 0 or alpha == 0 scales its C by beta; beta == 0 never
// reads C.
//
// Dispatch (dispatch_grouped.hpp): each group is planned as gemm_batched would plan it alone, and the
// groups that run the same kernel share one launch. gemm_grouped_config prints the launches.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ridgeline/detail/dispatch_grouped.hpp"
#include "ridgeline/gemm_batched.hpp"

namespace ridgeline {

// One group of a grouped call: C_g = alpha * op(A_g) * op(B_g) + beta * C_g for every matrix g of the
// rank-3 Views A, B and C, the batch index where layout says. The members follow gemm_batched's
// arguments, in its order.
template <class AV, class BV, class CV>
struct GemmGroup {
  const char* transA = "N";
  const char* transB = "N";
  detail::GemmScalar<AV> alpha = 1;
  AV A;
  BV B;
  detail::GemmScalar<AV> beta = 0;
  CV C;
  BatchLayout layout = BatchLayout::left;
};

namespace detail {

inline std::string group_name(std::size_t i) {
  return "gemm_grouped (group " + std::to_string(i) + ")";
}

// No group's C may share memory with another group's A, B or C (a group's own A and B are checked with
// it). Address ranges sorted by start: the C ranges must not overlap one another, and no input range
// that starts before a C range ends may end after it starts.
template <class AV, class BV, class CV>
void require_groups_disjoint(const std::vector<GemmGroup<AV, BV, CV>>& groups) {
  struct Range {
    std::uintptr_t lo, hi;
    std::size_t group;
    char which;
  };
  std::vector<Range> outs, ins;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const auto& g = groups[i];
    const auto add = [&](std::vector<Range>& to, const auto& v, char which) {
      if (v.span() == 0) return;
      const auto r = byte_range(v);
      to.push_back({r.first, r.second, i, which});
    };
    add(outs, g.C, 'C'), add(ins, g.A, 'A'), add(ins, g.B, 'B');
  }
  const auto shape = [&](const Range& r) {
    const auto& g = groups[r.group];
    return std::string(1, r.which) + " of group " + std::to_string(r.group) + " (" +
           (r.which == 'A'   ? shape_of(g.A)
            : r.which == 'B' ? shape_of(g.B)
                             : shape_of(g.C)) +
           ")";
  };
  const auto fail = [&](const Range& out, const Range& other) {
    throw std::invalid_argument("ridgeline::gemm_grouped: output " + shape(out) + " overlaps " +
                                (other.which == 'C' ? "output " : "input ") + shape(other) +
                                "; groups run together, so their memory must be disjoint");
  };
  const auto by_lo = [](const Range& x, const Range& y) { return x.lo < y.lo; };
  std::sort(outs.begin(), outs.end(), by_lo);
  std::sort(ins.begin(), ins.end(), by_lo);
  for (std::size_t i = 1; i < outs.size(); ++i)
    if (outs[i].lo < outs[i - 1].hi) fail(outs[i - 1], outs[i]);
  std::vector<std::size_t> reach(ins.size());  // reach[i]: the input of ins[0..i] that ends last
  for (std::size_t i = 0; i < ins.size(); ++i)
    reach[i] = i > 0 && ins[reach[i - 1]].hi > ins[i].hi ? reach[i - 1] : i;
  for (const Range& o : outs) {
    const auto end = std::lower_bound(ins.begin(), ins.end(), Range{o.hi, 0, 0, ' '}, by_lo);
    if (end == ins.begin()) continue;
    const Range& in = ins[reach[std::size_t(end - ins.begin()) - 1]];
    if (in.hi > o.lo) fail(o, in);
  }
}

}  // namespace detail

template <class ExecSpace, class AV, class BV, class CV>
void gemm_grouped(const ExecSpace& exec, const std::vector<GemmGroup<AV, BV, CV>>& groups) {
  static_assert(Kokkos::is_view<AV>::value && Kokkos::is_view<BV>::value && Kokkos::is_view<CV>::value,
                "ridgeline::gemm_grouped takes Kokkos::Views");
  static_assert(detail::compat::view_rank<AV>() == 3 && detail::compat::view_rank<BV>() == 3 &&
                    detail::compat::view_rank<CV>() == 3,
                "ridgeline::gemm_grouped: A, B and C must be rank 3 (a batch index and a matrix)");
  using T = typename AV::non_const_value_type;
  using TC = typename CV::non_const_value_type;
  using S = detail::GemmScalar<AV>;
  static_assert(std::is_same_v<TC, typename CV::value_type>, "ridgeline::gemm_grouped: C must be non-const");
  static_assert(std::is_same_v<T, typename BV::non_const_value_type>,
                "ridgeline::gemm_grouped: A and B must share one element type");
  static_assert(
      detail::is_gemm_input_v<T>,
      "ridgeline::gemm_grouped: A and B must be float, double, ridgeline::half_t or ridgeline::bhalf_t");
  static_assert(detail::is_gemm_output_v<T, TC>,
                "ridgeline::gemm_grouped: C must have A's element type, or be float when A and B are 16-bit");

  std::vector<detail::StridedBatch<const T>> a, b;
  std::vector<detail::StridedBatch<TC>> c;
  std::vector<S> alpha, beta;
  std::vector<std::pair<detail::StridedBatch<TC>, S>> scale_only;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const auto& g = groups[i];
    const auto ops = detail::checked_batched_operands<ExecSpace>(detail::group_name(i), g.transA, g.transB,
                                                                 g.A, g.B, g.C, g.layout);
    if (ops.c.count == 0 || ops.c.rows == 0 || ops.c.cols == 0) continue;
    if (ops.a.cols == 0 || g.alpha == S(0)) {
      if (g.beta != S(1)) scale_only.emplace_back(ops.c, static_cast<S>(g.beta));
      continue;
    }
    a.push_back(detail::read_only(ops.a)), b.push_back(detail::read_only(ops.b)), c.push_back(ops.c);
    alpha.push_back(static_cast<S>(g.alpha)), beta.push_back(static_cast<S>(g.beta));
  }
  detail::require_groups_disjoint(groups);
  for (const auto& s : scale_only) detail::scale_batch(exec, s.first, s.second);
  if (!a.empty()) detail::gemm_grouped_dispatch(exec, a, b, c, alpha, beta);
}

template <class AV, class BV, class CV>
void gemm_grouped(const std::vector<GemmGroup<AV, BV, CV>>& groups) {
  gemm_grouped(typename CV::execution_space(), groups);
}

// The launches gemm_grouped(exec, groups) would make, and the groups each runs ("2 launches: small
// (matrices per team) [groups 0 1]; tiles (one league): 64x64x16/... [groups 2]"); groups with nothing
// to multiply are named apart. The groups are read, not validated; nothing is launched.
template <class ExecSpace, class AV, class BV, class CV>
std::string gemm_grouped_config(const ExecSpace& exec, const std::vector<GemmGroup<AV, BV, CV>>& groups) {
  using T = typename AV::non_const_value_type;
  using S = detail::GemmScalar<AV>;
  std::vector<detail::StridedBatch<const T>> a, b;
  std::vector<int> index;  // the call's group number of each planned group
  std::string idle;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const auto& g = groups[i];
    const std::string name = detail::group_name(i);
    const auto ga = detail::read_only(
        detail::strided_batch_op(g.A, detail::parse_trans(g.transA, name.c_str(), "transA"), g.layout));
    const auto gb = detail::read_only(
        detail::strided_batch_op(g.B, detail::parse_trans(g.transB, name.c_str(), "transB"), g.layout));
    if (ga.count == 0 || ga.rows == 0 || gb.cols == 0 || ga.cols == 0 || g.alpha == S(0)) {
      idle += " " + std::to_string(i);
      continue;
    }
    a.push_back(ga), b.push_back(gb), index.push_back(static_cast<int>(i));
  }
  const detail::GroupedPlan plan = detail::gemm_grouped_plan(exec, a, b);
  std::string s =
      std::to_string(plan.launches.size()) + (plan.launches.size() == 1 ? " launch" : " launches");
  for (std::size_t l = 0; l < plan.launches.size(); ++l) {
    const auto& launch = plan.launches[l];
    const auto& first = plan.group_plans[std::size_t(launch.groups.front())];
    s += l == 0 ? ": " : "; ";
    if (first.path == detail::BatchedPath::small) {
      // Matrices per team differ by group.
      s += detail::batched_path_name(first.path) + std::string(" [groups");
      for (int i : launch.groups)
        s += " " + std::to_string(index[std::size_t(i)]) + " (" +
             std::to_string(plan.group_plans[std::size_t(i)].per_team) + " per team)";
    } else {
      s += detail::batched_config_text<ExecSpace, T>(first) + " [groups";
      for (int i : launch.groups) s += " " + std::to_string(index[std::size_t(i)]);
    }
    s += "]";
  }
  if (!idle.empty()) s += "; no product (scale or nothing) [groups" + idle + "]";
  return s;
}

}  // namespace ridgeline
