// C = A * B on the default Kokkos execution space, checked against a host loop.
#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdio>
#include <ridgeline/ridgeline.hpp>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const int m = 300, n = 200, k = 150;
  Kokkos::View<double**, Kokkos::LayoutLeft> A("A", m, k), B("B", k, n), C("C", m, n);
  auto a = Kokkos::create_mirror_view(A);
  auto b = Kokkos::create_mirror_view(B);
  for (int i = 0; i < m; ++i)
    for (int p = 0; p < k; ++p) a(i, p) = std::sin(i + 2.0 * p);
  for (int p = 0; p < k; ++p)
    for (int j = 0; j < n; ++j) b(p, j) = std::cos(p - 3.0 * j);
  Kokkos::deep_copy(A, a);
  Kokkos::deep_copy(B, b);

  ridgeline::gemm("N", "N", 1.0, A, B, 0.0, C);  // C = 1.0 * A * B + 0.0 * C

  auto c = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C);
  double worst = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int p = 0; p < k; ++p) s += a(i, p) * b(p, j);
      worst = std::fmax(worst, std::fabs(s - c(i, j)));
    }
  std::printf("ridgeline %s, %dx%dx%d gemm, max abs error %.3g\n", ridgeline::version().c_str(), m, n, k,
              worst);
  return worst < 1e-10 ? 0 : 1;
}
