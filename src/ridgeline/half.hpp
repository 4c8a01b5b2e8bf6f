#pragma once
// 16-bit floating-point storage types for GEMM and GEMV inputs, accumulated in float:
//   ridgeline::half_t   IEEE 754 binary16 (FP16)
//   ridgeline::bhalf_t  bfloat16 (BF16): float's exponent, 8 significant bits
// Both are 2 bytes, 2-byte aligned, bit-compatible with CUDA's __half and __nv_bfloat16, so a View of
// them can be handed to cuBLAS or to device code as those types. Conversions from float round to
// nearest, ties to even; NaN stays NaN and overflow gives infinity.
//
// Where Kokkos has a real 16-bit type they are Kokkos's: half_t is Kokkos::Experimental::half_t on
// the CUDA build of Kokkos 3.4 (it wraps __half) and on Kokkos 4/5; bhalf_t is
// Kokkos::Experimental::bhalf_t where Kokkos has one (4.0 and later). Elsewhere Kokkos's half_t is a
// typedef of float (Kokkos 3.4 without CUDA), which would quietly turn an FP16 product into an FP32
// one, and Kokkos 3.4 has no bhalf_t at all: there Ridgeline supplies its own storage types.
// Either way, static_cast<float>(x) reads one and T(f) (f a float) makes one.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace ridgeline {
namespace detail {

KOKKOS_INLINE_FUNCTION std::uint32_t float_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
KOKKOS_INLINE_FUNCTION float bits_float(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// float -> bfloat16 bits, round to nearest even: add 0x7fff plus the lowest kept bit, truncate.
KOKKOS_INLINE_FUNCTION std::uint16_t float_to_bf16_bits(float f) {
  const std::uint32_t u = float_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((u >> 16) | 0x0040u);  // quiet NaN
  return static_cast<std::uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
KOKKOS_INLINE_FUNCTION float bf16_bits_to_float(std::uint16_t h) {
  return bits_float(std::uint32_t(h) << 16);
}

// float -> binary16 bits, round to nearest even, in integer arithmetic (no hardware conversion is
// assumed on the host).
KOKKOS_INLINE_FUNCTION std::uint16_t float_to_fp16_bits(float f) {
  const std::uint32_t u = float_bits(f);
  const std::uint32_t sign = (u >> 16) & 0x8000u, ax = u & 0x7fffffffu;
  if (ax >= 0x7f800000u) return static_cast<std::uint16_t>(sign | (ax > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (ax >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // rounds to >= 65520: inf
  if (ax < 0x38800000u) {                                                   // below 2^-14: subnormal
    if (ax < 0x33000000u) return static_cast<std::uint16_t>(sign);          // at most 2^-25: rounds to 0
    const std::uint32_t e = ax >> 23, m = (ax & 0x7fffffu) | 0x800000u;
    const std::uint32_t shift = 126u - e;  // value in units of 2^-24 is m >> shift; shift in [14, 24]
    std::uint32_t r = m >> shift;
    const std::uint32_t rem = m & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (r & 1u))) ++r;
    return static_cast<std::uint16_t>(sign | r);
  }
  std::uint32_t r = (ax >> 13) - (112u << 10);  // rebias the exponent from 127 to 15
  const std::uint32_t rem = ax & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (r & 1u))) ++r;  // a carry into the exponent is right
  return static_cast<std::uint16_t>(sign | r);
}
KOKKOS_INLINE_FUNCTION float fp16_bits_to_float(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0) {
    const float v = static_cast<float>(m) * 5.9604644775390625e-8f;  // m * 2^-24, exact
    return sign ? -v : v;
  }
  if (e == 31) return bits_float(sign | 0x7f800000u | (m << 13));
  return bits_float(sign | ((e + 112u) << 23) | (m << 13));
}

// Ridgeline's own storage types, for where Kokkos has no 16-bit one. Arithmetic goes through float.
template <class Tag>
struct Float16Storage {
  std::uint16_t bits = 0;
  KOKKOS_DEFAULTED_FUNCTION Float16Storage() = default;
  KOKKOS_INLINE_FUNCTION Float16Storage(float f) : bits(Tag::encode(f)) {}
  KOKKOS_INLINE_FUNCTION Float16Storage(double f) : bits(Tag::encode(static_cast<float>(f))) {}
  KOKKOS_INLINE_FUNCTION Float16Storage(int i) : bits(Tag::encode(static_cast<float>(i))) {}
  KOKKOS_INLINE_FUNCTION explicit operator float() const { return Tag::decode(bits); }
  KOKKOS_INLINE_FUNCTION explicit operator double() const { return Tag::decode(bits); }
  KOKKOS_INLINE_FUNCTION friend bool operator==(Float16Storage x, Float16Storage y) {
    return Tag::decode(x.bits) == Tag::decode(y.bits);
  }
  KOKKOS_INLINE_FUNCTION friend bool operator!=(Float16Storage x, Float16Storage y) { return !(x == y); }
};
struct Fp16Tag {
  KOKKOS_INLINE_FUNCTION static std::uint16_t encode(float f) { return float_to_fp16_bits(f); }
  KOKKOS_INLINE_FUNCTION static float decode(std::uint16_t h) { return fp16_bits_to_float(h); }
};
struct Bf16Tag {
  KOKKOS_INLINE_FUNCTION static std::uint16_t encode(float f) { return float_to_bf16_bits(f); }
  KOKKOS_INLINE_FUNCTION static float decode(std::uint16_t h) { return bf16_bits_to_float(h); }
};

}  // namespace detail

#if defined(KOKKOS_HALF_T_IS_FLOAT) && !KOKKOS_HALF_T_IS_FLOAT
using half_t = Kokkos::Experimental::half_t;
#else
using half_t = detail::Float16Storage<detail::Fp16Tag>;
#endif

#if defined(KOKKOS_BHALF_T_IS_FLOAT) && !KOKKOS_BHALF_T_IS_FLOAT
using bhalf_t = Kokkos::Experimental::bhalf_t;
#else
using bhalf_t = detail::Float16Storage<detail::Bf16Tag>;
#endif

static_assert(sizeof(half_t) == 2 && alignof(half_t) == 2, "half_t is binary16 storage");
static_assert(sizeof(bhalf_t) == 2 && alignof(bhalf_t) == 2, "bhalf_t is bfloat16 storage");

namespace detail {
// The 16-bit input types: GEMM and GEMV accumulate them in float.
template <class T>
constexpr bool is_half_v = std::is_same_v<T, half_t> || std::is_same_v<T, bhalf_t>;
}  // namespace detail

}  // namespace ridgeline
