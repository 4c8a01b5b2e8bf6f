#pragma once
// Host micro-kernel: the TM x TN accumulator as GCC/Clang vector types, so it is guaranteed to sit
// in vector registers (TM x TN/W of them), each k step being TN/W vector loads of a B row and TM
// broadcasts of A. The portable loop leaves the same arithmetic to the auto-vectorizer, which keeps
// the accumulator in memory. Contract (micro_tile.hpp) as for every micro-kernel; this one needs
// contiguous micro-tiles (fm == tm, fn == tn) and a vector width W = simd_bytes / sizeof(Acc)
// that divides TN. Device compilers (nvcc, hipcc) compiling a host space get the portable kernel.
#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <ridgeline/detail/micro_tile.hpp>
#include <type_traits>
#include <utility>

namespace ridgeline::backends::host {

#if defined(__GNUC__) && !defined(__CUDACC__) && !defined(__HIPCC__)
#define RIDGELINE_HOST_VECTOR_MICRO_KERNEL 1

// A vector of Vec from p and to p, any alignment: memcpy, which GCC and Clang emit as one unaligned vector
// move. Every host kernel's vector loads and stores go through these two.
template <class Vec, class T>
inline Vec load_vec(const T* p) {
  Vec r;
  std::memcpy(&r, p, sizeof(Vec));
  return r;
}
template <class Vec, class T>
inline void store_vec(T* p, const Vec& v) {
  std::memcpy(p, &v, sizeof(Vec));
}

#if !defined(__clang__)
#define RIDGELINE_HOST_VECTOR_TRANSPOSE 1
// W x W blocks of Acc transposed in registers, W = kSimdBytes / sizeof(Acc): log2 W stages of two-source
// shuffles (GCC's __builtin_shuffle; Clang spells it differently, and its builds copy element by element).
// The tile kernels' staging (VectorMicroKernel::copy_transposed) and the panel kernel's packing
// (gemm_panels.hpp) both use it.
template <class Acc, int kSimdBytes>
struct VectorTranspose {
  static constexpr int W = kSimdBytes / static_cast<int>(sizeof(Acc));
  typedef Acc Vec __attribute__((vector_size(kSimdBytes)));
  typedef typename std::conditional_t<sizeof(Acc) == 4, std::int32_t, std::int64_t> Lane;
  typedef Lane Mask __attribute__((vector_size(kSimdBytes)));
  // Stage h swaps the off-diagonal h x h blocks of every 2h x 2h block: rows i and i + h (i & h == 0).
  template <int h>
  static constexpr Lane lane(bool top, int j) {
    return (j & h) == 0 ? (top ? j : j + h) : (top ? W + j - h : W + j);
  }
  template <int h, int... j>
  static constexpr Mask mask(bool top, std::integer_sequence<int, j...>) {
    return Mask{lane<h>(top, j)...};
  }
  // v[r][c] becomes v[c][r].
  template <int h = W / 2>
  static void transpose(Vec (&v)[W]) {
    constexpr Mask top = mask<h>(true, std::make_integer_sequence<int, W>{});
    constexpr Mask bottom = mask<h>(false, std::make_integer_sequence<int, W>{});
    for (int i = 0; i < W; ++i)
      if ((i & h) == 0) {
        const Vec a = v[i], b = v[i + h];
        v[i] = __builtin_shuffle(a, b, top);
        v[i + h] = __builtin_shuffle(a, b, bottom);
      }
    if constexpr (h > 1) transpose<h / 2>(v);
  }
};
#endif

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

  static Vec load_vec(const Acc* p) { return host::load_vec<Vec>(p); }
  static void store_vec(Acc* p, const Vec& v) { host::store_vec(p, v); }

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
    mac_k<BK>(acc, As, Bs, o, BK);
  }
  static void mac_upto(Accumulator& acc, const T* As, const T* Bs, const Owner& o, int kk) {
    mac_k<0>(acc, As, Bs, o, kk);
  }
  // kFixed > 0: the step's depth known at compile time (BK, every step but K's last); else kk.
  template <int kFixed>
  static void mac_k(Accumulator& acc, const T* As, const T* Bs, const Owner& o, int kk) {
    const T* a = As + o.ty * TM;
    const T* b = Bs + o.tx * TN;
    const int n = kFixed > 0 ? kFixed : kk;
    for (int k = 0; k < n; ++k, a += LDA, b += LDB) {
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

#if !defined(__clang__)
  // Transposing staging (micro_tile.hpp's copy_transposed): kS lines of kF contiguous elements, line l
  // at s + l * ls, to scratch element (f, l) at d + f * kDs + l, W x W blocks at a time transposed in
  // registers (log2 W stages of two-source shuffles). Element by element, the copy of op(B) in NN cost
  // a load and a scalar store per element, a fifth to a third of the FMA time of the K step it feeds.
  // fp32 only, for now. Probes of the copy (perf/results/2026-12-05-host-ad34574/): fp32 at its tile's
  // 512-byte scratch rows, 0.08-0.16 ns an element transposed against 0.30-0.54 element by element; fp64 at
  // its tile's 512-byte rows, 0.24 against 0.30, a gain not yet measured in a GEMM.
  static constexpr int kTransposeBlock = sizeof(Acc) == 4 ? W : 0;
  template <int kF, int kS, int kDs>
  static void copy_transposed(T* d, const T* s, std::ptrdiff_t ls) {
    static_assert(kF % W == 0 && kS % W == 0, "whole W x W blocks");
    for (int l0 = 0; l0 < kS; l0 += W)
      for (int f0 = 0; f0 < kF; f0 += W) {
        Vec v[W];
        for (int r = 0; r < W; ++r) v[r] = load_vec(s + (l0 + r) * ls + f0);
        transpose(v);
        for (int c = 0; c < W; ++c) store_vec(d + (f0 + c) * kDs + l0, v[c]);
      }
  }
  static void transpose(Vec (&v)[W]) {
    VectorTranspose<Acc, Cfg::simd_bytes>::transpose(v);
  }
#endif

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
