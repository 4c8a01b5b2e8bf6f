#pragma once
// Complex element types (Kokkos::complex<float>, Kokkos::complex<double>): the trait that tells them
// apart, and the two things the kernels do with them beyond real arithmetic. An operand whose transpose
// letter is 'C' is conjugated element by element as it is staged (into scratch, or into registers in
// GEMV), never by a pass over memory: conj_if, with the operand's run-time flag (Strided2D::conj). A
// complex multiply-add is four real multiply-adds, written so that the compiler fuses each into one
// FMA: Kokkos's operator* forms the product first and then adds it, two multiplies, two FMAs and two
// adds. For real types both are the plain expressions the kernels had, so their code does not change.
#include <Kokkos_Core.hpp>
#include <type_traits>

namespace ridgeline::detail {

template <class T>
struct IsComplex : std::false_type {};
template <class R>
struct IsComplex<Kokkos::complex<R>> : std::true_type {};
template <class T>
constexpr bool is_complex_v = IsComplex<std::remove_cv_t<T>>::value;

// The complex types gemm and gemv take.
template <class T>
constexpr bool is_complex_gemm_input_v =
    std::is_same_v<T, Kokkos::complex<float>> || std::is_same_v<T, Kokkos::complex<double>>;

// v, or its conjugate where conj is set (complex types only; real types ignore the flag).
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T conj_if(const T& v, bool conj) {
  if constexpr (is_complex_v<T>) {
    return T(v.real(), conj ? -v.imag() : v.imag());
  } else {
    (void)conj;
    return v;
  }
}

// acc += a * b; for complex types as four real FMAs (the real part's two, then the imaginary part's).
template <class Acc, class A, class B>
KOKKOS_FORCEINLINE_FUNCTION void fma_into(Acc& acc, const A& a, const B& b) {
  if constexpr (is_complex_v<Acc>) {
    using R = typename Acc::value_type;
    R re = acc.real() + a.real() * b.real();
    R im = acc.imag() + a.real() * b.imag();
    re = re - a.imag() * b.imag();
    im = im + a.imag() * b.real();
    acc = Acc(re, im);
  } else {
    acc += a * b;
  }
}

}  // namespace ridgeline::detail
