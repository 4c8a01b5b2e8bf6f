// The HIP table's MFMA GEMM kernels, instantiated for the code-object report
// (scripts/hip_code_objects.py) and compiled for gfx90a and for the extra targets in
// RIDGELINE_HIP_REPORT_ARCHS (gfx940 by default: the nearest CDNA3 target that Debian's LLVM 15 accepts;
// MI300X is gfx942, which it does not know). Nothing calls this: no AMD GPU is lent. The test binaries
// hold every gfx90a instantiation; this object adds the other targets' code for each dtype's entry on the
// two orientations that matter most, NN and TN, staged in 16-byte packets (the table's packet role).
#include <Kokkos_Core.hpp>

// Only a HIP build of Kokkos has the execution space (the Kokkos 5 gate compiles every TU on the host).
#if defined(KOKKOS_ENABLE_HIP)
#include <ridgeline/backends/hip/tile_table.hpp>
#include <ridgeline/detail/dispatch.hpp>
#include <ridgeline/half.hpp>

namespace ridgeline::hip_report {

using Exec = Kokkos::Experimental::HIP;

template <class Cfg, class T, class TC>
void launch_nn_and_tn(const Exec& exec) {
  using Acc = detail::AccumulatorType<T>;
  const detail::Strided2D<const T> a{}, b{};
  const detail::Strided2D<TC> c{};
  const detail::KSplit one{1, 0};
  // kAFastM: op(A) m-contiguous (N); kBFastN false: op(B) k-contiguous (N).
  detail::launch_gemm<detail::GemmKernelFor<Exec, Cfg, T, true, false, true, TC>>(exec, a, b, c, Acc(1),
                                                                                  Acc(0), one);
  detail::launch_gemm<detail::GemmKernelFor<Exec, Cfg, T, false, false, true, TC>>(exec, a, b, c, Acc(1),
                                                                                   Acc(0), one);
}

void instantiate_mfma_kernels(const Exec& exec) {
  namespace rh = backends::hip;
  launch_nn_and_tn<rh::GemmTilesFp64Mfma, double, double>(exec);
  launch_nn_and_tn<rh::GemmTilesFp32Mfma, float, float>(exec);
  launch_nn_and_tn<rh::GemmTilesF16Mfma, half_t, float>(exec);
  launch_nn_and_tn<rh::GemmTilesBf16Mfma, bhalf_t, float>(exec);
}

}  // namespace ridgeline::hip_report
#endif
