// A GEMM kernel that must spill, so that CI can show the code-object report's spill check failing
// (scripts/test.sh, step 4; docs/hip_code_objects.md, "CI checks"). Since the complex and small-matrix
// kernels stopped spilling, no library or test kernel does, and a check that is never seen to fail
// proves nothing. Built as an object for the HIP target only, never linked or run, and left out of the
// report that CI checks.
#include <Kokkos_Core.hpp>

// Only a HIP build of Kokkos has the execution space (the Kokkos 5 gate compiles every TU on the host).
#if defined(KOKKOS_ENABLE_HIP)
#include <ridgeline/detail/dispatch.hpp>

namespace ridgeline::test {

// 8 x 8 complex<double> sums per thread take the 256 architectural VGPRs of a gfx90a lane by themselves,
// before any fragment: the register allocator has to spill, whatever the compiler version.
struct SpillProbeTiles {
  static constexpr int bm = 128, bn = 128, bk = 4;
  static constexpr int tm = 8, tn = 8, fm = 1, fn = 1;
  static constexpr int pad_a = 1, pad_b = 1;
  static constexpr int team_size = 256, vector_length = 1, stages = 2, min_blocks = 1;
  static constexpr int scratch_level = 0, group_m = 8;
  static constexpr const char* micro_kernel_name = "portable-complex";
};

void launch_spill_probe(const Kokkos::Experimental::HIP& exec) {
  using T = Kokkos::complex<double>;
  const detail::Strided2D<const T> a{}, b{};
  const detail::Strided2D<T> c{};
  detail::launch_gemm<
      detail::GemmKernelFor<Kokkos::Experimental::HIP, SpillProbeTiles, T, true, false, false>>(
      exec, a, b, c, T(1), T(0), detail::KSplit{1, 0});
}

}  // namespace ridgeline::test
#endif
