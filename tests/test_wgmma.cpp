// The wgmma primitives of backends/cuda/wgmma_sm90a.hpp on the device: one warpgroup (a Kokkos team
// of 128 threads) stages a seeded random 64 x K tile of A and an N x K tile of B (B transposed, both
// K-major) into team scratch in one of the descriptor layouts, runs the K / 16 m64nNk16 steps, and
// writes its accumulators out through the fragment map into a poisoned (NaN) 64 x N result. Every
// element is compared with a double-precision host reference.
//
// Tolerance: the operands are exact fp16/bf16 values and their products are exact in fp32 (11- or
// 8-bit significands), so only the K - 1 fp32 additions round: |D - ref| <= K * eps_fp32 * sum|a b|
// per element, with eps_fp32 = 2^-23 (twice the unit roundoff, leaving room for truncating
// accumulation). A wrong layout, descriptor or fragment map gives errors of the order of the values
// themselves, and an element the map misses stays NaN.
//
// Built only for the CUDA backend of a build through the sm_90a route (tests/CMakeLists.txt); it
// skips on a device that is not sm_90.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <ridgeline/backends/cuda/wgmma_sm90a.hpp>
#include <string>
#include <type_traits>
#include <vector>

namespace {

namespace wg = ridgeline::backends::cuda::wgmma;

// ---- host: the layouts, descriptors and fragment map agree with each other ----------------------
// The address wgmma reads for element (r, kk), kk < 16, of the k16 slice a descriptor names, as this
// file models the PTX ISA's canonical layouts. K-major: core matrices of 8 rows x 16 bytes, SBO
// between 8-row groups, LBO between the two 8-element halves of the slice (no swizzle); with the
// 128-, 64- or 32-byte swizzle, rows that many bytes apart. MN-major with the 128-byte swizzle: 64 rows in
// 128 contiguous bytes, k lines 128 bytes apart, LBO between 64-row blocks, SBO between 8-k groups. Both
// swizzles XOR address bits 4.. with bits 7... If the device cases fail while this passes, the model
// (not the code's consistency) is what is wrong.
std::uint32_t modeled_address(std::uint64_t d, bool mn_major, int r, int kk) {
  const std::uint32_t start = std::uint32_t(d & 0x3FFF) << 4, lbo = std::uint32_t((d >> 16) & 0x3FFF) << 4,
                      sbo = std::uint32_t((d >> 32) & 0x3FFF) << 4;
  if ((d >> 62) == 0) return start + (r / 8) * sbo + (kk / 8) * lbo + (r % 8) * 16 + (kk % 8) * 2;
  // Swizzle mode 1, 2, 3: 128, 64, 32 bytes; Swizzle<b, 4, 3> with b = 3, 2, 1.
  const int mode = int(d >> 62), b = 4 - mode;
  const std::uint32_t width = 16u << b;  // the swizzle's row bytes (K-major)
  const std::uint32_t pre = mn_major ? start + (r / 64) * lbo + (kk / 8) * sbo + (kk % 8) * 128 + (r % 64) * 2
                                     : start + (r / 8) * sbo + (r % 8) * width + kk * 2;
  return pre ^ (((pre >> 7) & ((1u << b) - 1)) << 4);
}

// Every element has its own place, and the descriptor of each k16 slice of each `sub`-row sub-tile
// (a warpgroup's rows of a taller tile) addresses it.
template <class Layout>
void check_layout(int rows, int K, std::uint32_t base, int sub) {
  std::vector<int> hits(std::size_t(rows) * K, 0);
  int bad = 0;
  for (int r = 0; r < rows; ++r) {
    for (int k = 0; k < K; ++k) {
      const int o = Layout::offset(r, k, rows, K);
      ASSERT_TRUE(o >= 0 && o < rows * K) << "offset out of the tile at " << r << ", " << k;
      bad += hits[o]++ != 0;
      const int r0 = r / sub * sub;
      const std::uint64_t d =
          Layout::descriptor(base + Layout::row_offset_bytes(r0, rows, K), k / 16, rows, K);
      bad += modeled_address(d, Layout::mn_major, r - r0, k % 16) != base + 2u * o;
    }
  }
  EXPECT_EQ(bad, 0) << rows << " x " << K << ", sub-tiles of " << sub << " rows";
}

TEST(WgmmaLayout, DescriptorsAddressTheStagedElements) {
  for (int rows : {64, 128, 256}) {
    for (int sub : {64, rows}) {
      for (int K : {16, 32, 64, 128}) check_layout<wg::KMajorInterleave>(rows, K, 0x400, sub);
      for (int K : {64, 128}) check_layout<wg::KMajorSwizzle128>(rows, K, 0x2000, sub);
      for (int K : {32, 64, 128}) check_layout<wg::KMajorSwizzle64>(rows, K, 0x2000, sub);
      for (int K : {16, 32, 64}) check_layout<wg::KMajorSwizzleOf<2, 32>>(rows, K, 0x2000, sub);
      for (int K : {16, 32, 64, 128}) check_layout<wg::MNMajorSwizzle128>(rows, K, 0x2000, sub);
      for (int K : {16, 32, 64, 128}) check_layout<wg::MNMajorSwizzle128Blocked>(rows, K, 0x2000, sub);
    }
  }
}

TEST(WgmmaLayout, FragmentMapCoversTheTileOnce) {
  for (int N : {64, 128, 256}) {
    std::vector<int> hits(std::size_t(64) * N, 0);
    for (int t = 0; t < 128; ++t) {
      for (int i = 0; i < N / 2; ++i)
        ++hits[std::size_t(wg::fragment_row(t, i)) * N + wg::fragment_col(t, i)];
    }
    EXPECT_EQ(std::count(hits.begin(), hits.end(), 1), 64 * N) << "N = " << N;
  }
}

#if defined(KOKKOS_ENABLE_CUDA) && RIDGELINE_HAVE_SM90A

// Random 16-bit operands whose values are known exactly: random sign, exponent in [-6, 0] and
// mantissa, built from the bit pattern so no conversion routine is trusted.
struct Operand {
  std::vector<std::uint16_t> bits;
  std::vector<double> value;
};

Operand random_operand(std::size_t count, bool bf16, std::mt19937_64& rng) {
  Operand o;
  o.bits.resize(count);
  o.value.resize(count);
  const int mant_bits = bf16 ? 7 : 10, bias = bf16 ? 127 : 15;
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t r = rng();
    const unsigned sign = r & 1, mant = (r >> 1) & ((1u << mant_bits) - 1);
    const int e = int((r >> 16) % 7) - 6;
    o.bits[i] = std::uint16_t((sign << 15) | (unsigned(e + bias) << mant_bits) | mant);
    o.value[i] = (sign ? -1.0 : 1.0) * std::ldexp(1.0 + double(mant) / double(1u << mant_bits), e);
  }
  return o;
}

using Member = Kokkos::TeamPolicy<Kokkos::Cuda>::member_type;

template <class Elem, int N, class LayoutA, class LayoutB>
struct WgmmaTile {
  static constexpr int kAlign =
      LayoutA::alignment > LayoutB::alignment ? LayoutA::alignment : LayoutB::alignment;
  Kokkos::View<const std::uint16_t*, Kokkos::CudaSpace> a;  // A(m, k) at m K + k, m < 64
  Kokkos::View<const std::uint16_t*, Kokkos::CudaSpace> b;  // B(k, n) at n K + k, n < N
  Kokkos::View<float*, Kokkos::CudaSpace> d;                // D(m, n) at m N + n
  int K;
  bool overwrite;  // first step with scale-d = 0 over NaN accumulators, else zeroed and accumulating

  KOKKOS_INLINE_FUNCTION static std::size_t scratch_bytes(int K) {
    return std::size_t(64 + N) * K * 2 + kAlign;
  }

  KOKKOS_FUNCTION void operator()(const Member& t) const {
#if RIDGELINE_WGMMA_ENABLED
    char* raw = static_cast<char*>(t.team_scratch(0).get_shmem(scratch_bytes(K)));
    auto* as = reinterpret_cast<std::uint16_t*>((reinterpret_cast<std::uintptr_t>(raw) + kAlign - 1) &
                                                ~std::uintptr_t(kAlign - 1));
    std::uint16_t* bs = as + 64 * K;  // 128 K bytes further: aligned where a swizzle needs K % 64 == 0
    const int tid = t.team_rank();
    for (int i = tid; i < 64 * K; i += 128) as[LayoutA::offset(i / K, i % K, 64, K)] = a(i);
    for (int i = tid; i < N * K; i += 128) bs[LayoutB::offset(i / K, i % K, N, K)] = b(i);
    wg::fence_proxy_async();
    t.team_barrier();

    float acc[N / 2];
#pragma unroll
    for (int i = 0; i < N / 2; ++i) acc[i] = overwrite ? __int_as_float(0x7fc00000) : 0.f;
    wg::fence_operands(acc);
    wg::fence();
    const std::uint32_t sa = wg::smem_address(as), sb = wg::smem_address(bs);
    for (int s = 0; s < K / 16; ++s) {
      wg::mma<Elem, N, LayoutA::mn_major, LayoutB::mn_major>(
          acc, LayoutA::descriptor(sa, s, 64, K), LayoutB::descriptor(sb, s, N, K), !overwrite || s > 0);
    }
    wg::commit_group();
    wg::wait_group<0>();
    wg::fence_operands(acc);
#pragma unroll
    for (int i = 0; i < N / 2; ++i) d(wg::fragment_row(tid, i) * N + wg::fragment_col(tid, i)) = acc[i];
#else
    (void)t;
#endif
  }
};

struct Outcome {
  int bad = 0, nan = 0;
  double worst = 0;  // max |D - ref| / tol
};

template <class Elem, int N, class LayoutA, class LayoutB>
Outcome run_case(int K, bool overwrite, std::uint64_t seed) {
  constexpr bool bf16 = std::is_same<Elem, wg::BF16>::value;
  std::mt19937_64 rng(seed);
  const Operand A = random_operand(std::size_t(64) * K, bf16, rng);
  const Operand B = random_operand(std::size_t(N) * K, bf16, rng);

  Kokkos::View<std::uint16_t*, Kokkos::CudaSpace> a("a", A.bits.size()), b("b", B.bits.size());
  Kokkos::deep_copy(a, Kokkos::View<const std::uint16_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                           A.bits.data(), A.bits.size()));
  Kokkos::deep_copy(b, Kokkos::View<const std::uint16_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                           B.bits.data(), B.bits.size()));
  Kokkos::View<float*, Kokkos::CudaSpace> d("d", std::size_t(64) * N);
  Kokkos::deep_copy(d, std::numeric_limits<float>::quiet_NaN());  // poison

  using Tile = WgmmaTile<Elem, N, LayoutA, LayoutB>;
  Kokkos::TeamPolicy<Kokkos::Cuda> policy(1, 128);
  policy.set_scratch_size(0, Kokkos::PerTeam(Tile::scratch_bytes(K)));
  Kokkos::parallel_for("test_wgmma", policy, Tile{a, b, d, K, overwrite});
  Kokkos::fence();
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d);

  Outcome o;
  const double eps32 = std::ldexp(1.0, -23);
  for (int m = 0; m < 64; ++m) {
    for (int n = 0; n < N; ++n) {
      double ref = 0, mag = 0;
      for (int k = 0; k < K; ++k) {
        const double p = A.value[std::size_t(m) * K + k] * B.value[std::size_t(n) * K + k];
        ref += p, mag += std::fabs(p);
      }
      const double got = h(std::size_t(m) * N + n), tol = K * eps32 * mag;
      if (!std::isfinite(got)) {
        if (o.nan++ < 3)
          std::printf("    D(%d, %d) = %g (not written or NaN), expected %.9g\n", m, n, got, ref);
        ++o.bad;
        continue;
      }
      const double r = std::fabs(got - ref) / tol;
      o.worst = std::max(o.worst, r);
      if (r > 1 && o.bad++ < 3)
        std::printf("    D(%d, %d) = %.9g, expected %.9g (tol %.3g)\n", m, n, got, ref, tol);
    }
  }
  return o;
}

bool on_sm90() {
  int dev = 0, major = 0;
  return cudaGetDevice(&dev) == cudaSuccess &&
         cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) == cudaSuccess && major == 9;
}

template <class Elem, int N, class Layout, class LayoutB = Layout>
void check(const char* elem, const char* layout, int K, int& cases) {
  for (bool overwrite : {true, false}) {
    const std::uint64_t seed = 0x5eed0000u + std::uint64_t(N) * 1000 + K * 10 + overwrite;
    const Outcome o = run_case<Elem, N, Layout, LayoutB>(K, overwrite, seed);
    std::printf("wgmma m64n%dk16 %s, %s, K=%d, %s: max |err|/tol %.3g, %d bad of %d (%d NaN) -> %s\n", N,
                elem, layout, K, overwrite ? "scale-d=0 first" : "accumulate", o.worst, o.bad, 64 * N, o.nan,
                o.bad ? "FAIL" : "ok");
    EXPECT_EQ(o.bad, 0) << "m64n" << N << "k16 " << elem << " " << layout << " K=" << K
                        << (overwrite ? " scale-d=0 first" : " accumulate") << " seed " << seed;
    ++cases;
  }
}

template <class Elem>
void check_all(const char* elem) {
  if (!on_sm90()) GTEST_SKIP() << "not an sm_90 device: wgmma needs Hopper";
  int cases = 0;
  // Interleave (no swizzle): any K % 16 == 0.
  check<Elem, 64, wg::KMajorInterleave>(elem, "no swizzle", 16, cases);
  check<Elem, 64, wg::KMajorInterleave>(elem, "no swizzle", 64, cases);
  check<Elem, 64, wg::KMajorInterleave>(elem, "no swizzle", 128, cases);
  check<Elem, 128, wg::KMajorInterleave>(elem, "no swizzle", 64, cases);
  check<Elem, 256, wg::KMajorInterleave>(elem, "no swizzle", 64, cases);
  // 128-byte swizzle: K % 64 == 0; K = 128 spans two 64-element swizzle columns. (64 + N) K 2
  // bytes must stay within the 48 KB Kokkos 3.4 allows a team.
  check<Elem, 64, wg::KMajorSwizzle128>(elem, "128B swizzle", 64, cases);
  check<Elem, 64, wg::KMajorSwizzle128>(elem, "128B swizzle", 128, cases);
  check<Elem, 128, wg::KMajorSwizzle128>(elem, "128B swizzle", 64, cases);
  check<Elem, 256, wg::KMajorSwizzle128>(elem, "128B swizzle", 64, cases);
  // 64-byte swizzle (K steps of 32 16-bit elements): K % 32 == 0.
  check<Elem, 256, wg::KMajorSwizzle64>(elem, "64B swizzle", 32, cases);
  check<Elem, 128, wg::KMajorSwizzle64>(elem, "64B swizzle", 64, cases);
  check<Elem, 256, wg::MNMajorSwizzle128, wg::KMajorSwizzle64>(elem, "MN-major A, 64B-swizzle B", 32, cases);
  // MN-major (transposed) operands, alone and with a K-major partner: K % 16 == 0.
  check<Elem, 64, wg::MNMajorSwizzle128>(elem, "MN-major A and B", 16, cases);
  check<Elem, 128, wg::MNMajorSwizzle128>(elem, "MN-major A and B", 64, cases);
  check<Elem, 256, wg::MNMajorSwizzle128, wg::KMajorSwizzle128>(elem, "MN-major A, K-major B", 64, cases);
  check<Elem, 256, wg::KMajorSwizzle128, wg::MNMajorSwizzle128>(elem, "K-major A, MN-major B", 64, cases);
  check<Elem, 64, wg::MNMajorSwizzle128, wg::KMajorSwizzle128>(elem, "MN-major A, K-major B", 128, cases);
  // MN-major with the 64-row blocks outermost (what a TMA box lands as), LBO between blocks.
  check<Elem, 64, wg::MNMajorSwizzle128Blocked>(elem, "blocked MN-major A and B", 16, cases);
  check<Elem, 128, wg::MNMajorSwizzle128Blocked>(elem, "blocked MN-major A and B", 64, cases);
  check<Elem, 256, wg::MNMajorSwizzle128Blocked, wg::KMajorSwizzle128>(elem, "blocked MN-major A, K-major B",
                                                                       64, cases);
  check<Elem, 256, wg::KMajorSwizzle128, wg::MNMajorSwizzle128Blocked>(elem, "K-major A, blocked MN-major B",
                                                                       64, cases);
  std::printf("wgmma %s: %d cases ran\n", elem, cases);
}

TEST(Wgmma, F16InF32Out) {
  check_all<wg::F16>("f16");
}
TEST(Wgmma, BF16InF32Out) {
  check_all<wg::BF16>("bf16");
}

#else

TEST(Wgmma, NeedsTheSm90aRoute) {
  GTEST_SKIP() << "built without Kokkos::Cuda or without the sm_90a route (RIDGELINE_HAVE_SM90A = "
               << RIDGELINE_HAVE_SM90A << ")";
}

#endif

}  // namespace
