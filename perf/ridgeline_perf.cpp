// ridgeline-perf: runs GEMM/GEMV shapes through Ridgeline, Kokkos Kernels' native kernels and, on
// host builds, OpenBLAS, on the same random inputs in one process; prints the results table and the
// roofline ledger and writes CSV/JSON/SVG. Strided batches of GEMMs run gemm_batched against
// KokkosBatched's team GEMM and a per-matrix OpenBLAS loop. See perf/README.md.
#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>
#include <nlohmann/json.hpp>
#include <ridgeline/ceilings.hpp>
#include <ridgeline/detect.hpp>
#include <ridgeline/device_spec.hpp>
#include <ridgeline/library_info.hpp>
#include <ridgeline/process_affinity.hpp>
#include <ridgeline/ridgeline.hpp>
#include <ridgeline/roofline.hpp>
#include <ridgeline/roofline_plot.hpp>

#if defined(RIDGELINE_PERF_HAVE_OPENBLAS)
#include <cblas.h>
#endif
#if defined(__unix__)
#include <unistd.h>
#endif
#if defined(RIDGELINE_PERF_HAVE_OPENBLAS) && defined(__linux__) && defined(_OPENMP)
#include <dirent.h>
#include <omp.h>
#include <sched.h>
#include <sys/syscall.h>

#include <set>
#endif

#include <algorithm>
#include <cctype>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <initializer_list>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "harness.hpp"
#include "kokkos_kernels_baseline.hpp"
#include "perf_record.hpp"
#include "progress.hpp"
#include "report.hpp"
#include "shape_spec.hpp"

#ifndef RIDGELINE_PERF_GIT_SHA
#define RIDGELINE_PERF_GIT_SHA "unknown"
#endif

// A named namespace, not an anonymous one: the harness's KOKKOS_LAMBDAs are instantiated from here
// and nvcc's extended lambdas may not live in functions with internal linkage.
namespace ridgeline_perf {

// Exit statuses: 0 all rows checked out, kExitUsage a bad option or shape (including one that does
// not fit in memory), kExitMismatch a row that did not match the reference or failed to run.
constexpr int kExitUsage = 1;
constexpr int kExitMismatch = 2;

constexpr const char* impl_ridgeline = "ridgeline";
constexpr const char* impl_kk = "kokkos-kernels";
constexpr const char* impl_openblas = "openblas";
// ridgeline::team_gemm called from a TeamPolicy over a batch, a team per matrix, as a user's kernel
// calls it (batched rows only).
constexpr const char* impl_team = "ridgeline-team_gemm";

#if defined(RIDGELINE_PERF_HAVE_OPENBLAS)
constexpr bool have_openblas = true;
#else
constexpr bool have_openblas = false;
#endif

#if defined(RIDGELINE_PERF_HAVE_OPENBLAS)
// With OMP_PROC_BIND set, libgomp pins the initial thread to the first place before main, and OpenBLAS's
// worker threads (pthreads, not OpenMP) inherit that one-CPU mask: with two threads on two cores, both of
// OpenBLAS's ran on core 0, and its GEMV read 15-26 GB/s in ridgeline-perf against 35-45 GB/s in a
// program of its own (perf/results/2026-12-04-host-8468301/). Every thread of the process that is not
// one of the OpenMP team's gets the place of OpenMP thread 1, 2, ... in turn, so that OpenBLAS runs on
// the cores Ridgeline runs on, one thread each, as Kokkos's threads do. Returns how many were placed;
// 0 where threads are not bound (no places), which leaves them as the system scheduled them.
int place_openblas_threads() {
#if defined(__linux__) && defined(_OPENMP)
  const int places = omp_get_num_places();
  if (places <= 1) return 0;
  std::set<long> team;  // the OpenMP threads' ids
  std::vector<int> place_of(std::size_t(omp_get_max_threads()), -1);
#pragma omp parallel
  {
    const long tid = long(syscall(SYS_gettid));
#pragma omp critical
    {
      team.insert(tid);
      place_of[std::size_t(omp_get_thread_num())] = omp_get_place_num();
    }
  }
  std::vector<long> others;
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d)) {
      const long tid = std::strtol(e->d_name, nullptr, 10);
      if (tid > 0 && team.count(tid) == 0) others.push_back(tid);
    }
    closedir(d);
  }
  std::sort(others.begin(), others.end());
  int placed = 0;
  for (std::size_t i = 0; i < others.size(); ++i) {
    const int place = place_of[(i + 1) % place_of.size()];
    if (place < 0) continue;
    std::vector<int> ids(std::size_t(std::max(0, omp_get_place_num_procs(place))));
    omp_get_place_proc_ids(place, ids.data());
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int id : ids)
      if (id >= 0 && id < CPU_SETSIZE) CPU_SET(id, &set);
    if (CPU_COUNT(&set) > 0 && sched_setaffinity(pid_t(others[i]), sizeof set, &set) == 0) ++placed;
  }
  return placed;
#else
  return 0;
#endif
}
#endif

struct Options {
  std::string shapes = "quick-host";
  std::vector<std::string> impls = {impl_ridgeline, impl_kk, impl_openblas, impl_team};
  int reps = 10;
  int warmup = 2;
  double min_sample_ms = 1.0;
  double rotate_bytes = -1;  // < 0: 3x the last-level cache
  int max_buffer_sets = 64;
  int settle_ms = 150;
  double alpha = 1.0, beta = 0.0;
  std::uint64_t seed = default_seed;
  std::string csv, json, plot, git_sha;
  std::string ceilings;  // saved measured ceilings to show; empty: the default file; "none": none
  bool list_shapes = false;
};

struct Context {
  Options opt;
  ridgeline::DeviceSpec spec;
  double llc_bytes = 0;
  double rotate_bytes = 0;
  std::string vendor;  // the baseline the ratio_vendor column is against
  CopyBandwidth copy;  // measured in this run: GEMV rows are reported as a fraction of copy.best()
  ExecSpace exec;
  // `ridgeline ceilings`' saved measurements of this device and backend, when there are any: shown in
  // the header, copied into the JSON (metadata.ceilings) and drawn dashed in --plot.
  bool have_ceilings = false;
  ridgeline::ceilings::DeviceCeilings ceilings;
  std::string ceilings_path;
};

// In: A and B (A and x); Out: C (y). Out is In except for 16-bit inputs, whose results are float.
template <class In, class Out = In>
struct Operands {
  Matrix<In> a, b;  // GEMM
  Matrix<Out> c;
  Vector<In> x;  // GEMV (uses a too)
  Vector<Out> y;
  Batch<In> a3, b3;  // batched GEMM (shape.batch > 1), instead of a, b and c
  Batch<Out> c3;
};

template <class In, class Out = In>
struct Impl {
  std::string name;
  std::string config;
  std::function<void(const Operands<In, Out>&)> call;
  std::string skipped;  // why this baseline cannot run the shape; the row says so and is not timed
};

template <class Scalar>
using FlatView = Kokkos::View<Scalar*, MemSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

template <class In, class Out>
FlatView<Out> output_of(const ShapeSpec& s, const Operands<In, Out>& o) {
  if (s.batch > 1) return FlatView<Out>(o.c3.data(), o.c3.size());
  return s.op == Op::gemm ? FlatView<Out>(o.c.data(), o.c.size()) : FlatView<Out>(o.y.data(), o.y.size());
}

bool wanted(const Options& opt, const std::string& impl) {
  return std::find(opt.impls.begin(), opt.impls.end(), impl) != opt.impls.end();
}

std::string tile_config_string(const ridgeline::TileConfig& t) {
  std::ostringstream s;
  // A tuned plan says so first: the row then measures the tune cache's choice, not the table's.
  if (!t.tuned.empty()) s << "tuned (" << t.tuned << "): ";
  if (!t.complex_as_real.empty()) s << "complex as real (" << t.complex_as_real << "): ";
  if (!t.entry.empty()) s << t.entry << " entry: ";
  if (t.transposed) s << "C^T = op(B)^T op(A)^T, ";
  s << t.micro_kernel << " tile " << t.bm << "x" << t.bn << "x" << t.bk << " micro " << t.tm << "x" << t.tn
    << " team " << t.team_size << "x" << t.vector_length << " stages " << t.stages << " scratch L"
    << t.scratch_level << " " << t.scratch_bytes << "B staging " << t.staging << " via " << t.pipeline;
  if (t.k_slices > 1) s << " split-K " << t.k_slices;
  if (t.calling_thread) s << " on the calling thread";
  if (t.peel_m > 0) s << " bulk " << t.peel_m << "x" << t.peel_n << " + peeled edges";
  return s.str();
}

std::string gemv_config_string(const ridgeline::GemvConfig& g) {
  std::ostringstream s;
  s << g.kernel << " team " << g.team_size << "x" << g.vector_length << " rows/team " << g.rows_per_team;
  if (g.lanes > 0) s << " lanes " << g.lanes << " row block " << g.row_block;
  s << " unroll " << g.unroll << " scratch L" << g.scratch_level;
  if (g.k_slices > 1) s << " column slices " << g.k_slices;
  return s.str();
}

// ---- the implementations ----------------------------------------------------------------------

// Complex inputs (cf32, cf64): Kokkos::complex<float / double>, their own scalar type.
template <class In>
constexpr bool complex_v = ComplexParts<In>::value;

// The scalar type of alpha, beta and the accumulator: float for float and the 16-bit inputs, the element
// type for double and the complex types.
template <class In>
using AccOf = std::conditional_t<std::is_same_v<In, double> || complex_v<In>, In, float>;

// Kokkos Kernels and OpenBLAS run only rows of one element type (fp32, fp64): KokkosBlas::gemm 3.4
// has no mixed 16-bit-in, float-out form, OpenBLAS 0.3.21 no FP16 GEMM. Those rows are checked
// against reference_product instead. So are complex rows, which OpenBLAS runs (cgemm, zgemm) but Kokkos
// Kernels does not here: its complex GEMM and GEMV would add their instantiations to this program's
// compile for a baseline the vendor libraries already give.
template <class In, class Out>
constexpr bool single_type_v = std::is_same_v<In, Out>&& std::is_arithmetic_v<In>;
template <class In, class Out>
constexpr bool openblas_runs_v = single_type_v<In, Out> || (complex_v<In> && std::is_same_v<In, Out>);

// A tf32 row is an fp32 product that allows TF32 (Ridgeline's opt-in, cuBLAS's TF32 math mode).
ridgeline::Math math_of(const ShapeSpec& s) {
  return s.precision == Precision::tf32 ? ridgeline::Math::allow_tf32 : ridgeline::Math::exact;
}

// A user's kernel around ridgeline::team_gemm: one team per matrix g of the batch-last Views, operands
// in global memory (:, :, g). Where the build has team_gemm's staged form for these types, the kernel
// launches as TeamGemmStaging says (its team size, launch bounds and scratch) and grants the scratch;
// otherwise it calls the unstaged form on teams of team_size threads (0: Kokkos::AUTO). Named, not a
// lambda inside the Impl's: nvcc's device lambdas need a named enclosing function.
template <class In, class Out, class Scalar>
void team_gemm_over_batch(const ExecSpace& exec, char ta, char tb, Scalar alpha, const Batch<In>& A,
                          const Batch<In>& B, Scalar beta, const Batch<Out>& C, int team_size) {
  using Staging = ridgeline::TeamGemmStaging<In, ExecSpace, Out>;
  using Policy = typename Staging::policy_type;
  const int teams = int(C.extent(2));
  const Policy policy =
      Staging::staged || team_size <= 0 ? Staging::policy(exec, teams) : Policy(exec, teams, team_size);
  constexpr std::size_t granted = Staging::scratch_bytes;
  Kokkos::parallel_for(
      "ridgeline_perf::team_gemm", policy, KOKKOS_LAMBDA(const typename Policy::member_type& team) {
        const int g = team.league_rank();
        void* span = granted > 0 ? team.team_scratch(0).get_shmem(granted) : nullptr;
        ridgeline::team_gemm(team, ta, tb, alpha, Kokkos::subview(A, Kokkos::ALL, Kokkos::ALL, g),
                             Kokkos::subview(B, Kokkos::ALL, Kokkos::ALL, g), beta,
                             Kokkos::subview(C, Kokkos::ALL, Kokkos::ALL, g), span, granted);
      });
}

// A batch (shape.batch > 1): Ridgeline's gemm_batched on the batch-last rank-3 Views, against
// KokkosBatched's team GEMM and, on host builds, one OpenBLAS call per matrix in an OpenMP loop.
template <class In, class Out>
std::vector<Impl<In, Out>> make_batched_impls(const ShapeSpec& s, const Context& ctx) {
  using Scalar = AccOf<In>;
  const std::string tra(1, s.trans_a()), trb(1, s.trans_b());
  const Scalar alpha = Scalar(ctx.opt.alpha), beta = Scalar(ctx.opt.beta);
  const ExecSpace exec = ctx.exec;
  const std::int64_t count = s.batch;
  std::vector<Impl<In, Out>> impls;

#if defined(RIDGELINE_PERF_HAVE_OPENBLAS)
  if (wanted(ctx.opt, impl_openblas)) {
    Impl<In, Out> im;
    im.name = impl_openblas;
    if constexpr (single_type_v<In, Out>) {
      // The cores share the batch, one matrix per call: a small matrix gives OpenBLAS's own threads
      // nothing to split, so each call runs on the thread that makes it.
      const int threads = ExecSpace().concurrency();
      im.config = std::string("cblas_") + (sizeof(In) == 4 ? "s" : "d") +
                  "gemm per matrix, single-threaded (openblas_set_num_threads(1)), omp parallel for over the "
                  "batch on " +
                  std::to_string(threads) + " threads; " + openblas_get_config() + " core " +
                  openblas_get_corename();
      if (const char* picked = std::getenv("RIDGELINE_PERF_OPENBLAS_PICKED"))
        im.config +=
            std::string(" (OPENBLAS_CORETYPE set by ridgeline-perf; the library picked ") + picked + ")";
      const CBLAS_TRANSPOSE cta = tra == "N" ? CblasNoTrans : CblasTrans;
      const CBLAS_TRANSPOSE ctb = trb == "N" ? CblasNoTrans : CblasTrans;
      im.call = [=](const Operands<In, Out>& o) {
        const int m = int(s.m), n = int(s.n), k = int(s.k);
        const int lda = int(o.a3.extent(0)), ldb = int(o.b3.extent(0)), ldc = int(o.c3.extent(0));
        const std::int64_t sa = std::int64_t(o.a3.stride_2()), sb = std::int64_t(o.b3.stride_2()),
                           sc = std::int64_t(o.c3.stride_2());
        const In* a = o.a3.data();
        const In* b = o.b3.data();
        Out* c = o.c3.data();
        const int before = openblas_get_num_threads();
        openblas_set_num_threads(1);
#if defined(_OPENMP)
#pragma omp parallel for schedule(static) num_threads(threads)
#endif
        for (std::int64_t g = 0; g < count; ++g) {
          if constexpr (sizeof(In) == 4)
            cblas_sgemm(CblasColMajor, cta, ctb, m, n, k, alpha, a + g * sa, lda, b + g * sb, ldb, beta,
                        c + g * sc, ldc);
          else
            cblas_dgemm(CblasColMajor, cta, ctb, m, n, k, alpha, a + g * sa, lda, b + g * sb, ldb, beta,
                        c + g * sc, ldc);
        }
        openblas_set_num_threads(before);
      };
    } else {
      im.skipped = "OpenBLAS has no 16-bit-in, float-out GEMM";
    }
    impls.push_back(im);
  }
#endif

  Impl<In, Out> kk;
  kk.name = impl_kk;
  if constexpr (single_type_v<In, Out>) {
    if (count > std::int64_t(INT_MAX)) {
      kk.skipped = "one team per matrix: a league of more than INT_MAX teams";
    } else if (wanted(ctx.opt, impl_kk)) {
      const int team = kokkos_kernels_gemm_batched_team_size<In>(tra.c_str(), trb.c_str(), s.m, s.n, count);
      const bool on_host = std::is_same<MemSpace, Kokkos::HostSpace>::value;
      kk.config =
          kokkos_kernels_gemm_batched_routine(tra.c_str(), trb.c_str()) + " on (:, :, g) subviews, " +
          "TeamPolicy of " + std::to_string(count) + " teams x " + std::to_string(team) +
          (on_host ? " (Kokkos::AUTO)" : " (min(max(m n, 4), team_size_max), KokkosBatched's perf test)");
      kk.call = [=](const Operands<In, Out>& o) {
        kokkos_kernels_gemm_batched(tra.c_str(), trb.c_str(), alpha, o.a3, o.b3, beta, o.c3, team);
      };
    }
  } else {
    kk.skipped = "KokkosBatched::TeamGemm takes A, B and C of one element type (no 16-bit in, float out)";
  }
  const bool run_kk = wanted(ctx.opt, impl_kk);

  Impl<In, Out> rl;
  rl.name = impl_ridgeline;
  // The config column is filled in run_shape, from gemm_batched_config on the operands.
  rl.call = [=](const Operands<In, Out>& o) {
    ridgeline::gemm_batched(exec, tra.c_str(), trb.c_str(), alpha, o.a3, o.b3, beta, o.c3,
                            ridgeline::BatchLayout::right);
  };

  // team_gemm: its staged form's launch where the build has one (team_gemm_over_batch); else a GPU team of
  // one thread per four outputs of a matrix, whole warps, 32 to 256 threads (a user's choice; the unstaged
  // form takes any), and on the host Kokkos::AUTO (one thread on OpenMP).
  using Staging = ridgeline::TeamGemmStaging<In, ExecSpace, Out>;
  Impl<In, Out> team;
  team.name = impl_team;
  const bool on_host = std::is_same<MemSpace, Kokkos::HostSpace>::value;
  const std::int64_t outputs = s.m * s.n;
  const int team_size =
      on_host
          ? 0
          : int(std::clamp<std::int64_t>((outputs / 4 + 31) / 32 * 32, std::int64_t(32), std::int64_t(256)));
  if (count > std::int64_t(INT_MAX)) {
    team.skipped = "one team per matrix: a league of more than INT_MAX teams";
  } else {
    team.config =
        "ridgeline::team_gemm " +
        (Staging::staged ? "staged (" + std::to_string(Staging::scratch_bytes) + " B of scratch granted)"
                         : std::string("unstaged")) +
        " in a TeamPolicy of " + std::to_string(count) + " teams x " +
        (Staging::staged ? std::to_string(Staging::team_size)
         : on_host       ? std::string("Kokkos::AUTO")
                         : std::to_string(team_size)) +
        ", a team per matrix, operands in global memory";
    const char ca = s.trans_a(), cb = s.trans_b();
    team.call = [=](const Operands<In, Out>& o) {
      team_gemm_over_batch(exec, ca, cb, alpha, o.a3, o.b3, beta, o.c3, team_size);
    };
  }

  if (!have_openblas && run_kk) impls.push_back(kk);
  if (wanted(ctx.opt, impl_ridgeline)) impls.push_back(rl);
  if (wanted(ctx.opt, impl_team)) impls.push_back(team);
  if (have_openblas && run_kk) impls.push_back(kk);
  return impls;
}

template <class In, class Out>
std::vector<Impl<In, Out>> make_impls(const ShapeSpec& s, const Context& ctx) {
  if constexpr (!complex_v<In>) {  // parse_shape refuses complex batches; gemm_batched takes real types
    if (s.batch > 1) return make_batched_impls<In, Out>(s, ctx);
  }
  using Scalar = AccOf<In>;
  const char ta[2] = {s.trans_a(), 0};
  const char tb[2] = {s.trans_b(), 0};
  const std::string tra(ta), trb(tb);
  const Scalar alpha = Scalar(ctx.opt.alpha), beta = Scalar(ctx.opt.beta);
  const ExecSpace exec = ctx.exec;
  std::vector<Impl<In, Out>> impls;

#if defined(RIDGELINE_PERF_HAVE_OPENBLAS)
  // First, because it is the reference the others are checked against (complex rows: checked itself).
  if constexpr (openblas_runs_v<In, Out>) {
    if (wanted(ctx.opt, impl_openblas)) {
      Impl<Scalar> im;
      im.name = impl_openblas;
      // get_config names the build target; a DYNAMIC_ARCH build picks its kernels at run time.
      im.config = std::string(openblas_get_config()) + " core " + openblas_get_corename() + " threads " +
                  std::to_string(openblas_get_num_threads());
      if (const char* picked = std::getenv("RIDGELINE_PERF_OPENBLAS_PICKED"))
        im.config +=
            std::string(" (OPENBLAS_CORETYPE set by ridgeline-perf; the library picked ") + picked + ")";
      const auto letter = [](const std::string& t) {
        return t == "N" ? CblasNoTrans : t == "C" ? CblasConjTrans : CblasTrans;
      };
      const CBLAS_TRANSPOSE cta = letter(tra), ctb = letter(trb);
      if (s.op == Op::gemm) {
        im.call = [=](const Operands<Scalar>& o) {
          const int m = int(s.m), n = int(s.n), k = int(s.k);
          const int lda = int(o.a.extent(0)), ldb = int(o.b.extent(0)), ldc = int(o.c.extent(0));
          if constexpr (complex_v<Scalar> && sizeof(Scalar) == 8)
            cblas_cgemm(CblasColMajor, cta, ctb, m, n, k, &alpha, o.a.data(), lda, o.b.data(), ldb, &beta,
                        o.c.data(), ldc);
          else if constexpr (complex_v<Scalar>)
            cblas_zgemm(CblasColMajor, cta, ctb, m, n, k, &alpha, o.a.data(), lda, o.b.data(), ldb, &beta,
                        o.c.data(), ldc);
          else if constexpr (sizeof(Scalar) == 4)
            cblas_sgemm(CblasColMajor, cta, ctb, m, n, k, alpha, o.a.data(), lda, o.b.data(), ldb, beta,
                        o.c.data(), ldc);
          else
            cblas_dgemm(CblasColMajor, cta, ctb, m, n, k, alpha, o.a.data(), lda, o.b.data(), ldb, beta,
                        o.c.data(), ldc);
        };
      } else {
        im.call = [=](const Operands<Scalar>& o) {
          const int m = int(o.a.extent(0)), n = int(o.a.extent(1));
          if constexpr (complex_v<Scalar> && sizeof(Scalar) == 8)
            cblas_cgemv(CblasColMajor, cta, m, n, &alpha, o.a.data(), m, o.x.data(), 1, &beta, o.y.data(), 1);
          else if constexpr (complex_v<Scalar>)
            cblas_zgemv(CblasColMajor, cta, m, n, &alpha, o.a.data(), m, o.x.data(), 1, &beta, o.y.data(), 1);
          else if constexpr (sizeof(Scalar) == 4)
            cblas_sgemv(CblasColMajor, cta, m, n, alpha, o.a.data(), m, o.x.data(), 1, beta, o.y.data(), 1);
          else
            cblas_dgemv(CblasColMajor, cta, m, n, alpha, o.a.data(), m, o.x.data(), 1, beta, o.y.data(), 1);
        };
      }
      impls.push_back(im);
    }
  }
#endif

  // On device builds Kokkos Kernels is the in-process reference; cuBLAS is checked in the merge.
  Impl<In, Out> kk;
  kk.name = impl_kk;
  kk.config = "native kernels, no TPL";
  if constexpr (single_type_v<In, Out>) {
    if (s.op == Op::gemm)
      kk.call = [=](const Operands<In, Out>& o) { kokkos_kernels_gemm(ta, tb, alpha, o.a, o.b, beta, o.c); };
    else
      kk.call = [=](const Operands<In, Out>& o) { kokkos_kernels_gemv(ta, alpha, o.a, o.x, beta, o.y); };
  }
  const bool run_kk = single_type_v<In, Out> && wanted(ctx.opt, impl_kk);

  Impl<In, Out> rl;
  rl.name = impl_ridgeline;
  if (s.op == Op::gemm) {
    const ridgeline::Math math = math_of(s);
    rl.config = tile_config_string(ridgeline::gemm_tile_config<ExecSpace, In>());
    rl.call = [=](const Operands<In, Out>& o) {
      ridgeline::gemm(exec, tra.c_str(), trb.c_str(), alpha, o.a, o.b, beta, o.c, math);
    };
  } else {
    // LayoutLeft: op(A) rows are contiguous for "N", so that is the "rows" kernel; "T" is "dot".
    rl.config = gemv_config_string(
        ridgeline::gemv_config<ExecSpace, In>(s.trans_a() == 'N', &exec, s.y_len(), s.x_len()));
    rl.call = [=](const Operands<In, Out>& o) {
      ridgeline::gemv(exec, tra.c_str(), alpha, o.a, o.x, beta, o.y);
    };
  }

  if (!have_openblas && run_kk) impls.push_back(kk);
  if (wanted(ctx.opt, impl_ridgeline)) impls.push_back(rl);
  if (have_openblas && run_kk) impls.push_back(kk);
  return impls;
}

// ---- one shape ---------------------------------------------------------------------------------

template <class In, class Out>
Operands<In, Out> make_operands(const ShapeSpec& s, std::uint64_t seed, int set) {
  Operands<In, Out> o;
  const std::string tag = std::to_string(set);
  const int bits = input_bits(s.precision);  // A, B, x in the input format; C, y full width
  if (!complex_v<In> && s.batch > 1) {
    // Storage order is (i, j, g) column-major, the index order of cublas_baseline's contiguous buffers.
    o.a3 = Batch<In>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "A" + tag), s.a_rows(), s.a_cols(),
                     s.batch);
    o.b3 = Batch<In>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "B" + tag), s.b_rows(), s.b_cols(),
                     s.batch);
    o.c3 = Batch<Out>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "C" + tag), s.m, s.n, s.batch);
    fill_inputs(o.a3, tensor_seed(seed, Tensor::a, set), bits);
    fill_inputs(o.b3, tensor_seed(seed, Tensor::b, set), bits);
    fill_inputs(o.c3, tensor_seed(seed, Tensor::c, set));
    return o;
  }
  o.a = Matrix<In>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "A" + tag), s.a_rows(), s.a_cols());
  fill_inputs(o.a, tensor_seed(seed, Tensor::a, set), bits);
  if (s.op == Op::gemm) {
    o.b = Matrix<In>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "B" + tag), s.b_rows(), s.b_cols());
    o.c = Matrix<Out>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "C" + tag), s.m, s.n);
    fill_inputs(o.b, tensor_seed(seed, Tensor::b, set), bits);
    fill_inputs(o.c, tensor_seed(seed, Tensor::c, set));
  } else {
    o.x = Vector<In>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "x" + tag), s.x_len());
    o.y = Vector<Out>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "y" + tag), s.y_len());
    fill_inputs(o.x, tensor_seed(seed, Tensor::x, set), bits);
    fill_inputs(o.y, tensor_seed(seed, Tensor::y, set));
  }
  return o;
}

// reference_product on one product of the check run: out (filled like the impls' output) becomes
// alpha op(A) op(B) + beta out, accumulated in double. a and b (x) point at the product's matrices,
// column-major with leading dimensions lda and ldb (ldb unused for a GEMV).
template <class In, class Out>
void run_reference(const ShapeSpec& s, const In* a, std::int64_t lda, const In* b, std::int64_t ldb,
                   double alpha, double beta, Out* out) {
  // op(A)(i, p): A(i, p) = a[i + p lda] for "N", A(p, i) = a[p + i lda] for "T" and "C" (conjugated).
  const std::int64_t a_i = s.trans_a() == 'N' ? 1 : lda, a_p = s.trans_a() == 'N' ? lda : 1;
  const bool conj_a = s.trans_a() == 'C';
  if (s.op == Op::gemm) {
    // op(B)(p, j): B(p, j) = b[p + j ldb] for "N", B(j, p) = b[j + p ldb] for "T" and "C".
    const std::int64_t b_p = s.trans_b() == 'N' ? 1 : ldb, b_j = s.trans_b() == 'N' ? ldb : 1;
    reference_product(s.m, s.n, s.k, a, a_i, a_p, b, b_p, b_j, alpha, beta, out, conj_a, s.trans_b() == 'C');
  } else {
    reference_product(s.y_len(), std::int64_t(1), s.x_len(), a, a_i, a_p, b, std::int64_t(1), std::int64_t(0),
                      alpha, beta, out, conj_a);
  }
}

// The signature of a batch's check run over check_matrices(s), every element of each: ref holds
// their reference results one after another (or is empty). Probe weights are indexed over the whole
// batch's output, as cublas_baseline's are, so the two programs' probes compare.
template <class Out>
ResultSignature checked_matrices_signature(const ShapeSpec& s, const FlatView<Out>& out,
                                           const FlatView<Out>& ref) {
  const std::int64_t per = s.matrix_out_elems();
  const auto matrices = check_matrices(s);
  SignatureSums total;
  for (std::size_t j = 0; j < matrices.size(); ++j) {
    const std::int64_t first = matrices[j] * per;
    const FlatView<Out> part(out.data() + first, std::size_t(per));
    const FlatView<Out> ref_part =
        ref.data() ? FlatView<Out>(ref.data() + std::int64_t(j) * per, std::size_t(per)) : FlatView<Out>();
    const SignatureSums p = signature_sums(part, ref_part, first);
    total.sq += p.sq;
    total.probe += p.probe;
    total.diff_sq += p.diff_sq;
  }
  return signature_of(total);
}

constexpr const char* reference_name = "fp64 reference";

template <class In, class Out = In>
std::vector<PerfRecord> run_shape(const ShapeSpec& s, const Context& ctx) {
  // The same count check_shapes_fit checked against the memory before the first case ran.
  const CaseFootprint footprint = case_footprint(s, ctx.rotate_bytes, ctx.opt.max_buffer_sets);
  const double set_bytes = double(footprint.set_bytes);
  const int n_sets = footprint.sets;

  std::vector<Operands<In, Out>> sets;
  for (int i = 0; i < n_sets; ++i) sets.push_back(make_operands<In, Out>(s, ctx.opt.seed, i));

  // The check run reads set 0's inputs and writes a separate output, refilled before every impl,
  // so beta != 0 sees the same C/y each time and the timed runs cannot disturb it.
  // A batch's check writes the whole batch, and is judged on check_matrices(s): the reference holds
  // only those.
  Operands<In, Out> check = sets[0];
  const bool batched = s.batch > 1;
  const auto checked = check_matrices(s);
  const std::int64_t per_matrix = s.matrix_out_elems();
  Vector<Out> out_buf(Kokkos::view_alloc(Kokkos::WithoutInitializing, "check_out"), s.out_elems());
  Vector<Out> ref_buf(Kokkos::view_alloc(Kokkos::WithoutInitializing, "check_ref"),
                      batched ? per_matrix * std::int64_t(checked.size()) : s.out_elems());
  if (batched)
    check.c3 = Batch<Out>(out_buf.data(), s.m, s.n, s.batch);
  else if (s.op == Op::gemm)
    check.c = Matrix<Out>(out_buf.data(), s.m, s.n);
  else
    check.y = Vector<Out>(out_buf.data(), s.y_len());
  const FlatView<Out> check_out = output_of(s, check);
  const FlatView<Out> ref_flat(ref_buf.data(), ref_buf.extent(0));
  // The check run's signature, against the reference (with_ref) or alone.
  auto signature = [&](bool with_ref) {
    return batched ? checked_matrices_signature(s, check_out, with_ref ? ref_flat : FlatView<Out>())
                   : result_signature(check_out, with_ref ? ref_flat : FlatView<Out>());
  };

  TimingOptions topt;
  topt.reps = ctx.opt.reps;
  topt.warmup = ctx.opt.warmup;
  topt.min_sample_s = ctx.opt.min_sample_ms * 1e-3;

  std::vector<PerfRecord> rows;
  std::string ref_name;
  double ref_norm = 0;
  if (!complex_v<In> && batched) {
    // Every implementation against reference_product, in double, on the checked matrices: they start
    // from the check output's fill (beta != 0 reads it), copied before the reference overwrites them.
    fill_inputs(check_out, tensor_seed(ctx.opt.seed, Tensor::check_out, 0));
    Kokkos::fence();
    const std::int64_t a_per = s.a_rows() * s.a_cols(), b_per = s.b_rows() * s.b_cols();
    std::string which;
    for (std::size_t j = 0; j < checked.size(); ++j) {
      const std::int64_t g = checked[j], at = std::int64_t(j) * per_matrix;
      Kokkos::deep_copy(Kokkos::subview(ref_buf, std::make_pair(at, at + per_matrix)),
                        Kokkos::subview(out_buf, std::make_pair(g * per_matrix, (g + 1) * per_matrix)));
      run_reference(s, check.a3.data() + g * a_per, s.a_rows(), check.b3.data() + g * b_per, s.b_rows(),
                    ctx.opt.alpha, ctx.opt.beta, ref_buf.data() + at);
      which += (j ? " " : "") + std::to_string(g);  // no commas: the name is a CSV field
    }
    Kokkos::fence();
    ref_name = std::string(reference_name) + " (matrices " + which + ")";
    ref_norm = result_signature(ref_flat, FlatView<Out>()).norm;
  } else if constexpr (!single_type_v<In, Out>) {
    // No in-process library takes these inputs: the reference is reference_product, in double.
    fill_inputs(ref_buf, tensor_seed(ctx.opt.seed, Tensor::check_out, 0));
    if (s.op == Op::gemm)
      run_reference(s, check.a.data(), std::int64_t(check.a.extent(0)), check.b.data(),
                    std::int64_t(check.b.extent(0)), ctx.opt.alpha, ctx.opt.beta, ref_buf.data());
    else
      run_reference(s, check.a.data(), std::int64_t(check.a.extent(0)), check.x.data(), std::int64_t(1),
                    ctx.opt.alpha, ctx.opt.beta, ref_buf.data());
    Kokkos::fence();
    ref_name = reference_name;
    ref_norm = result_signature(ref_flat, FlatView<Out>()).norm;
  }
  for (const auto& im : make_impls<In, Out>(s, ctx)) {
    PerfRecord r;
    r.shape = s;
    r.impl = im.name;
    r.config = im.config;
    r.alpha = ctx.opt.alpha;
    r.beta = ctx.opt.beta;
    if (!im.skipped.empty()) {
      r.config = "skipped: " + im.skipped;
      r.check = "skipped";
      rows.push_back(r);
      continue;
    }
    if constexpr (!complex_v<In>) {
      if (r.impl == impl_ridgeline && batched) {
        // The path gemm_batched takes (small or tiles) depends on the extents, strides and device.
        const std::string ta(1, s.trans_a()), tb(1, s.trans_b());
        const auto cfg = ridgeline::gemm_batched_tile_config(ExecSpace(), ta.c_str(), tb.c_str(), check.a3,
                                                             check.b3, ridgeline::BatchLayout::right);
        r.tile = cfg;
        r.config = "gemm_batched " + tile_config_string(cfg);
        if (s.precision == Precision::tf32) r.config += " (exact FP32: gemm_batched takes no Math)";
      }
    }
    if (r.impl == impl_ridgeline && s.op == Op::gemm && !batched) {
      // Which table entry runs depends on the operands' strides and alignment.
      const std::string ta(1, s.trans_a()), tb(1, s.trans_b());
      const auto cfg = ridgeline::gemm_tile_config(ExecSpace(), ta.c_str(), tb.c_str(), check.a, check.b,
                                                   check.c, ctx.opt.beta, math_of(s));
      r.tile = cfg;
      r.config = tile_config_string(cfg);
    }
    r.buffer_sets = n_sets;
    r.rotate_bytes = set_bytes * n_sets;
    r.tol = check_tolerance(s);
    try {
      fill_inputs(check_out, tensor_seed(ctx.opt.seed, Tensor::check_out, 0));
      Kokkos::fence();
      im.call(check);
      Kokkos::fence();
      if (ref_name.empty()) {
        Kokkos::deep_copy(ref_buf, Vector<Out>(check_out.data(), check_out.extent(0)));
        ref_name = im.name;
        const auto sig = signature(false);
        r.out_norm = sig.norm;
        r.out_probe = sig.probe;
        ref_norm = sig.norm;
        r.check = "ref";
        r.check_ref = im.name;
      } else {
        const auto sig = signature(true);
        r.out_norm = sig.norm;
        r.out_probe = sig.probe;
        r.check_ref = ref_name;
        // max with ||out||: a reference that is itself all zeros must not make every result pass.
        const double denom = std::max({ref_norm, sig.norm, 1e-300});
        r.rel_err = sig.diff_norm / denom;
        r.check = std::isfinite(r.rel_err) && r.rel_err <= r.tol ? "ok" : "MISMATCH";
      }
      const Timing t = time_calls([&](int set) { im.call(sets[std::size_t(set)]); }, n_sets, topt);
      r.median_ms = t.median_s * 1e3;
      r.min_ms = t.min_s * 1e3;
      r.max_ms = t.max_s * 1e3;
      r.samples = t.samples;
      r.calls_per_sample = t.calls_per_sample;
    } catch (const std::exception& e) {
      std::cerr << "ridgeline-perf: " << im.name << " on " << spec_string(s) << " failed: " << e.what()
                << "\n";
      r.check = "ERROR";
    }
    // OpenBLAS's pthreads spin for a while after a call; on a machine without spare cores they
    // would steal cycles from the next implementation's OpenMP threads.
    if (im.name == impl_openblas && ctx.opt.settle_ms > 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(ctx.opt.settle_ms));
    rows.push_back(r);
  }
  return rows;
}

// ---- roofline ledger ---------------------------------------------------------------------------

ridgeline::DType dtype_of(Precision p) {
  switch (p) {
    case Precision::fp32:
      return ridgeline::DType::fp32;
    case Precision::fp64:
      return ridgeline::DType::fp64;
    case Precision::fp16:
      return ridgeline::DType::fp16;
    case Precision::bf16:
      return ridgeline::DType::bf16;
    case Precision::tf32:
      return ridgeline::DType::tf32;
    case Precision::cf32:  // complex: real FLOPs on the real type's units
      return ridgeline::DType::fp32;
    case Precision::cf64:
      return ridgeline::DType::fp64;
  }
  return ridgeline::DType::fp32;
}

ridgeline::Unit unit_of(const PerfRecord& r) {
  return r.impl == impl_ridgeline && r.tile && r.tile->matrix_unit ? ridgeline::Unit::matrix
                                                                   : ridgeline::Unit::vector;
}

// The roof a row is held to. Matrix-unit entries: the dtype's matrix peak (fp16/bf16 HMMA, DMMA).
// Everything on the vector units: the dtype's vector peak, except for 16-bit inputs, which the
// portable micro-kernel and the GEMV kernels widen to float and multiply-add in FP32.
ridgeline::RoofSelection roof_of(const PerfRecord& r) {
  const ridgeline::Unit unit = unit_of(r);
  const ridgeline::DType d = dtype_of(r.shape.precision);
  if (unit == ridgeline::Unit::vector && (d == ridgeline::DType::fp16 || d == ridgeline::DType::bf16))
    return {ridgeline::DType::fp32, unit};
  return {d, unit};
}

// The dtype's datasheet peak: the fastest unit that has it (FP64: the DMMA rate above the vector one).
double datasheet_peak(const ridgeline::DeviceSpec& spec, Precision p) {
  double best = 0;
  for (ridgeline::Unit u : ridgeline::kAllUnits) best = std::max(best, spec.peak_flops(dtype_of(p), u));
  return best;
}

template <class In>
ridgeline::TileConfig default_tile_config() {
  return ridgeline::gemm_tile_config<ExecSpace, In>();
}

void annotate(std::vector<PerfRecord>& rows, const Context& ctx) {
  const bool beta_nonzero = ctx.opt.beta != 0.0;
  for (auto& r : rows) {
    const ShapeSpec& s = r.shape;
    r.peak_gflops = datasheet_peak(ctx.spec, s.precision) * 1e-9;
    if (r.peak_gflops <= 0) r.peak_gflops = NAN;
    r.peak_gbs = ctx.spec.dram_bw_bytes_per_s * 1e-9;
    r.copy_gbs = ctx.copy.best() * 1e-9;
    if (!std::isfinite(r.median_ms)) continue;
    const double seconds = r.median_ms * 1e-3;
    // One element type: the roofline module's model. 16-bit inputs with float outputs: the same model
    // with each tensor at its own width (perf_record.hpp ideal_bytes).
    // A batch: batch times one product's flops and bytes, so its intensity is one matrix's.
    // Complex: the real models at the complex element's bytes, with 8 real FLOPs per multiply-add.
    ridgeline::roofline::Traffic traffic =
        s.narrow_inputs()  ? ridgeline::roofline::Traffic{s.flops(), ideal_bytes(s, beta_nonzero)}
        : s.op == Op::gemm ? ridgeline::roofline::gemm_ideal(s.m, s.n, s.k, s.elem_bytes(), beta_nonzero)
                           : ridgeline::roofline::gemv_ideal(s.m, s.n, s.elem_bytes(), beta_nonzero);
    if (s.is_complex()) traffic = ridgeline::roofline::complex_traffic(traffic);
    if (!s.narrow_inputs()) {
      traffic.flops *= double(s.batch);
      traffic.bytes *= double(s.batch);
    }
    r.gflops = s.flops() / seconds * 1e-9;
    r.gbs = traffic.bytes / seconds * 1e-9;
    r.peak_fraction = s.op == Op::gemm ? r.gflops / r.peak_gflops : r.gbs / r.peak_gbs;
    if (s.op == Op::gemv) r.bw_fraction = r.gbs / r.copy_gbs;
    try {
      // Ridgeline's tensor-core entries are held to the matrix unit's roof; everything else measured
      // here (Kokkos Kernels' native kernels, Ridgeline's SIMT entries, GEMV) runs on the vector units.
      const ridgeline::RoofSelection roof = roof_of(r);
      const auto p = ridgeline::roofline::evaluate(ctx.spec, roof.dtype, roof.unit, traffic, seconds);
      r.intensity = p.intensity;
      r.attainable_gflops = p.attainable_flops * 1e-9;
      r.ridge = p.ridge;
      r.efficiency = p.efficiency;
      r.bound = ridgeline::roofline::to_string(p.bound);
      // A batch has a tile model only where it runs a gemm per matrix (r.tile): per matrix, whose
      // intensity is the batch's.
      if (r.impl == impl_ridgeline && s.op == Op::gemm && (s.batch == 1 || r.tile)) {
        const ridgeline::TileConfig cfg =
            r.tile                           ? *r.tile
            : s.precision == Precision::fp64 ? default_tile_config<double>()
            : s.precision == Precision::fp16 ? default_tile_config<ridgeline::half_t>()
            : s.precision == Precision::bf16 ? default_tile_config<ridgeline::bhalf_t>()
                                             : default_tile_config<float>();
        auto tt = ridgeline::roofline::gemm_tile_traffic(s.m, s.n, s.k, s.in_bytes(), beta_nonzero, cfg,
                                                         double(ctx.spec.l2_bytes));
        if (s.is_complex()) tt = ridgeline::roofline::complex_traffic(tt);
        // The model counts C at the inputs' width; a float C of 16-bit inputs moves the difference too.
        tt.bytes += double(s.out_bytes() - s.in_bytes()) * double(s.m) * double(s.n) * (beta_nonzero ? 2 : 1);
        if (tt.bytes > 0) r.tile_intensity = tt.flops / tt.bytes;
      }
    } catch (const std::exception& e) {
      // A spec without a figure for this dtype leaves the ledger columns empty, not the run.
      std::cerr << "ridgeline-perf: roofline for " << r.impl << " " << spec_string(s) << ": " << e.what()
                << "\n";
    }
  }
  // Ratios against the baselines of the same shape in the same run.
  for (auto& r : rows) {
    for (const auto& b : rows) {
      if (b.shape.op != r.shape.op || spec_string(b.shape) != spec_string(r.shape)) continue;
      if (!std::isfinite(b.gflops) || !std::isfinite(r.gflops)) continue;
      if (b.impl == ctx.vendor) r.ratio_vendor = r.gflops / b.gflops;
      if (b.impl == impl_kk) r.ratio_kk = r.gflops / b.gflops;
    }
  }
}

void write_plot(const std::string& path, const std::vector<PerfRecord>& rows, const Context& ctx) {
  std::vector<ridgeline::MeasuredPoint> points;
  std::vector<ridgeline::RoofSelection> roofs;
  auto add_roof = [&](ridgeline::RoofSelection want) {
    for (const auto& have : roofs)
      if (have.dtype == want.dtype && have.unit == want.unit) return;
    roofs.push_back(want);
  };
  for (const auto& r : rows) {
    if (!std::isfinite(r.gflops) || !std::isfinite(r.intensity)) continue;
    ridgeline::MeasuredPoint p;
    p.label = spec_string(r.shape);
    p.series = r.impl;
    p.intensity = r.intensity;
    p.gflops = r.gflops;
    points.push_back(p);
    // The vector roof of the dtype is always drawn (fp32 for 16-bit and TF32 inputs, which the vector
    // units multiply-add in FP32); a matrix-unit row adds its own.
    const ridgeline::RoofSelection roof = roof_of(r);
    const bool widened = r.shape.precision == Precision::fp16 || r.shape.precision == Precision::bf16 ||
                         r.shape.precision == Precision::tf32;
    add_roof({widened ? ridgeline::DType::fp32 : roof.dtype, ridgeline::Unit::vector});
    if (roof.unit == ridgeline::Unit::matrix) add_roof(roof);
  }
  if (roofs.empty()) roofs.push_back({ridgeline::DType::fp64, ridgeline::Unit::vector});
  ridgeline::PlotOptions po;
  po.title = "Roofline: " + ctx.spec.name + " (" + ExecSpace::name() + ")";
  if (ctx.have_ceilings) po.measured = ridgeline::measured_roof_lines(ctx.ceilings, 0);
  ridgeline::write_roofline_plot({ctx.spec}, roofs, points, path, po);
}

// ---- metadata ----------------------------------------------------------------------------------

std::string shell_quote(const std::string& a) {
  if (!a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                        "-_=+./:,@%") == std::string::npos)
    return a;
  std::string r = "'";
  for (char c : a) r += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return r + "'";
}

double host_llc_bytes() {
#if defined(_SC_LEVEL3_CACHE_SIZE)
  const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (l3 > 0) return double(l3);
#endif
#if defined(_SC_LEVEL2_CACHE_SIZE)
  const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  if (l2 > 0) return double(l2);
#endif
  return 0;
}

int run(int argc, char** argv) {
  Options opt;
  CLI::App app{"ridgeline-perf: GEMM/GEMV through Ridgeline, Kokkos Kernels and the vendor BLAS"};
  app.add_option(
      "--shapes", opt.shapes,
      "preset (quick-host, host-2048, h200, h200-half, cliffs, cliffs-host, batched, "
      "batched-host, complex, complex-host) or list like "
      "gemm:NN:4096x4096x4096:fp32,gemv:T:8192x8192:fp64; dtypes fp32 fp64 fp16 bf16 tf32 cf32 cf64 "
      "(complex, transposes N, T or C: gemm:CN:4096x4096x4096:cf64); a strided batch of GEMMs: "
      "gemm:NN:32x32x32:fp64:batch=30000");
  app.add_option(
         "--impls", opt.impls,
         "implementations to run: ridgeline, kokkos-kernels, openblas, ridgeline-team_gemm (batched rows)")
      ->delimiter(',');
  app.add_option("--reps", opt.reps, "timed samples per case; the median is reported (>= 10)")
      ->check(CLI::Range(10, 100000));
  app.add_option("--warmup", opt.warmup, "untimed calls before timing")->check(CLI::Range(1, 1000));
  app.add_option("--min-sample-ms", opt.min_sample_ms,
                 "shortest timed sample (ms); short calls are batched back-to-back up to this");
  app.add_option("--rotate-bytes", opt.rotate_bytes,
                 "bytes of rotated buffer sets per case (default 3x last-level cache); caps rotation for "
                 "quick host runs");
  app.add_option("--max-buffer-sets", opt.max_buffer_sets, "upper bound on rotated sets")
      ->check(CLI::Range(1, 4096));
  app.add_option("--settle-ms", opt.settle_ms, "pause after OpenBLAS so its spinning threads park (ms)");
  app.add_option("--alpha", opt.alpha, "alpha");
  app.add_option("--beta", opt.beta, "beta");
  app.add_option("--seed", opt.seed, "input seed (same in cublas_baseline)");
  app.add_option("--csv", opt.csv, "write results as CSV");
  app.add_option("--json", opt.json, "write results and metadata as JSON");
  app.add_option("--plot", opt.plot,
                 "write the roofline with the measured points (SVG, its PNG twin, and the points' key as "
                 "<plot>.key.md)");
  app.add_option("--git-sha", opt.git_sha, "override the configure-time git sha");
  app.add_option("--ceilings", opt.ceilings,
                 "measured ceilings saved by `ridgeline ceilings` (default: its file, $RIDGELINE_CEILINGS or "
                 "~/.local/share/ridgeline/ceilings.json; 'none': none)");
  app.add_flag("--list-shapes", opt.list_shapes, "print the expanded shape list and exit");
  // Kokkos 3 leaves its --kokkos-* arguments in argv; they are Kokkos's business, not ours.
  std::vector<const char*> args;
  for (int i = 0; i < argc; ++i)
    if (i == 0 || std::string(argv[i]).rfind("--kokkos-", 0) != 0) args.push_back(argv[i]);
  try {
    app.parse(int(args.size()), args.data());
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  std::vector<ShapeSpec> shapes;
  try {
    shapes = parse_shapes(opt.shapes);
  } catch (const std::exception& e) {
    std::cerr << "ridgeline-perf: " << e.what() << "\n";
    return kExitUsage;
  }
  if (opt.list_shapes) {
    for (const auto& s : shapes) std::cout << spec_string(s) << "\n";
    return 0;
  }
  for (const auto& im : opt.impls)
    if (im != impl_ridgeline && im != impl_kk && im != impl_openblas && im != impl_team) {
      std::cerr << "ridgeline-perf: unknown impl '" << im << "'\n";
      return kExitUsage;
    }

  // Only now, so that --help and --list-shapes work on a machine without the device.
  Kokkos::ScopeGuard guard(argc, argv);

  Context ctx;
  ctx.opt = opt;
  ctx.spec = ridgeline::detect_device_spec<ExecSpace>(ctx.exec);
  ctx.llc_bytes = double(ctx.spec.l2_bytes);
  // A host spec may carry the per-core L2; what rotation has to defeat is the shared last level.
  if (std::is_same<MemSpace, Kokkos::HostSpace>::value)
    ctx.llc_bytes = std::max(ctx.llc_bytes, host_llc_bytes());
  if (ctx.llc_bytes <= 0) ctx.llc_bytes = 64.0 * (1 << 20);
  ctx.rotate_bytes = opt.rotate_bytes >= 0 ? opt.rotate_bytes : 3.0 * ctx.llc_bytes;
  // Every case against the memory before the first allocation, so that a shape too large for it is a
  // usage error naming the shape, not an allocation failure (or a wrapped-around size) mid-run.
  // Unknown memory (0): the 64-bit overflow half of the check still applies.
  const ExecSpaceMemory memory = exec_space_memory();
  try {
    check_shapes_fit(shapes, ctx.rotate_bytes, opt.max_buffer_sets,
                     memory.bytes > 0 ? memory.bytes : UINT64_MAX,
                     memory.bytes > 0 ? memory.name : "any memory");
  } catch (const std::invalid_argument& e) {
    std::cerr << "ridgeline-perf: " << e.what() << "\n";
    return kExitUsage;
  }
  // The copy bandwidth of this run, which GEMV rows are reported against (bw_fraction): on a device
  // two buffers of at least 1 GiB, far above its L2, median of --reps copies; on the host twice the
  // last-level cache (at least 256 MiB), median of 5.
  const bool on_host = std::is_same<MemSpace, Kokkos::HostSpace>::value;
  ctx.copy = measure_copy_bandwidth(on_host ? std::max(2.0 * ctx.llc_bytes, 256.0 * (1 << 20))
                                            : std::max(1024.0 * (1 << 20), 8.0 * ctx.llc_bytes),
                                    on_host ? 5 : opt.reps);
  // An estimated spec (host CPUs) has no real memory bandwidth: use the measured one, so memory-bound
  // rows are judged against this machine rather than a placeholder.
  std::string bw_source = "spec";
  if (ctx.spec.estimated) {
    ctx.spec.dram_bw_bytes_per_s = ctx.copy.kernel_bytes_per_s;
    bw_source = "measured: copy over 2x LLC, read+write";
  }
  ctx.vendor = have_openblas ? impl_openblas : "cublas";
  ctx.ceilings_path = opt.ceilings.empty() ? ridgeline::ceilings::default_ceilings_path() : opt.ceilings;
  std::string ceilings_line = "measured ceilings: none saved for this device and backend in " +
                              ctx.ceilings_path + " (`ridgeline ceilings` measures them)";
  if (opt.ceilings == "none") {
    ceilings_line = "measured ceilings: not consulted (--ceilings none)";
  } else {
    try {
      const auto file = ridgeline::ceilings::load_ceilings_file(ctx.ceilings_path);
      if (const auto* c =
              ridgeline::ceilings::find_ceilings(file, ctx.spec.name, ctx.spec.key, ExecSpace::name())) {
        ctx.ceilings = *c;
        ctx.have_ceilings = true;
        std::ostringstream os;
        os << "measured ceilings (" << ctx.ceilings_path << ", " << c->date_utc << ", git " << c->git_sha
           << "):";
        for (const auto* r : ridgeline::ceilings::plotted_roofs(*c))
          os << (r == ridgeline::ceilings::plotted_roofs(*c).front() ? " " : "; ") << r->label << " "
             << r->value * 1e-9 << (r->kind == "bandwidth" ? " GB/s" : " GFLOP/s");
        ceilings_line = os.str();
      }
    } catch (const std::exception& e) {
      ceilings_line = std::string("measured ceilings: not used: ") + e.what();
    }
  }
#if defined(RIDGELINE_PERF_HAVE_OPENBLAS)
  // Same thread count as Kokkos so the comparison is core-for-core, on the same cores.
  openblas_set_num_threads(ExecSpace().concurrency());
  const int openblas_placed = place_openblas_threads();
#endif

  RunInfo info;
  for (int i = 0; i < argc; ++i) info.command += (i ? " " : "") + shell_quote(argv[i]);
  info.git_sha = opt.git_sha.empty() ? RIDGELINE_PERF_GIT_SHA : opt.git_sha;
  info.date_utc = utc_now_iso8601();
  info.device = ctx.spec.name;
  info.backend = ExecSpace::name();
  info.kokkos = ridgeline::kokkos_description();

  std::cout << "ridgeline-perf " << ridgeline::version() << " (" << info.git_sha << ")  " << info.date_utc
            << "\n"
            << "device: " << info.device << " [" << ctx.spec.source << "]  exec space: " << info.backend
            << (std::is_same<MemSpace, Kokkos::HostSpace>::value
                    ? " x" + std::to_string(ExecSpace().concurrency()) + " threads"
                    : std::string())
            << "  " << info.kokkos << "\n"
            << "peaks: fp32 " << ctx.spec.peak_flops(ridgeline::DType::fp32, ridgeline::Unit::vector) * 1e-9
            << " GFLOP/s, fp64 "
            << ctx.spec.peak_flops(ridgeline::DType::fp64, ridgeline::Unit::vector) * 1e-9
            << " GFLOP/s (vector units); DRAM " << ctx.spec.dram_bw_bytes_per_s * 1e-9 << " GB/s ("
            << bw_source << "); LLC " << ctx.llc_bytes / (1 << 20) << " MiB; rotation "
            << ctx.rotate_bytes / (1 << 20) << " MiB/case\n"
            << "matrix-unit peaks: fp64 "
            << ctx.spec.peak_flops(ridgeline::DType::fp64, ridgeline::Unit::matrix) * 1e-9 << ", tf32 "
            << ctx.spec.peak_flops(ridgeline::DType::tf32, ridgeline::Unit::matrix) * 1e-9 << ", fp16 "
            << ctx.spec.peak_flops(ridgeline::DType::fp16, ridgeline::Unit::matrix) * 1e-9 << ", bf16 "
            << ctx.spec.peak_flops(ridgeline::DType::bf16, ridgeline::Unit::matrix) * 1e-9 << " GFLOP/s\n"
            << "copy bandwidth (this run; GEMV BW/copy is against it): " << ctx.copy.best() * 1e-9
            << " GB/s = max(copy kernel " << ctx.copy.kernel_bytes_per_s * 1e-9 << ", Kokkos::deep_copy "
            << ctx.copy.deep_copy_bytes_per_s * 1e-9 << "), 2 x " << ctx.copy.buffer_bytes / (1 << 20)
            << " MiB, read+write, median of " << ctx.copy.reps << "\n"
            << "timing: median of " << opt.reps << " fenced samples after " << opt.warmup
            << " warm-up calls; alpha " << opt.alpha << " beta " << opt.beta
            << "; vendor baseline: " << ctx.vendor
            << (have_openblas ? "" : " (separate program, see merge_results.py)") << "\n"
            << ceilings_line << "\n";
#if defined(RIDGELINE_PERF_HAVE_OPENBLAS)
  std::cout << "openblas: core " << openblas_get_corename() << ", " << openblas_get_num_threads()
            << " threads";
  if (openblas_placed > 0)
    std::cout << " (" << openblas_placed << " worker thread" << (openblas_placed > 1 ? "s" : "")
              << " moved off the first place to the OpenMP team's others)";
  if (const char* picked = std::getenv("RIDGELINE_PERF_OPENBLAS_PICKED"))
    std::cout << " (OPENBLAS_CORETYPE set by ridgeline-perf: the library picked " << picked
              << " for this CPU)";
  std::cout << "\n";
#endif
  std::cout << "\n";

  std::vector<PerfRecord> rows;
  // On a terminal, one self-overwriting line on stderr says which case runs, its place and the time
  // left; otherwise (logs, CI, pipes) the output is the plain "running ... done" lines.
#if defined(__unix__)
  const bool progress = isatty(STDERR_FILENO) != 0;
  // stdout sent to a file keeps its "running" lines while the terminal shows the progress.
  const bool plain = !progress || isatty(STDOUT_FILENO) == 0;
#else
  const bool progress = false, plain = true;
#endif
  const auto sweep_start = std::chrono::steady_clock::now();
  for (std::size_t si = 0; si < shapes.size(); ++si) {
    const ShapeSpec& s = shapes[si];
    if (progress) {
      const double elapsed =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - sweep_start).count();
      std::cerr << "\r\033[K" << progress_line(si, shapes.size(), spec_string(s), elapsed) << std::flush;
    }
    if (plain) std::cout << "running " << spec_string(s) << " ..." << std::flush;
    std::vector<PerfRecord> r;
    switch (s.precision) {
      case Precision::fp32:
        r = run_shape<float>(s, ctx);
        break;
      case Precision::fp64:
        r = run_shape<double>(s, ctx);
        break;
      case Precision::fp16:
        r = run_shape<ridgeline::half_t, float>(s, ctx);
        break;
      case Precision::bf16:
        r = run_shape<ridgeline::bhalf_t, float>(s, ctx);
        break;
      case Precision::tf32:
        // float operands, Math::allow_tf32 (exact FP32 where the build has no TF32 path; the
        // config column says which ran).
        r = run_shape<float>(s, ctx);
        break;
      case Precision::cf32:
        r = run_shape<Kokkos::complex<float>>(s, ctx);
        break;
      case Precision::cf64:
        r = run_shape<Kokkos::complex<double>>(s, ctx);
        break;
    }
    if (plain) std::cout << " done\n";
    rows.insert(rows.end(), r.begin(), r.end());
  }
  if (progress)
    std::cerr << "\r\033[K" << shapes.size() << " cases in "
              << clock_text(
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - sweep_start).count())
              << "\n";
  annotate(rows, ctx);

  std::cout << "\n";
  print_results_table(std::cout, rows, ctx.vendor);
  std::cout << "\n";
  print_roofline_ledger(std::cout, rows);

  int status = 0;
  for (const auto& r : rows)
    if (r.check == "MISMATCH" || r.check == "ERROR") status = kExitMismatch;

  nlohmann::json meta = {{"ridgeline_version", ridgeline::version()},
                         {"exec_space", info.backend},
                         {"concurrency", ExecSpace().concurrency()},
                         {"vendor_baseline", ctx.vendor},
                         {"reps", opt.reps},
                         {"warmup", opt.warmup},
                         {"min_sample_ms", opt.min_sample_ms},
                         {"rotate_bytes", ctx.rotate_bytes},
                         {"llc_bytes", ctx.llc_bytes},
                         {"alpha", opt.alpha},
                         {"beta", opt.beta},
                         {"seed", opt.seed},
                         {"spec", nlohmann::json::parse(ridgeline::device_spec_to_json(ctx.spec))}};
  if (ctx.have_ceilings) {
    meta["ceilings"] = nlohmann::json::parse(ridgeline::ceilings::to_json(ctx.ceilings));
    meta["ceilings_file"] = ctx.ceilings_path;
  }
  try {
    if (!opt.csv.empty()) write_csv_file(opt.csv, rows, info);
    if (!opt.json.empty()) write_json_file(opt.json, rows, info, meta);
  } catch (const std::exception& e) {
    std::cerr << "ridgeline-perf: " << e.what() << "\n";
    return 1;
  }
  try {
    if (!opt.plot.empty()) write_plot(opt.plot, rows, ctx);
  } catch (const std::exception& e) {
    std::cerr << "ridgeline-perf: " << e.what() << "\n";
    return 1;
  }
  if (status) std::cerr << "ridgeline-perf: some results did not match the reference\n";
  return status;
}

#if defined(RIDGELINE_PERF_HAVE_OPENBLAS)
// OpenBLAS reads its core type once, when the library loads, and a release older than the CPU (0.3.21
// on Sapphire/Emerald Rapids) falls back to its SSE3 "Prescott" kernels, several times slower. A
// baseline that weak would flatter every ratio, so when the CPU can run a better kernel set and the
// user did not choose one, ridgeline-perf runs itself again with OPENBLAS_CORETYPE naming it.
const char* better_openblas_core() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  std::string core = openblas_get_corename();
  for (auto& c : core) c = char(std::tolower(static_cast<unsigned char>(c)));
  auto one_of = [&](std::initializer_list<const char*> names) {
    for (const char* n : names)
      if (core == n) return true;
    return false;
  };
  if (__builtin_cpu_supports("avx512f") && !one_of({"skylakex", "cooperlake", "sapphirerapids"}))
    return "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
      !one_of({"haswell", "zen", "skylakex", "cooperlake", "sapphirerapids"}))
    return "Haswell";
#endif
  return nullptr;
}

void rerun_with_better_openblas_core(char** argv) {
#if defined(__linux__)
  if (std::getenv("OPENBLAS_CORETYPE") != nullptr) return;
  const char* core = better_openblas_core();
  if (core == nullptr) return;
  setenv("RIDGELINE_PERF_OPENBLAS_PICKED", openblas_get_corename(), 1);
  setenv("OPENBLAS_CORETYPE", core, 1);
  ridgeline::restore_openmp_start_affinity();
  execv("/proc/self/exe", argv);
  // exec failed: carry on with the library's choice; the config column names the core that ran.
  unsetenv("OPENBLAS_CORETYPE");
#else
  (void)argv;
#endif
}
#endif

}  // namespace ridgeline_perf

int main(int argc, char** argv) {
#if defined(RIDGELINE_PERF_HAVE_OPENBLAS)
  ridgeline_perf::rerun_with_better_openblas_core(argv);
#endif
  return ridgeline_perf::run(argc, argv);
}
