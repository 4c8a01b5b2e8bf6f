#pragma once
// Every layout Ridgeline accepts (LayoutLeft, LayoutRight, LayoutStride) and both transposes reduce
// to a pointer and two strides, so one kernel instantiation serves them all; only the question
// "which index is contiguous" is lifted to compile time, because it decides coalescing.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "ridgeline/detail/complex.hpp"
#include "ridgeline/detail/validate.hpp"

namespace ridgeline::detail {

// op(X) as a rows x cols matrix: element (i, j) lives at data[i * rs + j * cs]. A complex operand
// also carries conj: op(X) is the conjugate of what the pointer holds ('C'), which the kernels apply
// as they stage elements (conj_if, complex.hpp). Real operands have no such field at run time (conj is
// a constant false), so their kernels' arguments are what they always were.
template <class T, bool kComplex = is_complex_v<T>>
struct Strided2D {
  T* data = nullptr;
  std::int64_t rows = 0, cols = 0;
  std::int64_t rs = 0, cs = 0;
  static constexpr bool conj = false;

  KOKKOS_FORCEINLINE_FUNCTION T& operator()(std::int64_t i, std::int64_t j) const {
    return data[i * rs + j * cs];
  }
};
template <class T>
struct Strided2D<T, true> {
  T* data = nullptr;
  std::int64_t rows = 0, cols = 0;
  std::int64_t rs = 0, cs = 0;
  bool conj = false;

  KOKKOS_FORCEINLINE_FUNCTION T& operator()(std::int64_t i, std::int64_t j) const {
    return data[i * rs + j * cs];
  }
};

// to, with from's conjugation flag (complex operands; nothing for real ones). Every place that derives
// an operand from another (a block of it, its transpose, an aligned copy of it) passes the flag on.
template <class T, class U>
Strided2D<T> with_conj_of(Strided2D<T> to, const Strided2D<U>& from) {
  if constexpr (is_complex_v<T>) to.conj = from.conj;
  return to;
}
// x^T (rows and columns swapped), flag included: C^T = op(B)^T op(A)^T runs a product transposed.
template <class T>
Strided2D<T> transpose_of(const Strided2D<T>& x) {
  return with_conj_of(Strided2D<T>{x.data, x.cols, x.rows, x.cs, x.rs}, x);
}
// x as a read-only operand, flag included.
template <class T>
Strided2D<const T> as_const(const Strided2D<T>& x) {
  return with_conj_of(Strided2D<const T>{x.data, x.rows, x.cols, x.rs, x.cs}, x);
}

// A W-element packet aligned to its size: one 16-byte load on GPUs when W * sizeof(T) == 16.
//
// On HIP it is assigned element by element. hipcc 5.2 (LLVM 15) copies the struct as a whole (a memcpy)
// and then leaves an array of packets indexed in an unrolled loop (P v[kU]; v[u] = ...) in scratch
// memory: GemmBatchedSmall's copy kept 80 bytes per work-item there, which an element-wise copy into the
// same array does not (it still loads and stores 16 bytes at a time: global_load_dwordx4). CUDA and the
// host keep the trivial copy.
template <int W, class T>
struct alignas(W * sizeof(T)) Packet {
  T v[W];
#if defined(KOKKOS_ENABLE_HIP)
  KOKKOS_FORCEINLINE_FUNCTION Packet& operator=(const Packet& o) {
    for (int e = 0; e < W; ++e) v[e] = o.v[e];
    return *this;
  }
#endif
};

template <int W, class T>
KOKKOS_FORCEINLINE_FUNCTION Packet<W, T> load_packet(const T* p) {
  return *reinterpret_cast<const Packet<W, T>*>(p);
}

template <class T>
struct Strided1D {
  T* data = nullptr;
  std::int64_t n = 0;
  std::int64_t s = 0;

  KOKKOS_FORCEINLINE_FUNCTION T& operator()(std::int64_t i) const { return data[i * s]; }
};

// op(v) for t = N, T or C; C conjugates complex operands (for real ones it is T).
template <class V>
Strided2D<typename V::value_type> strided_op(const V& v, Trans t) {
  Strided2D<typename V::value_type> m;
  m.data = v.data();
  const bool n = (t == Trans::N);
  m.rows = static_cast<std::int64_t>(v.extent(n ? 0 : 1));
  m.cols = static_cast<std::int64_t>(v.extent(n ? 1 : 0));
  m.rs = static_cast<std::int64_t>(v.stride(n ? 0 : 1));
  m.cs = static_cast<std::int64_t>(v.stride(n ? 1 : 0));
  if constexpr (is_complex_v<typename V::value_type>) m.conj = (t == Trans::C);
  return m;
}

template <class V>
Strided1D<typename V::value_type> strided_vec(const V& v) {
  return {v.data(), static_cast<std::int64_t>(v.extent(0)), static_cast<std::int64_t>(v.stride(0))};
}

// True when walking i (rows) is at least as contiguous as walking j (cols). A view with an extent
// of 1 reports an arbitrary stride for that index; its contiguity is decided by the other index.
template <class T>
KOKKOS_INLINE_FUNCTION bool rows_contiguous(const Strided2D<T>& m) {
  if (m.cols <= 1) return true;
  if (m.rows <= 1) return false;
  return m.rs <= m.cs;
}

}  // namespace ridgeline::detail
