// ridgeline::team_gemm inside a user's own kernel: element stiffness matrices of a 1-D mesh of
// high-order elements, K_e = w_e * G_e^T G_e, where G_e (quadrature points x basis functions) is built
// by the kernel in its own team scratch. team_gemm forms G_e^T G_e; the kernel then applies its own
// epilogue (the element weight, and the row sums it needs for a lumped mass-like check) and writes
// K_e. Checked against a host loop.
#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdio>
#include <ridgeline/ridgeline.hpp>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const int elements = 2000, q = 12, p = 9;  // quadrature points, basis functions per element
  using Exec = Kokkos::DefaultExecutionSpace;
  // team_gemm's staged form: teams of the size it names, its launch bounds, and its scratch granted after
  // the kernel's own. Where the build has no staged form for double, staged is false, team_size 0 and
  // scratch_bytes 0, and team_gemm runs its unstaged form on any team.
  using Staging = ridgeline::TeamGemmStaging<double, Exec>;
  using Member = Staging::policy_type::member_type;
  using Scratch = Kokkos::View<double**, Kokkos::LayoutLeft, Exec::scratch_memory_space,
                               Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Kokkos::View<double***, Kokkos::LayoutRight> K("K", elements, p, p);  // one p x p matrix per element
  Kokkos::View<double**, Kokkos::LayoutRight> row_sums("row_sums", elements, p);

  // The kernel's scratch: G_e and the product, then the span granted to team_gemm.
  constexpr std::size_t granted = Staging::scratch_bytes;
  const std::size_t own = Scratch::shmem_size(q, p) + Scratch::shmem_size(p, p);
  if (own > Staging::own_bytes_max()) {  // Kokkos would refuse the launch: what is left beside the span
    std::fprintf(stderr, "team_gemm example: %zu bytes of own scratch, at most %zu beside team_gemm's span\n",
                 own, Staging::own_bytes_max());
    return 1;
  }
  Kokkos::parallel_for(
      "element matrices", Staging::policy(Exec(), elements, own), KOKKOS_LAMBDA(const Member& team) {
        const int e = team.league_rank();
        Scratch G(team.team_scratch(0), q, p), P(team.team_scratch(0), p, p);
        void* span = granted > 0 ? team.team_scratch(0).get_shmem(granted) : nullptr;
        // G_e(i, j): basis function j's derivative at quadrature point i of element e (a stand-in).
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, q * p), [&](int t) {
          const int i = t % q, j = t / q;
          G(i, j) = std::cos(0.3 * (i + 1) * (j + 1) + 0.001 * e);
        });
        ridgeline::team_gemm(team, 'T', 'N', 1.0, G, G, 0.0, P, span, granted);  // P = G^T G; barriers inside
        // The user's epilogue: the element weight, and row sums.
        const double w = 1.0 / (1.0 + e);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, p), [&](int i) {
          double s = 0;
          for (int j = 0; j < p; ++j) {
            K(e, i, j) = w * P(i, j);
            s += w * P(i, j);
          }
          row_sums(e, i) = s;
        });
      });

  auto k = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), K);
  auto r = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), row_sums);
  double worst = 0;
  for (int e = 0; e < elements; ++e) {
    const double w = 1.0 / (1.0 + e);
    for (int i = 0; i < p; ++i) {
      double s = 0;
      for (int j = 0; j < p; ++j) {
        double g = 0;
        for (int l = 0; l < q; ++l)
          g += std::cos(0.3 * (l + 1) * (i + 1) + 0.001 * e) * std::cos(0.3 * (l + 1) * (j + 1) + 0.001 * e);
        worst = std::fmax(worst, std::fabs(w * g - k(e, i, j)));
        s += w * g;
      }
      worst = std::fmax(worst, std::fabs(s - r(e, i)));
    }
  }
  std::printf("ridgeline %s, team_gemm on %d element matrices (%dx%dx%d), max abs error %.3g\n",
              ridgeline::version().c_str(), elements, p, p, q, worst);
  return worst < 1e-12 ? 0 : 1;
}
