#pragma once
// Host micro-kernel: the TM x TN accumulator as GCC/Clang vector types, so it is guaranteed to sit
// in vector registers (TM x TN/W of them), each k step being TN/W vector loads of a B row and TM
// broadcasts of A. The portable loop leaves the same arithmetic to the auto-vectorizer, which keeps
// the accumulator in memory. Contract (micro_tile.hpp) as for every micro-kernel; this one needs
// contiguous micro-tiles (fm == tm, fn == tn) and a vector width W = simd_bytes / sizeof(Acc)
// that divides TN. Device compilers (nvcc, hipcc) compiling a host space get the portable kernel.
#include <Kokkos_Core.hpp>
#include <cstring>
#include <ridgeline/detail/micro_tile.hpp>
#include <type_traits>

namespace ridgeline::backends::host {

#if defined(__GNUC__) && !defined(__CUDACC__) && !defined(__HIPCC__)
#define RIDGELINE_HOST_VECTOR_MICRO_KERNEL 1

template <class Cfg, class T, class Acc>
struct VectorMicroKernel {
  static constexpr int TM = Cfg::tm, TN = Cfg::tn, BK = Cfg::bk;
  static constexpr int LDA = Cfg::bm + Cfg::pad_a, LDB = Cfg::bn + Cfg::pad_b;
  static constexpr int W = Cfg::simd_bytes / static_cast<int>(sizeof(Acc));
  static constexpr int NV = TN / W;
  static_assert(Cfg::fm == TM && Cfg::fn == TN, "contiguous micro-tiles");
  static_assert(TN % W == 0 && std::is_same_v<T, Acc>, "TN must be whole vectors of the storage type");
  typedef Acc Vec __attribute__((vector_size(Cfg::simd_bytes)));

  static constexpr int kTM = TM, kTN = TN, kRowRun = TM;
  // Micro-tiles are contiguous: (ty, tx) owns rows ty * TM .. and columns tx * TN ...
  struct Owner {
    int ty, tx;
  };
  static Owner owner_of_tile(int ty, int tx) { return {ty, tx}; }
  static Owner owner(int t) { return {t % (Cfg::bm / TM), t / (Cfg::bm / TM)}; }
  static constexpr int row(const Owner& o, int i) { return o.ty * TM + i; }
  static constexpr int col(const Owner& o, int j) { return o.tx * TN + j; }

  struct Accumulator {
    Vec v[TM][NV];
  };

  static Vec load_vec(const Acc* p) {
    Vec r;
    std::memcpy(&r, p, sizeof(Vec));
    return r;
  }
  static void store_vec(Acc* p, const Vec& v) { std::memcpy(p, &v, sizeof(Vec)); }

  static void zero(Accumulator& acc) {
    for (int i = 0; i < TM; ++i)
      for (int q = 0; q < NV; ++q) acc.v[i][q] = Vec{};
  }
  static Acc get(const Accumulator& acc, int i, int j) { return acc.v[i][j / W][j % W]; }
  static void store_scratch(T* p, T v) { *p = v; }
  template <int W>
  static void store_scratch_packet(T* p, const T* v) {
    for (int e = 0; e < W; ++e) p[e] = v[e];
  }

  static void mac(Accumulator& acc, const T* As, const T* Bs, const Owner& o) {
    const T* a = As + o.ty * TM;
    const T* b = Bs + o.tx * TN;
    for (int k = 0; k < BK; ++k, a += LDA, b += LDB) {
      Vec bv[NV];
      RIDGELINE_UNROLL
      for (int q = 0; q < NV; ++q) bv[q] = load_vec(b + q * W);
      RIDGELINE_UNROLL
      for (int i = 0; i < TM; ++i) {
        const Acc ai = a[i];
        RIDGELINE_UNROLL
        for (int q = 0; q < NV; ++q) acc.v[i][q] += ai * bv[q];
      }
    }
  }

  static void load(Accumulator& acc, const Acc* Cs, const Owner& o) {
    for (int i = 0; i < TM; ++i)
      for (int q = 0; q < NV; ++q) acc.v[i][q] = load_vec(Cs + row(o, i) * Cfg::bn + col(o, q * W));
  }
  static void store(const Accumulator& acc, Acc* Cs, const Owner& o) {
    for (int i = 0; i < TM; ++i)
      for (int q = 0; q < NV; ++q) store_vec(Cs + row(o, i) * Cfg::bn + col(o, q * W), acc.v[i][q]);
  }
};

// Inputs narrower than the accumulator (16-bit types, float accumulation) take the portable kernel,
// which converts each scratch element as it loads it; so do complex types, which no vector type of
// the compiler's holds (their entries name the portable kernel themselves, tile_table.hpp).
template <class Cfg, class T, class Acc>
using MicroKernel =
    std::conditional_t<std::is_same_v<T, Acc> && !detail::is_complex_v<T>, VectorMicroKernel<Cfg, T, Acc>,
                       detail::PortableMicroKernel<Cfg, T, Acc>>;
#else
template <class Cfg, class T, class Acc>
using MicroKernel = detail::PortableMicroKernel<Cfg, T, Acc>;
#endif

}  // namespace ridgeline::backends::host
