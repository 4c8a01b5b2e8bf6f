#pragma once
// GEMM and GEMV dispatch for the build's own execution space are compiled once, into the Ridgeline library
// (src/ridgeline/instances_*.cpp), and every other translation unit that calls gemm or gemv links them
// instead of compiling them again. Why: a dispatch instantiates every kernel of the backend's table for every
// operand orientation (one call of each dtype: 165 CPU s through nvcc, measured 2026-12-02), and the tests,
// the perf suite, the BLAS and C libraries and an application's own files each did it again; CI compiled
// those kernels about twenty times.
//
// Which calls: gemm_dispatch, gemv_dispatch and gemm_batched_dispatch, the functions every public gemm, gemv
// and batched call reaches after validation, for InstanceSpace (below) and the element types of
// RIDGELINE_DISPATCH_INSTANCES. Any other execution space or type (Kokkos::Serial in a host build, a user's
// own scalar) is compiled where it is called, as before; so is everything in a build configured with
// -DRIDGELINE_DISPATCH_INSTANCES=OFF (config.hpp: RIDGELINE_INSTANCES_IN_LIBRARY 0), which pays where few
// files call gemm (CI's HIP step). Explicit instantiation, declared here and defined there, is the
// standard C++ mechanism; the list of types is one X-list, not a macro per kernel. In a build through the
// sm_90a route the wgmma kernels that the 16-bit dispatch launches are wgmma_instances_sm90a.cpp's, so these
// files' PTX holds no wgmma and they keep CUDA 11.8's ptxas (backends/cuda/wgmma_instances_sm90a.hpp says why
// that matters). dispatch.hpp includes this at its end, after the definitions and before any caller
// instantiates them.
#include <Kokkos_Complex.hpp>
#include <Kokkos_Core.hpp>
#include <ridgeline/config.hpp>

#include "ridgeline/detail/compat.hpp"
#include "ridgeline/detail/dispatch.hpp"
#include "ridgeline/half.hpp"

namespace ridgeline::detail {

// The execution space whose dispatch the library holds: the device's in a device build, else OpenMP's.
#if !RIDGELINE_INSTANCES_IN_LIBRARY
#define RIDGELINE_HAVE_DISPATCH_INSTANCES 0
#elif defined(KOKKOS_ENABLE_CUDA)
#define RIDGELINE_HAVE_DISPATCH_INSTANCES 1
using InstanceSpace = Kokkos::Cuda;
#elif defined(KOKKOS_ENABLE_HIP)
#define RIDGELINE_HAVE_DISPATCH_INSTANCES 1
using InstanceSpace = compat::HipSpace;
#elif defined(KOKKOS_ENABLE_OPENMP)
#define RIDGELINE_HAVE_DISPATCH_INSTANCES 1
using InstanceSpace = Kokkos::OpenMP;
#else
#define RIDGELINE_HAVE_DISPATCH_INSTANCES 0
#endif

#if RIDGELINE_HAVE_DISPATCH_INSTANCES
// X(T, TC): A and B hold T, C (or y) holds TC; the public API's every pair. Each pair's definitions are a
// file of their own (src/ridgeline/instances_<pair>.cpp) so that the library's objects build in parallel:
// the 16-bit pairs are the costly ones on the host (239 CPU s for the four in one file, against 63 s for
// float and double together; g++ -O3, 2026-12-02).
// clang-format off
// gemm_batched_dispatch (gemm_batched, gemv_batched, gemm_grouped's lone products) takes the real and 16-bit
// pairs; its declarations follow its definition, at the end of dispatch_batched.hpp.
#define RIDGELINE_BATCHED_DISPATCH_INSTANCES(X) \
  X(float, float) X(double, double) X(half_t, half_t) X(half_t, float) X(bhalf_t, bhalf_t) X(bhalf_t, float)
// gemm_dispatch and gemv_dispatch take those and the complex pairs.
#define RIDGELINE_DISPATCH_INSTANCES(X)     \
  RIDGELINE_BATCHED_DISPATCH_INSTANCES(X) \
  X(Kokkos::complex<float>, Kokkos::complex<float>) X(Kokkos::complex<double>, Kokkos::complex<double>)
// clang-format on

// One pair's two functions; `prefix` is `extern template` (here) or `template` (the library).
#define RIDGELINE_DISPATCH_OF(prefix, T, TC)                                                           \
  prefix void gemm_dispatch<InstanceSpace, T, TC>(const InstanceSpace&, const Strided2D<const T>&,     \
                                                  const Strided2D<const T>&, const Strided2D<TC>&,     \
                                                  AccumulatorType<T>, AccumulatorType<T>, bool, bool); \
  prefix void gemv_dispatch<InstanceSpace, T, TC>(const InstanceSpace&, const Strided2D<const T>&,     \
                                                  const Strided1D<const T>&, const Strided1D<TC>&,     \
                                                  AccumulatorType<T>, AccumulatorType<T>);
#define RIDGELINE_BATCHED_DISPATCH_OF(prefix, T, TC)                                    \
  prefix void gemm_batched_dispatch<InstanceSpace, T, TC>(                              \
      const InstanceSpace&, const StridedBatch<const T>&, const StridedBatch<const T>&, \
      const StridedBatch<TC>&, AccumulatorType<T>, AccumulatorType<T>);
#define RIDGELINE_DISPATCH_EXTERN(T, TC) RIDGELINE_DISPATCH_OF(extern template, T, TC)
RIDGELINE_DISPATCH_INSTANCES(RIDGELINE_DISPATCH_EXTERN)
#undef RIDGELINE_DISPATCH_EXTERN
#endif

}  // namespace ridgeline::detail
