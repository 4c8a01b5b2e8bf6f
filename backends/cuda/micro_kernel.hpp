#pragma once
// CUDA fragment loads for the portable micro-kernel: a 16-byte fragment in scratch becomes one
// LDS.128 instead of four LDS.32, which is what keeps the fp32 8x8 micro-tile off the shared-memory
// bandwidth limit. Fragments are 16-byte aligned by construction (scratch_align, padded leading
// dimensions that are multiples of the fragment width).
#include <Kokkos_Core.hpp>

#include <ridgeline/detail/micro_tile.hpp>

namespace ridgeline::backends::cuda {

struct VectorFragmentLoad {
  template <int W, class T, class Acc>
  KOKKOS_FORCEINLINE_FUNCTION static void load(const T* p, Acc* out) {
#if defined(__CUDA_ARCH__)
    if constexpr (W * sizeof(T) == 16 && sizeof(T) == 4) {
      const float4 v = *reinterpret_cast<const float4*>(p);
      out[0] = v.x, out[1] = v.y, out[2] = v.z, out[3] = v.w;
      return;
    } else if constexpr (W * sizeof(T) == 16 && sizeof(T) == 8) {
      const double2 v = *reinterpret_cast<const double2*>(p);
      out[0] = v.x, out[1] = v.y;
      return;
    }
#endif
    detail::ScalarFragmentLoad::template load<W>(p, out);
  }
};

}  // namespace ridgeline::backends::cuda
