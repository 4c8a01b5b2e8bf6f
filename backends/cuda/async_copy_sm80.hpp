#pragma once
// cp.async (sm_80 and later): 16-byte (or one-element) copies from global memory into scratch that bypass the
// registers and complete asynchronously, in groups. The copy component that asynchronous-copy tile
// entries name (gemm_team_async.hpp): staging then costs no registers and no instructions between
// the load and the store, and several K steps can be in flight at once.
//
// .cg caches in L2 only: a staged line is read once per team from scratch, so L1 would only hold it
// twice. The src-size form zero-fills the bytes past src_bytes, which is how the tile edges and the
// K tail read zeros without a branch per element; with src_bytes == 0 nothing is read.
#include <Kokkos_Core.hpp>

namespace ridgeline::backends::cuda {

struct AsyncCopySm80 {
  static constexpr const char* name = "cp.async";

  template <class T>
  KOKKOS_FORCEINLINE_FUNCTION static void copy16(T* dst, const T* src) {
#if defined(__CUDA_ARCH__)
    const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(src) : "memory");
#else
    copy16(dst, src, 16);
#endif
  }
  // Copies src_bytes (0..16) and zero-fills the rest of the 16 bytes at dst.
  template <class T>
  KOKKOS_FORCEINLINE_FUNCTION static void copy16(T* dst, const T* src, int src_bytes) {
#if defined(__CUDA_ARCH__)
    const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(s), "l"(src), "r"(src_bytes)
                 : "memory");
#else
    const auto* from = reinterpret_cast<const unsigned char*>(src);
    auto* to = reinterpret_cast<unsigned char*>(dst);
    for (int i = 0; i < 16; ++i) to[i] = i < src_bytes ? from[i] : 0;
#endif
  }
  // Copies of one 4- or 8-byte element (kBytes), for operands whose lines are not 16-byte aligned (an odd
  // leading dimension): .ca, since .cg takes 16-byte copies only. The second form copies src_bytes (0 or
  // kBytes) and zero-fills the rest.
  template <int kBytes, class T>
  KOKKOS_FORCEINLINE_FUNCTION static void copy(T* dst, const T* src) {
    static_assert(kBytes == 4 || kBytes == 8, "cp.async.ca copies 4, 8 or 16 bytes; 16: copy16");
#if defined(__CUDA_ARCH__)
    const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(s), "l"(src), "n"(kBytes) : "memory");
#else
    copy<kBytes>(dst, src, kBytes);
#endif
  }
  template <int kBytes, class T>
  KOKKOS_FORCEINLINE_FUNCTION static void copy(T* dst, const T* src, int src_bytes) {
    static_assert(kBytes == 4 || kBytes == 8, "cp.async.ca copies 4, 8 or 16 bytes; 16: copy16");
#if defined(__CUDA_ARCH__)
    const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;" ::"r"(s), "l"(src), "n"(kBytes),
                 "r"(src_bytes)
                 : "memory");
#else
    const auto* from = reinterpret_cast<const unsigned char*>(src);
    auto* to = reinterpret_cast<unsigned char*>(dst);
    for (int i = 0; i < kBytes; ++i) to[i] = i < src_bytes ? from[i] : 0;
#endif
  }
  // Closes the group of copies issued since the last commit.
  KOKKOS_FORCEINLINE_FUNCTION static void commit() {
#if defined(__CUDA_ARCH__)
    asm volatile("cp.async.commit_group;" ::: "memory");
#endif
  }
  // Waits until at most N of this thread's groups are still in flight. Other threads' copies are
  // visible only after a team barrier that follows their waits.
  template <int N>
  KOKKOS_FORCEINLINE_FUNCTION static void wait() {
#if defined(__CUDA_ARCH__)
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
#endif
  }
};

}  // namespace ridgeline::backends::cuda
