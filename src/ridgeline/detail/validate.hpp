#pragma once
// Argument checks shared by the public entries. Everything here runs on the host before any
// launch and throws std::invalid_argument with the shapes involved.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "ridgeline/detail/compat.hpp"

namespace ridgeline::detail {

enum class Trans { N, T, C };

// BLAS letters: 'N' no transpose; 'T' transpose; 'C' conjugate transpose, which conjugates complex
// operands and is 'T' for real ones (strided_op). Case-insensitive, exactly one letter.
inline Trans parse_trans(const char* letter, const char* func, const char* which) {
  if (letter != nullptr && letter[0] != '\0' && letter[1] == '\0') {
    switch (letter[0]) {
      case 'N':
      case 'n':
        return Trans::N;
      case 'T':
      case 't':
        return Trans::T;
      case 'C':
      case 'c':
        return Trans::C;
      default:
        break;
    }
  }
  throw std::invalid_argument(std::string("ridgeline::") + func + ": " + which +
                              " must be \"N\", \"T\" or \"C\", got \"" + (letter ? letter : "(null)") + "\"");
}

inline const char* trans_name(Trans t) {
  return t == Trans::N ? "N" : t == Trans::T ? "T" : "C";
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
// which would otherwise give a wrong answer without any error. Taken from the extents and strides,
// not span(): Kokkos's span of a LayoutStride view whose strides interleave stops short of its end.
template <class V>
std::pair<std::uintptr_t, std::uintptr_t> byte_range(const V& v) {
  const auto first = reinterpret_cast<std::uintptr_t>(v.data());
  if (v.size() == 0) return {first, first};
  std::size_t last = 0;
  for (int d = 0; d < compat::view_rank<V>(); ++d) last += (v.extent(d) - 1) * v.stride(d);
  return {first, first + (last + 1) * sizeof(typename V::value_type)};
}

// A rank-1 or rank-2 view as rows x cols elements at i * 1 + j * ld from its first element: unit
// stride down the rows, in one of the view's two orientations (0 or 1). ld == 0 means any: the view
// has one column. False where that orientation has no unit stride.
struct UnitStrideBlock {
  std::int64_t rows = 0, cols = 0, ld = 0;
};

template <class V>
bool unit_stride_block(const V& v, int orientation, UnitStrideBlock& b) {
  std::int64_t e[2] = {static_cast<std::int64_t>(v.extent(0)), 1};
  std::int64_t s[2] = {static_cast<std::int64_t>(v.stride(0)), 0};
  if constexpr (compat::view_rank<V>() == 2) {
    e[1] = static_cast<std::int64_t>(v.extent(1));
    s[1] = static_cast<std::int64_t>(v.stride(1));
  } else if constexpr (compat::view_rank<V>() != 1) {
    return false;
  }
  const int r = orientation, c = 1 - orientation;
  if (s[r] != 1 && e[r] != 1) return false;
  b.rows = e[r], b.cols = e[c], b.ld = e[c] == 1 ? 0 : s[c];
  return true;
}

// Whether two blocks of one column-major array with leading dimension ld share an element: b's
// element (i, j) is a's linear offset d + i + j * ld. Exact where rows <= ld for both.
inline bool same_array_blocks_overlap(const UnitStrideBlock& a, const UnitStrideBlock& b, std::int64_t d,
                                      std::int64_t ld) {
  // d = q * ld + r with 0 <= r < ld; b's row i is a's row r + i in column q + j, or, where r + i
  // passes ld, a's row r + i - ld in column q + j + 1.
  std::int64_t q = d / ld, r = d % ld;
  if (r < 0) r += ld, q -= 1;
  const auto meet = [](std::int64_t lo1, std::int64_t n1, std::int64_t lo2, std::int64_t n2) {
    return lo1 < lo2 + n2 && lo2 < lo1 + n1;
  };
  return (meet(r, b.rows, 0, a.rows) && meet(q, b.cols, 0, a.cols)) ||
         (meet(r - ld, b.rows, 0, a.rows) && meet(q + 1, b.cols, 0, a.cols));
}

// Whether the byte ranges of out and in meet: never misses an overlap, but refuses operands whose
// spans interleave without sharing an element.
template <class Out, class In>
bool spans_overlap(const Out& out, const In& in) {
  if (out.size() == 0 || in.size() == 0) return false;
  const auto o = byte_range(out);
  const auto i = byte_range(in);
  return o.first < i.second && i.first < o.second;
}

// Whether out and in share an element. Spans that interleave without sharing one are common in BLAS
// callers (LAPACK's blocked LU updates A22 from A12, whose column spans interleave with A22's), so
// blocks of one array with one leading dimension are told apart exactly; other shapes fall back to
// the span test.
template <class Out, class In>
bool views_overlap(const Out& out, const In& in) {
  if (!spans_overlap(out, in)) return false;
  constexpr std::size_t size = sizeof(typename Out::value_type);
  if constexpr (sizeof(typename In::value_type) == size) {
    const auto bytes = static_cast<std::intptr_t>(byte_range(out).first - byte_range(in).first);
    if (bytes % static_cast<std::intptr_t>(size) != 0) return true;
    const std::int64_t d = bytes / static_cast<std::intptr_t>(size);
    for (int oi = 0; oi < 2; ++oi) {
      for (int ii = 0; ii < 2; ++ii) {
        UnitStrideBlock a, b;
        if (!unit_stride_block(in, ii, a) || !unit_stride_block(out, oi, b)) continue;
        if (a.ld != 0 && b.ld != 0 && a.ld != b.ld) continue;
        const std::int64_t ld = a.ld != 0 ? a.ld : b.ld != 0 ? b.ld : std::max(a.rows, b.rows);
        if (ld < a.rows || ld < b.rows || ld <= 0) continue;
        return same_array_blocks_overlap(a, b, d, ld);
      }
    }
  }
  return true;
}

// elements: gemm and gemv, which BLAS callers hand blocks of one array; spans: the batched entries,
// whose interleaved operands their tests pin as refused.
enum class OverlapTest { spans, elements };

template <class Out, class In>
void require_no_overlap(const Out& out, const char* out_name, const In& in, const char* in_name,
                        const char* func, OverlapTest test = OverlapTest::spans) {
  if (test == OverlapTest::elements ? views_overlap(out, in) : spans_overlap(out, in)) {
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
