#pragma once
// What `ridgeline tune` (ridgeline/tune.hpp) tries on CUDA: every GEMM entry of the dtype's list in
// tile_table.hpp that can run the shape's operands (the configurations this build compiled, so a cached
// choice is always a kernel gemm holds), each at its own plan's split and peel and, unpeeled, at these K
// slice counts. The slice counts span what the plan sweeps chose between (1 to 8 slices on 16384 x 64 x 16384
// and 256^3 to 1024^3 fp64, perf/results/2026-12-03-h200-5c12e8a/, -2026-12-01-h200-2297cb1/); more slices
// than K allows collapse to fewer, and those duplicates are tried once.
namespace ridgeline::backends::cuda {
struct TuneSpace {
  static constexpr int slices[] = {1, 2, 3, 4, 6, 8};
};
}  // namespace ridgeline::backends::cuda
