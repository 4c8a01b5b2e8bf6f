#pragma once
// HIP tile table (compile-only here: no AMD GPU is lent). Wavefronts are 64 wide, LDS is 64 KB per
// CU; the SIMT shape follows the CUDA one, with 256-thread teams (4 wavefronts).
#include <cstddef>
#include <ridgeline/backends/hip/tune_space.hpp>
#include <ridgeline/detail/gemm_plan.hpp>
#include <ridgeline/detail/micro_tile.hpp>

namespace ridgeline::backends::hip {

struct GemmTilesFp32 {
  static constexpr int bm = 128, bn = 128, bk = 8;
  static constexpr int tm = 8, tn = 8, fm = 4, fn = 4;
  static constexpr int pad_a = 4, pad_b = 4;
  static constexpr int team_size = 256, vector_length = 1, stages = 2, min_blocks = 1;
  static constexpr int scratch_level = 0, group_m = 8;
};

struct GemmTilesFp64 {
  static constexpr int bm = 64, bn = 64, bk = 8;
  static constexpr int tm = 4, tn = 4, fm = 2, fn = 2;
  static constexpr int pad_a = 2, pad_b = 2;
  static constexpr int team_size = 256, vector_length = 1, stages = 2, min_blocks = 1;
  static constexpr int scratch_level = 0, group_m = 8;
};

// Complex GEMM (Kokkos::complex<float>, Kokkos::complex<double>): the portable micro-kernel with complex
// accumulators, 4 x 4 per thread on 256 threads, K steps of 8; 2 x 8 x (65 + 65) x 16 B = 33 KB of LDS
// for complex<double>. Compile-only, not swept.
struct GemmTilesComplex {
  static constexpr int bm = 64, bn = 64, bk = 8;
  static constexpr int tm = 4, tn = 4, fm = 1, fn = 1;
  static constexpr int pad_a = 1, pad_b = 1;
  static constexpr int team_size = 256, vector_length = 1, stages = 2, min_blocks = 1;
  static constexpr int scratch_level = 0, group_m = 8;
  static constexpr const char* micro_kernel_name = "portable-complex";
};

template <class T>
struct GemvRowsTiles {
  static constexpr int team_size = 512, vector_length = 1, rows = 128, unroll = 8, vec = 16 / sizeof(T);
  static constexpr int scratch_level = 0;
};
template <class T>
struct GemvDotTiles {
  static constexpr int team_size = 256, vector_length = 1, lanes = 64, row_block = 2, rows = 8, unroll = 4;
  static constexpr int vec = 16 / sizeof(T);
  static constexpr int scratch_level = 0;
};

// Batched products of small matrices (gemm_batched, gemm_batched_small.hpp): the CUDA table's shape with
// a team of four wavefronts, and 16 KB of the 64 KB of LDS per team. Compile-only, not swept.
struct GemmBatchedSmallTiles {
  static constexpr int team_size = 256, min_blocks = 4, cols_per_thread = 4;
  static constexpr int max_extent = 16, max_per_team = 64;
  static constexpr std::size_t scratch_bytes = 16 * 1024;
};

struct Tiles {
  static constexpr const char* name = "hip";
  // What `ridgeline tune` tries (tune_space.hpp).
  using tune_space = TuneSpace;
  template <class T>
  using gemm = std::conditional_t<sizeof(T) == 8, GemmTilesFp64, GemmTilesFp32>;
  // One entry, staging 16-byte packets where its kernel and the operands allow it (gemm_plan.hpp).
  // Complex types: the one complex entry, any strides.
  template <class T>
  using gemm_entries =
      std::conditional_t<detail::is_complex_v<T>,
                         detail::GemmEntries<detail::GemmEntry<GemmTilesComplex, detail::when::any>>,
                         detail::GemmEntries<detail::GemmEntry<gemm<T>, detail::when::packets>,
                                             detail::GemmEntry<gemm<T>, detail::when::any>>>;
  // Batched products (dispatch_batched.hpp): the small path, and the one tile entry for medium matrices.
  template <class T>
  using gemm_batched_small = GemmBatchedSmallTiles;
  template <class T>
  using gemm_batched_entries = gemm_entries<T>;
  template <class Cfg, class T, class Acc>
  using micro_kernel = detail::PortableMicroKernel<Cfg, T, Acc>;
  static constexpr const char* micro_kernel_name = "portable";
  // Calls on a HIP instance are asynchronous: their workspace is per stream.
  template <class Exec>
  static auto instance_key(const Exec& exec) -> decltype(static_cast<const void*>(exec.hip_stream())) {
    return static_cast<const void*>(exec.hip_stream());
  }
  template <class T>
  using gemv_rows = GemvRowsTiles<T>;
  template <class T>
  using gemv_dot = GemvDotTiles<T>;
};

}  // namespace ridgeline::backends::hip
