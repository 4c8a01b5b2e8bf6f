#pragma once
// CUDA tile table (SIMT; tensor-core micro-kernels come separately).
//
// GEMM fp32: 128x128x8 per 256-thread team, 8x8 per thread split into 4x4 pieces 64 rows/cols
// apart, so each k step is four 16-byte scratch loads per thread with no bank conflicts; two
// stages of A and B take 2*(8*132 + 8*132)*4 B = 16.5 KB, well inside the 40 KB level-0 cap of
// Kokkos 3.4. The +4 padding keeps the transposed stores (k-contiguous operands) conflict-free
// while keeping rows 16-byte aligned.
#include <ridgeline/backends/cuda/micro_kernel.hpp>
#include <ridgeline/detail/micro_tile.hpp>

namespace ridgeline::backends::cuda {

struct GemmTilesFp32 {
  static constexpr int bm = 128, bn = 128, bk = 8;
  static constexpr int tm = 8, tn = 8, fm = 4, fn = 4;
  static constexpr int pad_a = 4, pad_b = 4;
  static constexpr int team_size = 256, vector_length = 1, stages = 2, min_blocks = 1;
  static constexpr int scratch_level = 0, group_m = 8;
};

// fp64: the same shape with 2-wide (16-byte) fragments; 64 double accumulators per thread.
struct GemmTilesFp64 {
  static constexpr int bm = 128, bn = 128, bk = 8;
  static constexpr int tm = 8, tn = 8, fm = 2, fn = 2;
  static constexpr int pad_a = 2, pad_b = 2;
  static constexpr int team_size = 256, vector_length = 1, stages = 2, min_blocks = 1;
  static constexpr int scratch_level = 0, group_m = 8;
};

// GEMV "rows": a warp reads 32 consecutive rows of a column (128 B); 16 warps split the columns,
// 8 columns in flight per thread.
struct GemvRowsTiles {
  static constexpr int team_size = 512, vector_length = 1, rows = 32, unroll = 8, scratch_level = 0;
};
// GEMV "dot": one warp per output, 4 coalesced loads in flight per lane.
struct GemvDotTiles {
  static constexpr int team_size = 8, vector_length = 32, rows = 16, unroll = 4, scratch_level = 0;
};

struct Tiles {
  static constexpr const char* name = "cuda";
  template <class T>
  using gemm = std::conditional_t<sizeof(T) == 8, GemmTilesFp64, GemmTilesFp32>;
  template <class Cfg, class T, class Acc>
  using micro_kernel = detail::PortableMicroKernel<Cfg, T, Acc, VectorFragmentLoad>;
  static constexpr const char* micro_kernel_name = "simt-vec16";
  template <class T>
  using gemv_rows = GemvRowsTiles;
  template <class T>
  using gemv_dot = GemvDotTiles;
};

}  // namespace ridgeline::backends::cuda
