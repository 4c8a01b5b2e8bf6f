// ridgeline-grouped-perf: a grouped mix of batched GEMMs (issue 14: square sizes 8 to 256, each group
// about the same bytes), timed as one ridgeline::gemm_grouped call against a loop of gemm_batched
// calls, one per size, on the default execution space. The vendor's side: cublas_grouped.cu times
// cuBLAS's grouped GEMM and a loop of its strided-batched calls on the same mix (grouped_mix.hpp); the
// sum of ridgeline-perf's batched rows for the same sizes and counts (--print-shapes lists them) gives
// the loop with Ridgeline's own checks.
//
//   ridgeline-grouped-perf [--dtype fp64|fp32|both] [--sizes 8,16,32,64,128,256] [--bytes 1e9]
//                          [--reps 10] [--csv FILE] [--print-shapes]
//
// Each group's first and last matrices are checked against reference_product (double) before timing.
#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <limits>
#include <ridgeline/ridgeline.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "grouped_mix.hpp"
#include "harness.hpp"

namespace {

using namespace ridgeline_perf;

struct Row {
  std::string impl, config;
  Timing t;
  double rel_err = 0;
};

template <class T>
std::vector<Row> run_dtype(const std::vector<Group>& mix, const TimingOptions& topt, const ExecSpace& exec) {
  using V = Batch<T>;
  std::vector<ridgeline::GemmGroup<V, V, V>> groups;
  for (std::size_t i = 0; i < mix.size(); ++i) {
    const auto n = mix[i].n, c = mix[i].count;
    const std::string tag = std::to_string(n);
    V A(Kokkos::view_alloc(Kokkos::WithoutInitializing, "A" + tag), n, n, c);
    V B(Kokkos::view_alloc(Kokkos::WithoutInitializing, "B" + tag), n, n, c);
    V C(Kokkos::view_alloc(Kokkos::WithoutInitializing, "C" + tag), n, n, c);
    fill_inputs(A, 11 + 3 * i), fill_inputs(B, 12 + 3 * i), fill_inputs(C, 13 + 3 * i);
    groups.push_back({"N", "N", T(1), A, B, T(0), C, ridgeline::BatchLayout::right});
  }
  Kokkos::fence();
  const std::vector<std::pair<std::string, std::function<void()>>> impls = {
      {"ridgeline gemm_grouped", [&] { ridgeline::gemm_grouped(exec, groups); }},
      {"ridgeline gemm_batched per size",
       [&] {
         for (const auto& g : groups)
           ridgeline::gemm_batched(exec, g.transA, g.transB, g.alpha, g.A, g.B, g.beta, g.C, g.layout);
       }},
  };
  std::vector<Row> rows;
  for (const auto& impl : impls) {
    const std::string& name = impl.first;
    const std::function<void()>& call = impl.second;
    Row r;
    r.impl = name;
    r.config = name == impls[0].first ? ridgeline::gemm_grouped_config(exec, groups) : "one call per group";
    // Check: every group's first and last matrix against the double reference (beta == 0).
    for (const auto& g : groups) Kokkos::deep_copy(g.C, T(std::numeric_limits<T>::quiet_NaN()));
    call();
    Kokkos::fence();
    for (const auto& g : groups) {
      const std::int64_t n = std::int64_t(g.C.extent(0)), count = std::int64_t(g.C.extent(2));
      for (std::int64_t m : {std::int64_t(0), count - 1}) {
        Vector<double> ref("ref", n * n);
        reference_product(n, n, n, g.A.data() + m * n * n, 1, n, g.B.data() + m * n * n, 1, n, 1.0, 0.0,
                          ref.data());
        Kokkos::fence();
        auto h_ref = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ref);
        Vector<T> got(g.C.data() + m * n * n, n * n);
        auto h_got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), got);
        double diff = 0, norm = 0;
        for (std::int64_t e = 0; e < n * n; ++e) {
          diff += (double(h_got(e)) - h_ref(e)) * (double(h_got(e)) - h_ref(e));
          norm += h_ref(e) * h_ref(e);
        }
        const double rel = std::sqrt(diff / std::max(norm, 1e-300));
        r.rel_err = std::isfinite(rel) ? std::max(r.rel_err, rel) : INFINITY;
      }
    }
    r.t = time_calls([&](int) { call(); }, 1, topt);
    rows.push_back(r);
  }
  return rows;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "ridgeline-grouped-perf: a grouped mix of batched GEMMs, gemm_grouped against gemm_batched per size"};
  std::string dtype = "both", csv;
  std::vector<std::int64_t> sizes = {8, 16, 32, 64, 128, 256};
  double bytes = 1e9;
  int reps = 10;
  bool print_shapes = false;
  app.add_option("--dtype", dtype, "fp64, fp32 or both")->check(CLI::IsMember({"fp64", "fp32", "both"}));
  app.add_option("--sizes", sizes, "square sizes of the groups")->delimiter(',');
  app.add_option("--bytes", bytes, "A, B and C of all groups together, split evenly over the sizes");
  app.add_option("--reps", reps, "timed samples (median reported)");
  app.add_option("--csv", csv, "append rows to this CSV file");
  app.add_flag("--print-shapes", print_shapes,
               "print ridgeline-perf --shapes for the same sizes and counts as uniform batches, and exit");
  CLI11_PARSE(app, argc, argv);

  std::vector<std::pair<std::string, int>> dtypes;
  if (dtype != "fp32") dtypes.push_back({"fp64", 8});
  if (dtype != "fp64") dtypes.push_back({"fp32", 4});
  if (print_shapes) {
    std::string s;
    for (const auto& [name, elem] : dtypes)
      for (const auto& g : mix_of(sizes, bytes, elem))
        s += (s.empty() ? "" : ",") + std::string("gemm:NN:") + std::to_string(g.n) + "x" +
             std::to_string(g.n) + "x" + std::to_string(g.n) + ":" + name +
             ":batch=" + std::to_string(g.count);
    std::cout << s << "\n";
    return 0;
  }

  Kokkos::ScopeGuard kokkos(argc, argv);
  TimingOptions topt;
  topt.reps = reps;
  const ExecSpace exec;
  std::ofstream out;
  if (!csv.empty()) {
    const bool fresh = !std::ifstream(csv).good();
    out.open(csv, std::ios::app);
    if (fresh)
      out << "dtype,mix,impl,median_ms,min_ms,max_ms,gflops,ratio_to_per_size_loop,rel_err,check,config\n";
  }
  bool all_ok = true;
  for (const auto& [name, elem] : dtypes) {
    const auto mix = mix_of(sizes, bytes, elem);
    double flops = 0;
    for (const auto& g : mix) flops += 2.0 * double(g.n) * double(g.n) * double(g.n) * double(g.count);
    const auto rows = name == "fp64" ? run_dtype<double>(mix, topt, exec) : run_dtype<float>(mix, topt, exec);
    const double tol = 10.0 * double(sizes.empty() ? 1 : *std::max_element(sizes.begin(), sizes.end())) *
                       (elem == 8 ? 1.1e-16 : 6e-8);
    const double loop_ms = rows.back().t.median_s * 1e3;
    std::cout << name << " mix " << mix_string(mix) << " (" << flops * 1e-9 << " GFLOP)\n";
    for (const auto& r : rows) {
      const bool ok = r.rel_err <= tol;
      all_ok = all_ok && ok;
      const double ms = r.t.median_s * 1e3;
      std::cout << "  " << std::left << std::setw(34) << r.impl << std::right << std::fixed
                << std::setprecision(3) << std::setw(10) << ms << " ms  " << std::setw(9)
                << std::setprecision(1) << flops / (ms * 1e-3) * 1e-9 << " GFLOP/s  x" << std::setprecision(3)
                << loop_ms / ms << " of the per-size loop  check " << (ok ? "ok" : "MISMATCH") << " (rel "
                << std::scientific << std::setprecision(2) << r.rel_err << std::defaultfloat << ")\n      "
                << r.config << "\n";
      if (out.is_open())
        out << name << "," << mix_string(mix) << "," << r.impl << "," << ms << "," << r.t.min_s * 1e3 << ","
            << r.t.max_s * 1e3 << "," << flops / (ms * 1e-3) * 1e-9 << "," << loop_ms / ms << "," << r.rel_err
            << "," << (ok ? "ok" : "MISMATCH") << ",\"" << r.config << "\"\n";
    }
  }
  return all_ok ? 0 : 1;
}
