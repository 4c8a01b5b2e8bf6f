#pragma once
// The plan a GEMM call runs: the table's (plan_gemm), unless the tune cache (tune_cache.hpp) holds a
// measured choice for the call's device, dtype and shape class, or the tuner forces one on its thread
// (ScopedGemmChoice). A choice names a table entry by its key and a K slice count; the entries are the
// configurations this build compiled, so a choice only picks among kernels that gemm could run anyway.
// A choice whose entry cannot run the call's operands (packets it cannot stage, columns past a
// multi-vector entry's) or that this build lacks is ignored. Pure apart from reading the cache file once.
//
// dispatch.hpp includes this after the plan functions (gemm_plan, finish_plan) and before gemm_dispatch,
// which executes what gemm_call_plan returns (a dependent call, found when gemm_dispatch is instantiated).
// Included first, this header includes dispatch.hpp, whose own include of it is then skipped.
#include <string>
#include <type_traits>
#include <vector>

#include "ridgeline/detail/dispatch.hpp"
#include "ridgeline/half.hpp"
#include "ridgeline/tune_cache.hpp"

namespace ridgeline::detail {

// The dtype's name in tune keys.
template <class T>
constexpr const char* tune_dtype_name() {
  if constexpr (std::is_same_v<T, float>) return "fp32";
  if constexpr (std::is_same_v<T, double>) return "fp64";
  if constexpr (std::is_same_v<T, half_t>) return "fp16";
  if constexpr (std::is_same_v<T, bhalf_t>) return "bf16";
  return "other";
}

// The device in tune keys: the backend table's device_name(exec) where it has one (the GPU's name), else
// the execution space and its thread count ("OpenMP x2"), since a host's winners depend on its threads.
template <class Be, class ExecSpace, class = void>
struct TuneDeviceName {
  static std::string of(const ExecSpace& exec) {
    return std::string(ExecSpace::name()) + " x" + std::to_string(exec.concurrency());
  }
};
template <class Be, class ExecSpace>
struct TuneDeviceName<Be, ExecSpace,
                      std::void_t<decltype(Be::device_name(std::declval<const ExecSpace&>()))>> {
  static std::string of(const ExecSpace& exec) { return Be::device_name(exec); }
};

// An entry's key in choices: role, tiles, per-thread (or per-warp) accumulators and micro-kernel, e.g.
// "small tiles 64x64x16/8x4 simt-lds128". Entries that share a configuration share a key (the fp64 small
// tiles under three conditions): the same kernels.
template <class ExecSpace, class T, class E>
std::string gemm_entry_key_of() {
  using Cfg = typename E::Cfg;
  std::string s = std::string(role_name(E::When::role)) + " " + std::to_string(Cfg::bm) + "x" +
                  std::to_string(Cfg::bn) + "x" + std::to_string(Cfg::bk) + "/" + std::to_string(Cfg::tm) +
                  "x" + std::to_string(Cfg::tn) + " ";
  return s + EntryMicroKernelName<Cfg>::get(Backend<ExecSpace, T>::micro_kernel_name);
}
// Entry `index` of ExecSpace's table for T; "" for an entry this build lacks. The keys are built once per
// table: a call whose class has a cached choice looks its entry up by key.
template <class ExecSpace, class T>
const std::string& gemm_entry_key(int index) {
  using L = GemmEntriesOf<ExecSpace, T>;
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k(L::size);
    for (int i = 0; i < L::size; ++i)
      L::visit(i, [&](auto e) { k[i] = gemm_entry_key_of<ExecSpace, T, decltype(e)>(); });
    return k;
  }();
  static const std::string none;
  return index >= 0 && index < L::size ? keys[index] : none;
}

// Whether entry `index` can run op(A) * op(B) as the operands are; where not, why (for the tuner's report).
template <class ExecSpace, class T>
bool gemm_entry_runs(int index, const Strided2D<const T>& a, const Strided2D<const T>& b,
                     std::string* why = nullptr) {
  using L = GemmEntriesOf<ExecSpace, T>;
  const auto no = [&](const std::string& reason) {
    if (why) *why = reason;
    return false;
  };
  if (index < 0 || index >= L::size || L::params(index).bm == 0) return no("not in this build");
  const GemmEntryParams p = L::params(index);
  const bool a_m = rows_contiguous(a), b_n = !rows_contiguous(b);
  const std::int64_t n = b.cols;
  constexpr bool kReal = std::is_same_v<T, float> || std::is_same_v<T, double>;
  if (p.role == GemmRole::tf32) return no("TF32 is the caller's permission (Math::allow_tf32), not a choice");
  if (multi_vector_role(p.role)) {
    if (!kReal) return no("multi-vector entries take float and double");
    if (n < 2 || n > p.bn) return no("takes 2 to " + std::to_string(p.bn) + " columns");
    if ((p.role == GemmRole::multi_vector) != a_m)
      return no(a_m ? "takes op(A) k-contiguous" : "takes op(A) rows-contiguous");
    return true;
  }
  if (p.role == GemmRole::in_place && !operands_have_unit_stride(a, b))
    return no("needs operands of unit stride along their contiguous index");
  if (p.needs_packets) {
    if (!operands_stage_in_packets(a, b)) return no("needs operands that stage in 16-byte packets");
    bool capable = true;
    L::visit(index, [&](auto e) {
      using E = decltype(e);
      if constexpr (E::When::needs_packets && E::When::role != GemmRole::tf32)
        capable = entry_vector_capable<ExecSpace, T, E>(a_m, b_n);
    });
    if (!capable) return no("its kernel stages this orientation without packets");
  }
  return true;
}

// Applies choice c to plan for op(A) * op(B); false (plan unchanged) where no entry of this build has c's
// key and runs these operands. "builtin" keeps the table's plan. Slices 0 keep the entry's own split and
// peel; 1 or more run the whole product in that many K slices (one where the workspace limit leaves no
// room for the partials, or where the entry stages all of K at once: single-stage host entries).
template <class ExecSpace, class T>
bool apply_tune_choice(GemmPlan& plan, const TuneChoice& c, const Strided2D<const T>& a,
                       const Strided2D<const T>& b, std::int64_t compute_units) {
  if (c.is_builtin()) return true;
  using L = GemmEntriesOf<ExecSpace, T>;
  const std::int64_t m = a.rows, n = b.cols, k = a.cols;
  for (int i = 0; i < L::size; ++i) {
    if (gemm_entry_key<ExecSpace, T>(i) != c.entry || !gemm_entry_runs<ExecSpace, T>(i, a, b)) continue;
    GemmPlan q;
    finish_plan<ExecSpace, T>(q, i, m, n, k, compute_units);
    if (c.slices > 0) {
      const GemmEntryParams p = L::params(i);
      const bool mv = multi_vector_role(p.role);
      q.peel = {};
      q.split = !mv && p.stages == 1 ? KSplit{1, k}
                                     : within_workspace(split_k(k, mv ? p.stages : p.bk, c.slices), m, n, k,
                                                        sizeof(AccumulatorType<T>));
      if (q.split.slices <= 1) q.split = KSplit{1, k};
    }
    plan = q;
    return true;
  }
  return false;
}

// The shape class of op(A) * op(B) with a beta that is zero or not.
template <class T>
ShapeClass call_shape_class(const Strided2D<const T>& a, const Strided2D<const T>& b, bool beta_zero) {
  return shape_class_of(a.rows, b.cols, a.cols, rows_contiguous(a), !rows_contiguous(b),
                        operands_stage_in_packets(a, b), beta_zero);
}

// The tune key of a call; beta_zero: its beta is zero.
template <class ExecSpace, class T>
TuneKey gemm_tune_key(const ExecSpace& exec, const Strided2D<const T>& a, const Strided2D<const T>& b,
                      bool beta_zero) {
  using Be = Backend<ExecSpace, T>;
  return TuneKey{TuneDeviceName<Be, ExecSpace>::of(exec), Be::name, tune_dtype_name<T>(),
                 to_string(call_shape_class(a, b, beta_zero))};
}

// The plan gemm runs for a call (allow_copies: a whole call, not a part or a copy of one; beta_zero: its beta
// is zero): the table's, then the thread's forced choice or the cache's for the call's key. TF32 calls keep
// the table's plan (the tuner measures exact arithmetic). tuned, if given, says which choice applied and from
// where. Without a cache file this costs one atomic load; with one, a key of a few short strings and a
// search of the cache's choices, against calls of 10 us and more on a GPU.
template <class ExecSpace, class T>
GemmPlan gemm_call_plan(const ExecSpace& exec, const Strided2D<const T>& a, const Strided2D<const T>& b,
                        bool tf32, bool allow_copies, bool beta_zero, std::string* tuned = nullptr) {
  GemmPlan plan = gemm_plan(exec, a, b, tf32, allow_copies);
  if constexpr (!is_complex_v<T>) {
    if (!allow_copies || plan.role == GemmRole::tf32) return plan;
    const TuneChoice* c = forced_gemm_choice();
    const bool forced = c != nullptr;
    if (!forced) {
      const TuneCache* cache = active_tune_cache();
      if (!cache) return plan;
      using Be = Backend<ExecSpace, T>;
      c = cache->find(TuneDeviceName<Be, ExecSpace>::of(exec), Be::name, tune_dtype_name<T>(),
                      call_shape_class(a, b, beta_zero));
    }
    if (c && !c->is_builtin() &&
        apply_tune_choice<ExecSpace, T>(plan, *c, a, b,
                                        ComputeUnits<Backend<ExecSpace, T>, ExecSpace>::of(exec)) &&
        tuned) {
      *tuned = (forced ? std::string("forced") : "tune cache " + tune_cache_path()) + ": " + describe(*c);
    }
  }
  return plan;
}

}  // namespace ridgeline::detail
