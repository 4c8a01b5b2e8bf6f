#pragma once
// Argument checks shared by the public entries. Everything here runs on the host before any
// launch and throws std::invalid_argument with the shapes involved.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "ridgeline/detail/compat.hpp"

namespace ridgeline::detail {

enum class Trans { N, T };

// BLAS letters: 'N' no transpose; 'T' transpose; 'C' conjugate transpose, which is 'T' for the
// real types Ridgeline supports. Case-insensitive, exactly one letter.
inline Trans parse_trans(const char* letter, const char* func, const char* which) {
  if (letter != nullptr && letter[0] != '\0' && letter[1] == '\0') {
    switch (letter[0]) {
      case 'N':
      case 'n':
        return Trans::N;
      case 'T':
      case 't':
      case 'C':
      case 'c':
        return Trans::T;
      default:
        break;
    }
  }
  throw std::invalid_argument(std::string("ridgeline::") + func + ": " + which +
                              " must be \"N\" or \"T\", got \"" + (letter ? letter : "(null)") + "\"");
}

inline const char* trans_name(Trans t) {
  return t == Trans::N ? "N" : "T";
}

template <class V>
std::string shape_of(const V& v) {
  if constexpr (compat::view_rank<V>() == 1) {
    return std::to_string(v.extent(0));
  } else if constexpr (compat::view_rank<V>() == 3) {
    return std::to_string(v.extent(0)) + "x" + std::to_string(v.extent(1)) + "x" +
           std::to_string(v.extent(2));
  } else {
    return std::to_string(v.extent(0)) + "x" + std::to_string(v.extent(1));
  }
}

template <class ExecSpace, class V>
void require_accessible(const V& v, const char* func, const char* name) {
  using mem = typename V::memory_space;
  if constexpr (!Kokkos::SpaceAccessibility<ExecSpace, mem>::accessible) {
    throw std::invalid_argument(std::string("ridgeline::") + func + ": " + name + " (" + shape_of(v) +
                                ") lives in " + mem::name() + ", which execution space " + ExecSpace::name() +
                                " cannot access");
  }
}

// The [first, last) byte range a view may touch; used to reject an output that overlaps an input,
// which would otherwise give a wrong answer without any error.
template <class V>
std::pair<std::uintptr_t, std::uintptr_t> byte_range(const V& v) {
  const auto first = reinterpret_cast<std::uintptr_t>(v.data());
  return {first, first + v.span() * sizeof(typename V::value_type)};
}

template <class Out, class In>
void require_no_overlap(const Out& out, const char* out_name, const In& in, const char* in_name,
                        const char* func) {
  if (out.span() == 0 || in.span() == 0) return;
  const auto o = byte_range(out);
  const auto i = byte_range(in);
  if (o.first < i.second && i.first < o.second) {
    throw std::invalid_argument(std::string("ridgeline::") + func + ": output " + out_name + " (" +
                                shape_of(out) + ") overlaps input " + in_name + " (" + shape_of(in) + ")");
  }
}

// League sizes and tile indices are int; the product of tile counts must fit.
inline void require_int_range(std::int64_t value, const char* what, const char* func) {
  if (value > static_cast<std::int64_t>(INT32_MAX)) {
    throw std::invalid_argument(std::string("ridgeline::") + func + ": " + what + " = " +
                                std::to_string(value) + " exceeds the 32-bit launch range");
  }
}

}  // namespace ridgeline::detail
