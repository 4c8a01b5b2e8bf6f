#pragma once
// ridgeline::tune_gemm: measures, on one GEMM shape, the table's own plan against every other plan this build
// can run it with, and says which is fastest. The candidates are the GEMM entries of the backend's table for
// the dtype (the configurations compiled into the library) that can run the shape's operands, each at its
// own plan's K split and peel and at the slice counts the backend lists (backends/<name>/tune_space.hpp; a
// request may give its own);
// an entry that cannot run the operands is reported with the reason, and one that the device rejects at
// launch (scratch, registers, team size) with the error it gave. Every candidate runs through ridgeline::gemm
// itself, its choice forced on the calling thread (ScopedGemmChoice), so what the tuner measures is what a
// cached choice runs.
//
// Measurement: A, B and C are filled at random from a seed (uniform in [-1, 1), never zeros), with the
// request's alpha and beta (tune with the beta the application calls with: beta = 0 and beta != 0 are
// different classes). Before every run, warm-up and timed alike, C is restored from a saved copy, so beta * C
// never compounds; before each timed run a buffer larger than the last-level cache is written, so that the
// run finds neither C nor its operands there. Each candidate's C is checked element by element against a
// double-precision reference after its first run and after its last timed run; a wrong result is rejected and
// its time never counts. Times are medians of `reps` runs, each fenced on both sides.
//
// The reference: ridgeline::gemm in double on double copies of the operands (the table's plan, the cache
// ignored), checked on the host at 64 random elements against sums in long double. Per element the
// tolerance is 2 (K + 2) eps (|alpha| (|op(A)| |op(B)|)_ij + |beta C_ij|) with eps the dtype's unit
// roundoff: twice the worst-case bound of a K-term sum in any order.
//
// tune_gemm never writes the cache; `ridgeline tune` does, with the outcome's choice.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "ridgeline/gemm.hpp"
#include "ridgeline/tune_cache.hpp"
#include "ridgeline/tune_result.hpp"

namespace ridgeline {

namespace detail {

// Uniform in [-1, 1) from the element's (i, j) and a seed (splitmix64): the same values on every backend.
KOKKOS_INLINE_FUNCTION double tune_random(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + i + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return double(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

template <class ExecSpace, class V>
void tune_fill(const ExecSpace& exec, const V& v, std::uint64_t seed) {
  using T = typename V::value_type;
  const std::int64_t rows = v.extent(0);
  Kokkos::parallel_for(
      "ridgeline::tune fill",
      Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>(
          exec, {0, 0}, {std::int64_t(v.extent(0)), std::int64_t(v.extent(1))}),
      KOKKOS_LAMBDA(const std::int64_t i, const std::int64_t j) {
        v(i, j) = static_cast<T>(tune_random(seed, std::uint64_t(i + j * rows)));
      });
}

// d = x (abs: |x|), converting to d's type.
template <class ExecSpace, class D, class X>
void tune_convert(const ExecSpace& exec, const D& d, const X& x, bool abs) {
  using R = typename D::value_type;
  Kokkos::parallel_for(
      "ridgeline::tune convert",
      Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>(
          exec, {0, 0}, {std::int64_t(x.extent(0)), std::int64_t(x.extent(1))}),
      KOKKOS_LAMBDA(const std::int64_t i, const std::int64_t j) {
        const R v = static_cast<R>(x(i, j));
        d(i, j) = abs ? (v < R(0) ? -v : v) : v;
      });
}

// The largest |c - ref| / tol over the elements (a NaN or infinity counts as 1e300).
template <class ExecSpace, class CV, class RV>
double tune_worst_error(const ExecSpace& exec, const CV& c, const RV& ref, const RV& tol) {
  double worst = 0.0;
  Kokkos::parallel_reduce(
      "ridgeline::tune check",
      Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>(
          exec, {0, 0}, {std::int64_t(c.extent(0)), std::int64_t(c.extent(1))}),
      KOKKOS_LAMBDA(const std::int64_t i, const std::int64_t j, double& w) {
        const double d = static_cast<double>(c(i, j)) - ref(i, j);
        double e = (d < 0 ? -d : d) / tol(i, j);
        if (!(e <= 1e300)) e = 1e300;
        if (e > w) w = e;
      },
      Kokkos::Max<double>(worst));
  exec.fence();
  return worst;
}

struct NoFlush {
  void operator()() const {}
};

// One candidate: run() computes C = alpha op(A) op(B) + beta C. Before every run, warm-up and timed, C is
// restored from c0 (restore = false only in tests, to show that the check then catches the compounding),
// and flush() runs between the restore and each timed run (untimed). C is checked against ref within tol
// after the first run and after the last timed run; a candidate that fails either check, or throws, is
// rejected, with the reason.
template <class ExecSpace, class CV, class RV, class Run, class Flush = NoFlush>
TuneCandidateResult measure_tune_candidate(const ExecSpace& exec, Run&& run, const CV& c, const CV& c0,
                                           const RV& ref, const RV& tol, int warmup, int reps,
                                           bool restore = true, const Flush& flush = {}) {
  TuneCandidateResult r;
  const auto check = [&](const char* when) {
    r.worst_error = std::max(r.worst_error, tune_worst_error(exec, c, ref, tol));
    if (r.worst_error <= 1.0) return true;
    r.rejected = std::string("wrong result ") + when + ": an element is " + std::to_string(r.worst_error) +
                 " times its tolerance from the reference";
    return false;
  };
  try {
    for (int i = 0; i < std::max(1, warmup); ++i) {
      if (restore) Kokkos::deep_copy(exec, c, c0);
      run();
      exec.fence();
      if (i == 0 && !check("after its first run")) return r;
    }
    std::vector<double> t;
    for (int i = 0; i < std::max(1, reps); ++i) {
      if (restore) Kokkos::deep_copy(exec, c, c0);
      flush();
      exec.fence();
      Kokkos::Timer timer;
      run();
      exec.fence();
      t.push_back(timer.seconds() * 1e3);
    }
    if (!check("after its timed runs")) return r;
    std::sort(t.begin(), t.end());
    r.median_ms = t.size() % 2 ? t[t.size() / 2] : 0.5 * (t[t.size() / 2 - 1] + t[t.size() / 2]);
    r.min_ms = t.front(), r.max_ms = t.back();
    r.accepted = true;
  } catch (const std::exception& e) {
    r.rejected = e.what();
  }
  return r;
}

// "entry, 2 K slices, peeled to 4096x4096" for a plan of ExecSpace's table for T.
template <class ExecSpace, class T>
std::string describe_tune_plan(const GemmPlan& p) {
  std::string s = gemm_entry_key<ExecSpace, T>(p.entry) + ", " + std::to_string(p.split.slices) + " K slice" +
                  (p.split.slices == 1 ? "" : "s");
  if (p.peel.m0 > 0) s += ", peeled to " + std::to_string(p.peel.m0) + "x" + std::to_string(p.peel.n0);
  if (p.copies_aligned()) s += std::string(", ") + aligned_copies_name(p) + " copied aligned";
  if (p.transposed) s += ", transposed";
  return s;
}

inline bool same_plan(const GemmPlan& x, const GemmPlan& y) {
  return x.entry == y.entry && x.split.slices == y.split.slices && x.peel.m0 == y.peel.m0 &&
         x.peel.n0 == y.peel.n0 && x.copy_a_aligned == y.copy_a_aligned &&
         x.copy_b_aligned == y.copy_b_aligned && x.transposed == y.transposed;
}

template <class Be, class = void>
struct TuneSlices {
  static std::vector<int> get() { return {}; }
};
template <class Be>
struct TuneSlices<Be, std::void_t<decltype(Be::tune_space::slices)>> {
  static std::vector<int> get() {
    return std::vector<int>(std::begin(Be::tune_space::slices), std::end(Be::tune_space::slices));
  }
};

}  // namespace detail

// Tunes one shape on exec's device (Kokkos initialized); float and double products.
template <class ExecSpace, class T>
TuneOutcome tune_gemm(const ExecSpace& exec, const TuneRequest& rq) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "ridgeline::tune_gemm: float or double");
  using Mem = typename ExecSpace::memory_space;
  using M = Kokkos::View<T**, Kokkos::LayoutLeft, Mem>;
  using MD = Kokkos::View<double**, Kokkos::LayoutLeft, Mem>;
  const auto is_trans = [](char t, const char* which) {
    if (t == 'N' || t == 'n') return false;
    if (t == 'T' || t == 't') return true;
    throw std::invalid_argument(std::string("ridgeline::tune_gemm: ") + which + " must be N or T, not '" + t +
                                "'");
  };
  const bool ta = is_trans(rq.trans_a, "trans_a"), tb = is_trans(rq.trans_b, "trans_b");
  const std::int64_t m = rq.m, n = rq.n, k = rq.k;
  const std::string shape = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " " +
                            (ta ? "T" : "N") + (tb ? "T" : "N");
  if (m < 1 || n < 2 || k < 1)
    throw std::invalid_argument("ridgeline::tune_gemm: " + shape +
                                ": M and K must be at least 1 and N at least 2 (one column is a GEMV)");
  if (rq.reps < 1 || rq.warmup < 0)
    throw std::invalid_argument("ridgeline::tune_gemm: reps >= 1, warmup >= 0");
  const char* tra = ta ? "T" : "N";
  const char* trb = tb ? "T" : "N";

  M A("ridgeline::tune A", ta ? k : m, ta ? m : k), B("ridgeline::tune B", tb ? n : k, tb ? k : n);
  M C("ridgeline::tune C", m, n), C0("ridgeline::tune C0", m, n);
  detail::tune_fill(exec, A, rq.seed), detail::tune_fill(exec, B, rq.seed + 1),
      detail::tune_fill(exec, C0, rq.seed + 2);

  // The reference and the tolerance, in double.
  MD ref("ridgeline::tune reference", m, n), tol("ridgeline::tune tolerance", m, n);
  {
    MD Ad("ridgeline::tune A (double)", A.extent(0), A.extent(1)),
        Bd("ridgeline::tune B (double)", B.extent(0), B.extent(1));
    const TuneChoice table{};  // "builtin": the table's plan, whatever the cache says
    const detail::ScopedGemmChoice scope(table);
    detail::tune_convert(exec, Ad, A, false), detail::tune_convert(exec, Bd, B, false);
    detail::tune_convert(exec, ref, C0, false);
    gemm(exec, tra, trb, rq.alpha, Ad, Bd, rq.beta, ref);
    // Check the reference on the host at 64 elements, in long double.
    exec.fence();
    const auto hA = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Ad);
    const auto hB = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Bd);
    const auto hC0 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C0);
    const auto hR = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ref);
    for (int s = 0; s < 64; ++s) {
      const auto pick = [&](std::int64_t extent, int salt) {
        const double u = 0.5 * (detail::tune_random(rq.seed + 7 + salt, std::uint64_t(s)) + 1.0);
        return std::min<std::int64_t>(extent - 1, std::int64_t(u * double(extent)));
      };
      const std::int64_t i = pick(m, 0), j = pick(n, 1);
      long double sum = 0, mag = 0;
      for (std::int64_t p = 0; p < k; ++p) {
        const long double x = ta ? hA(p, i) : hA(i, p), y = tb ? hB(j, p) : hB(p, j);
        sum += x * y, mag += std::fabs(x * y);
      }
      const long double want = rq.alpha * sum + rq.beta * static_cast<long double>(hC0(i, j));
      const long double bound = 2.0L * (k + 2) * std::numeric_limits<double>::epsilon() *
                                (std::fabs(rq.alpha) * mag + std::fabs(rq.beta * hC0(i, j)));
      if (std::fabs(want - hR(i, j)) > bound)
        throw std::logic_error("ridgeline::tune_gemm: " + shape + ": the double reference is wrong at (" +
                               std::to_string(i) + ", " + std::to_string(j) + ")");
    }
    // |alpha| |op(A)| |op(B)| + |beta C0|, scaled by the bound.
    detail::tune_convert(exec, Ad, A, true), detail::tune_convert(exec, Bd, B, true);
    detail::tune_convert(exec, tol, C0, true);
    gemm(exec, tra, trb, std::fabs(rq.alpha), Ad, Bd, std::fabs(rq.beta), tol);
    // 2 (K + 2) u, u the unit roundoff: epsilon / 2.
    const double scale = double(k + 2) * double(std::numeric_limits<T>::epsilon());
    Kokkos::parallel_for(
        "ridgeline::tune tolerance",
        Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>(exec, {0, 0}, {std::int64_t(m), std::int64_t(n)}),
        KOKKOS_LAMBDA(const std::int64_t i, const std::int64_t j) {
          tol(i, j) = tol(i, j) * scale + 1e-300;
        });
  }

  // The candidates: the table's plan, then every entry that runs these operands at its own plan and at
  // the backend's slice counts, each distinct plan once.
  const auto a = detail::as_const(detail::strided_op(A, ta ? detail::Trans::T : detail::Trans::N));
  const auto b = detail::as_const(detail::strided_op(B, tb ? detail::Trans::T : detail::Trans::N));
  using L = detail::GemmEntriesOf<ExecSpace, T>;
  const std::int64_t cu = detail::ComputeUnits<detail::Backend<ExecSpace, T>, ExecSpace>::of(exec);
  const detail::GemmPlan table_plan = detail::gemm_plan(exec, a, b);
  TuneOutcome out;
  out.key = detail::gemm_tune_key(exec, a, b, rq.beta == 0.0);
  out.shape = shape;
  struct Pending {
    TuneChoice choice;
    std::string plan, why_not;
  };
  std::vector<Pending> pending{
      {TuneChoice{}, "table: " + detail::describe_tune_plan<ExecSpace, T>(table_plan), ""}};
  std::vector<detail::GemmPlan> plans{table_plan};
  std::vector<std::string> keys;
  for (int i = 0; i < L::size; ++i) {
    const std::string& key = detail::gemm_entry_key<ExecSpace, T>(i);
    if (key.empty() || std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
    keys.push_back(key);
    // apply_tune_choice takes the first entry of the key that runs the operands (the same tiles may stage
    // packets or elements); where none does, the reason is the first one's.
    detail::GemmPlan probe = table_plan;
    if (!detail::apply_tune_choice<ExecSpace, T>(probe, TuneChoice{key, 0}, a, b, cu)) {
      std::string why;
      detail::gemm_entry_runs<ExecSpace, T>(i, a, b, &why);
      pending.push_back({TuneChoice{key, 0}, key, why});
      continue;
    }
    std::vector<int> counts{0};
    for (int s : rq.slices.empty() ? detail::TuneSlices<detail::Backend<ExecSpace, T>>::get() : rq.slices)
      if (s > 0) counts.push_back(s);
    for (int s : counts) {
      TuneChoice c;
      c.entry = key, c.slices = s;
      detail::GemmPlan p = table_plan;
      if (!detail::apply_tune_choice<ExecSpace, T>(p, c, a, b, cu)) continue;
      if (std::any_of(plans.begin(), plans.end(),
                      [&](const detail::GemmPlan& q) { return detail::same_plan(p, q); }))
        continue;
      plans.push_back(p);
      pending.push_back({c, detail::describe_tune_plan<ExecSpace, T>(p), ""});
    }
  }

  // What evicts the last-level cache before each timed run (TuneRequest::flush_bytes).
  constexpr bool kHost = Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible;
  const std::int64_t flush_bytes = rq.flush_bytes < 0   ? 0
                                   : rq.flush_bytes > 0 ? rq.flush_bytes
                                                        : (std::int64_t(kHost ? 64 : 256) << 20);
  const Kokkos::View<double*, Mem> flush_buffer("ridgeline::tune flush", std::size_t(flush_bytes / 8));
  double pass = 0;
  const auto flush = [&] {
    if (flush_buffer.extent(0) > 0) Kokkos::deep_copy(exec, flush_buffer, pass += 1);
  };
  for (const Pending& p : pending) {
    TuneCandidateResult r;
    if (!p.why_not.empty()) {
      r.choice = p.choice, r.plan = p.plan, r.rejected = "cannot run these operands: " + p.why_not;
    } else {
      const detail::ScopedGemmChoice scope(p.choice);
      r = detail::measure_tune_candidate(
          exec, [&] { gemm(exec, tra, trb, static_cast<T>(rq.alpha), A, B, static_cast<T>(rq.beta), C); }, C,
          C0, ref, tol, rq.warmup, rq.reps, true, flush);
      r.choice = p.choice, r.plan = p.plan;
    }
    out.candidates.push_back(r);
  }
  if (!out.candidates[0].accepted)
    throw std::logic_error("ridgeline::tune_gemm: " + shape + ": the table's own plan (" +
                           out.candidates[0].plan + ") failed: " + out.candidates[0].rejected);
  for (int i = 1; i < int(out.candidates.size()); ++i)
    if (out.candidates[i].accepted && out.candidates[i].median_ms < out.candidates[out.best].median_ms)
      out.best = i;
  const TuneCandidateResult& base = out.candidates[0];
  const TuneCandidateResult& best = out.candidates[out.best];
  out.gain = base.median_ms / best.median_ms;
  out.choice = out.gain >= rq.min_gain ? best.choice : TuneChoice{};
  if (out.choice.is_builtin()) out.gain = 1.0;
  out.choice.builtin = base.plan;
  out.choice.builtin_ms = base.median_ms;
  out.choice.tuned_ms = out.choice.is_builtin() ? base.median_ms : best.median_ms;
  out.choice.shape = shape;
  return out;
}

}  // namespace ridgeline
