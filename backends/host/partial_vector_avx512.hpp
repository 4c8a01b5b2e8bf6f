#pragma once
// The first n lanes of a vector (0 < n < W), from memory and to it, for the last micro-panel of a host
// micro-kernel whose rows end inside a vector: with AVX-512, one masked move, lanes past n neither read
// nor written; without it, lane by lane. The lane-by-lane form read the accumulators back from the stack
// one element at a time: a 16 x 16 fp32 product spent most of its 0.71 us in that epilogue
// (perf/results/2026-12-05-host-392b4d7/: 0.42 -> 0.25 us).
#include <type_traits>
// The masked moves are the host compiler's only: device compilers (nvcc, hipcc) that include the host
// backend get the lane-by-lane form, as they get the portable micro-kernel (micro_kernel.hpp).
#if defined(__AVX512F__) && !defined(__CUDACC__) && !defined(__HIPCC__)
#define RIDGELINE_HOST_MASKED_MOVES 1
#include <immintrin.h>
#endif

namespace ridgeline::backends::host {

template <class Vec, class T>
inline Vec load_vec_first(const T* p, int n) {
#if defined(RIDGELINE_HOST_MASKED_MOVES)
  if constexpr (sizeof(Vec) == 64 && std::is_same_v<T, float>)
    return reinterpret_cast<Vec>(_mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << n) - 1), p));
  if constexpr (sizeof(Vec) == 64 && std::is_same_v<T, double>)
    return reinterpret_cast<Vec>(_mm512_maskz_loadu_pd(static_cast<__mmask8>((1u << n) - 1), p));
#endif
  Vec r{};
  for (int i = 0; i < n; ++i) r[i] = p[i];
  return r;
}

template <class Vec, class T>
inline void store_vec_first(T* p, const Vec& v, int n) {
#if defined(RIDGELINE_HOST_MASKED_MOVES)
  if constexpr (sizeof(Vec) == 64 && std::is_same_v<T, float>) {
    _mm512_mask_storeu_ps(p, static_cast<__mmask16>((1u << n) - 1), reinterpret_cast<__m512>(v));
    return;
  }
  if constexpr (sizeof(Vec) == 64 && std::is_same_v<T, double>) {
    _mm512_mask_storeu_pd(p, static_cast<__mmask8>((1u << n) - 1), reinterpret_cast<__m512d>(v));
    return;
  }
#endif
  for (int i = 0; i < n; ++i) p[i] = v[i];
}

}  // namespace ridgeline::backends::host
