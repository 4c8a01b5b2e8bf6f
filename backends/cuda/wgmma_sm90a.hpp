#pragma once
// Hopper warpgroup MMA (wgmma) primitives for sm_90a: shared-memory matrix descriptors, the fences
// and async-group waits around them, and wgmma.mma_async m64nNk16 f16/bf16 -> f32 and m64nNk8
// tf32 -> f32 with both operands in shared memory.
//
// Availability. wgmma exists only for the architecture-specific target sm_90a (PTX ISA 8.0), which
// CUDA 11.8 does not know. The project's CUDA build reaches it through the PTX-8 / sm_90a route
// (cmake/ridgeline_sm90a.cmake, scripts/sm90a/): nvcc 11.8 compiles as always, and CUDA 13's ptxas
// assembles the PTX for sm_90a. RIDGELINE_HAVE_SM90A (config.hpp) says whether this build took
// that route. The code below is compiled only in device passes for __CUDA_ARCH__ >= 900 of such a
// build; everywhere else (host passes, a plain CUDA 11.8 build, older architectures, host and HIP
// backends) every function is a stub that aborts, so kernels must choose wgmma with the same test:
//   #if RIDGELINE_WGMMA_ENABLED  ... wgmma path ...  #else  ... mma.sync or SIMT path ...  #endif
//
// Execution model (PTX ISA, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate"). The four
// warps of an aligned warpgroup (128 consecutive threads whose first is a multiple of 128) issue
// each wgmma together. The instruction reads A and B from shared memory through the async proxy
// and writes the accumulators asynchronously, so:
//   - scratch written with ordinary stores must be published with fence_proxy_async() by the
//     writing threads, then a barrier, before a wgmma reads it;
//   - fence() must precede the first wgmma and any wgmma whose accumulators other instructions
//     touched since the last one (zeroing, epilogue);
//   - commit_group() closes the wgmmas issued so far into a group, wait_group<N>() waits until at
//     most N groups are pending; accumulators (and the scratch they read) may be touched only after
//     their group completed. fence_operands() keeps the compiler from moving accumulator reads or
//     writes across those points, since it cannot see that the asm writes them late.
//
// Accumulator fragment of m64nNk16 with f32 accumulators: each of the 128 threads holds N / 2
// floats. Thread t = 32 w + 4 g + q (warp w < 4, g < 8, q < 4) holds, for i < N / 2,
//   d[i] = D(16 w + g + 8 ((i / 2) % 2),  8 (i / 4) + 2 q + i % 2)
// i.e. the mma.sync m16n8 C fragment of warp w's 16 rows, repeated over the N / 8 column blocks.
// fragment_row() and fragment_col() below encode this map.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <ridgeline/config.hpp>
#include <type_traits>

#if !defined(RIDGELINE_HAVE_SM90A)
#error "config.hpp must define RIDGELINE_HAVE_SM90A"
#endif
#if RIDGELINE_HAVE_SM90A && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define RIDGELINE_WGMMA_ENABLED 1
#else
#define RIDGELINE_WGMMA_ENABLED 0
#endif

namespace ridgeline::backends::cuda::wgmma {

// Whether this build assembles device code for sm_90a, i.e. whether wgmma kernels exist in it
// (host-side question; device code tests RIDGELINE_WGMMA_ENABLED).
inline constexpr bool kBuiltWithSm90a = RIDGELINE_HAVE_SM90A != 0;

// ---- element types ------------------------------------------------------------------------------
// Operands are 16-bit patterns in scratch; the tag only names the PTX type of the instruction.
struct F16 {
  using storage = std::uint16_t;
};
struct BF16 {
  using storage = std::uint16_t;
};
// FP32 bit patterns read as TF32 (the low 13 mantissa bits are ignored): m64nNk8, K-major only.
struct TF32 {
  using storage = std::uint32_t;
};

// ---- shared-memory matrix descriptor ------------------------------------------------------------
// A 64-bit value that tells wgmma where an operand tile lies in shared memory and how it is laid
// out (PTX ISA, "Matrix Descriptor Format"):
//   bits  0-13  start address >> 4           (shared-window byte address, 16-byte aligned)
//   bits 16-29  leading dimension byte offset (LBO) >> 4
//   bits 32-45  stride dimension byte offset (SBO) >> 4
//   bits 49-51  matrix base offset           (0 when every swizzle pattern starts on its own
//                                              repeat boundary, which the layouts below ensure)
//   bits 62-63  swizzle mode: 0 none (interleave), 1 128-byte, 2 64-byte, 3 32-byte
// The unit of every layout is the "core matrix": 8 rows of 16 contiguous bytes (8 elements of a
// 16-bit type) along K. LBO is the distance between core matrices that are adjacent in K, SBO the
// distance between core matrices adjacent in M (for A) or N (for B).
enum class Swizzle : std::uint32_t { none = 0, b128 = 1, b64 = 2, b32 = 3 };

KOKKOS_INLINE_FUNCTION constexpr std::uint64_t make_descriptor(std::uint32_t smem_addr,
                                                               std::uint32_t lbo_bytes,
                                                               std::uint32_t sbo_bytes, Swizzle swizzle,
                                                               std::uint32_t base_offset = 0) {
  return std::uint64_t((smem_addr & 0x3FFFFu) >> 4) | (std::uint64_t((lbo_bytes & 0x3FFFFu) >> 4) << 16) |
         (std::uint64_t((sbo_bytes & 0x3FFFFu) >> 4) << 32) | (std::uint64_t(base_offset & 7u) << 49) |
         (std::uint64_t(swizzle) << 62);
}
static_assert(make_descriptor(0x400, 128, 256, Swizzle::none) == 0x0000001000080040ull, "descriptor fields");
static_assert(make_descriptor(0x2000, 16, 1024, Swizzle::b128) == 0x4000004000010200ull, "descriptor fields");

// The shared-window address of a pointer into team scratch (Kokkos hands out generic pointers).
KOKKOS_FORCEINLINE_FUNCTION std::uint32_t smem_address(const void* p) {
#if defined(__CUDA_ARCH__)
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
#else
  return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(p));
#endif
}

// ---- operand layouts in scratch ------------------------------------------------------------------
// Each layout holds a `rows` x K tile of a 16-bit type: for A (rows = M) element A(m, k), for B
// (rows = N) element B(k, n) as row n. The first two are "K-major", the non-transposed form of both
// operands (imm-trans = 0), so D = A * B with B given as its N x K transpose; the third is
// "MN-major" (mn_major, imm-trans = 1). offset() is in elements from the tile base; descriptor()
// describes the k16 slice `kstep` (elements 16 kstep .. 16 kstep + 15) of the tile, which is what
// one m64nNk16 instruction consumes; row_offset_bytes() moves it to the sub-tile that starts at row
// r0 (a warpgroup's 64 rows of a taller tile).

// No swizzle ("interleave"): each core matrix is 128 contiguous bytes (row r of it at 16 r). The
// core matrices of one 8-row group follow each other along K (LBO = 128), and the 8-row groups
// follow each other (SBO = K / 8 * 128 = 16 K bytes). A k16 slice is two core matrices per group,
// so step kstep starts 256 kstep bytes in. Needs 16-byte alignment and K % 16 == 0. Simple to fill
// but bank-conflicted for row-wise stores: a warp's 16-byte stores along a row land 128 bytes apart.
struct KMajorInterleave {
  static constexpr Swizzle swizzle = Swizzle::none;
  static constexpr bool mn_major = false;
  static constexpr int alignment = 16;  // bytes
  KOKKOS_INLINE_FUNCTION static constexpr int offset(int r, int k, int /*rows*/, int K) {
    return ((r / 8) * (K / 8) + k / 8) * 64 + (r % 8) * 8 + k % 8;
  }
  KOKKOS_INLINE_FUNCTION static constexpr std::uint64_t descriptor(std::uint32_t tile_addr, int kstep,
                                                                   int /*rows*/, int K) {
    return make_descriptor(tile_addr + 256u * kstep, 128, 16u * K, Swizzle::none);
  }
  // Bytes from the tile base to row r0 (a multiple of 8): where a sub-tile's descriptor starts.
  KOKKOS_INLINE_FUNCTION static constexpr std::uint32_t row_offset_bytes(int r0, int /*rows*/, int K) {
    return std::uint32_t(r0 / 8) * 16u * K;
  }
};

// Swizzled K-major: the tile is cut along K into S-byte columns (S = 128, 64 or 32; a 128-byte column
// holds 64 elements of a 16-bit type, 32 of TF32), stored one after the other (rows * S bytes each).
// Within a column, row r is S contiguous bytes at S r, and its S / 16 chunks of 16 bytes are
// permuted: logical chunk c sits at physical chunk c ^ ((r S / 128) % (S / 16)). The hardware applies
// that XOR to address bits 4.. from bits 7.. (Swizzle<log2(S / 16), 4, 3>), so each 8-row block of
// 8 S bytes must start aligned to 8 S (then the descriptor's base offset is 0); consecutive 8-row
// groups are 8 S bytes apart (SBO; LBO is unused when an instruction's K slice lies inside one row,
// and is set to 16). One instruction's K slice (k16 of a 16-bit type, k8 of TF32) is 32 bytes of each
// row: slice kstep starts at its column plus 32 (kstep % (S / 32)) bytes, and the hardware's XOR on
// the full address finds the permuted chunks.
// Why: consecutive rows' chunk c land in different 16-byte bank groups, so both the row-wise staging
// stores and the wgmma reads are free of bank conflicts (S = 128: eight rows; narrower swizzles trade
// some of that for K steps of 32 or 16 elements, which fit more stages in scratch). Needs K a whole
// number of columns and rows % 8 == 0. kElemBytes: 2 or 4.
template <int kElemBytes, int kSwizzleBytes = 128>
struct KMajorSwizzleOf {
  static_assert(kElemBytes == 2 || kElemBytes == 4, "16-bit types and TF32");
  static_assert(kSwizzleBytes == 128 || kSwizzleBytes == 64 || kSwizzleBytes == 32, "the swizzle modes");
  static constexpr int S = kSwizzleBytes;
  static constexpr Swizzle swizzle = S == 128 ? Swizzle::b128 : S == 64 ? Swizzle::b64 : Swizzle::b32;
  static constexpr bool mn_major = false;
  static constexpr int alignment = 8 * S;         // bytes
  static constexpr int kChunk = 16 / kElemBytes;  // elements per 16-byte chunk
  static constexpr int kColumn = S / kElemBytes;  // elements per row of a column
  KOKKOS_INLINE_FUNCTION static constexpr int offset(int r, int k, int rows, int /*K*/) {
    return (k / kColumn) * rows * kColumn + r * kColumn +
           ((((k % kColumn) / kChunk) ^ ((r * S / 128) % (S / 16))) * kChunk) + k % kChunk;
  }
  KOKKOS_INLINE_FUNCTION static constexpr std::uint64_t descriptor(std::uint32_t tile_addr, int kstep,
                                                                   int rows, int /*K*/) {
    return make_descriptor(
        tile_addr + std::uint32_t(S) * rows * (kstep / (S / 32)) + 32u * (kstep % (S / 32)), 16, 8 * S,
        swizzle);
  }
  // Row r0 must be a multiple of 8, so the sub-tile's 8-row blocks stay aligned.
  KOKKOS_INLINE_FUNCTION static constexpr std::uint32_t row_offset_bytes(int r0, int /*rows*/, int /*K*/) {
    return std::uint32_t(r0) * S;
  }
};
template <int kElemBytes>
using KMajorSwizzle128Of = KMajorSwizzleOf<kElemBytes, 128>;
using KMajorSwizzle128 = KMajorSwizzle128Of<2>;
using KMajorSwizzle128Tf32 = KMajorSwizzle128Of<4>;
using KMajorSwizzle64 = KMajorSwizzleOf<2, 64>;

// MN-major, 128-byte swizzle (the transposed form: imm-trans = 1). The tile is rows x K with rows
// (M for A, N for B) contiguous: the canonical layout is ((8, 8, m), (8, k)) : ((1, 8, LBO), (64, SBO))
// in elements (PTX ISA, "Canonical Layouts"), i.e. atoms of 64 rows x 8 k, each k a 128-byte line of
// 64 consecutive rows, 8 lines per 1024-byte atom, with the same XOR of 16-byte chunk and line (k % 8)
// as the K-major form. Atoms are stored 64-row block after 64-row block (LBO = 1024) within each
// group of 8 k, and the k groups follow each other (SBO = 16 rows bytes), so a k16 slice is two
// groups, starting 32 rows bytes per step. Why: a column-major A (NN, NT) or a row-major B stages
// its contiguous index as it is, in 16-byte copies that cannot transpose; the tensor core reads the
// transposed form at full rate for 16-bit types (not for tf32, which only has K-major).
// Needs rows % 64 == 0 and K % 8 == 0.
struct MNMajorSwizzle128 {
  static constexpr Swizzle swizzle = Swizzle::b128;
  static constexpr bool mn_major = true;
  static constexpr int alignment = 1024;  // bytes
  KOKKOS_INLINE_FUNCTION static constexpr int offset(int r, int k, int rows, int /*K*/) {
    return (k / 8) * rows * 8 + (r / 64) * 512 + (k % 8) * 64 + ((((r % 64) / 8) ^ (k % 8)) * 8) + r % 8;
  }
  KOKKOS_INLINE_FUNCTION static constexpr std::uint64_t descriptor(std::uint32_t tile_addr, int kstep,
                                                                   int rows, int /*K*/) {
    return make_descriptor(tile_addr + 32u * rows * kstep, 1024, 16u * rows, Swizzle::b128);
  }
  // Row r0 must be a multiple of 64 (whole atoms).
  KOKKOS_INLINE_FUNCTION static constexpr std::uint32_t row_offset_bytes(int r0, int /*rows*/, int /*K*/) {
    return std::uint32_t(r0 / 64) * 1024u;
  }
};

// MN-major, 128-byte swizzle, with the 64-row blocks outermost: block b (rows 64 b .. 64 b + 63) is
// K lines of 128 bytes (64 rows each) one after the other, the same XOR of chunk and line (k % 8)
// inside each 1024-byte group of 8 lines, so atoms adjacent in K are 1024 bytes apart (SBO) and
// atoms adjacent in rows 128 K bytes (LBO). Why: this is what one TMA box of 64 rows x K lands as
// (tma_sm90a.hpp), so a block is one copy, where MNMajorSwizzle128 would take one per 8 k.
// Needs rows % 64 == 0 and K % 8 == 0.
struct MNMajorSwizzle128Blocked {
  static constexpr Swizzle swizzle = Swizzle::b128;
  static constexpr bool mn_major = true;
  static constexpr int alignment = 1024;  // bytes
  KOKKOS_INLINE_FUNCTION static constexpr int offset(int r, int k, int /*rows*/, int K) {
    return (r / 64) * 64 * K + k * 64 + ((((r % 64) / 8) ^ (k % 8)) * 8) + r % 8;
  }
  KOKKOS_INLINE_FUNCTION static constexpr std::uint64_t descriptor(std::uint32_t tile_addr, int kstep,
                                                                   int /*rows*/, int K) {
    return make_descriptor(tile_addr + 2048u * kstep, 128u * K, 1024, Swizzle::b128);
  }
  // Row r0 must be a multiple of 64 (whole blocks).
  KOKKOS_INLINE_FUNCTION static constexpr std::uint32_t row_offset_bytes(int r0, int /*rows*/, int K) {
    return std::uint32_t(r0 / 64) * 128u * K;
  }
};

// ---- accumulator fragment -------------------------------------------------------------------------
// Row and column in the 64 x N tile of accumulator i of thread t of the warpgroup (t < 128).
KOKKOS_INLINE_FUNCTION constexpr int fragment_row(int t, int i) {
  return 16 * (t / 32) + (t % 32) / 4 + 8 * ((i / 2) % 2);
}
KOKKOS_INLINE_FUNCTION constexpr int fragment_col(int t, int i) {
  return 8 * (i / 4) + 2 * (t % 4) + i % 2;
}

// ---- fences and groups -----------------------------------------------------------------------------
KOKKOS_INLINE_FUNCTION void unavailable() {
  Kokkos::abort(
      "ridgeline: wgmma needs a build through the sm_90a route (RIDGELINE_HAVE_SM90A) running on sm_90");
}

// Orders this thread's earlier register and shared-memory accesses before the warpgroup's next wgmma.
KOKKOS_FORCEINLINE_FUNCTION void fence() {
#if RIDGELINE_WGMMA_ENABLED
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#else
  unavailable();
#endif
}
// Closes the wgmmas issued since the last commit into one group.
KOKKOS_FORCEINLINE_FUNCTION void commit_group() {
#if RIDGELINE_WGMMA_ENABLED
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#else
  unavailable();
#endif
}
// Waits until at most N committed groups of this warpgroup are still pending.
template <int N>
KOKKOS_FORCEINLINE_FUNCTION void wait_group() {
  static_assert(N >= 0 && N <= 7, "wgmma.wait_group takes 0..7");
#if RIDGELINE_WGMMA_ENABLED
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
#else
  unavailable();
#endif
}
// Makes this thread's ordinary stores to shared memory visible to the async proxy that wgmma (and
// TMA) read through. Each writing thread calls it after its stores, before the barrier.
KOKKOS_FORCEINLINE_FUNCTION void fence_proxy_async() {
#if RIDGELINE_WGMMA_ENABLED
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#else
  unavailable();
#endif
}
// A compiler-only fence on the accumulators: no code motion of their uses across this point.
template <int R>
KOKKOS_FORCEINLINE_FUNCTION void fence_operands(float (&d)[R]) {
#if RIDGELINE_WGMMA_ENABLED
  for (int i = 0; i < R; ++i) asm volatile("" : "+f"(d[i])::"memory");
#else
  (void)d;
#endif
}

// ---- wgmma.mma_async m64nNk16, f32 += A * B, A and B from shared memory -----------------------------
// d: the thread's N / 2 accumulators (fragment map above). accumulate == false computes D = A * B
// and ignores d's old contents (the scale-d predicate); true computes D = A * B + D. kTransA and
// kTransB: the operand is staged MN-major (imm-trans = 1) rather than K-major.
template <class Elem, int N, bool kTransA = false, bool kTransB = false>
struct MmaSS;

#if RIDGELINE_WGMMA_ENABLED
// Operand lists: "+f"(d[i]) for 8 and 32 consecutive accumulators.
#define RIDGELINE_WGMMA_F8(i)                                                                 \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
      "+f"(d[i + 6]), "+f"(d[i + 7])
#define RIDGELINE_WGMMA_F32(i) \
  RIDGELINE_WGMMA_F8(i), RIDGELINE_WGMMA_F8(i + 8), RIDGELINE_WGMMA_F8(i + 16), RIDGELINE_WGMMA_F8(i + 24)
// The matching register lists %0..%127 in blocks of 32, generated by
//   python3 -c "print(', '.join('%%%d' % i for i in range(32 * c, 32 * c + 32)))"   (c = 0..3)
// clang-format off
#define RIDGELINE_WGMMA_R0 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define RIDGELINE_WGMMA_R1 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define RIDGELINE_WGMMA_R2 "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95"
#define RIDGELINE_WGMMA_R3 "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
// clang-format on
// The instruction text: accumulator list, then the two descriptors and the scale-d flag, which are
// the operands right after the accumulators (numbered A, B, S). scale-a/b = 1, no transposes.
// The transpose immediates follow (S + 1, S + 2).
#define RIDGELINE_WGMMA_ASM(shape, type, regs, A, B, S, TA, TB)                                             \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %" #S ", 0;\nwgmma.mma_async.sync.aligned." shape ".f32." type "." type \
  " {" regs "}, %" #A ", %" #B ", p, 1, 1, %" #TA ", %" #TB ";\n}\n"

#define RIDGELINE_WGMMA_DEFINE(Elem, type, N, regs, operands, A, B, S, TA, TB)                         \
  template <bool kTransA, bool kTransB>                                                                \
  struct MmaSS<Elem, N, kTransA, kTransB> {                                                            \
    KOKKOS_FORCEINLINE_FUNCTION static void run(float (&d)[N / 2], std::uint64_t da, std::uint64_t db, \
                                                bool accumulate) {                                     \
      asm volatile(RIDGELINE_WGMMA_ASM("m64n" #N "k16", type, regs, A, B, S, TA, TB)                   \
                   : operands                                                                          \
                   : "l"(da), "l"(db), "r"(int(accumulate)), "n"(int(kTransA)), "n"(int(kTransB)));    \
    }                                                                                                  \
  };

#define RIDGELINE_WGMMA_N64 RIDGELINE_WGMMA_R0
#define RIDGELINE_WGMMA_N128 RIDGELINE_WGMMA_R0 ", " RIDGELINE_WGMMA_R1
#define RIDGELINE_WGMMA_N256 \
  RIDGELINE_WGMMA_R0 ", " RIDGELINE_WGMMA_R1 ", " RIDGELINE_WGMMA_R2 ", " RIDGELINE_WGMMA_R3
#define RIDGELINE_WGMMA_OPS64 RIDGELINE_WGMMA_F32(0)
#define RIDGELINE_WGMMA_OPS128 RIDGELINE_WGMMA_F32(0), RIDGELINE_WGMMA_F32(32)
#define RIDGELINE_WGMMA_OPS256 \
  RIDGELINE_WGMMA_F32(0), RIDGELINE_WGMMA_F32(32), RIDGELINE_WGMMA_F32(64), RIDGELINE_WGMMA_F32(96)

RIDGELINE_WGMMA_DEFINE(F16, "f16", 64, RIDGELINE_WGMMA_N64, RIDGELINE_WGMMA_OPS64, 32, 33, 34, 35, 36)
RIDGELINE_WGMMA_DEFINE(F16, "f16", 128, RIDGELINE_WGMMA_N128, RIDGELINE_WGMMA_OPS128, 64, 65, 66, 67, 68)
RIDGELINE_WGMMA_DEFINE(F16, "f16", 256, RIDGELINE_WGMMA_N256, RIDGELINE_WGMMA_OPS256, 128, 129, 130, 131, 132)
RIDGELINE_WGMMA_DEFINE(BF16, "bf16", 64, RIDGELINE_WGMMA_N64, RIDGELINE_WGMMA_OPS64, 32, 33, 34, 35, 36)
RIDGELINE_WGMMA_DEFINE(BF16, "bf16", 128, RIDGELINE_WGMMA_N128, RIDGELINE_WGMMA_OPS128, 64, 65, 66, 67, 68)
RIDGELINE_WGMMA_DEFINE(BF16, "bf16", 256, RIDGELINE_WGMMA_N256, RIDGELINE_WGMMA_OPS256, 128, 129, 130, 131,
                       132)

// TF32: m64nNk8, no transposes (the PTX ISA allows them for 16-bit types only).
#define RIDGELINE_WGMMA_TF32_ASM(shape, regs, A, B, S)                                \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %" #S ", 0;\nwgmma.mma_async.sync.aligned." shape \
  ".f32.tf32.tf32"                                                                    \
  " {" regs "}, %" #A ", %" #B ", p, 1, 1;\n}\n"
#define RIDGELINE_WGMMA_TF32_DEFINE(N, regs, operands, A, B, S)                                        \
  template <>                                                                                          \
  struct MmaSS<TF32, N, false, false> {                                                                \
    KOKKOS_FORCEINLINE_FUNCTION static void run(float (&d)[N / 2], std::uint64_t da, std::uint64_t db, \
                                                bool accumulate) {                                     \
      asm volatile(RIDGELINE_WGMMA_TF32_ASM("m64n" #N "k8", regs, A, B, S)                             \
                   : operands                                                                          \
                   : "l"(da), "l"(db), "r"(int(accumulate)));                                          \
    }                                                                                                  \
  };
RIDGELINE_WGMMA_TF32_DEFINE(64, RIDGELINE_WGMMA_N64, RIDGELINE_WGMMA_OPS64, 32, 33, 34)
RIDGELINE_WGMMA_TF32_DEFINE(128, RIDGELINE_WGMMA_N128, RIDGELINE_WGMMA_OPS128, 64, 65, 66)
RIDGELINE_WGMMA_TF32_DEFINE(256, RIDGELINE_WGMMA_N256, RIDGELINE_WGMMA_OPS256, 128, 129, 130)

#undef RIDGELINE_WGMMA_TF32_DEFINE
#undef RIDGELINE_WGMMA_TF32_ASM
#undef RIDGELINE_WGMMA_DEFINE
#undef RIDGELINE_WGMMA_ASM
#undef RIDGELINE_WGMMA_N64
#undef RIDGELINE_WGMMA_N128
#undef RIDGELINE_WGMMA_N256
#undef RIDGELINE_WGMMA_OPS64
#undef RIDGELINE_WGMMA_OPS128
#undef RIDGELINE_WGMMA_OPS256
#undef RIDGELINE_WGMMA_R0
#undef RIDGELINE_WGMMA_R1
#undef RIDGELINE_WGMMA_R2
#undef RIDGELINE_WGMMA_R3
#undef RIDGELINE_WGMMA_F32
#undef RIDGELINE_WGMMA_F8
#else
template <class Elem, int N, bool kTransA, bool kTransB>
struct MmaSS {
  KOKKOS_FORCEINLINE_FUNCTION static void run(float (&)[N / 2], std::uint64_t, std::uint64_t, bool) {
    unavailable();
  }
};
#endif

// mma<Elem, N, kTransA, kTransB>(d, desc_a, desc_b, accumulate): one m64nNk16 (TF32: m64nNk8) wgmma
// of the calling warpgroup; kTransA / kTransB say that A / B is staged MN-major (16-bit types only).
template <class Elem, int N, bool kTransA = false, bool kTransB = false>
KOKKOS_FORCEINLINE_FUNCTION void mma(float (&d)[N / 2], std::uint64_t desc_a, std::uint64_t desc_b,
                                     bool accumulate) {
  static_assert(N == 64 || N == 128 || N == 256, "wrapped shapes: m64n64k16, m64n128k16, m64n256k16");
  static_assert(!std::is_same<Elem, TF32>::value || (!kTransA && !kTransB), "TF32 operands are K-major only");
  MmaSS<Elem, N, kTransA, kTransB>::run(d, desc_a, desc_b, accumulate);
}

}  // namespace ridgeline::backends::cuda::wgmma
