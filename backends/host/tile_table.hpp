#pragma once
// Host (OpenMP, Serial, Threads) tile table. A team is one thread, so the team tile is sized for
// the core's L2 (A 96x256 + B 256x128 + the 96x128 accumulator: about 270 KB in fp32) and the
// micro-tile for its vector registers: 12 x 32 fp32 is 24 of the 32 AVX-512 registers, leaving
// room for the B fragment and the A broadcast; with AVX2 the compiler splits it in halves.
// The tiles exceed the 32 KB that Kokkos advertises as host level-0 scratch, so they live in level
// 1, which on host backends is the same per-thread arena, only without that advisory cap.
#include <cstddef>
#include <cstdint>
#include <ridgeline/backends/host/gemm_panels.hpp>
#include <ridgeline/backends/host/gemm_small_direct.hpp>
#include <ridgeline/backends/host/gemv_kernel.hpp>
#include <ridgeline/backends/host/micro_kernel.hpp>
#include <ridgeline/backends/host/multi_vector_kernel.hpp>
#include <ridgeline/backends/host/tune_space.hpp>
#include <ridgeline/detail/gemm_complex_as_real.hpp>
#include <ridgeline/detail/gemm_plan.hpp>
#include <ridgeline/detail/micro_tile.hpp>
#include <type_traits>

namespace ridgeline::backends::host {

// Packed-panel products of one block and at most this many flops run on the calling thread
// (dispatch.hpp): a block runs on one thread either way, and the OpenMP fork and join cost 4-5 us a call
// here with the default wait policy, 15-20 us with OMP_WAIT_POLICY=passive. Probe, two runs
// (perf/results/2026-12-05-host-ee02147/): on the calling thread 96^3 ran 1.39-1.46x (fp32) and
// 1.21-1.24x (fp64) as fast as launched, 32^3 6.0-6.9x and 4.6-4.9x; 112^3 (four blocks) 0.72-0.74x
// and 0.77x, so the bound stops at one block of the small panel entry.
inline constexpr std::int64_t kCallingThreadFlops = 2 * 96 * 96 * 96;

struct GemmTilesFp32 {
  static constexpr int bm = 96, bn = 128, bk = 256;
  static constexpr int tm = 12, tn = 32, fm = 12, fn = 32;
  static constexpr int pad_a = 0, pad_b = 0;
  static constexpr int team_size = 1, vector_length = 1, stages = 1, min_blocks = 1;
  static constexpr int scratch_level = 1, group_m = 4;
  static constexpr int simd_bytes = 64;  // the vector type of the host micro-kernel (AVX-512)
};

struct GemmTilesFp64 {
  static constexpr int bm = 96, bn = 64, bk = 256;
  static constexpr int tm = 12, tn = 16, fm = 12, fn = 16;
  static constexpr int pad_a = 0, pad_b = 0;
  static constexpr int team_size = 1, vector_length = 1, stages = 1, min_blocks = 1;
  static constexpr int scratch_level = 1, group_m = 4;
  static constexpr int simd_bytes = 64;
};

// Complex GEMM (Kokkos::complex<float>, Kokkos::complex<double>) on the portable micro-kernel, 4 x 4
// complex accumulators per micro-tile, each multiply-add four real FMAs. A 64 x 64 tile, K steps of 64:
// A and B 32 (64) KB each in complex<float> (complex<double>), the scratch accumulator as much. A team
// runs its whole tile over whole K steps (the K tail is zeros in scratch), so the tile's size is also the
// least a product costs: with 64 x 64 x 256 (complex<float>) the reference tester cblat3, whose products
// are a few elements wide, ran 36 s against sblat3's 7 (two loaded cores). Correct first; not swept.
struct GemmTilesComplex {
  static constexpr int bm = 64, bn = 64, bk = 64;
  static constexpr int tm = 4, tn = 4, fm = 4, fn = 4;
  static constexpr int pad_a = 0, pad_b = 0;
  static constexpr int team_size = 1, vector_length = 1, stages = 1, min_blocks = 1;
  static constexpr int scratch_level = 1, group_m = 4;
  template <class T, class Acc>
  using micro_kernel = detail::PortableMicroKernel<GemmTilesComplex, T, Acc>;
  static constexpr const char* micro_kernel_name = "portable-complex";
};

#if defined(RIDGELINE_HOST_VECTOR_MICRO_KERNEL)
// Skinny N, 2 to 16 columns of C with op(A) rows-contiguous, on this backend's multi-vector kernel
// (multi_vector_kernel.hpp): a team per two vectors of rows (32 fp32 or 16 fp64 rows), K blocks of 256
// columns of A, passes of 8 columns of C (16 vector accumulators of the 32 AVX-512 registers).
// Against the tile entry it replaced there, OpenBLAS in the same runs, two rounds on this VM's two Zen 5
// cores (perf/results/2026-12-03-host-9abcb81/): 4096 x {2, 8, 16} x 4096 fp32 0.15-0.22 -> 2.2-3.3x
// OpenBLAS, fp64 {4, 8, 16} columns 0.31-0.41 -> 1.8-2.0x, unaligned 4095 x 16 x 4095 0.21 -> 1.75x, at
// 16-22 GB/s, a third of the copy bandwidth: each team walks 4096 columns of A 128 bytes at a time.
template <class T>
struct GemmMultiVectorTiles {
  static constexpr int simd_bytes = 64, row_vectors = 2, col_block = 8, k_block = 256;
  static constexpr int team_size = 1, vec = simd_bytes / int(sizeof(T)), unroll = 1;
  static constexpr int max_vectors = 16, b_rows = 0;
  static constexpr int bm = row_vectors * vec, bn = max_vectors, bk = k_block, tm = bm, tn = max_vectors;
  static constexpr int vector_length = 1, stages = 1, min_blocks = 1, scratch_level = 0;
  static constexpr const char* micro_kernel_name = "host-multi-vector";
  static constexpr const char* staging_name = "op(B) read in place; A read once, vectors down its columns";
  template <class ExecSpace, class U, class Acc, int kNV, bool kVec, class TC>
  using multi_vector_kernel = MultiVectorKernel<ExecSpace, GemmMultiVectorTiles, U, Acc, kNV, kVec, TC>;
};
// The multi-vector entry of a real type T, or void (none: 16-bit inputs accumulate in float, which
// the kernel's vector loads of A do not convert).
template <class T>
using MultiVectorEntryOf =
    std::conditional_t<std::is_same_v<T, float> || std::is_same_v<T, double>, GemmMultiVectorTiles<T>, void>;
#else
template <class T>
using MultiVectorEntryOf = void;
#endif

#if defined(RIDGELINE_HOST_VECTOR_MICRO_KERNEL)
// Real products on packed panels (gemm_panels.hpp, the BLIS loop nest): a team (one thread) per BM x BN
// block of C packs op(B) once per K step for all BM rows and op(A) MC rows at a time, and an MR x NR
// micro-tile of vectors down C's columns reads both from contiguous micro-panels. MR x NR = 32 x 12
// (fp32) and 16 x 12 (fp64): 24 of the 32 AVX-512 registers hold the sums, 2 the column of Ap, and the
// 12 values of Bp are broadcasts. KC 256 keeps a micro-panel of Bp (12 KB fp32) in L1 while MC / MR
// micro-panels of Ap pass; Bp itself (KC x BN: 480 KB in either type) stays in the 1 MB L2 with Ap.
// A probe of this loop nest against OpenBLAS in one process on this VM's two Zen 5 cores (SGEMM and
// DGEMM 2048^3, two rounds; perf/results/2026-12-05-host-97dc371/, -panel-probe.txt): BM 768 ran 0.86-0.88
// (fp32) and 0.95-0.96 (fp64) of OpenBLAS against 0.81-0.83 and 0.76-0.90 with BM 384 (op(B) packed for
// half the rows); MC 192 and BN 240 (fp32) or 960 no better; KC 192 and 384 slower; MR x NR 48 x 8
// and 32 x 14 level, 64 x 6 worse.
// Since 2026-12-06 the blocks are 1024 x 512 (fp32) and 1024 x 256 (fp64), MC 128, and since 2026-12-07
// 1024 x 512 in both types (PanelEntryOf, below).
template <class T, int kBm, int kBn, int kInPlaceBytes = 0, int kMc = 96, int kKc = 256>
struct GemmPanelTiles {
  static constexpr int simd_bytes = 64;
  static constexpr int tm = 2 * simd_bytes / int(sizeof(T)), tn = 12, fm = tm, fn = tn;
  // bk: the plan's K step (split-K slices are multiples of it); kc: the kernel's (KC, the packed panels'
  // depth).
  static constexpr int bm = kBm, bn = kBn, bk = 256, kc = kKc, mc = kMc;
  // Blocks whose op(A) and op(B) (over the block's K range) take at most this many bytes are multiplied
  // where they lie, without packing (gemm_panels.hpp); 0: always packed.
  static constexpr int in_place_bytes = kInPlaceBytes;
  static constexpr int pad_a = 0, pad_b = 0;
  static constexpr int team_size = 1, vector_length = 1, stages = 1, min_blocks = 1;
  static constexpr int scratch_level = 1, group_m = 4;
  static constexpr const char* micro_kernel_name = "host-panels";
  static constexpr const char* pipeline_name =
      kInPlaceBytes > 0
          ? "packed panels: op(B) once per K step of a block, op(A) per MC rows; blocks of at most the "
            "entry's in_place_bytes read both in place"
          : "packed panels: op(B) once per K step of a block, op(A) per MC rows";
  template <class ExecSpace, class U, class Acc, class MK, bool kAFastM, bool kBFastN, class TC>
  using team_kernel = HostGemmPanels<ExecSpace, GemmPanelTiles, U, Acc, kAFastM, kBFastN, TC>;
};
template <class T>
constexpr bool kPanelType = std::is_same_v<T, float> || std::is_same_v<T, double>;
// The blocks: 1024 x 512 (fp32) and 1024 x 256 (fp64), op(A) packed 128 rows at a time; Bp is 512 KB in
// either type, Ap 128 KB (fp32) or 256 KB (fp64). At 2048 that is 8 blocks of one size where 768 x 480 made
// 15 of four sizes: Kokkos's OpenMP league (TeamPolicy<Dynamic>, chunk 1) hands thread t the ranks
// [t * ceil(L / T), ...) and lets it steal from the other's end, and 768 x 480's last stolen block left one
// core idle about 6% of the time; and op(A) is packed 4 times instead of 5, op(B) 2 times instead of 3. A
// paired probe against 768 x 480 / MC 96 in one process, with Kokkos's partition and stealing
// (perf/results/2026-12-06-host-bed39c5/, -paired-probe.txt), 2048^3: SGEMM NN 1.081x, NT 1.096x, DGEMM NN
// 1.044x, NT 1.021x; 1024^3 (2 blocks on 2 cores) 1.052x / 1.061x; 1536^3 1.010x / 1.038x; 2560^3 1.021x /
// 1.007x; 3000^3 fp32 1.014x; 4096^3 fp32 1.031x; but 1280^3 0.989x / 0.944x (6 blocks of three sizes, the
// last stolen 1024 x 512 one runs alone). MC 64 at 1024 x 512 gained less (1.029x fp32).
// Since 2026-12-07 the kernel runs each thread's range of the league largest block first (block_of_rank,
// gemm_panels.hpp): 1280^3 1.15x / 1.08-1.10x in the paired probe, 2048^3 unchanged (blocks of one size).
// Since 2026-12-07 (3c210e9) fp64 blocks are 1024 x 512 too: op(A) is packed N / BN times, and at DGEMM
// 2048^3 (A 32 MB, from DRAM each time) its copy was about 5% of the samples (perf record), 8 times with BN
// 256, now 4. Bp is then 1 MB (KC x BN), past the 1 MB L2 with Ap: in BLIS's model Bp lives in L3, and a
// micro-panel of it (24 KB) in L1 while op(A)'s micro-panels pass. Predicted +3% (half of op(A)'s packing);
// paired probe against 1024 x 256 in one process (perf/results/2026-12-07-host-3c210e9/, -paired-probe.txt),
// 2048^3 NN 1.017x-1.037x (three runs of 10-30 pairs; 1024 x 1024 1.014-1.017x, 512 x 1024 0.984x). With the
// C update of gemm_panels.hpp (3c210e9) DGEMM NN 2048^3 went from 0.916 to 0.978 of OpenBLAS in
// ridgeline-perf (median of seven rounds), but 1536^3 from 0.951 to 0.916: its six blocks (three 1024 x 512,
// three 512 x 512) split 5 : 4 over two threads.
// Since 2026-12-07 a launch of at most 16 blocks a thread may cut C into the plan's count of blocks of other
// sizes (panel_cuts, gemm_panels.hpp): each extent cut evenly, in whole micro-panels, where that ends the
// busiest thread at least 2% sooner. 1536^3 on two threads runs six 768 x 512 blocks, 3 : 3; 1280^3 640 x
// 512; 2048^3, 2047^3 and 4097^2 x 256 keep 1024 x 512. ridgeline-perf against 585d245, seven rounds
// (perf/results/2026-12-07-host-8f2becd/): DGEMM NN 1536^3 0.940 -> 1.038 of OpenBLAS (Ridgeline 1.101x in
// the same round), SGEMM 0.990 -> 1.089; 1280^3 level (DGEMM 0.995x, SGEMM 1.016x; the paired probe
// had 1.042x). Since 2026-12-07 fp64 packs K 512 deep, 64 rows of op(A) at a time (Ap 256 KB as before; Bp 2
// MB, its micro-panels 48 KB): half the C updates and op(B) micro-panel starts. Paired probe against 585d245
// (15 rounds, DGEMM 2048^3): KC 512 / MC 64 NN 1.023x, TN 1.028x; KC 512 / MC 128 1.015x / 1.020x; KC
// 384 1.012x / 1.011x. ridgeline-perf, seven rounds, Ridgeline against the cuts alone in the same round:
// DGEMM 2048^3 NN 1.020x, NT 1.035x, TN 1.047x, TT 1.007x, 2047^3 1.036x; 4097^2 x 256 0.987x (K 256 is one
// step either way: only MC changed there). DGEMM NN 2048^3 1.011 of OpenBLAS (0.976-1.040), where 585d245
// ran 1.006 in the same rounds (perf/results/2026-12-07-host-8f2becd/).
template <class T>
using PanelEntryOf =
    std::conditional_t<kPanelType<T>,
                       GemmPanelTiles<T, 1024, 512, 0, sizeof(T) == 8 ? 64 : 128, sizeof(T) == 8 ? 512 : 256>,
                       void>;
// The bound of SmallPanelWhen, below: the geometry of the panel entry's blocks before 2026-12-06, kept so
// that the same products as before take the small panel entry (a 1024^3 product, 2 of today's blocks, stays
// on the panel entry: one block per core of this VM).
template <class T>
using SmallPanelBound = GemmPanelTiles<T, 768, sizeof(T) == 8 ? 240 : 480>;
// Products of fewer such blocks than twice the cores run 96 x 96 blocks (when::panels_under): op(B) packed
// for 96 rows only, but every core busy. Not swept; on the cliffs-host squares, against the 768-row blocks
// alone, same binary otherwise: SGEMM 256^3 0.66 -> 0.92-1.03 of OpenBLAS, 512^3 0.70 -> 0.93-0.94, DGEMM
// 256^3 0.83 -> 1.15-1.21.
//
// Their blocks of at most 48 KB of op(A) and op(B), the L1 data cache of a core of the machine measured, are
// multiplied in place (in_place_bytes; gemm_panels.hpp). Probe, the 96 x 96 entry packed against in place, NN
// and TN, one product on the calling thread and batches of one matrix per thread
// (perf/results/2026-12-05-host-0a3bd07/, -in-place-probe-1.txt): in place ran 0.95-1.43x on one product of
// n = 16 ... 96 (fp32 64^3 1.11-1.21x), batches of 32^3 1.39-1.65x and of fp32 64^3 1.56x, fp64 64^3 1.10x,
// fp32 128^3 (blocks of 96 KB) 0.87x. At 80 KB the batched-host preset put fp64 64^3 (64 KB, its op(A)
// columns 512 bytes apart on few L1 sets, which packing avoids) at 0.61-0.62 of the OpenBLAS loop against
// 0.85 packed (066b09b's record); 48 KB packs it again and leaves fp32 32^3 and 64^3 and fp64 32^3 in place
// (perf/results/2026-12-05-host-a6c5e2e/: fp64 64^3 0.84-0.92 in three rounds of four).
template <class T>
using SmallPanelTiles = GemmPanelTiles<T, 96, 96, 48 * 1024>;

// Products small enough for the calling thread, and each matrix of gemm_batched's per-thread loop up to 256
// in M and K, read op(A) and op(B) where they lie (gemm_small_direct.hpp): no packing but of op(A)'s
// micro-panels where its rows are not contiguous, op(B) broadcast from its own strides, M tails through
// masked vectors. Same MR x NR as the panels, 96 x 96 blocks (one for the calling thread's products).
// Against the small panel entry it replaces there, OpenBLAS in the same runs, two rounds on this VM's two
// Zen 5 cores (2cdea71's records, base 1c3ee13): batched-host fp32 32^3 0.44-0.63 -> 0.71-0.80, 64^3
// 0.49-0.50
// -> 0.67-0.77, 128^3 0.80-0.97 -> 1.25-1.27, 256^3 0.75-0.92 -> 1.19-1.23, 32x512x32 0.59-0.66 -> 0.93-1.16;
// fp64 32^3 0.38-0.39 -> 0.57-0.77, 64^3 0.65-0.85 -> 0.83-0.91, 128^3 and 256^3 0.92-1.27 -> 1.42-1.54; one
// product on the calling thread: SGEMM 16^3 0.24-0.28 -> 0.46-0.53, 48^3 0.62-0.67 -> 0.93-0.95, 64^3
// 0.75-0.82 -> 0.93-0.96, DGEMM 64^3 0.42-0.67 -> 0.89-0.95. What is left at 32^3 and 64^3 in a batch is cold
// op(B), broadcast 12 columns at a time from memory: a probe that gave every matrix the same B ran fp32 32^3
// at 1.14 of OpenBLAS against 0.68. Past 256 a probe of one thread per matrix (cold batches) was mixed: fp32
// TN 384^3 0.80 against the panels' 0.88, fp64 512^3 NN and TN level (0.96-1.00 against 0.94-0.97); so 256.
template <class T>
struct GemmSmallDirectTiles {
  static constexpr int simd_bytes = 64;
  static constexpr int tm = 2 * simd_bytes / int(sizeof(T)), tn = 12, fm = tm, fn = tn;
  static constexpr int bm = 96, bn = 96, bk = 256, mc = 96;
  static constexpr int in_place_bytes = 0;  // every block reads in place; not the panels' bound
  // gemm_batched's per-thread loop runs matrices of at most this M and K here, larger ones on the small
  // panel entry: a block's op(A) (96 x K) and op(B) (K x 96) stay in the core's L2 while its micro-tiles
  // pass, and no column of op(A) or C is more than 256 elements from the next. N only adds blocks.
  static constexpr int batched_max_extent = 256;
  static constexpr int pad_a = 0, pad_b = 0;
  static constexpr int team_size = 1, vector_length = 1, stages = 1, min_blocks = 1;
  static constexpr int scratch_level = 1, group_m = 4;
  static constexpr const char* micro_kernel_name = "host-small-direct";
  static constexpr const char* pipeline_name =
      "op(A) and op(B) read in place (op(A) packed per micro-panel where its rows are not contiguous)";
  template <class ExecSpace, class U, class Acc, class MK, bool kAFastM, bool kBFastN, class TC>
  using team_kernel = HostGemmSmallDirect<ExecSpace, GemmSmallDirectTiles, U, Acc, kAFastM, kBFastN, TC>;
};
template <class T>
using SmallDirectEntryOf = std::conditional_t<kPanelType<T>, GemmSmallDirectTiles<T>, void>;
// One block of the entry and at most kCallingThreadFlops: the products the plan runs on the calling thread.
template <class T>
using SmallDirectWhen = detail::when::calling_thread_block<GemmSmallDirectTiles<T>, kCallingThreadFlops>;
template <class T>
using SmallPanelEntryOf = std::conditional_t<kPanelType<T>, SmallPanelTiles<T>, void>;
template <class T>
using SmallPanelWhen = detail::when::panels_under<SmallPanelBound<T>, 200>;
// Skinny N runs the multi-vector entry, launched, unless the small panel entry takes the product on the
// calling thread: 8^3 and 16^3 fp32 (N = 8, 16) ran 4.2 and 5.8 us on the multi-vector entry, 140 and 78
// times OpenBLAS's time; on the calling thread 0.27-0.31 and 0.65-0.75 us
// (perf/results/2026-12-05-host-e0d1924/).
template <class T>
using MultiVectorWhen =
    std::conditional_t<kPanelType<T>,
                       detail::when::launched_past_one_block<detail::when::columns_at_most<16>,
                                                             SmallPanelTiles<T>, kCallingThreadFlops>,
                       detail::when::columns_at_most<16>>;
#else
template <class T>
using PanelEntryOf = void;
template <class T>
using SmallPanelEntryOf = void;
template <class T>
using SmallDirectEntryOf = void;
template <class T>
using SmallDirectWhen = detail::when::panels;
template <class T>
using SmallPanelWhen = detail::when::panels;
template <class T>
using MultiVectorWhen = detail::when::columns_at_most<16>;
#endif

// GEMV. Unit-stride real operands run the vector-register kernels (gemv_kernel.hpp); the portable
// kernels, with these team shapes, take strided, complex and 16-bit ones: 512 rows per team keeps the
// row partial sums in L1; 16 elements of a dot product per pass are one AVX-512 fp32 vector, and four
// rows share each x load. No packets (vec = 1).
// The vector kernels' shapes come from a probe on this VM's two Zen 5 cores (4096^2 fp32, cold A, two
// threads; perf/results/2026-12-04-host-8468301/): Rows with 2048-row blocks and 4 columns per pass
// 39.6 GB/s against 34.8 with 512 rows and 8 columns; Dot with 8 rows at once 39.9 GB/s, 4 rows 37.9,
// one row 28.4; two vectors of each row per step.
// Since 2026-12-07 (28197ee) Rows adds 8 columns per pass and Dot reads one vector of each row per step: in a
// probe alternating variants with OpenBLAS in one process (4096^2, cold A, 11-15 rounds; perf/results/
// 2026-12-07-host-28197ee/), Rows 8 columns 0.99 of OpenBLAS fp32 against 0.88-0.94 with 4 (fp64 level,
// 1.08), and Dot one vector 1.02-1.05 fp32 / 1.06 fp64 against 0.88-0.91 / 0.91 with two; 16 rows of one
// vector, 4 of two and software prefetch (0.5-4 KB ahead, into the next block) were all below it.
// ridgeline-perf, 14 rounds against the old shapes: 4096^2 N / T fp32 0.975 / 0.992 of OpenBLAS (0.859 /
// 0.947 before), fp64 1.097 / 1.055 (1.046 / 0.987).
#if defined(RIDGELINE_HOST_VECTOR_MICRO_KERNEL)
template <class ExecSpace, class T, class Cfg, template <class, class, class> class Kernel>
using GemvUnitKernel = std::conditional_t<std::is_same_v<T, float> || std::is_same_v<T, double>,
                                          Kernel<ExecSpace, Cfg, T>, void>;
#endif
struct GemvRowsTiles {
  static constexpr int team_size = 1, vector_length = 1, rows = 512, unroll = 8, vec = 1, scratch_level = 0;
#if defined(RIDGELINE_HOST_VECTOR_MICRO_KERNEL)
  static constexpr int simd_bytes = 64, max_block_rows = 2048, cols = 8;
  template <class ExecSpace, class T>
  using unit_kernel = GemvUnitKernel<ExecSpace, T, GemvRowsTiles, HostGemvRows>;
#endif
};
struct GemvDotTiles {
  static constexpr int team_size = 1, vector_length = 1, lanes = 1, row_block = 4, rows = 64, unroll = 16,
                       vec = 1;
  static constexpr int scratch_level = 0;
#if defined(RIDGELINE_HOST_VECTOR_MICRO_KERNEL)
  // The vector kernel's own shape: 8 rows at once, 1 vector of each per step. Rows of at most 4 KB one at a
  // time, 2 vectors a step: in a probe alternating variants with OpenBLAS in one process (21 rounds, cold A;
  // perf/results/2026-12-07-host-547e9fd/), T 500 x 50000 fp64 (4000-byte rows) 1.133 of OpenBLAS against
  // 0.866 for 8 rows at once, fp32 1.485 against 0.890, T 1000 x 100000 fp32 1.210 / 0.981, T 200 x 200000
  // fp64 1.428 / 0.837; 8 KB rows level (1.062 / 1.059 fp64, 0.981 / 0.994 fp32); 16 KB rows lose (T 2048 x
  // 20000 fp64 0.927 / 0.978, 4096^2 0.962 / 1.070 fp64, 0.930 / 1.013 fp32). 4 vectors a step ran 1.076
  // and 1.352 at 500 x 50000.
  struct Unit {
    static constexpr int simd_bytes = 64, rows = 64, row_block = 8, unroll = 1;
    static constexpr int short_row_bytes = 4096, short_unroll = 2;
  };
  template <class ExecSpace, class T>
  using unit_kernel = GemvUnitKernel<ExecSpace, T, Unit, HostGemvDot>;
#endif
};

// Batched products of small matrices (gemm_batched, gemm_batched_small.hpp): a team is one thread,
// which copies its matrices (every extent up to kMaxExtent) into 16 KB of scratch, a third of a core's
// L1, and multiplies them there, four outputs at a time. float and double stop at 4: from 5 on the direct
// entry's per-thread loop (the panels path) takes them. Up to 16 the small path ran 2-6x slower than the
// direct entry on each matrix whole (team_gemm's staged form timed it): batches of about 8 MB, NN, two
// threads, three rounds (perf/results/2026-12-06-host-eda8ecf/), GFLOP/s small path / direct: fp32 8^3
// 6.6-7.2 / 13.9-14.9, 16^3 7.0-10.3 / 36.6-44.4 (the OpenBLAS loop 12.0-14.9); fp64 8^3 6.4-6.7 /
// 9.9-11.2, 16^3 5.5-9.3 / 29.5-48.6; at 4^3 fp64 4.0-4.3 / 2.8-3.2, fp32 2.4-4.4 / 3.8-5.0. Types without a
// direct entry (16-bit ones, and every type in a build without the vector micro-kernel) keep 16.
template <int kMaxExtent>
struct GemmBatchedSmallTiles {
  static constexpr int team_size = 1, min_blocks = 1, cols_per_thread = 4;
  static constexpr int max_extent = kMaxExtent, max_per_team = 64;
  static constexpr std::size_t scratch_bytes = 16 * 1024;
};

struct Tiles {
  static constexpr const char* name = "host";
  // What `ridgeline tune` tries (tune_space.hpp).
  using tune_space = TuneSpace;
  template <class T>
  using gemm = std::conditional_t<sizeof(T) == 8, GemmTilesFp64, GemmTilesFp32>;
  // The tile entry, staging 16-byte packets where its kernel and the operands allow it (gemm_plan.hpp),
  // after the multi-vector entry for skinny N where this compiler has the vector types. Complex types:
  // the one complex entry, any strides (staging copies line by line, which vectorizes without packets).
  template <class T>
  using tile_entries =
      std::conditional_t<detail::is_complex_v<T>,
                         detail::GemmEntries<detail::GemmEntry<GemmTilesComplex, detail::when::any>>,
                         detail::GemmEntries<detail::GemmEntry<gemm<T>, detail::when::packets>,
                                             detail::GemmEntry<gemm<T>, detail::when::any>>>;
  template <class T>
  using gemm_entries =
      std::conditional_t<detail::is_complex_v<T>, tile_entries<T>,
                         detail::GemmEntries<detail::GemmEntry<MultiVectorEntryOf<T>, MultiVectorWhen<T>>,
                                             detail::GemmEntry<SmallDirectEntryOf<T>, SmallDirectWhen<T>>,
                                             detail::GemmEntry<SmallPanelEntryOf<T>, SmallPanelWhen<T>>,
                                             detail::GemmEntry<PanelEntryOf<T>, detail::when::panels>,
                                             detail::GemmEntry<gemm<T>, detail::when::packets>,
                                             detail::GemmEntry<gemm<T>, detail::when::any>>>;
  // Batched products (dispatch_batched.hpp): medium matrices run the tile entry, each team a tile of
  // one matrix, the batch spread over the cores.
  template <class T>
  using gemm_batched_small = GemmBatchedSmallTiles<std::is_void_v<SmallDirectEntryOf<T>> ? 16 : 4>;
  // Batches of at least as many matrices as threads, past the small path, run each matrix whole on one
  // thread of a parallel loop over the batch, on the small panel entry (dispatch_batched.hpp), as a loop of
  // single-threaded BLAS calls does: the tile league ran 0.13-0.76 of such an OpenBLAS loop for n = 32 ..
  // 256 (perf/results/2026-12-05-host-1cbe803/). void (complex types): never.
  template <class T>
  using gemm_batched_panels = SmallPanelEntryOf<T>;
  // The same loop's matrices of at most the direct entry's batched_max_extent in M and K run there instead.
  template <class T>
  using gemm_batched_direct = SmallDirectEntryOf<T>;
  template <class T>
  using gemm_batched_entries = tile_entries<T>;
  // team_gemm's staged form (team_gemm.hpp): a team of one thread runs the matrix whole on the direct entry,
  // as gemm_batched's per-thread loop runs each of its matrices, in the thread's own buffers (no granted
  // scratch). void (complex and 16-bit types): the unstaged form.
  template <class T>
  using team_gemm_tiles = SmallDirectEntryOf<T>;
  // Complex products from 32 on (M, N and K) run as one real product on the real entries
  // (gemm_complex_as_real.hpp), the expansion held to 256 MiB (2048^3 complex<double> takes 128). The
  // tile sweep on this VM's two Zen 5 cores (perf/results/2026-12-02-host-7cf95a3/): as real ran
  // 1.4-1.5x the complex entries at 32^3, 1.1x at 64^3, 2.0-3.2x at 128^3, 2.6-4.4x at 256^3, 3.3-8.0x at
  // 1024^3 with C on either side; the portable complex micro-kernel tops out near 25 GFLOP/s.
  template <class T>
  static constexpr detail::ComplexAsRealTerms complex_as_real =
      detail::is_complex_v<T> ? detail::ComplexAsRealTerms{32, std::size_t(256) << 20}
                              : detail::ComplexAsRealTerms{};
  template <class Cfg, class T, class Acc>
  using micro_kernel = typename detail::EntryMicroKernel<Cfg, T, Acc, MicroKernel<Cfg, T, Acc>>::type;
#if defined(RIDGELINE_HOST_VECTOR_MICRO_KERNEL)
  static constexpr const char* micro_kernel_name = "host-vector";
#else
  static constexpr const char* micro_kernel_name = "portable";
#endif
  // kCallingThreadFlops, above.
  static constexpr double calling_thread_flops = double(kCallingThreadFlops);
  // Cores, for the plan's block-count conditions (when::panels_under).
  template <class Exec>
  static std::int64_t compute_units(const Exec& exec) {
    return exec.concurrency();
  }
  template <class T>
  using gemv_rows = GemvRowsTiles;
  template <class T>
  using gemv_dot = GemvDotTiles;
};

}  // namespace ridgeline::backends::host
