#pragma once
// What `ridgeline tune` (ridgeline/tune.hpp) tries on the host: every GEMM entry of the dtype's list in
// tile_table.hpp that can run the shape's operands, each at its own plan and, for the multi-vector entry,
// at these K slice counts. The tile entries stage all of K at once (one stage) and never split, so their
// slice counts collapse to one.
namespace ridgeline::backends::host {
struct TuneSpace {
  static constexpr int slices[] = {1, 2, 4};
};
}  // namespace ridgeline::backends::host
