#include "kokkos_kernels_baseline.hpp"

#include <KokkosBatched_Gemm_Decl.hpp>
#include <KokkosBatched_Gemm_Team_Impl.hpp>
#include <KokkosBlas2_gemv.hpp>
#include <KokkosBlas3_gemm.hpp>
#include <algorithm>
#include <type_traits>

namespace ridgeline_perf {

template <class Scalar>
void kokkos_kernels_gemm(const char* ta, const char* tb, Scalar alpha, const Matrix<Scalar>& a,
                         const Matrix<Scalar>& b, Scalar beta, const Matrix<Scalar>& c) {
  KokkosBlas::gemm(ta, tb, alpha, a, b, beta, c);
}

template <class Scalar>
void kokkos_kernels_gemv(const char* ta, Scalar alpha, const Matrix<Scalar>& a, const Vector<Scalar>& x,
                         Scalar beta, const Vector<Scalar>& y) {
  KokkosBlas::gemv(ta, alpha, a, x, beta, y);
}

namespace kk_batched {

using Policy = Kokkos::TeamPolicy<ExecSpace>;
using Member = Policy::member_type;

// One matrix per team: league rank g multiplies matrix g.
template <class TransA, class TransB, class Scalar>
struct TeamGemmPerMatrix {
  Batch<Scalar> a, b, c;
  Scalar alpha{}, beta{};

  KOKKOS_INLINE_FUNCTION void operator()(const Member& member) const {
    const int g = member.league_rank();
    const auto ag = Kokkos::subview(a, Kokkos::ALL(), Kokkos::ALL(), g);
    const auto bg = Kokkos::subview(b, Kokkos::ALL(), Kokkos::ALL(), g);
    const auto cg = Kokkos::subview(c, Kokkos::ALL(), Kokkos::ALL(), g);
    KokkosBatched::TeamGemm<Member, TransA, TransB, KokkosBatched::Algo::Gemm::Unblocked>::invoke(
        member, alpha, ag, bg, beta, cg);
  }
};

inline bool transposed(const char* t) {
  return t[0] == 'T' || t[0] == 't' || t[0] == 'C' || t[0] == 'c';
}

// Calls f with the functor of the transposes' TeamGemm (value-initialized; the caller fills it).
template <class Scalar, class F>
void with_functor(const char* ta, const char* tb, F&& f) {
  using N = KokkosBatched::Trans::NoTranspose;
  using T = KokkosBatched::Trans::Transpose;
  const bool at = transposed(ta), bt = transposed(tb);
  if (!at && !bt)
    f(TeamGemmPerMatrix<N, N, Scalar>{});
  else if (!at)
    f(TeamGemmPerMatrix<N, T, Scalar>{});
  else if (!bt)
    f(TeamGemmPerMatrix<T, N, Scalar>{});
  else
    f(TeamGemmPerMatrix<T, T, Scalar>{});
}

}  // namespace kk_batched

template <class Scalar>
int kokkos_kernels_gemm_batched_team_size(const char* ta, const char* tb, std::int64_t m, std::int64_t n,
                                          std::int64_t batch) {
  constexpr bool on_host = std::is_same<MemSpace, Kokkos::HostSpace>::value;
  int size = 1;
  kk_batched::with_functor<Scalar>(ta, tb, [&](auto f) {
    const kk_batched::Policy policy(int(batch), Kokkos::AUTO);
    if (on_host) {
      size = policy.team_size_recommended(f, Kokkos::ParallelForTag());
    } else {
      const int most = policy.team_size_max(f, Kokkos::ParallelForTag());
      size = int(std::min<std::int64_t>(std::max<std::int64_t>(m * n, 4), most));
    }
  });
  return std::max(size, 1);
}

std::string kokkos_kernels_gemm_batched_routine(const char* ta, const char* tb) {
  auto name = [](const char* t) {
    return kk_batched::transposed(t) ? "Trans::Transpose" : "Trans::NoTranspose";
  };
  return std::string("KokkosBatched::TeamGemm<member, ") + name(ta) + ", " + name(tb) +
         ", Algo::Gemm::Unblocked>";
}

template <class Scalar>
void kokkos_kernels_gemm_batched(const char* ta, const char* tb, Scalar alpha, const Batch<Scalar>& a,
                                 const Batch<Scalar>& b, Scalar beta, const Batch<Scalar>& c, int team_size) {
  kk_batched::with_functor<Scalar>(ta, tb, [&](auto f) {
    f.a = a, f.b = b, f.c = c, f.alpha = alpha, f.beta = beta;
    Kokkos::parallel_for("ridgeline_perf::kokkos_batched_team_gemm",
                         kk_batched::Policy(int(c.extent(2)), team_size), f);
  });
}

template void kokkos_kernels_gemm<float>(const char*, const char*, float, const Matrix<float>&,
                                         const Matrix<float>&, float, const Matrix<float>&);
template void kokkos_kernels_gemm<double>(const char*, const char*, double, const Matrix<double>&,
                                          const Matrix<double>&, double, const Matrix<double>&);
template void kokkos_kernels_gemv<float>(const char*, float, const Matrix<float>&, const Vector<float>&,
                                         float, const Vector<float>&);
template void kokkos_kernels_gemv<double>(const char*, double, const Matrix<double>&, const Vector<double>&,
                                          double, const Vector<double>&);
template int kokkos_kernels_gemm_batched_team_size<float>(const char*, const char*, std::int64_t,
                                                          std::int64_t, std::int64_t);
template int kokkos_kernels_gemm_batched_team_size<double>(const char*, const char*, std::int64_t,
                                                           std::int64_t, std::int64_t);
template void kokkos_kernels_gemm_batched<float>(const char*, const char*, float, const Batch<float>&,
                                                 const Batch<float>&, float, const Batch<float>&, int);
template void kokkos_kernels_gemm_batched<double>(const char*, const char*, double, const Batch<double>&,
                                                  const Batch<double>&, double, const Batch<double>&, int);

}  // namespace ridgeline_perf
