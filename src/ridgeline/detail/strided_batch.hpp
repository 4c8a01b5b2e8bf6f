#pragma once
// A uniform batch of strided matrices: matrix g's op(X) is a rows x cols Strided2D at data + g * bs.
// Every batch layout gemm_batched accepts (the batch index first or last, each matrix in any layout
// and transpose) reduces to this, as single products reduce to Strided2D.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "ridgeline/detail/strided.hpp"

namespace ridgeline::detail {

template <class T>
struct StridedBatch {
  T* data = nullptr;
  std::int64_t count = 0;  // matrices
  std::int64_t rows = 0, cols = 0;
  std::int64_t rs = 0, cs = 0, bs = 0;  // row, column and batch strides (elements)

  KOKKOS_FORCEINLINE_FUNCTION T& operator()(std::int64_t g, std::int64_t i, std::int64_t j) const {
    return data[g * bs + i * rs + j * cs];
  }
  // Matrix g alone.
  Strided2D<T> matrix(std::int64_t g) const { return Strided2D<T>{data + g * bs, rows, cols, rs, cs}; }
  // The first matrix's shape and strides, for plans and checks that look at one matrix.
  Strided2D<T> first() const { return matrix(0); }
};

// The same batch, read-only (the inputs of a product).
template <class T>
StridedBatch<const T> read_only(const StridedBatch<T>& x) {
  return {x.data, x.count, x.rows, x.cols, x.rs, x.cs, x.bs};
}

// Whether the batch index is x's unit-stride one (matrix g's elements next to matrix g + 1's, as in a
// LayoutLeft View with the batch first), rather than a matrix's rows or columns.
template <class T>
bool batch_interleaved(const StridedBatch<T>& x) {
  return x.bs == 1 && !(x.rs == 1 && x.rows > 1) && !(x.cs == 1 && x.cols > 1);
}

}  // namespace ridgeline::detail
