#pragma once
// A GEMM/GEMV tile configuration as run-time data. Each backend's tile table
// (backends/<name>/tile_table.hpp) holds compile-time entries with these fields; dispatch turns the
// one it picks into this struct so that the roofline's tile-traffic model, the scratch ledger and
// the perf report describe exactly what ran.
#include <cstdint>
#include <string>

namespace ridgeline {

struct TileConfig {
  int bm = 0, bn = 0, bk = 0;      // team tile of C (BM x BN) and the K depth staged per step
  int tm = 0, tn = 0;              // per-thread register micro-tile of C
  int team_size = 0;               // Kokkos team size
  int vector_length = 0;           // Kokkos vector length
  int stages = 0;                  // scratch buffers for A/B (2 = double buffered)
  int scratch_level = 0;           // Kokkos scratch level the tiles live in
  std::int64_t scratch_bytes = 0;  // bytes of team scratch the kernel requests
  std::string micro_kernel;        // name of the micro-kernel ("portable", "cuda-simt-v4", ...)
  bool matrix_unit = false;        // the micro-kernel runs on the matrix units (tensor cores, MFMA)
  std::string staging;             // "packets" (16-byte vector staging), "elements", or
                                   // "packets (operands copied aligned)"
  std::string pipeline;            // how tiles reach scratch: "registers", "cp.async", "tma+mbarrier, ..."
  std::string entry;               // the table entry's role for the call asked about: "general",
                                   // "packets", "narrow", "small tiles", "tf32",
                                   // "multi-vector", "multi-vector dot", "few columns" (empty: not a call)
  int k_slices = 1;                // split-K slices for the shape asked about (1: none)
  bool calling_thread = false;     // the call runs on the calling thread, with no parallel launch
  // Where thin M / N remainders are peeled off as their own products: the bulk is [0, peel_m) x
  // [0, peel_n) (0: no peeling).
  std::int64_t peel_m = 0, peel_n = 0;
  // The product ran transposed, C^T = op(B)^T op(A)^T (skinny M on a multi-vector entry); the fields
  // above describe that product.
  bool transposed = false;
  // A complex product that runs as one real product (gemm_complex_as_real.hpp): how, e.g. "op(A)
  // expanded, op(B) read as reals in place, real 16384x8192x16384 product"; the fields above then
  // describe that real product's plan. Empty otherwise.
  std::string complex_as_real;
  // The plan is a measured choice in place of the table's: where it came from and what it is, e.g. "tune
  // cache /home/u/.cache/ridgeline/tune.json: small tiles 64x64x16/8x4 simt-lds128, 2 slices"
  // (tune_cache.hpp). Empty: the table's plan.
  std::string tuned;
};

// The GEMV configuration: a team covers `rows` outputs with `team_size` x `vector_length` threads;
// `unroll` independent partial sums per lane. The dot kernel splits each output over `lanes`
// threads, and a group of them reads `row_block` rows at once.
struct GemvConfig {
  int team_size = 0;
  int vector_length = 0;
  int rows_per_team = 0;
  int lanes = 0;
  int row_block = 0;
  int unroll = 0;
  int vec = 0;  // elements per packet along the contiguous index (when alignment allows)
  int scratch_level = 0;
  int k_slices = 1;    // slices of the reduction index (a split along the columns), summed after
  std::string kernel;  // "rows" (output index contiguous), "dot" (reduction index contiguous), ...
};

}  // namespace ridgeline
