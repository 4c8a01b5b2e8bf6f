#pragma once
// The one place where Kokkos 3.4 and Kokkos 4.x/5.x differ for Ridgeline. Each branch says why.
#include <Kokkos_Core.hpp>
#include <type_traits>
#include <utility>

namespace ridgeline::detail::compat {

// View::rank is an enum in 3.x (not callable), an integral_constant in 4.x (callable) and a static
// member function of the mdspan-based View in 5.x (not a constant without the call).
template <class V>
KOKKOS_INLINE_FUNCTION constexpr int view_rank() {
#if KOKKOS_VERSION >= 40000
  return static_cast<int>(V::rank());
#else
  return static_cast<int>(V::rank);
#endif
}

// HIP left the Experimental namespace in Kokkos 4.0.
#if defined(KOKKOS_ENABLE_HIP)
#if KOKKOS_VERSION >= 40000
using HipSpace = Kokkos::HIP;
#else
using HipSpace = Kokkos::Experimental::HIP;
#endif
#endif

// Vector lanes of the calling team thread (a TeamPolicy's vector length): CUDA and HIP put them on
// blockDim.x (Kokkos's team layout); the host backends run a thread's lanes in one thread.
KOKKOS_INLINE_FUNCTION int team_vector_lanes() {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return static_cast<int>(blockDim.x);
#else
  return 1;
#endif
}

}  // namespace ridgeline::detail::compat

// Full unrolling of loops with compile-time trip counts keeps register arrays in registers: a
// run-time index would move the micro-tile to local memory on GPUs and to the stack on CPUs.
#if defined(__CUDACC__) || defined(__HIPCC__)
#define RIDGELINE_UNROLL _Pragma("unroll")
#elif defined(__clang__)
#define RIDGELINE_UNROLL _Pragma("clang loop unroll(full)")
#elif defined(__GNUC__)
#define RIDGELINE_UNROLL _Pragma("GCC unroll 64")
#else
#define RIDGELINE_UNROLL
#endif

// Unrolled on GPUs only: the K step of a host tile is hundreds deep, and fully unrolling it only
// grows code there.
#if defined(__CUDACC__) || defined(__HIPCC__)
#define RIDGELINE_UNROLL_DEVICE _Pragma("unroll")
#else
#define RIDGELINE_UNROLL_DEVICE
#endif

namespace ridgeline::detail {
// f(std::integral_constant<int, i>{}) for i = 0 .. N-1, unrolled by the language rather than by the
// compiler's heuristics: nvcc leaves a #pragma unroll loop rolled when its unrolled body grows past a
// budget (the epilogue of a 128-accumulator tensor-core tile did), and a rolled loop indexes the
// accumulator array at run time, which moves it to local memory.
template <class F, int... I>
KOKKOS_FORCEINLINE_FUNCTION void static_for_impl(F&& f, std::integer_sequence<int, I...>) {
  (f(std::integral_constant<int, I>{}), ...);
}
template <int N, class F>
KOKKOS_FORCEINLINE_FUNCTION void static_for(F&& f) {
  static_for_impl(f, std::make_integer_sequence<int, N>{});
}
}  // namespace ridgeline::detail
