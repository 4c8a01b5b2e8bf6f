#pragma once
// What `ridgeline tune` (ridgeline/tune.hpp) tries on HIP: every GEMM entry of the dtype's list in
// tile_table.hpp that can run the shape's operands, each at its own plan and, unpeeled, at these K slice
// counts (the CUDA table's; no AMD GPU has run them yet).
namespace ridgeline::backends::hip {
struct TuneSpace {
  static constexpr int slices[] = {1, 2, 3, 4, 6, 8};
};
}  // namespace ridgeline::backends::hip
