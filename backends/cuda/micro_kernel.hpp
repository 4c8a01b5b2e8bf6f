#pragma once
// CUDA scratch access for the portable micro-kernel.
//
// Kokkos hands team scratch out as a generic pointer, so plain C++ accesses compile to generic
// LD.E/ST.E, which pay an address-space check and cannot issue as shared-memory instructions.
// These hooks convert the pointer to a shared-window address once and use ld.shared/st.shared
// directly; a 16-byte fragment is one LDS.128, which keeps the fp32 8x8 micro-tile off the
// shared-memory issue limit. Fragments are 16-byte aligned by construction (scratch_align, and
// leading dimensions padded to a multiple of the fragment width).
// The asm is volatile so that no load or store moves across the team barriers around it; ptxas
// still schedules the arithmetic around them.
#include <Kokkos_Core.hpp>
#include <ridgeline/detail/micro_tile.hpp>

namespace ridgeline::backends::cuda {

struct SharedScratchAccess {
  template <int W, class T, class Acc>
  KOKKOS_FORCEINLINE_FUNCTION static void load(const T* p, Acc* out) {
#if defined(__CUDA_ARCH__)
    const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(p));
    if constexpr (sizeof(T) == 4 && W % 4 == 0) {
      RIDGELINE_UNROLL
      for (int e = 0; e < W; e += 4) {
        float x, y, z, w;
        asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
                     : "=f"(x), "=f"(y), "=f"(z), "=f"(w)
                     : "r"(s + 4u * e));
        out[e] = x, out[e + 1] = y, out[e + 2] = z, out[e + 3] = w;
      }
      return;
    } else if constexpr (sizeof(T) == 8 && W % 2 == 0) {
      RIDGELINE_UNROLL
      for (int e = 0; e < W; e += 2) {
        double x, y;
        asm volatile("ld.shared.v2.f64 {%0, %1}, [%2];" : "=d"(x), "=d"(y) : "r"(s + 8u * e));
        out[e] = x, out[e + 1] = y;
      }
      return;
    }
#endif
    detail::PlainScratchAccess::template load<W>(p, out);
  }

  template <class T>
  KOKKOS_FORCEINLINE_FUNCTION static void store(T* p, T v) {
#if defined(__CUDA_ARCH__)
    const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(p));
    if constexpr (sizeof(T) == 4) {
      asm volatile("st.shared.f32 [%0], %1;" ::"r"(s), "f"(v) : "memory");
      return;
    } else if constexpr (sizeof(T) == 8) {
      asm volatile("st.shared.f64 [%0], %1;" ::"r"(s), "d"(v) : "memory");
      return;
    }
#endif
    detail::PlainScratchAccess::store(p, v);
  }

  template <int W, class T>
  KOKKOS_FORCEINLINE_FUNCTION static void store_packet(T* p, const T* v) {
#if defined(__CUDA_ARCH__)
    const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(p));
    if constexpr (sizeof(T) == 4 && W == 4) {
      asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};" ::"r"(s), "f"(v[0]), "f"(v[1]), "f"(v[2]),
                   "f"(v[3])
                   : "memory");
      return;
    } else if constexpr (sizeof(T) == 8 && W == 2) {
      asm volatile("st.shared.v2.f64 [%0], {%1, %2};" ::"r"(s), "d"(v[0]), "d"(v[1]) : "memory");
      return;
    }
#endif
    detail::PlainScratchAccess::template store_packet<W>(p, v);
  }
};

// The same for complex elements (the complex SIMT entries, tile_table.hpp): a Kokkos::complex<double>
// is one 16-byte access (ld.shared.v2.f64), two Kokkos::complex<float> are one (ld.shared.v4.f32), so a
// fragment of fm complex elements loads in fm (double) or fm / 2 (float) LDS.128. SharedScratchAccess
// keys on the element's size alone, which would take a complex<float> for a double.
struct ComplexSharedScratchAccess {
  template <int W, class T, class Acc>
  KOKKOS_FORCEINLINE_FUNCTION static void load(const T* p, Acc* out) {
#if defined(__CUDA_ARCH__)
    const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(p));
    if constexpr (sizeof(T) == 16) {
      RIDGELINE_UNROLL
      for (int e = 0; e < W; ++e) {
        double re, im;
        asm volatile("ld.shared.v2.f64 {%0, %1}, [%2];" : "=d"(re), "=d"(im) : "r"(s + 16u * e));
        out[e] = Acc(re, im);
      }
      return;
    } else if constexpr (sizeof(T) == 8 && W % 2 == 0) {
      RIDGELINE_UNROLL
      for (int e = 0; e < W; e += 2) {
        float x, y, z, w;
        asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
                     : "=f"(x), "=f"(y), "=f"(z), "=f"(w)
                     : "r"(s + 8u * e));
        out[e] = Acc(x, y), out[e + 1] = Acc(z, w);
      }
      return;
    }
#endif
    detail::PlainScratchAccess::template load<W>(p, out);
  }

  template <class T>
  KOKKOS_FORCEINLINE_FUNCTION static void store(T* p, T v) {
#if defined(__CUDA_ARCH__)
    const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(p));
    if constexpr (sizeof(T) == 16) {
      asm volatile("st.shared.v2.f64 [%0], {%1, %2};" ::"r"(s), "d"(v.real()), "d"(v.imag()) : "memory");
      return;
    } else if constexpr (sizeof(T) == 8) {
      asm volatile("st.shared.v2.f32 [%0], {%1, %2};" ::"r"(s), "f"(v.real()), "f"(v.imag()) : "memory");
      return;
    }
#endif
    detail::PlainScratchAccess::store(p, v);
  }

  template <int W, class T>
  KOKKOS_FORCEINLINE_FUNCTION static void store_packet(T* p, const T* v) {
#if defined(__CUDA_ARCH__)
    if constexpr (sizeof(T) == 8 && W == 2) {
      const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(p));
      asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};" ::"r"(s), "f"(v[0].real()), "f"(v[0].imag()),
                   "f"(v[1].real()), "f"(v[1].imag())
                   : "memory");
    } else
#endif
    {
      RIDGELINE_UNROLL
      for (int e = 0; e < W; ++e) store(p + e, v[e]);
    }
  }
};

}  // namespace ridgeline::backends::cuda
