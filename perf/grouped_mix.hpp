#pragma once
// The grouped mix of issue 14's grouped GEMM comparison: square sizes, each given the same bytes of A, B
// and C together. Shared by ridgeline-grouped-perf (Kokkos) and cublas_grouped.cu (the vendor's side,
// built on the GPU machine), so that both time the same groups.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace ridgeline_perf {

struct Group {
  std::int64_t n, count;
};

// Each size gets bytes / sizes.size() of A, B and C together; elem: bytes per element.
inline std::vector<Group> mix_of(const std::vector<std::int64_t>& sizes, double bytes, int elem) {
  std::vector<Group> g;
  for (std::int64_t n : sizes) {
    const double per = 3.0 * double(n * n) * elem;
    g.push_back({n, std::max<std::int64_t>(1, std::llround(bytes / double(sizes.size()) / per))});
  }
  return g;
}

inline std::string mix_string(const std::vector<Group>& mix) {
  std::string s;
  for (const auto& g : mix)
    s += (s.empty() ? "" : "+") + std::to_string(g.n) + "^3x" + std::to_string(g.count);
  return s;
}

}  // namespace ridgeline_perf
