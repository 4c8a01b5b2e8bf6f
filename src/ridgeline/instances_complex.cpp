// The library's gemm_dispatch and gemv_dispatch for Kokkos::complex<float> and Kokkos::complex<double> on the
// build's execution space (src/ridgeline/detail/instances.hpp says why they live here). Empty in a build
// without one.
#include <ridgeline/gemm.hpp>
#include <ridgeline/gemv.hpp>

#if RIDGELINE_HAVE_DISPATCH_INSTANCES
namespace ridgeline::detail {
RIDGELINE_DISPATCH_OF(template, Kokkos::complex<float>, Kokkos::complex<float>)
RIDGELINE_DISPATCH_OF(template, Kokkos::complex<double>, Kokkos::complex<double>)
}  // namespace ridgeline::detail
#endif
