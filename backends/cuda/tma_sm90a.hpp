#pragma once
// Hopper's tensor memory accelerator (TMA: cp.async.bulk.tensor) and the mbarriers it completes on,
// for builds through the PTX-8 / sm_90a route (wgmma_sm90a.hpp says when RIDGELINE_WGMMA_ENABLED
// holds; TMA needs PTX ISA 8.0 like wgmma, so the same test guards both).
//
// A TMA copy moves a whole box of a 2-D tensor (here up to 256 x 128 bytes) from global memory into
// team scratch in one instruction issued by one thread, lays it out in the 128-byte swizzle that
// wgmma reads (the tensor map names it), fills what lies outside the tensor with zeros (the M, N and
// K tails), and counts its bytes on an mbarrier when they have landed. The copy engine writes
// through the async proxy, which is the proxy wgmma reads through, so no proxy fence is needed
// between them. Verified on the H200 before this header was written: a 64 x 128 box of a 300 x 200
// FP16 tensor at an offset that crosses both edges landed in exactly KMajorSwizzle128's layout
// (wgmma_sm90a.hpp), zeros outside, with the tensor map in global memory.
//
// The tensor map (CUtensorMap, 128 opaque bytes) is built on the host by the driver's
// cuTensorMapEncodeTiled. CUDA 11.8's headers do not declare it, and the 11.8 runtime's
// cudaGetDriverEntryPoint looks symbols up at version 11.8, where it does not exist (it answered
// cudaErrorSymbolNotFound on the H200), so the lookup takes the driver's cuGetProcAddress through
// the runtime and asks it for the symbol at version 12.0. The prototype and the enumerators below
// are the driver ABI's (cuda.h of CUDA 12), written out for that reason.
//
// A kernel parameter is where CUDA 12 code keeps a tensor map (__grid_constant__), but a Kokkos
// functor cannot mark its members so, and the copy the compiler would make is in local memory,
// which TMA cannot read. So the maps live in the caller's workspace, in global memory, written by
// a copy enqueued before the kernel (GemmTeamTmaSm90a::bind_tensor_maps).
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <ridgeline/backends/cuda/wgmma_sm90a.hpp>
#include <ridgeline/half.hpp>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace ridgeline::backends::cuda::tma {

// CUtensorMap: 128 bytes, 64-byte aligned.
struct alignas(64) TensorMap {
  std::uint64_t opaque[16];
};

// The tensor element types this project stages (CUtensorMapDataType).
enum class DataType : int { f16 = 6, f32 = 7, bf16 = 9 };
template <class T>
constexpr DataType data_type_of() {
  if constexpr (sizeof(T) == 4) {
    return DataType::f32;  // TF32 products read FP32 bit patterns
  } else if constexpr (std::is_same_v<T, bhalf_t>) {
    return DataType::bf16;
  } else {
    return DataType::f16;
  }
}

#if defined(KOKKOS_ENABLE_CUDA)
namespace host {
using EncodeTiled = int (*)(TensorMap*, int /*data type*/, unsigned /*rank*/, void* /*base*/,
                            const unsigned long long* /*dims*/, const unsigned long long* /*strides*/,
                            const unsigned* /*box*/, const unsigned* /*element strides*/, int /*interleave*/,
                            int /*swizzle*/, int /*L2 promotion*/, int /*OOB fill*/);
using GetProcAddress = int (*)(const char*, void**, int /*CUDA version*/, unsigned long long /*flags*/);

// cuTensorMapEncodeTiled, looked up once; null where the driver has none (before CUDA 12).
inline EncodeTiled encode_tiled() {
  static const EncodeTiled fn = []() -> EncodeTiled {
    void* get = nullptr;
    if (cudaGetDriverEntryPoint("cuGetProcAddress", &get, cudaEnableDefault) != cudaSuccess || !get)
      return (void)cudaGetLastError(), nullptr;
    void* enc = nullptr;
    if (reinterpret_cast<GetProcAddress>(get)("cuTensorMapEncodeTiled", &enc, 12000, 0) != 0) return nullptr;
    return reinterpret_cast<EncodeTiled>(enc);
  }();
  return fn;
}
}  // namespace host

// A map of the 2-D tensor whose element (inner i, outer o) is at base + o * outer_stride_bytes +
// i * sizeof(element), read in boxes of box_inner x box_outer elements in the 128-byte swizzle
// (box_inner * element size must be 128 bytes or less), out-of-bounds elements read as zero.
// Throws where the driver cannot make it: TMA needs base and outer_stride_bytes multiples of 16,
// which packet staging already requires.
inline TensorMap make_tensor_map_2d(DataType type, const void* base, std::uint64_t inner, std::uint64_t outer,
                                    std::uint64_t outer_stride_bytes, unsigned box_inner,
                                    unsigned box_outer) {
  const host::EncodeTiled encode = host::encode_tiled();
  if (!encode)
    throw std::runtime_error(
        "ridgeline: the CUDA driver has no cuTensorMapEncodeTiled (needs a CUDA 12 or later driver), which "
        "the TMA GEMM kernels of this sm_90a build need");
  TensorMap map{};
  const unsigned long long dims[2] = {inner, outer}, strides[1] = {outer_stride_bytes};
  const unsigned box[2] = {box_inner, box_outer}, element_strides[2] = {1, 1};
  constexpr int kInterleaveNone = 0, kSwizzle128 = 3, kL2Promote128 = 2, kFillZeros = 0;
  const int rc = encode(&map, static_cast<int>(type), 2, const_cast<void*>(base), dims, strides, box,
                        element_strides, kInterleaveNone, kSwizzle128, kL2Promote128, kFillZeros);
  if (rc != 0)
    throw std::runtime_error("ridgeline: cuTensorMapEncodeTiled failed (CUresult " + std::to_string(rc) +
                             ") for a " + std::to_string(inner) + " x " + std::to_string(outer) +
                             " tensor with a stride of " + std::to_string(outer_stride_bytes) +
                             " bytes and a box of " + std::to_string(box_inner) + " x " +
                             std::to_string(box_outer));
  return map;
}
#endif

// ---- mbarriers (shared memory, 8 bytes each) ------------------------------------------------------
// An mbarrier completes a phase when its expected arrivals have arrived and its expected
// transaction bytes (expect_tx) have been counted by the copies that name it; waiters test the
// phase's parity (0, 1, 0, ...).
KOKKOS_FORCEINLINE_FUNCTION void mbarrier_init(std::uint32_t bar, unsigned arrivals) {
#if RIDGELINE_WGMMA_ENABLED
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(arrivals) : "memory");
#else
  (void)bar, (void)arrivals, wgmma::unavailable();
#endif
}
// Makes the initialisations above visible to the copy engine (with the team barrier after it).
KOKKOS_FORCEINLINE_FUNCTION void fence_mbarrier_init() {
#if RIDGELINE_WGMMA_ENABLED
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#else
  wgmma::unavailable();
#endif
}
// One arrival, and bytes more to be counted by copies before the phase can complete.
KOKKOS_FORCEINLINE_FUNCTION void mbarrier_arrive_expect_tx(std::uint32_t bar, unsigned bytes) {
#if RIDGELINE_WGMMA_ENABLED
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
#else
  (void)bar, (void)bytes, wgmma::unavailable();
#endif
}
KOKKOS_FORCEINLINE_FUNCTION void mbarrier_arrive(std::uint32_t bar) {
#if RIDGELINE_WGMMA_ENABLED
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
#else
  (void)bar, wgmma::unavailable();
#endif
}
// Returns once the phase with this parity has completed.
KOKKOS_FORCEINLINE_FUNCTION void mbarrier_wait(std::uint32_t bar, unsigned parity) {
#if RIDGELINE_WGMMA_ENABLED
  unsigned done = 0;
  do {
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  } while (!done);
#else
  (void)bar, (void)parity, wgmma::unavailable();
#endif
}

// ---- the copy -------------------------------------------------------------------------------------
// Copies the box at (inner c0, outer c1) of map's tensor to scratch address dst (1024-byte aligned
// for the 128-byte swizzle), counted on mbarrier bar. map: a generic address in global memory.
KOKKOS_FORCEINLINE_FUNCTION void load_2d(std::uint32_t dst, const TensorMap* map, int c0, int c1,
                                         std::uint32_t bar) {
#if RIDGELINE_WGMMA_ENABLED
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
      "[%4];" ::"r"(dst),
      "l"(map), "r"(c0), "r"(c1), "r"(bar)
      : "memory");
#else
  (void)dst, (void)map, (void)c0, (void)c1, (void)bar, wgmma::unavailable();
#endif
}
KOKKOS_FORCEINLINE_FUNCTION void prefetch_map(const TensorMap* map) {
#if RIDGELINE_WGMMA_ENABLED
  asm volatile("prefetch.tensormap [%0];" ::"l"(map) : "memory");
#else
  (void)map;
#endif
}

}  // namespace ridgeline::backends::cuda::tma
