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

// GEMV "rows": 16-byte packets down a column, 64 rows per team, so a column chunk is 256 B read by
// 16 (fp32) or 32 (fp64) threads; the rest of the 512 threads split the columns, 8 columns in
// flight each. 64-row teams keep 128+ teams busy down to 8192 rows.
template <class T>
struct GemvRowsTiles {
  static constexpr int team_size = 512, vector_length = 1, rows = 64, unroll = 8, vec = 16 / sizeof(T);
  static constexpr int scratch_level = 0;
};
// GEMV "dot": one warp per output, 16-byte packets, 4 in flight per lane (2 KB per warp in fp32).
template <class T>
struct GemvDotTiles {
  static constexpr int team_size = 8, vector_length = 32, rows = 16, unroll = 4, vec = 16 / sizeof(T);
  static constexpr int scratch_level = 0;
};

struct Tiles {
  static constexpr const char* name = "cuda";
  template <class T>
  using gemm = std::conditional_t<sizeof(T) == 8, GemmTilesFp64, GemmTilesFp32>;
  template <class Cfg, class T, class Acc>
  using micro_kernel = detail::PortableMicroKernel<Cfg, T, Acc, SharedScratchAccess>;
  static constexpr const char* micro_kernel_name = "simt-lds128";
  template <class T>
  using gemv_rows = GemvRowsTiles<T>;
  template <class T>
  using gemv_dot = GemvDotTiles<T>;
};

}  // namespace ridgeline::backends::cuda
