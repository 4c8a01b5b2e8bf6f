#pragma once
// Dispatch: picks the backend's tile table for the execution space and the kernel instantiation
// for the operands' contiguity, checks that the configuration fits the backend, and launches.
// It holds no numbers: every size comes from backends/<name>/tile_table.hpp.
#include <Kokkos_Core.hpp>
#include <ridgeline/backends/host/tile_table.hpp>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "ridgeline/detail/gemm_team_tiled.hpp"
#include "ridgeline/detail/gemv_team.hpp"
#include "ridgeline/detail/strided.hpp"
#include "ridgeline/tile_config.hpp"
#if defined(KOKKOS_ENABLE_CUDA)
#include <ridgeline/backends/cuda/tile_table.hpp>
#endif
#if defined(KOKKOS_ENABLE_HIP)
#include <ridgeline/backends/hip/tile_table.hpp>
#endif

namespace ridgeline::detail {

template <class ExecSpace>
struct BackendFor {
  static_assert(!std::is_same_v<ExecSpace, ExecSpace>,
                "Ridgeline has no tile table for this execution space");
};
#if defined(KOKKOS_ENABLE_SERIAL)
template <>
struct BackendFor<Kokkos::Serial> {
  using type = backends::host::Tiles;
};
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
template <>
struct BackendFor<Kokkos::OpenMP> {
  using type = backends::host::Tiles;
};
#endif
#if defined(KOKKOS_ENABLE_THREADS)
template <>
struct BackendFor<Kokkos::Threads> {
  using type = backends::host::Tiles;
};
#endif
#if defined(KOKKOS_ENABLE_CUDA)
template <>
struct BackendFor<Kokkos::Cuda> {
  using type = backends::cuda::Tiles;
};
#endif
#if defined(KOKKOS_ENABLE_HIP)
template <>
struct BackendFor<compat::HipSpace> {
  using type = backends::hip::Tiles;
};
#endif

// The accumulator may be wider than the storage type (half storage, float accumulation).
template <class T>
struct AccumulatorOf {
  using type = T;
};

template <class ExecSpace, class T>
using Backend = typename BackendFor<ExecSpace>::type;
template <class ExecSpace, class T>
using GemmCfg = typename Backend<ExecSpace, T>::template gemm<T>;
template <class ExecSpace, class T>
using GemmMicroKernel =
    typename Backend<ExecSpace, T>::template micro_kernel<GemmCfg<ExecSpace, T>, T,
                                                          typename AccumulatorOf<T>::type>;
template <class ExecSpace, class T, bool kAFastM, bool kBFastN, bool kVec = false>
using GemmKernel = GemmTeamTiled<ExecSpace, GemmCfg<ExecSpace, T>, T, typename AccumulatorOf<T>::type,
                                 GemmMicroKernel<ExecSpace, T>, kAFastM, kBFastN, kVec>;

// A table may hold a second GEMM entry, `gemm_packets`, for operands that stage in 16-byte packets:
// cheaper staging leaves room for a larger micro-tile there. Without one, both paths use `gemm`.
template <class Be, class T, class = void>
struct PacketCfgOf {
  using type = typename Be::template gemm<T>;
};
template <class Be, class T>
struct PacketCfgOf<Be, T, std::void_t<typename Be::template gemm_packets<T>>> {
  using type = typename Be::template gemm_packets<T>;
};
template <class ExecSpace, class T>
using GemmPacketCfg = typename PacketCfgOf<Backend<ExecSpace, T>, T>::type;
template <class ExecSpace, class T, bool kAFastM, bool kBFastN, bool kVec = false>
using GemmPacketKernel =
    GemmTeamTiled<ExecSpace, GemmPacketCfg<ExecSpace, T>, T, typename AccumulatorOf<T>::type,
                  typename Backend<ExecSpace, T>::template micro_kernel<GemmPacketCfg<ExecSpace, T>, T,
                                                                        typename AccumulatorOf<T>::type>,
                  kAFastM, kBFastN, kVec>;

// Rejects a tile configuration the backend cannot run, before anything is launched.
template <class Policy, class Functor>
void require_fits(const Policy& policy, const Functor& f, int level, std::size_t bytes, int team_size,
                  const char* func, const std::string& what) {
  const std::size_t max_bytes = static_cast<std::size_t>(policy.scratch_size_max(level));
  if (bytes > max_bytes) {
    throw std::invalid_argument(std::string("ridgeline::") + func + ": tile configuration " + what +
                                " needs " + std::to_string(bytes) + " B of level-" + std::to_string(level) +
                                " team scratch, but this backend allows " + std::to_string(max_bytes) + " B");
  }
  const int max_team = policy.team_size_max(f, Kokkos::ParallelForTag());
  if (team_size > max_team) {
    throw std::invalid_argument(std::string("ridgeline::") + func + ": tile configuration " + what +
                                " needs a team of " + std::to_string(team_size) +
                                " threads, but this backend allows " + std::to_string(max_team));
  }
}

template <class Cfg>
std::string describe_gemm_cfg() {
  return std::to_string(Cfg::bm) + "x" + std::to_string(Cfg::bn) + "x" + std::to_string(Cfg::bk) + "/" +
         std::to_string(Cfg::tm) + "x" + std::to_string(Cfg::tn);
}

template <class Kernel, class ExecSpace, class T, class Acc>
void launch_gemm(const ExecSpace& exec, const Strided2D<const T>& a, const Strided2D<const T>& b,
                 const Strided2D<T>& c, Acc alpha, Acc beta) {
  using Cfg = typename Kernel::config;
  const std::int64_t tiles_m = (c.rows + Cfg::bm - 1) / Cfg::bm;
  const std::int64_t tiles_n = (c.cols + Cfg::bn - 1) / Cfg::bn;
  require_int_range(tiles_m * tiles_n, "number of C tiles", "gemm");
  require_int_range(a.cols, "K", "gemm");
  Kernel f{a, b, c, alpha, beta, static_cast<int>(tiles_m), static_cast<int>(tiles_n)};
  typename Kernel::policy_type policy(exec, static_cast<int>(tiles_m * tiles_n), Cfg::team_size,
                                      Cfg::vector_length);
  require_fits(policy, f, Cfg::scratch_level, Kernel::scratch_bytes(), Cfg::team_size, "gemm",
               describe_gemm_cfg<Cfg>());
  policy.set_scratch_size(Cfg::scratch_level, Kokkos::PerTeam(Kernel::scratch_bytes()));
  Kokkos::parallel_for("ridgeline::gemm", policy, f);
}

template <class T>
bool aligned_to(const T* p, int elems) {
  return reinterpret_cast<std::uintptr_t>(p) % (sizeof(T) * static_cast<std::size_t>(elems)) == 0;
}

// Picks the 16-byte packet staging when both operands allow it: unit stride along the fast index,
// a 16-byte aligned origin and a slow stride that keeps every line aligned. Anything else (an odd
// leading dimension such as 4097, a sub-view at an odd offset) stages element by element.
template <class Plain, class T>
bool packet_staging_applies(const Strided2D<const T>& a, const Strided2D<const T>& b) {
  if constexpr (Plain::vector_capable) {
    constexpr int W = Plain::kVecW;
    constexpr bool kAFastM = Plain::a_fast_m, kBFastN = Plain::b_fast_n;
    const std::int64_t a_fs = kAFastM ? a.rs : a.cs, a_ss = kAFastM ? a.cs : a.rs;
    const std::int64_t b_fs = kBFastN ? b.cs : b.rs, b_ss = kBFastN ? b.rs : b.cs;
    return a_fs == 1 && b_fs == 1 && a_ss % W == 0 && b_ss % W == 0 && aligned_to(a.data, W) &&
           aligned_to(b.data, W);
  } else {
    return false;
  }
}

template <class ExecSpace, class T, bool kAFastM, bool kBFastN, class Acc>
void launch_gemm_staged(const ExecSpace& exec, const Strided2D<const T>& a, const Strided2D<const T>& b,
                        const Strided2D<T>& c, Acc alpha, Acc beta) {
  using Packable = GemmPacketKernel<ExecSpace, T, kAFastM, kBFastN>;
  if constexpr (Packable::vector_capable) {
    if (packet_staging_applies<Packable>(a, b)) {
      launch_gemm<GemmPacketKernel<ExecSpace, T, kAFastM, kBFastN, true>>(exec, a, b, c, alpha, beta);
      return;
    }
  }
  launch_gemm<GemmKernel<ExecSpace, T, kAFastM, kBFastN>>(exec, a, b, c, alpha, beta);
}

// Whether ridgeline::gemm stages these operands in 16-byte packets, i.e. runs the table's
// `gemm_packets` entry (for tests and reports).
template <class ExecSpace, class T>
bool gemm_uses_packets(const Strided2D<const T>& a, const Strided2D<const T>& b) {
  const bool a_m = rows_contiguous(a), b_n = !rows_contiguous(b);
  if (a_m && b_n) return packet_staging_applies<GemmPacketKernel<ExecSpace, T, true, true>>(a, b);
  if (a_m) return packet_staging_applies<GemmPacketKernel<ExecSpace, T, true, false>>(a, b);
  if (b_n) return packet_staging_applies<GemmPacketKernel<ExecSpace, T, false, true>>(a, b);
  return packet_staging_applies<GemmPacketKernel<ExecSpace, T, false, false>>(a, b);
}

// C = alpha * op(A) * op(B) + beta * C with all shapes already validated and M, N, K > 0.
template <class ExecSpace, class T>
void gemm_dispatch(const ExecSpace& exec, const Strided2D<const T>& a, const Strided2D<const T>& b,
                   const Strided2D<T>& c, T alpha, T beta) {
  using Acc = typename AccumulatorOf<T>::type;
  const bool a_m = rows_contiguous(a);   // op(A) walks m contiguously
  const bool b_n = !rows_contiguous(b);  // op(B) walks n contiguously
  const Acc al = static_cast<Acc>(alpha), be = static_cast<Acc>(beta);
  if (a_m && b_n) {
    launch_gemm_staged<ExecSpace, T, true, true>(exec, a, b, c, al, be);
  } else if (a_m) {
    launch_gemm_staged<ExecSpace, T, true, false>(exec, a, b, c, al, be);
  } else if (b_n) {
    launch_gemm_staged<ExecSpace, T, false, true>(exec, a, b, c, al, be);
  } else {
    launch_gemm_staged<ExecSpace, T, false, false>(exec, a, b, c, al, be);
  }
}

template <class Kernel, class Cfg, class ExecSpace, class T, class Acc>
void launch_gemv(const ExecSpace& exec, const Strided2D<const T>& a, const Strided1D<const T>& x,
                 const Strided1D<T>& y, Acc alpha, Acc beta) {
  const std::int64_t teams = (a.rows + Cfg::rows - 1) / Cfg::rows;
  require_int_range(teams, "number of GEMV teams", "gemv");
  Kernel f{a, x, y, alpha, beta};
  typename Kernel::policy_type policy(exec, static_cast<int>(teams), Cfg::team_size, Cfg::vector_length);
  require_fits(policy, f, Cfg::scratch_level, Kernel::scratch_bytes(), Cfg::team_size, "gemv",
               std::to_string(Cfg::rows) + " rows/team");
  if (Kernel::scratch_bytes() > 0)
    policy.set_scratch_size(Cfg::scratch_level, Kokkos::PerTeam(Kernel::scratch_bytes()));
  Kokkos::parallel_for("ridgeline::gemv", policy, f);
}

// y = alpha * op(A) * x + beta * y with op(A) already applied as strides; rows, cols > 0.
template <class ExecSpace, class T>
void gemv_dispatch(const ExecSpace& exec, const Strided2D<const T>& a, const Strided1D<const T>& x,
                   const Strided1D<T>& y, T alpha, T beta) {
  using Acc = typename AccumulatorOf<T>::type;
  using Be = Backend<ExecSpace, T>;
  const Acc al = static_cast<Acc>(alpha), be = static_cast<Acc>(beta);
  if (rows_contiguous(a)) {
    using Cfg = typename Be::template gemv_rows<T>;
    // Packets run down a column: every column must start on a packet boundary.
    const bool vec = Cfg::vec > 1 && a.rs == 1 && a.cs % Cfg::vec == 0 && aligned_to(a.data, Cfg::vec);
    if (vec) {
      launch_gemv<GemvRows<ExecSpace, Cfg, T, Acc, true, true>, Cfg>(exec, a, x, y, al, be);
    } else if (a.rs == 1) {
      launch_gemv<GemvRows<ExecSpace, Cfg, T, Acc, true, false>, Cfg>(exec, a, x, y, al, be);
    } else {
      launch_gemv<GemvRows<ExecSpace, Cfg, T, Acc, false, false>, Cfg>(exec, a, x, y, al, be);
    }
  } else {
    using Cfg = typename Be::template gemv_dot<T>;
    // Packets run along a row and along x: both must start on packet boundaries.
    const bool vec = Cfg::vec > 1 && a.cs == 1 && a.rs % Cfg::vec == 0 && aligned_to(a.data, Cfg::vec) &&
                     x.s == 1 && aligned_to(x.data, Cfg::vec);
    if (vec) {
      launch_gemv<GemvDot<ExecSpace, Cfg, T, Acc, true, true>, Cfg>(exec, a, x, y, al, be);
    } else if (a.cs == 1) {
      launch_gemv<GemvDot<ExecSpace, Cfg, T, Acc, true, false>, Cfg>(exec, a, x, y, al, be);
    } else {
      launch_gemv<GemvDot<ExecSpace, Cfg, T, Acc, false, false>, Cfg>(exec, a, x, y, al, be);
    }
  }
}

}  // namespace ridgeline::detail
