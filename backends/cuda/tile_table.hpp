#pragma once
// CUDA tile table (SIMT; tensor-core micro-kernels come separately).
//
// GEMM fp32, general entry (any strides and alignment, staged element by element): 64x128x16 per
// 128-thread team, three teams per SM, 8x8 per thread split into 4x4 pieces 32 rows / 64 columns
// apart, so each k step is four 16-byte scratch loads per thread with no bank conflicts. Element
// staging holds twice the registers of packet staging per element, and more, smaller teams hide its
// loads better: on 4097^3 it ran 1.13x the 128x128x16 8x8 256-thread entry it replaced, and 1.30x
// copying the operands into aligned buffers for the packet entry (cudaMalloc, copy and cudaFree per
// call; perf/results/2026-11-30-h200-f40b979/h200-2026-11-30-f40b979-README.md). The +4 padding keeps the
// transposed stores (k-contiguous operands) conflict-free while keeping rows 16-byte aligned. GEMM fp32,
// packet entry (operands that stage in 16-byte packets): 128x128x16, 8x16 per thread on 128 threads, two
// teams per SM. Packet staging needs half the registers of element staging per element, which leaves room for
// 128 accumulators without spills; twice the FMAs per scratch byte of 8x8. Two 4-warp teams per SM hold as
// many warps as one 8-warp team, but one computes while the other waits at its barrier, and bk 16 halves the
// barriers per FMA: 1.10x (4096^3) and 1.11x (8192^3) the 128x256x8 single-team entry it replaced
// (perf/results/2026-11-30-h200-a7e9c26/h200-2026-11-30-a7e9c26-sweep-gemm.txt), which had beaten 8x8
// by 1.06x (h200-2026-11-30-sweep-packets.txt). Element staging keeps 8x8: 8x16 ran 0.88x there (4097^3, wave
// quantization). All three fp32 GEMM entries cut their shared carveout to what their resident teams need
// (prefer_l1, carveout.hpp): the packet entry ran 1.03x on 4096^3, and the general entry 1.07x on
// 4097^3 (perf/results/2026-11-30-h200-565bb80/h200-2026-11-30-565bb80-sweep.txt); fp64 was unchanged
// (1.00x), so its entry keeps Kokkos's setting.
#include <cstddef>
#include <cstdint>
#include <ridgeline/backends/cuda/async_copy_sm80.hpp>
#include <ridgeline/backends/cuda/carveout.hpp>
#include <ridgeline/backends/cuda/dmma_sm90.hpp>
#include <ridgeline/backends/cuda/gemm_team_tma_sm90a.hpp>
#include <ridgeline/backends/cuda/hmma_sm80.hpp>
#include <ridgeline/backends/cuda/micro_kernel.hpp>
#include <ridgeline/backends/cuda/team_scratch.hpp>
#include <ridgeline/backends/cuda/tune_space.hpp>
#include <ridgeline/backends/cuda/wgmma_micro_kernel_sm90a.hpp>
#include <ridgeline/detail/gemm_complex_as_real.hpp>
#include <ridgeline/detail/gemm_multi_vector.hpp>
#include <ridgeline/detail/gemm_plan.hpp>
#include <ridgeline/detail/micro_tile.hpp>
#include <string>
#include <type_traits>

namespace ridgeline::backends::cuda {

struct GemmTilesFp32 {
  static constexpr int bm = 64, bn = 128, bk = 16;
  static constexpr int tm = 8, tn = 8, fm = 4, fn = 4;
  static constexpr int pad_a = 4, pad_b = 4;
  static constexpr int team_size = 128, vector_length = 1, stages = 2, min_blocks = 3;
  static constexpr int scratch_level = 0, group_m = 8;
  static constexpr bool prefer_l1 = true;
};

struct GemmTilesFp32Packets {
  static constexpr int bm = 128, bn = 128, bk = 16;
  static constexpr int tm = 8, tn = 16, fm = 4, fn = 4;
  static constexpr int pad_a = 4, pad_b = 4;
  static constexpr int team_size = 128, vector_length = 1, stages = 2, min_blocks = 2;
  static constexpr int scratch_level = 0, group_m = 8;
  static constexpr bool unmasked_interior_store_nn = true;  // GemmTeamTiled's kUnmaskedInteriorNn says why
  static constexpr bool prefer_l1 = true;
};

// Narrow packet entry, for products of at most 64 rows (64 x 16384 x 16384 would leave half of each
// 128-row tile empty): 64x128x16 on 128 threads with 8x8 micro-tiles, three teams per SM, and
// split-K supplies the teams that 64 rows cannot. Chosen by the tile sweep on 64x16384x16384
// (perf/results/2026-11-30-h200/h200-2026-11-30-sweep-narrow.txt): 1.08x the 64x256x8/8x16 entry it replaced;
// two teams per SM 1.04x; bk 8 1.00x.
// The same tiles also take fp32 NN products of a full wave of the packet entry's 128 x 128 tiles or more
// (when::nn<wave_share_of<GemmTilesFp32Packets, 100, ...>> in the entry list below): `ridgeline tune` on the
// H200 (perf/results/2026-12-04-h200-47dfb86/, -tune-fp32.txt, beta 0, a 256 MiB flush before each timed run)
// chose them over the packet entry on every NN shape of a wave or more that it tuned, and ridgeline-perf ran
// the choices at 1.05x (4096^3), 1.08x (8192^3), 1.05x (4096^2 x 1024), 1.19x (8192^2 x 256), 1.32x (3000^2 x
// 300) the packet entry. Under a wave they lose: 2048^3 (256 tiles for 264 slots) ran 0.85x in one slice,
// as 512 tiles of 64 x 128 are 1.29 waves of their 396 slots. TN, NT and TT at 4096^3 ran level
// (0.998-1.004x) and NT 6144^3 kept the packet entry, so the rule is NN's. Role narrow: the bulk is not
// peeled (the tuner measured these tiles unpeeled). Those runs measured a packet entry slowed by 655a0c8
// (perf/results/2026-12-06-h100-3769541/, -bisect.txt). With its NN speed back (unmasked_interior_store_nn,
// perf/results/2026-12-06-h100-fdd4611/, H100, kernels timed directly): NN 8192^3 22.05 ms against these
// tiles' 23.25, CGEMM's real 16384 x 8192 x 16384 87.8 against 92.0, 4096^3 2.80-2.84 against 3.03-3.05, but
// 4096^2 x 1024 level (0.785 / 0.780) and 8192^2 x 256 0.95 against 0.80: so these tiles keep NN of a wave
// or more only up to K = max_nn_depth.
struct GemmTilesFp32Narrow {
  static constexpr int bm = 64, bn = 128, bk = 16;
  static constexpr int tm = 8, tn = 8, fm = 4, fn = 4;
  static constexpr int pad_a = 4, pad_b = 4;
  static constexpr int team_size = 128, vector_length = 1, stages = 2, min_blocks = 3;
  static constexpr int scratch_level = 0, group_m = 8;
  static constexpr int max_nn_depth = 1024;
  static constexpr bool unmasked_interior_store_nn = true;
  static constexpr bool prefer_l1 = true;
};

// fp64 SIMT (no longer chosen; the tile sweep's baseline for the DMMA entries): 128x128x8 on 256 threads, 8x8
// per thread in 2-wide (16-byte) fragments; 64 double accumulators per thread. No fp64 candidate beat it
// (a7e9c26 sweep: 128x64 and 64x128 on 128 threads at two teams per SM, 0.93-1.00x). Fragment prefetch
// (gemm_team_tiled.hpp) ran 1.02x on 4096^3 and 8192^3, and warps of 8x4 lanes 1.005-1.01x on top
// (perf/results/2026-11-30-h200/h200-2026-11-30-prefetch-sweep.txt). The fp32 entries keep k_loop: with
// prefetch they ran 0.88-0.98x, though their steady loops hold the same instructions and no spills (SASS);
// not explained yet.
struct GemmTilesFp64 {
  static constexpr int bm = 128, bn = 128, bk = 8;
  static constexpr int tm = 8, tn = 8, fm = 2, fn = 2;
  static constexpr int pad_a = 2, pad_b = 2;
  static constexpr int team_size = 256, vector_length = 1, stages = 2, min_blocks = 1;
  static constexpr int scratch_level = 0, group_m = 8, group_lanes = 32, lanes_m = 8;
  static constexpr bool prefetch_fragments = true;
};

// fp64 on the FP64 tensor cores (DMMA m16n8k16, dmma_sm90.hpp) for operands that cannot stage in
// packets (any strides and alignment): register staging as in the SIMT entries. 128x64x16 on 128
// threads, a 64x32 tile per warp (4 x 4 instructions per k16): a lane holds 64 accumulators, 24
// fragment values and 24 staged elements, two teams per SM. 2 x 16 x (132 + 68) doubles is 51 KB of
// scratch, above Kokkos 3.4's 48 KB (team_scratch.hpp); the +4 pads keep the fragment reads
// conflict-free. In the first DMMA sweep
// (perf/results/2026-11-30-h200-bc08c6d/h200-2026-11-30-bc08c6d-dmma-sweep.txt, 8192^3) it ran 1.12x the
// 64x64x16 register entry (32x32 per warp) and 1.22x that at three teams per SM, and 0.88x the asynchronous
// packet entry below.
struct GemmTilesFp64Dmma {
  static constexpr int bm = 128, bn = 64, bk = 16;
  static constexpr int warp_m = 64, warp_n = 32;
  static constexpr int tm = warp_m / 8, tn = warp_n / 4;  // accumulators per lane
  static constexpr int pad_a = 4, pad_b = 4;
  static constexpr int team_size = 128, vector_length = 1, stages = 2, min_blocks = 2;
  static constexpr int scratch_level = 0, group_m = 8;
  template <class T, class Acc>
  using micro_kernel = DmmaSm90MicroKernel<GemmTilesFp64Dmma, T, Acc>;
  static constexpr const char* micro_kernel_name = "dmma-m16n8k16";
  static constexpr bool matrix_unit = true;
};

// What the fp64 DMMA entries with asynchronous staging share (cp.async, gemm_team_async.hpp): K steps of
// 16, one warp per warp tile, so the team size follows from the tiles, and +4 pads that keep the
// fragment reads conflict-free. Self is the entry, which its micro-kernel names. Interior tiles run their
// whole K steps in the steady loop (steady_loop, gemm_team_async.hpp): one basic block per step, 1184
// static cycles of a step's instructions against 1636 in the checked loop (SASS of the 128x64 entry,
// CUDA 13 ptxas; the 16 DMMAs themselves take 1024). DMMA sweep 5
// (perf/results/2026-12-02-h200-d7f0a5b/h200-2026-12-02-d7f0a5b-sweep.txt): 1.011x on 8192^3 (128x64),
// 1.030x on 2500^3 (the 64x64 small entry); copies after the products with it 0.99x. The step's own
// instructions are not what limits these entries: two warps per scheduler already hide them.
template <class Self, int kBm, int kBn, int kWarpM, int kWarpN, int kStages, int kMinBlocks, int kBk = 16>
struct DmmaAsyncEntry {
  static constexpr int bm = kBm, bn = kBn, bk = kBk;
  static constexpr int warp_m = kWarpM, warp_n = kWarpN;
  static constexpr int tm = warp_m / 8, tn = warp_n / 4;  // accumulators per lane
  static constexpr int pad_a = 4, pad_b = 4, pad_k = 4;
  static constexpr int team_size = (bm / warp_m) * (bn / warp_n) * 32, vector_length = 1;
  static constexpr int stages = kStages, min_blocks = kMinBlocks;
  static constexpr int scratch_level = 0, group_m = 8;
  static constexpr bool steady_loop = true;
  using async_copy = AsyncCopySm80;
  template <class T, class Acc>
  using micro_kernel = DmmaSm90MicroKernel<Self, T, Acc>;
  static constexpr const char* micro_kernel_name = "dmma-m16n8k16";
  static constexpr bool matrix_unit = true;
};

// The DMMA entries that run m16n8k8 (DMMA.16x8x8) one k8 slice at a time, loading the next slice's
// fragments while the current one multiplies, across the K steps' barriers too (fragments_across_steps,
// gemm_team_async.hpp): two sets of (warp_m / 16) x 4 + (warp_n / 8) x 2 fragment values beside the
// accumulators. This is the structure of cuBLAS 13.1's DGEMM on the H200 (ncu, call 1 of
// perf/results/2026-12-02-h200-f7cfece/: 128x64x16 tiles, three stages, 2 x 2 warps, 16x8x8 instructions,
// DP tensor pipe 97.7% busy), against 81.5% for the m16n8k16 entry that loads each step's fragments
// before its products.
template <class Self, int kBm, int kBn, int kWarpM, int kWarpN, int kStages, int kMinBlocks>
struct DmmaAcrossEntry : DmmaAsyncEntry<Self, kBm, kBn, kWarpM, kWarpN, kStages, kMinBlocks> {
  static constexpr int dmma_k = 8;
  static constexpr bool steady_loop = false, fragments_across_steps = true;
  static constexpr const char* micro_kernel_name = "dmma-m16n8k8";
};

// fp64 on the FP64 tensor cores with asynchronous staging (cp.async, gemm_team_async.hpp), for
// operands that stage in 16-byte packets: 128x64x16 on 128 threads, 64x32 per warp (4 x 4
// instructions per k16), so a lane holds 64 accumulators and 24 fragment values but no staged
// elements; two teams per SM. Three K steps in flight: 3 x (16 x 132 + 64 x 20) doubles = 81 KB of
// scratch per team (k-contiguous operands stay k-contiguous; pad_k keeps their lines conflict-free),
// above Kokkos 3.4's 48 KB, lifted by team_scratch.hpp. Two DMMA sweeps on 8192^3 and 2500^3
// (perf/results/2026-11-30-h200-bc08c6d/h200-2026-11-30-bc08c6d-dmma-sweep.txt, -dmma-sweep2.txt): 1.13-1.14x
// the 128x128x16 single team of 8 warps it replaced (8192^3), 1.27x on 2500^3; bk 32 with two stages ran the
// same (1.126x), four stages 1.10x, 512-thread 128x128 teams spill (1.03x), and the register-staged DMMA
// entry 1.01x. On 2500^3, 64x64 tiles at three teams per SM ran 1.11x this entry (more, smaller tiles
// against 3.03 waves of 128x64): GemmTilesFp64DmmaSmall below. Reading A in 16-byte pairs (its rows g and g +
// 8 permuted next to each other) ran 1.01x here and 0.67x with register staging (-dmma-sweep3-paired.txt), so
// the micro-kernel keeps 8-byte reads. Reading every NN fragment in 16-byte pairs (rows, k and columns
// permuted, 24 LDS.128 per step instead of 48 LDS.64) ran 0.96x on NN 8192^3 and 0.93-0.95x on NT, TN, TT:
// the pads it needs (2 or 6 mod 8) put the lines 16 bytes off 32, and the copies took 33% more shared
// wavefronts (perf/results/2026-12-04-h200-ed29589/h200-2026-12-04-ed29589-README.md). Issuing each step's
// copies after its products, which gained 1.11x for HMMA, ran 0.98x here (three or four stages) and 0.87x on
// 2500^3, and the small entry with it 1.01x / 1.01x, within noise
// (-fc4e4fe-dmma-sweep.txt): the DMMA entries' step start is not what limits them.
// DMMA sweep 6 and an A/B in one device call (perf/results/2026-12-02-h200-f7cfece/): the same tiles on
// m16n8k8 with the slice loop (DmmaAcrossEntry) ran 0.995x this entry on NN 8192^3 (three rounds, random
// data, ridgeline-perf), 1.031x TN, 1.024x TT, 0.973x NT and 0.994x ZGEMM; the sweep had NN at 0.945x. ncu
// put its DP tensor pipe at 83% busy (this entry 81.5%, cuBLAS 97.7%) on 10% more instructions, and
// under the board's 700 W cap the extra issue and register traffic cost what the pipe gained. This
// entry stays; the slice loop is a candidate for k-contiguous op(A) (TN, TT).
struct GemmTilesFp64DmmaAsync : DmmaAsyncEntry<GemmTilesFp64DmmaAsync, 128, 64, 64, 32, 3, 2> {};

// The same tiles for NN (op(A) m-contiguous, op(B) k-contiguous), with the fragments read in 16-byte pairs
// (dmma_pairs, dmma_sm90.hpp): rows, k and columns permuted so that a lane's values sit side by side, 24
// LDS.128 per step instead of 48 LDS.64; A's m-lines XOR-swizzled instead of padded, so the copies keep whole
// 32-byte sectors (the padded form lost 4%: perf/results/2026-12-04-h200-ed29589/); C stored in 16-byte
// packets along its columns.
struct GemmTilesFp64DmmaPairs : DmmaAsyncEntry<GemmTilesFp64DmmaPairs, 128, 64, 64, 32, 3, 2> {
  static constexpr bool dmma_pairs = true;
  static constexpr const char* micro_kernel_name = "dmma-m16n8k16-pairs";
};

// Skinny-N GEMM as a multi-vector GEMV (gemm_multi_vector.hpp), for products of 2 to 16 (fp32) or 2 to
// 4 (fp64) columns with op(A) rows-contiguous: 128 threads, each one 16-byte packet of rows (512 fp32 or
// 256 fp64 rows per team) times the columns' accumulators, four columns of A in flight; K slices until
// there are three teams per SM, each slice at least 256 deep. Three teams for 170 registers: at 128,
// 16 columns of accumulators and a row of op(B) spilled; at 170 only the fp32 instance with element
// loads (unaligned A) spills, 32 bytes. The GEMM entries ran these shapes at 637 GB/s, 0.21-0.30 of
// cuBLAS (16384 x 2..32 x 16384 fp32,
// perf/results/2026-12-01-h200-3043941/h200-2026-12-01-3043941-cliffs-README.md). Plan sweeps at e9a2ced
// (perf/results/2026-12-01-h200-e9a2ced/h200-2026-12-01-e9a2ced-README.md), against the GEMM entries on 16384
// x N x 16384: fp32 N = 2, 4, 5, 8, 12, 16 in 0.311, 0.321, 0.353, 0.380, 0.643, 0.656 ms (3.5-1.6 TB/s; the
// GEMM 1.71-1.73 ms); fp64 N = 2 and 4 in 0.607 and 0.626 ms (the small-tile DMMA entry 0.746 and 0.742), but
// N = 5 and 8 in 0.904 and 0.920 against 0.735 and 0.736 (an fp64 thread covers two rows, so it issues twice
// the loads of op(B) per byte of A that fp32 does; not profiled). ncu on fp32
// (-fb6ed4d-ncu-multi-vector.txt): latency-bound on few warps, not on issue or DRAM. Staging 64 rows of op(B)
// at a time in scratch (b_rows), read as 16-byte packets, instead of every thread loading every value of
// op(B) from memory: fp32 N = 2, 4, 8, 12, 16 in 0.311, 0.317, 0.343, 0.660, 0.689 ms, fp64 N = 2, 4, 8 in
// 0.586, 0.587, 0.956 (-3fcc668-worktree-staged-b-sweep.txt): 1.11x at 8 fp32 columns and 1.04-1.07x on fp64
// N = 2 and 4, no gain at 12-16 fp32 columns, which instead keep twice the columns of A in flight
// (gemm_multi_vector.hpp: 0.518 and 0.542 ms); fp64 past 4 columns still loses to the small-tile DMMA entry
// (0.725 ms at 8). b_rows 64 was not swept. Two kernels lost at 9 to 16 fp32 columns, where this entry runs
// 0.80-0.86 of cuBLAS (perf/results/2026-12-04-h200-f3b6a5d/h200-2026-12-04-f3b6a5d-worktree-README.md):
// the columns split between two lanes per packet of A, 0.74x (each thread then does the 8-column work, and
// there are twice the threads: bound by issue and latency per thread, not by HBM); A double-buffered in
// registers, 0.62x at 8 columns and 0.81x at 16. Fields as the plan reads them (plan_peel_and_split): bm rows
// per team, bn the most columns, bk the least K per slice, min_blocks teams per SM, stages the unroll.
template <class T>
struct GemmMultiVectorTiles {
  static constexpr int team_size = 128, vec = int(16 / sizeof(T)), unroll = 4;
  static constexpr int max_vectors = sizeof(T) == 8 ? 4 : 16;
  static constexpr int b_rows = 64;  // rows of op(B) staged in scratch per pass
  static constexpr int bm = team_size * vec, bn = max_vectors, bk = 256, tm = vec, tn = max_vectors;
  static constexpr int vector_length = 1, stages = unroll, min_blocks = 3, scratch_level = 0;
  // At most 256 K slices: few rows need hundreds for three teams per SM (a GEMV of 1000 rows split along
  // its 100000 columns, gemv_split_columns: 197 fp32 slices, 3.3 TB/s against 2.0 for the rows entry,
  // perf/results/2026-12-01-h200-2297cb1/h200-2026-12-01-2297cb1-worktree-sweep.txt). 16384 rows take 12
  // (fp32) or 6 (fp64) on the H200's 396 slots: as many as fit in one wave (plan_multi_vector_split; 13 and 7
  // until the tuner found the 13th slice's second wave, perf/results/2026-12-04-h200-47dfb86/).
  static constexpr int max_slices = 256;
  static constexpr const char* micro_kernel_name = "multi-vector-rows";
};

// Skinny-N GEMM with op(A) k-contiguous (TN on LayoutLeft), and skinny M transposed (GemmPlan::transposed:
// 8 x 16384 x 16384 NN is 16384 rows of B^T, k-contiguous, times 8 columns), as N dot products per row
// (gemm_multi_vector_dot.hpp): threads in groups of 16 lanes, each group 4 rows at once, a 16-byte packet
// of each row per lane and step, two steps' loads in flight (one at 16 columns); op(B) staged 512 fp32 /
// 256 fp64 rows at a time; K slices of at least 1024 for the teams that few rows cannot supply (bk the
// least K per slice, stages its granularity: a pass). Up to 4 columns 256 threads (64 rows per team), two
// teams per SM; 5 to 16 fp32 columns 512 threads (128 rows per team: half the staging of op(B) per value
// of A), one team. The GEMM entries ran these at 0.42 (TN 16384 x 16 x 16384) and 0.54 (8 x 16384 x 16384)
// of cuBLAS (perf/results/2026-12-01-h200-fc91fe9/). Dot sweeps on the H200, fp32 TN 16384 x N x 16384 and
// NN 8 x 16384 x 16384, against the first guess of 32 lanes (32 rows per team, half a value of op(B)
// staged per value of A)
// (perf/results/2026-12-03-h200-293c5de/h200-2026-12-03-293c5de-worktree-dot-sweep.txt): 16 lanes 1.37-1.51x
// at 4 to 16 columns, 1.08x at 2; 8 lanes 1.48x at 8 columns, 1.21x at 4, 0.96x at 2; 128 threads, or 2 rows
// per group, 0.49-0.75x; a pass half as deep 0.93-0.97x. Against 16 lanes on 256 threads
// (-6273177-worktree-dot-sweep.txt): 512 threads 1.14x at 8 columns, 1.19x at 16, 1.22x on TN 1000 x 16 x
// 100000, 0.93x at 4; 8 rows per group 1.05x at 8 columns, 0.21x at 16 (spilled). fp64 stops at 4 columns: at
// 8 the DMMA small-tile entry ran 0.720 ms against 0.835 (TN) and equalled it transposed; 512 threads 1.02x
// at 4.
template <class T, int kTeam, int kMaxVectors, int kMinBlocks>
struct MultiVectorDotEntry {
  static constexpr int team_size = kTeam, lanes = 16, row_block = 4, vec = int(16 / sizeof(T)), unroll = 2;
  static constexpr int max_vectors = kMaxVectors;
  static constexpr int b_rows = 4 * lanes * vec * unroll;  // rows of op(B) staged per pass
  static constexpr int bm = team_size / lanes * row_block, bn = max_vectors, bk = 1024, tm = row_block,
                       tn = max_vectors;
  static constexpr int vector_length = 1, stages = b_rows, min_blocks = kMinBlocks, scratch_level = 0;
  static constexpr int max_slices = 256;
  static constexpr const char* micro_kernel_name = "multi-vector-dot";
};
template <class T>
struct GemmMultiVectorDotTiles : MultiVectorDotEntry<T, 256, 4, 2> {};
struct GemmMultiVectorDotTilesWide : MultiVectorDotEntry<float, 512, 16, 1> {};

// fp32 products of 17 to 32 columns (past the multi-vector entries; fewer rows than 65 take the narrow
// entry): 128x32x16 on 128 threads, 8x4 per thread, four teams per SM, and split K for them. The small
// tiles (64 x 64, half of each tile empty columns) ran 16384 x 32 x 16384 in 1.26-1.39 ms, 0.36-0.37 of
// cuBLAS. Tile sweep (perf/results/2026-12-03-h200-6273177/h200-2026-12-03-6273177-worktree-sweep32.txt),
// against ridgeline::gemm: 16384 x 32 x 16384 2.44x (0.515 ms, 4 slices), 16384 x 24 x 16384 1.85x, 4096 x 32
// x 4096 1.89x; two teams per SM 2.27x at 32 columns; 128x32x8 2.23x; 256x32x16 on 256 threads, two per
// SM, 2.34x (1.98x at 24 columns); 64x32x16 with 4x4 per thread 2.01x.
struct GemmTilesFp32FewColumns {
  static constexpr int bm = 128, bn = 32, bk = 16;
  static constexpr int tm = 8, tn = 4, fm = 4, fn = 4;
  static constexpr int pad_a = 4, pad_b = 4;
  static constexpr int team_size = 128, vector_length = 1, stages = 2, min_blocks = 4;
  static constexpr int scratch_level = 0, group_m = 8, group_lanes = 128, lanes_m = 16;
  static constexpr bool prefer_l1 = true;
};

// fp32 small-tile packet entry, for products whose 128 x 128 tiles fill under 60% of one wave of the
// packet entry's team slots (wave_share_of in the entry list below). 512^3 is 16 such tiles for 264
// slots, and split K, 16 K steps a slice, gave it 32 teams: 0.34 of cuBLAS (fb6ed4d cliffs record).
// 64x64x16 on 128 threads, 8x4 per thread, four teams per SM; its split K aims at two teams per SM
// in slices of at least 2 K steps. Plan sweep with forced slice counts
// (perf/results/2026-12-01-h200-2297cb1/h200-2026-12-01-2297cb1-worktree-sweep.txt), this entry against the
// packet entry, each at its best slice count: 128^3 1.31x, 256^3 1.27x (8 slices), 512^3 1.24x (4),
// 1024^3 1.11x (1), 1536^3 1.03x (0.55 of a wave), 16384x32x16384 1.41x; 2048^3 (0.97 of a wave) 0.84x, so
// the entry stops at 60%. The best slice counts put 128 to 256 teams on the 132 SMs, not the 528 that four
// teams per SM would hold: with four, 1024^3 ran 2 slices at 0.87x one slice, 512^3 8 slices at 0.95x four.
// The same tiles stage unaligned operands element by element under the same share of a wave (the second
// wave_share_of entry below): the general entry's 64 x 128 tiles put 1021 x 1031 x 1033 in 144 tiles and
// split K 2 for 264 slots, 0.66 of cuBLAS (e4e678c cliffs record). On the small tiles, element-staged, with
// their edge tiles moved inside (tile_inside_origin): 1.08-1.13x, 0.70-0.72 of cuBLAS, and 253x261x133 1.90x
// (perf/results/2026-12-03-h200-8c18ba8/, -d222c2f/). The rest of its gap is 272 tiles for 264 slots.
// The same tiles take products of K at most 192 (max_depth; when::depth_at_most in the entry list), whose
// 128 x 128 tiles spend as long starting and storing as multiplying. Plan sweep at f3b6a5d, against the
// packet entry's plan
// (perf/results/2026-12-04-h200-f3b6a5d/h200-2026-12-04-f3b6a5d-worktree-plans-sweep.txt): 4096 x 4096 x
// 16 1.165x, x 64 1.105x, 8192 x 8192 x 128 1.056x (the few-column 128 x 32 tiles 1.24x, 1.08x and 0.98x);
// in ridgeline-perf at 2a250fb (bound 128) 1.37x, 1.29x, 1.17x, 0.92-1.07 of cuBLAS where they ran 0.73-0.79
// (perf/results/2026-12-04-h200-2a250fb/h200-2026-12-04-2a250fb-README.md). The bound at 512 against 128
// (-2a250fb-bound-README.md): NN 4096^2 x 132 1.06-1.07x, x 192 1.03-1.04x, x 256 0.99-1.00x (8192^2 and
// 16384^2 x 256 1.03-1.04x), TN 4096^2 x 256 0.94-0.97x, K 384 and 512 0.92-0.95x: 192, where every shape
// measured gained.
struct GemmTilesFp32Small {
  static constexpr int bm = 64, bn = 64, bk = 16;
  static constexpr int tm = 8, tn = 4, fm = 4, fn = 4;
  static constexpr int pad_a = 4, pad_b = 4;
  static constexpr int team_size = 128, vector_length = 1, stages = 2, min_blocks = 4;
  static constexpr int scratch_level = 0, group_m = 8;
  static constexpr int split_teams_per_cu = 2, min_slice_steps = 2;
  // 1021 x 1031 x 1033 is 272 tiles for 264 split slots: one slice left 8 tiles to a second wave. Past a
  // wave with the last one at most a quarter full, the plan splits over all 528 slots, 16 K steps a slice at
  // least (ragged_slice_steps, gemm_plan.hpp): 3 slices there. `ridgeline tune --slices 1,2,3,4,6` on the
  // H100 (perf/results/2026-12-07-h100-585d245/, -tune32.txt), against the table's one slice: 2 slices
  // 1.021x, 3 1.080x, 4 1.062x, 6 1.038x. cuBLAS splits the same product three ways. ridgeline-perf, three
  // rounds (perf/results/2026-12-07-h100-5581ff5/): 1021 1.084x (0.70 -> 0.76 of cuBLAS), 1056^3 1.085x.
  // Peeling the thin 17th column instead (16 x 16 tiles in one slice, then 1021 x 7 x 1033 as a product of
  // its own) ran 0.88x this split, 1030^3 (two edges) 0.57x (perf/results/2026-12-07-h100-5f1d980/): the edge
  // took about 30 us on the multi-vector rows entry, two teams of 512 rows.
  static constexpr int ragged_slice_steps = 16;
  static constexpr bool prefer_l1 = true;
  static constexpr int max_depth = 192;
};

// The fp64 small-tile entry, for products of up to 8 waves of the 128x64 entry's tiles (wave_share_of in
// the entry list below): 64x64x16 on 128 threads, 32x32 per warp (2 x 4 instructions per k16), three
// stages, three teams per SM, never peeled. Four stages, as first swept, do not fit three teams where
// an operand is k-contiguous ((64 x 20) doubles per operand and stage, 82 KB a team; GemmDmma.SmallTileEntry
// failed with "requested too large team size"); three stages take 61 KB and ran faster besides. Plan
// sweeps, every call through the executor
// (perf/results/2026-12-01-h200-e50b3ec/h200-2026-12-01-e50b3ec-plans-sweep.txt), this entry whole against
// the 128x64 entry with its peel: 1536^3 1.03x (1.09 waves of 128x64 tiles), 2048^3 1.02x (1.94),
// 2500^3 1.06-1.12x (3.03), 2500x2500x1000 1.19x, 2624^3 1.07x (3.26), 3072^3 1.01x, 3584^3 and 4096^3 1.00x
// (7.76); past 8 waves 0.93-0.99x (4608^3, 6144^3, 8192^3). Under one wave it first ran 1024^3 as fast as the
// 128x64 entry (1.00x), both splitting K in slices of 16 steps for three teams per SM; in slices of 2 steps
// for two teams per SM, as the fp32 small entry, it ran 256^3 1.67x the 128x64 entry's plan, 512^3 1.34x and
// 1024^3 1.17x (forced slice counts,
// perf/results/2026-12-01-h200-2297cb1/h200-2026-12-01-2297cb1-worktree-sweep.txt), so it now starts from
// zero waves.
// For NN the pairs entry (GemmTilesFp64DmmaPairs, 4% faster than the 128x64 entry it compared with) takes 4
// to 8 waves back. Plan sweep at 1b823da, NN, constant data
// (perf/results/2026-12-04-h200-1b823da/h200-2026-12-04-1b823da-plans-sweep.txt), the pairs entry's plan
// against these tiles: 4096^3 1.043x (7.76 waves), 3000^3 1.023x (4.27), but 2624^3 0.991x (3.26), 2500^3
// 0.962x (3.03) and 2048^3 1.035x (1.94; left to these tiles, with the other shapes under 4 waves).
//
// Issue 13's cliffs (perf/results/2026-12-03-h200-5c12e8a/, cuBLAS default math): 16384 x 64 x 16384 ran
// 0.80 of cuBLAS in one slice (256 tiles for 264 split slots: the two-team rule saw no gain in more). Plan
// sweep with the 5c12e8a binaries
// (perf/results/2026-12-03-h200-5c12e8a/h200-2026-12-03-5c12e8a-plans-sweep.txt): 3 slices 1.097x, 6 and
// 8 1.103x, while 1024^3 ran 0.91x in 2 slices and 0.88x in 4. So deep products (slices of 256 K steps or
// more, where a slice's partial costs little against its products) split for all three teams per SM.
//
// The same sweep on short K, this entry against the 128x64 entry: 8192 x 8192 x 256 1.055x, x 512
// 1.031x (e50b3ec: x 1024 1.033x, 5000 x 5000 x 2000 1.027x; 8192^3 0.934x). So it also takes every
// product of K at most 2048 (when::depth_at_most in the list below).
// The same tiles at two stages and four teams per SM ran 4096 x 4096 x 64 1.093x this entry in the DMMA rect
// sweep (perf/results/2026-12-03-h200-ceb9658/h200-2026-12-03-ceb9658-sweep.txt), and 42fc9b8 gave them K
// up to 256 over a wave. In ridgeline-perf they then ran 8192 x 8192 x 256 in 1.225 ms against this entry's
// 0.773 at ceb9658, and 4096 x 4096 x 64 in 0.095 against its 0.080 at 5c12e8a (-42fc9b8- records),
// though the plan sweep of the same call had them at 0.774 and 0.080: removed. Not understood: this entry
// ran the same in both programs (0.782 and 0.773 ms); both fill their inputs at random.
// These tiles with the 16-byte fragment pairs of GemmTilesFp64DmmaPairs (NN) ran 4096^3 and 2500^3 level and
// short or split-K products 0.86-0.97x: three warps per scheduler already hid the loads, and the pairs'
// 16-byte epilogue spilled at 168 registers
// (perf/results/2026-12-04-h200-07cbd29/h200-2026-12-04-07cbd29-README.md).
// Products of K at most 256 (short_depth) take these tiles before the pairs entry's 4 to 8 waves: plan
// sweep at f3b6a5d (-f3b6a5d-worktree-plans-sweep.txt, above), NN 4096 x 4096 x 64 (7.76 waves of 128x64
// tiles) 1.06x the pairs entry's plan, 0.77 of cuBLAS in the cliffs preset; 256 as 8192 x 8192 x 256
// above.
struct GemmTilesFp64DmmaSmall : DmmaAsyncEntry<GemmTilesFp64DmmaSmall, 64, 64, 32, 32, 3, 3> {
  static constexpr int short_depth = 256;
  static constexpr int split_teams_per_cu = 2, min_slice_steps = 2;
  static constexpr int deep_split_teams_per_cu = 3, deep_slice_steps = 256;
};

// The small tiles for products of K at most short_depth (the first depth_at_most entry below, and the batched
// list's), whose epilogue weighs as much as their K loop: the same kernel with the epilogue that stores
// alpha = 1, beta = 0 products as summed (store_as_summed, gemm_epilogue.hpp). ridgeline-perf on the H100,
// the small tiles with that epilogue against them without, six rounds with cuBLAS
// (perf/results/2026-12-07-h100-585d245/): 4096 x 4096 x 64 1.126x (0.80 -> 0.90 of cuBLAS), 8192 x 8192
// x 256 1.062x (0.82 -> 0.87), gemm_batched 256^3 1.110x (0.85 -> 0.93); but 1024^3, K-loop bound, 0.929x:
// so the deeper products keep GemmTilesFp64DmmaSmall. This entry in ridgeline-perf, three rounds against
// 85a9aa9 (perf/results/2026-12-07-h100-3aedcc5/): 4096 x 4096 x 64 1.124x (0.90 of cuBLAS), 8192 x 8192 x
// 256 1.063x (0.86), 4096 x 4096 x 128 1.143x, TN 4096 x 4096 x 64 1.147x (0.93), gemm_batched 256^3 1.066x
// (0.93).
struct GemmTilesFp64DmmaShort : DmmaAsyncEntry<GemmTilesFp64DmmaShort, 64, 64, 32, 32, 3, 3> {
  static constexpr int short_depth = GemmTilesFp64DmmaSmall::short_depth;
  static constexpr int split_teams_per_cu = GemmTilesFp64DmmaSmall::split_teams_per_cu;
  static constexpr int min_slice_steps = GemmTilesFp64DmmaSmall::min_slice_steps;
  static constexpr bool store_as_summed = true;
};

// The small tiles for fp64 operands of unit stride whose lines are not 16-byte aligned (an odd leading
// dimension, a sub-view at an odd offset), read in place: each copy moves one element (copy_bytes 8,
// cp.async.ca), under 8 waves of 128 x 64 tiles (where the small tiles run aligned operands). They replace
// the register-staged DMMA entry where the plan makes no aligned copies (any extent under pack_min_extent,
// below): ridgeline-perf on the H100 against it, three rounds with cuBLAS
// (perf/results/2026-12-07-h100-71950e0/): 1001 x 999 x 1003 1.29x NN, 1.28x NT, 1.27x TN, 1.37x TT
// (0.60-0.63 -> 0.76-0.86 of cuBLAS); 515 x 517 x 519 level. Above it the copies win: their lines start on
// whole cache lines (packed_lead, dispatch.hpp), where the in-place lines straddle two. The copies against
// this entry on the same products (same record, call 5): TN 3001 x 2999 x 1501 1.26x, TN 2039 x 2053 x 2061
// 1.36x, TT 1.04-1.12x, NN 1.02-1.04x; NT 2039 x 2053 x 206x 0.95-0.96x, the one loss.
struct GemmTilesFp64DmmaInPlace : DmmaAsyncEntry<GemmTilesFp64DmmaInPlace, 64, 64, 32, 32, 3, 3> {
  static constexpr int copy_bytes = 8;
  static constexpr int split_teams_per_cu = GemmTilesFp64DmmaSmall::split_teams_per_cu;
  static constexpr int min_slice_steps = GemmTilesFp64DmmaSmall::min_slice_steps;
  static constexpr int deep_split_teams_per_cu = GemmTilesFp64DmmaSmall::deep_split_teams_per_cu;
  static constexpr int deep_slice_steps = GemmTilesFp64DmmaSmall::deep_slice_steps;
};

// fp64 products of 5 to 16 columns (past the multi-vector entry's 4) with packets: 64x32x16 DMMA tiles,
// four warps of 32x16, three stages, four teams per SM, and split K for them; 16 columns fill half a tile,
// 8 a quarter, but A is read once and the tensor cores have time to spare. The 64x64 small tiles ran
// 16384 x 8 x 16384 in 0.69-0.72 ms, 0.68 of cuBLAS, which reads A at 4.4 TB/s
// (perf/results/2026-12-03-h200-5c12e8a/). DMMA rect sweep
// (perf/results/2026-12-03-h200-ceb9658/h200-2026-12-03-ceb9658-sweep.txt), against the small tiles: 16384 x
// 16 x 16384 0.548 ms (1.33x), x 8 0.534 (1.36x), x 5 0.539; one-column warps (128x8x32, 64x8x32, 256x8x32,
// two to three stages, one to three teams) ran 5-8 columns within 3% of it and 16 columns 0.74-0.91 ms;
// 128x16x32 0.551 at 16. The first table entry, 128x8x32 at three stages and two teams, needed 117 KB of
// scratch where op(A) is k-contiguous, more than two teams' share of an SM: "requested too large team size"
// (TN, and skinny M transposed), which Gemm.FewColumnsFp64MatchesReference caught. The same tiles ran 24 and
// 32 columns 1.28-1.29x the small tiles too
// (perf/results/2026-12-03-h200-42fc9b8/h200-2026-12-03-42fc9b8-sweep.txt); the entry stops at 16 until a
// device run of the tests covers 17 to 32.
// The same tiles take fp64 products whose 64 x 32 tiles fill under three quarters of a wave of their team
// slots (wave_share_of in the entry list below), K up to max_depth, in the plan's split for them (about as
// many teams as SMs, 16 K steps a slice at least: one slice for 256^3, two for 512^3). The small tiles split
// those products for two teams per SM (256^3 in 8 slices, 768^3 in 10) and paid the partial sums' second
// launch. `ridgeline tune` on the H100 (perf/results/2026-12-06-h100-c846340/, -round2-racecheck-tune.tar.gz,
// tune.txt), NN, against the table's plan then: 256^3 1.198x, 512^3 1.080x (1 slice; 2 slices 1.051x), 1024^3
// 1.012x, 8192^2 x 256 0.916x. ridgeline-perf, the old table and this rule up to a whole wave in turn, two
// rounds each (perf/results/2026-12-06-h100-37e44ac/, -ab-*.csv), by the share of a wave: 256^3 (6%)
// 1.108x, 384^3 (14%) 1.067x, 512^3 (24%) 1.038x, TN 1.059x, 768^3 (55%) 1.393x (the small tiles in 10
// slices), 2048 x 256 x 1024 (48%) 0.967x; 1024^3 (97%) 0.974x, TT 0.992x, 1024^2 x 512 0.997x, 16384 x 64 x
// 1024 (97%) 0.914x: so the rule stops at 75%. Past K = 1024, the deepest product tuned, products under a
// wave (16384 x 64 x 16384, 0.999 of cuBLAS on the small tiles in 3 slices, c846340's cliffs record) keep
// the small tiles' deep split.
// Two teams per SM already keep these tiles' DP pipe busy: products of 264 to 395 whole tiles (half to three
// quarters of a wave of four) run in one slice (saturating_teams_per_cu, gemm_plan.hpp); the few-column
// products keep their split. In 2-3 slices, DGEMM 640^3 to 832^3 ran 0.60-0.63 of cuBLAS, where 896^3 (392
// tiles, one slice, three teams on most SMs) ran 0.79 and took less time than 832^3 (338 tiles) in three
// slices: 38.9 against 46.8 us (perf/results/2026-12-08-h100-6c2ab23/). Unsplit, 832^3 and 768^3 hold at most
// three teams an SM, as 896^3 does, for less K: predicted at most 36 and 33 us (1.30x and 1.25x). Not yet
// run on a GPU (session 31: no device start after the record above).
struct GemmTilesFp64DmmaFewColumns : DmmaAsyncEntry<GemmTilesFp64DmmaFewColumns, 64, 32, 32, 16, 3, 4> {
  static constexpr int max_columns = 16;
  static constexpr int max_wave_percent = 75, max_depth = 1024;
  static constexpr int saturating_teams_per_cu = 2;
};

// fp64 products whose 32 x 64 tiles fill 40% to 75% of a wave of their slots (two teams per SM), K up to
// max_depth: K steps of 32 on 32x64 tiles, four warps of 16 x 32, three stages (81 KB), one slice.
// cuBLAS 13.1 runs DGEMM 512^3 so, in one launch (ncu on the H100,
// perf/results/2026-12-07-h100-77bea0a/: 11.4 us), where the few-column tiles' two slices and their reduce
// took 11.2 + 6.7 us. DMMA rect sweep on the H100 (perf/results/2026-12-07-h100-585d245/, -sweep.txt), 512^3:
// 0.022 ms against 0.023 for the few-column tiles and 0.025 for ridgeline::gemm; at 1024^3 (194% of a wave)
// 0.070 against 0.062. ridgeline-perf, three rounds against the few-column plan with cuBLAS
// (perf/results/2026-12-07-h100-5581ff5/): 512^3 NN 1.19x, TN 1.21x (0.95 and 0.96 of cuBLAS), 576^3 (61% of
// a wave) 1.08x, where `ridgeline tune` has the 64 x 32 tiles in one slice 1.04x ahead of these
// (-tune64.txt).
// DGEMM 1024^3 stays on the small tiles. cuBLAS's structure there (128x64x32 tiles, 4 x 2 warps of 32 x 32,
// three stages, one team per SM) with each k16 slice's fragments loaded across the K steps, as an entry for
// products of 75-100% of a wave of those tiles and K 257-2048 (27c2b41, reverted), ran 0.90-0.96x the small
// tiles on DGEMM 1024^3 in every orientation, 1024^2 x 512 and x 2048 0.90-0.91x
// (perf/results/2026-12-07-h100-27c2b41/): one team of 8 warps per SM reached 0.55 of the DP tensor peak per
// SM where cuBLAS's reaches 0.77. The tile sweep of the same call had the same loop on 64x64x32 at two teams
// per SM 1.060x and m16n8k8 on the 128x64x32 tiles 1.059x, one call at a time (where ridgeline::gemm takes 64
// us against 54.7 in ridgeline-perf).
struct GemmTilesFp64DmmaK32 : DmmaAsyncEntry<GemmTilesFp64DmmaK32, 32, 64, 16, 32, 3, 2, 32> {
  static constexpr int min_wave_percent = 40, max_wave_percent = 75, max_depth = 1024;
};

// FP16 and BF16 inputs, FP32 accumulation, on the tensor cores (HMMA m16n8k16 through ldmatrix,
// hmma_sm80.hpp), with asynchronous staging (cp.async) for operands that stage in 16-byte packets:
// 128x128x64 on 128 threads, a 64x64 tile per warp (4 x 8 instructions per k16), so a lane holds 128
// float accumulators and two sets of 32 fragment registers: each k16 slice's fragments are loaded while
// the previous slice multiplies, across the K steps' barriers too (fragments_across_steps,
// gemm_team_async.hpp). Three stages of two 128 x 64 tiles, each line padded by 8 elements (NN:
// 3 x (64 x 136 + 128 x 72) x 2 B = 105 KB) of scratch per team (team_scratch.hpp lifts Kokkos 3.4's
// 48 KB), two teams per SM (registers: 255 per thread). The +8 pads make every ldmatrix line stride 8
// (mod 16) elements, which keeps its reads conflict-free.
// HMMA sweep 6 at dbb78c2 (perf/results/2026-12-04-h200-dbb78c2/h200-2026-12-04-dbb78c2-hmma-sweep.txt, two
// runs): 1.033-1.040x (FP16 and BF16) the entry it replaced, 128x128x32 with four stages, each step's copies
// after its products and the steady loop (sweeps 3 and 4 below); the same tiles at one team per SM
// 1.023-1.042x there and in -86df971-hmma-sweep.txt, 1.016-1.021x in sweep 5 (-f7cfece-k8-sweep.txt). One
// team of 8 warps per SM (256x128 with four to six stages, 128x256) ran 0.76-1.01x the replaced entry. What
// limits it (-86df971-README.md): the replaced entry's warp tiles alone ran 612 TF/s (ridgeline ceilings, 95%
// of the register-resident HMMA rate), its GEMM 356-360: the loss is the staging's. At 128 x 128 the L2
// serves 87-89% of its throughput (ncu); the 8-warp teams that read 3/4 of those bytes per flop have no
// second team to cover their barriers and copy waits, and more stages did not cover them. One team of 8 warps
// with the steps handed over through mbarriers instead of a team barrier (256x128x32, six stages; 3769541,
// reverted) ran level with this entry on an H100 (FP16 0.472 of cuBLAS) and drew racecheck hazards
// (perf/results/2026-12-06-h100-3769541/). The replaced entry's record: HMMA sweep 3 on 8192^3
// (perf/results/2026-12-02-h200-fc4e4fe/h200-2026-12-02-fc4e4fe-hmma-sweep.txt): 1.11x / 1.10x (FP16 / BF16)
// the 128x128x64 three-stage entry before it; 128x256x64 and 256x128x64 with copies after 1.04-1.05x, four
// stages of BK 64 at one team per SM 0.84x. Earlier sweeps (-9addcc1-, -edc0727-hmma-sweep.txt): 8-warp
// tiles at BK 32 0.78-0.84x, 64x32 and 32x64 warp tiles 0.86-0.95x, register staging 0.31x.
struct GemmTilesHalfMmaAsync {
  static constexpr int bm = 128, bn = 128, bk = 64;
  static constexpr int warp_m = 64, warp_n = 64;
  static constexpr int tm = warp_m / 8, tn = warp_n / 4;  // accumulators per lane
  static constexpr int pad_a = 8, pad_b = 8, pad_k = 8;
  static constexpr int team_size = 128, vector_length = 1, stages = 3, min_blocks = 2;
  static constexpr bool fragments_across_steps = true;
  static constexpr int scratch_level = 0, group_m = 8;
  using async_copy = AsyncCopySm80;
  template <class T, class Acc>
  using micro_kernel = HmmaSm80MicroKernel<GemmTilesHalfMmaAsync, T, Acc>;
  static constexpr const char* micro_kernel_name = "hmma-m16n8k16";
  static constexpr bool matrix_unit = true;
};

// FP16 and BF16 on Hopper's warpgroup tensor-core instruction (wgmma m64n256k16 from scratch
// descriptors, wgmma_micro_kernel_sm90a.hpp), in builds through the sm_90a route, for operands that
// stage in 16-byte packets: 128x256x64 on 256 threads, two warpgroups of 64x256 (128 float
// accumulators per thread, no fragments), four stages of (128 + 256) x 64 x 2 B = 194 KB in the
// 128-byte swizzled layouts the tensor core reads, so one team per SM; two K steps of copies and one
// of products in flight, the products of a step issued before its copies. Three wgmma sweeps on
// 8192^3 (perf/results/2026-12-01-h200-390480a/h200-2026-12-01-390480a-wgmma-sweep.txt,
// -e356400-wgmma-sweep.txt): 1.9-2.0x the mma.sync entry; 3 stages 0.82-0.86x; 256x128 tiles 0.92-0.93x,
// 128x128 (two teams per SM) 0.81-0.86x; waiting for each step's products (in flight 0) 0.87-0.88x; BK 32
// with 6-8 stages 0.80-0.85x (twice the barriers); products first 1.03/1.03x (FP16) and 0.98/1.03x (BF16),
// inside the sweeps' 3-5% run-to-run noise, kept because it cannot lose a step. ncu on FP16 8192^3: tensor
// and memory pipes both near 60-67% (L2 60%, DRAM 19%), no spills, 6.8 cycles per issued instruction: bound
// by the per-step latency (wait, team barrier, copy issue), not by a bandwidth; the BK 32 variants, with
// twice the steps, lost 15-20%. Beyond this needs producer warps and mbarriers (no team barrier per step), or
// TMA: GemmTilesHalfWgmmaTma below replaced it as the packet entry, and it stays as the tile sweep's cp.async
// baseline.
struct GemmTilesHalfWgmma {
  static constexpr int bm = 128, bn = 256, bk = 64;
  static constexpr int warp_m = 64, warp_n = 256;          // a warpgroup's tile
  static constexpr int tm = warp_m / 32, tn = warp_n / 4;  // accumulators per thread
  static constexpr int pad_a = 0, pad_b = 0, pad_k = 0;    // the swizzled layouts need none
  static constexpr int team_size = 256, vector_length = 1, stages = 4, min_blocks = 1;
  static constexpr int scratch_level = 0, group_m = 8;
  static constexpr bool products_first = true;
  using async_copy = AsyncCopyToAsyncProxy;
  template <class T, class Acc>
  using micro_kernel = WgmmaSm90aMicroKernel<GemmTilesHalfWgmma, T, Acc>;
  static constexpr const char* micro_kernel_name = "wgmma-m64n256k16";
  static constexpr bool matrix_unit = true;
};
// What every TMA wgmma entry shares (gemm_team_tma_sm90a.hpp): a producer warpgroup before
// (bm / warp_m) x (bn / warp_n) consumer warpgroups, so the team size follows from the tiles; the
// swizzled layouts need no padding. Self is the entry, which its team kernel and micro-kernel name.
template <class Self, int kBm, int kBn, int kBk, int kWarpM, int kWarpN, int kStages, int kMinBlocks = 1,
          int kGroupM = 8>
struct WgmmaTmaEntry {
  static constexpr int bm = kBm, bn = kBn, bk = kBk;
  static constexpr int warp_m = kWarpM, warp_n = kWarpN;   // a consumer warpgroup's tile
  static constexpr int tm = warp_m / 32, tn = warp_n / 4;  // accumulators per consumer thread
  static constexpr int pad_a = 0, pad_b = 0, pad_k = 0;
  static constexpr int producer_threads = 128;
  static constexpr int team_size = (bm / warp_m) * (bn / warp_n) * 128 + producer_threads;
  static constexpr int vector_length = 1, stages = kStages, min_blocks = kMinBlocks;
  static constexpr int scratch_level = 0, group_m = kGroupM;
  static constexpr bool tma_boxes = true;
  template <class E, class T, class Acc, class MK, bool kAFastM, bool kBFastN, class TC>
  using team_kernel = GemmTeamTmaSm90a<E, Self, T, Acc, MK, kAFastM, kBFastN, TC>;
  template <class T, class Acc>
  using micro_kernel = WgmmaSm90aMicroKernel<Self, T, Acc>;
  static constexpr const char* pipeline_name = "tma+mbarrier (producer warpgroup)";
  static constexpr bool matrix_unit = true;
};

// The FP16 entry's tiles and warpgroups, staged by TMA (tma_sm90a.hpp) with a producer warpgroup
// and mbarriers (gemm_team_tma_sm90a.hpp) instead of cp.async and a team barrier per K step: 128x256x64
// on 384 threads, the first warpgroup producing (one thread issues 3 boxes per K step when both
// operands are k-contiguous, up to 6 when they are m- or n-contiguous) and two warpgroups of 64x256
// multiplying; four stages of 48 KB, 194 KB of scratch with the mbarriers, one team per SM.
// Predicted 0.92-0.95 of cuBLAS on 8192^3 (from 0.80-0.82 with cp.async), since the per-step wait,
// barrier and copy issue that held the tensor pipe at 60-67% were gone; measured 0.965/0.956 (FP16/BF16
// NN), TN 0.974, TT 0.965, NT 0.893/0.958
// (perf/results/2026-12-01-h200-ec88549/h200-2026-12-01-ec88549-README.md), above the prediction: ncu puts
// the SM pipes at 86% (from 67%). Wgmma sweep 5 (-ec88549-wgmma-sweep.txt): 1.20x the cp.async entry
// (GemmTilesHalfWgmma), three stages 0.977x, 256x128 with two 128x128 warpgroups 0.985-0.988x, 128x256 with
// two 128x128 warpgroups 0.994-1.003x.
struct GemmTilesHalfWgmmaTma : WgmmaTmaEntry<GemmTilesHalfWgmmaTma, 128, 256, 64, 64, 256, 4> {
  static constexpr const char* micro_kernel_name = "wgmma-m64n256k16";
};

// FP32 products whose caller allows TF32 (ridgeline::Math::allow_tf32), on wgmma m64n256k8 tf32 in
// builds through the sm_90a route: the FP16 entry's geometry in bytes (128x256 tiles, 32 floats = 128
// bytes of K per step, four stages of 192 KB in all, two warpgroups of 64x256). Both operands
// k-contiguous (TF32 has no transposed form); the dispatcher copies them so where they are not.
// Not swept: chosen as the FP16 entry's twin (h200-2026-12-01-390480a-wgmma-sweep.txt).
struct GemmTilesTf32Wgmma {
  static constexpr int bm = 128, bn = 256, bk = 32;
  static constexpr int warp_m = 64, warp_n = 256;
  static constexpr int tm = warp_m / 32, tn = warp_n / 4;
  static constexpr int pad_a = 0, pad_b = 0, pad_k = 0;
  static constexpr int team_size = 256, vector_length = 1, stages = 4, min_blocks = 1;
  static constexpr int scratch_level = 0, group_m = 8;
  static constexpr bool products_first = true;
  using async_copy = AsyncCopyToAsyncProxy;
  template <class T, class Acc>
  using micro_kernel = WgmmaSm90aMicroKernel<GemmTilesTf32Wgmma, T, Acc>;
  static constexpr const char* micro_kernel_name = "wgmma-m64n256k8-tf32";
  static constexpr bool matrix_unit = true;
};

// The TF32 entry's tiles staged by TMA with a producer warpgroup, as GemmTilesHalfWgmmaTma: 32 floats
// (128 bytes) of K per step, one box per operand and step (TF32 operands are k-contiguous).
// Predicted TN 8192^3 0.92 of cuBLAS (from 0.82), NN a little less for its copy of A; measured TN
// 0.996, NN 0.877 (perf/results/2026-12-01-h200-ec88549/h200-2026-12-01-ec88549-README.md). Not swept: the
// FP16 entry's twin.
struct GemmTilesTf32WgmmaTma : WgmmaTmaEntry<GemmTilesTf32WgmmaTma, 128, 256, 32, 64, 256, 4> {
  static constexpr const char* micro_kernel_name = "wgmma-m64n256k8-tf32";
};

// The 16-bit packet entry of this build: wgmma where the build has it, else mma.sync.
using GemmTilesHalfPackets =
    std::conditional_t<wgmma::kBuiltWithSm90a, GemmTilesHalfWgmmaTma, GemmTilesHalfMmaAsync>;

// FP16 and BF16 narrow packet entry on wgmma (route builds), for products of at most 64 rows: one
// warpgroup's 64x256 tile per team of 128 threads, five stages of (64 + 256) x 64 x 2 B = 202 KB, one
// team per SM; split-K supplies the teams. 206848 bytes with alignment: under both the lifted Kokkos 3.4
// limit (227 KB) and Kokkos 5.2's own level-0 limit on Hopper (232448 - 24600 = 207848 bytes). Wgmma sweep 4
// on 64x16384x16384 (perf/results/2026-12-01-h200-e356400/h200-2026-12-01-e356400-wgmma-sweep.txt): 1.23x the
// mma.sync narrow entry below (FP16 and BF16); four stages 1.17x, 64x128 tiles at two teams per SM 1.19-1.20x
// (three stages 0.98x), two 64x128 warpgroups 1.16-1.17x.
struct GemmTilesHalfWgmmaNarrow {
  static constexpr int bm = 64, bn = 256, bk = 64;
  static constexpr int warp_m = 64, warp_n = 256;
  static constexpr int tm = warp_m / 32, tn = warp_n / 4;
  static constexpr int pad_a = 0, pad_b = 0, pad_k = 0;
  static constexpr int team_size = 128, vector_length = 1, stages = 5, min_blocks = 1;
  static constexpr int scratch_level = 0, group_m = 8;
  static constexpr bool products_first = true;
  using async_copy = AsyncCopyToAsyncProxy;
  template <class T, class Acc>
  using micro_kernel = WgmmaSm90aMicroKernel<GemmTilesHalfWgmmaNarrow, T, Acc>;
  static constexpr const char* micro_kernel_name = "wgmma-m64n256k16";
  static constexpr bool matrix_unit = true;
};

// The narrow wgmma entry's tile on the TMA team kernel: a producer warpgroup and one 64x256 consumer
// warpgroup (256 threads), four stages of 40 KB. Wgmma sweep 5 on 64x16384x16384
// (perf/results/2026-12-01-h200-ec88549/h200-2026-12-01-ec88549-wgmma-sweep.txt): 1.027x (FP16) and 1.024x
// (BF16) the cp.async five-stage entry above; five TMA stages 1.019/1.025x, 64x128 tiles at two teams per SM
// 1.019/1.012x, all inside the sweep's 3-5% noise; four stages keep the most scratch in reserve.
struct GemmTilesHalfWgmmaNarrowTma : WgmmaTmaEntry<GemmTilesHalfWgmmaNarrowTma, 64, 256, 64, 64, 256, 4> {
  static constexpr const char* micro_kernel_name = "wgmma-m64n256k16";
};

// FP16 and BF16 narrow packet entry, for products of at most 64 rows (64 x 16384 x 16384): the 128-row
// entry computed a whole empty half of every tile there (0.57 of cuBLAS at 431ab9e). 64x128x64 on 128
// threads, 32x64 per warp, three stages (3 x (64 x 72 + 128 x 72) x 2 B = 83 KB), two teams per SM;
// split-K supplies the teams. Its 64x128x32 four-stage sibling ran 0.72x the square entry on 8192^3
// (-edc0727-hmma-sweep.txt), where it has no empty rows to save.
struct GemmTilesHalfMmaNarrow {
  static constexpr int bm = 64, bn = 128, bk = 64;
  static constexpr int warp_m = 32, warp_n = 64;
  static constexpr int tm = warp_m / 8, tn = warp_n / 4;
  static constexpr int pad_a = 8, pad_b = 8, pad_k = 8;
  static constexpr int team_size = 128, vector_length = 1, stages = 3, min_blocks = 2;
  static constexpr int scratch_level = 0, group_m = 8;
  using async_copy = AsyncCopySm80;
  template <class T, class Acc>
  using micro_kernel = HmmaSm80MicroKernel<GemmTilesHalfMmaNarrow, T, Acc>;
  static constexpr const char* micro_kernel_name = "hmma-m16n8k16";
  static constexpr bool matrix_unit = true;
};

// FP16 and BF16 operands that cannot stage in packets (any strides and alignment): register staging,
// 128x64x32 on 128 threads, 64x32 per warp, so a lane holds 64 accumulators, 16 fragment registers
// and 48 staged elements; two stages of 2 x 32 x (136 + 72) x 2 B = 26 KB. Correct for every layout;
// not tuned.
struct GemmTilesHalfMma {
  static constexpr int bm = 128, bn = 64, bk = 32;
  static constexpr int warp_m = 64, warp_n = 32;
  static constexpr int tm = warp_m / 8, tn = warp_n / 4;
  static constexpr int pad_a = 8, pad_b = 8;
  static constexpr int team_size = 128, vector_length = 1, stages = 2, min_blocks = 2;
  static constexpr int scratch_level = 0, group_m = 8;
  template <class T, class Acc>
  using micro_kernel = HmmaSm80MicroKernel<GemmTilesHalfMma, T, Acc>;
  static constexpr const char* micro_kernel_name = "hmma-m16n8k16";
  static constexpr bool matrix_unit = true;
};

// GEMV "rows": 16-byte packets down a column, 64 rows per team, so a column chunk is 256 B read by
// 16 (fp32) or 32 (fp64) threads; the rest of the 1024 threads split the columns, 8 columns in
// flight each. At 8192 rows there are only 128 teams, so the team must be wide to keep enough
// loads in flight: 1024 threads ran 1.6x faster than 512 there (tile sweep), and equal at 16384.
// Both rows entries fit their carveout to their teams (prefer_l1): 1.06-1.08x, since every load in
// flight holds L1 space (perf/results/2026-11-30-h200-565bb80/h200-2026-11-30-565bb80-sweep.txt).
template <class T>
struct GemvRowsTiles {
  static constexpr int team_size = 1024, vector_length = 1, rows = 64, unroll = 8, vec = 16 / sizeof(T);
  static constexpr int scratch_level = 0;
  static constexpr bool prefer_l1 = true;
};
// The tall "rows" entry: 128 rows per team make each column chunk a 512-byte (fp32) run, which
// DRAM serves faster than 256 bytes: 1.04-1.06x the regular entry on 16384^2 fp32, 1.00x in fp64
// (perf/results/2026-11-30-h200/h200-2026-11-30-sweep-dot.txt, both blocks). gemv runs it only where its
// 128-row teams fill the SMs as well as 64-row ones (gemv_uses_tall); at 8192 rows it ran 0.74x.
template <class T>
struct GemvRowsTallTiles {
  static constexpr int team_size = 1024, vector_length = 1, rows = 128, unroll = 4, vec = 16 / sizeof(T);
  static constexpr int scratch_level = 0;
  static constexpr bool prefer_l1 = true;
};
// GEMV "dot": a warp per row, reading it in 16-byte packets, four in flight per lane; 8 rows per
// 256-thread team, two teams per SM. Under Kokkos's full shared carveout (~23 KB of L1), x was
// reread from L2 by every row, and reading four rows per warp (each x packet serving four rows) had
// won 1.03-1.04x (perf/results/2026-11-30-h200/h200-2026-11-30-sweep-dot.txt). With the carveout fitted to
// the teams (prefer_l1, carveout.hpp), x stays in L1 and one row per warp wins: 1.05x (8192^2) and 1.05-1.10x
// (16384^2) over the four-row entry, which had itself gained 1.07-1.09x from the carveout
// (perf/results/2026-11-30-h200-565bb80/h200-2026-11-30-565bb80-sweep.txt).
template <class T>
struct GemvDotTiles {
  static constexpr int team_size = 256, vector_length = 1, lanes = 32, row_block = 1, rows = 8, unroll = 4;
  static constexpr int vec = 16 / sizeof(T), scratch_level = 0, min_blocks = 2;
  static constexpr bool prefer_l1 = true;
};

// GEMV "dot" for short rows (at most 16 KB, fp32 and fp64; gemv_dot_short_bytes below): groups of 8
// lanes read two rows at once, 64 rows per 256-thread team. On 1000-element rows a warp per row has two
// rounds of four packets per lane, then its reduction, and ran at 1.9 TB/s (fp32, 0.48 of cuBLAS on
// 1000 x 100000 T, fb6ed4d cliffs record). Dot sweep on short rows
// (perf/results/2026-12-01-h200-2297cb1/h200-2026-12-01-2297cb1-worktree-sweep.txt), against the regular
// entry: 1000-element rows 1.87x (fp32) and 1.39x (fp64), 2000-element rows 1.32x and 1.14x; 8 lanes with one
// row at once 1.77/1.38x and 1.31/1.13x, 16 lanes 1.48-1.74x and 32 lanes with 4 rows 1.77-1.79x (fp32,
// 1000-element rows). Not swept on rows past 16 KB or on 16-bit types, which keep the regular entry.
template <class T>
struct GemvDotShortTiles {
  static constexpr int team_size = 256, vector_length = 1, lanes = 8, row_block = 2, rows = 64, unroll = 2;
  static constexpr int vec = 16 / sizeof(T), scratch_level = 0, min_blocks = 2;
  static constexpr bool prefer_l1 = true;
};

// Batched products of small matrices (gemm_batched, gemm_batched_small.hpp): every extent up to 16, a
// team of 128 threads holding as many matrices as 24 KB of scratch take (at most 64), eight teams per SM
// (192 KB of the 228), four output columns per thread. Records against cuBLAS's strided batches
// (perf/results/2026-12-01-h200-d9bc831/h200-2026-12-01-d9bc831-batched-README.md): element copies ran n
// = 4..16 at 0.85-1.9 TB/s; dense operands copied flat in 16-byte packets, and C staged, at 1.7-2.5 TB/s
// (fp32 16^3 0.69x
// -> 1.37x cuBLAS, fp64 0.89x -> 1.21x of its default math). Up to 32 the path ran n = 32 at 0.37x
// (fp32) and 0.38x (fp64), below the 64 x 64 tile entries' 0.43x and 0.47x, so it stops at 16.
// Batched matrices of at most 32 x 32 (gemm_batched's tiles path, 17 to 32): the 64 x 64 entries left
// three quarters of each tile empty and ran 32^3 batches at 0.45x (fp32) and 0.50x (fp64, default
// math) of cuBLAS's strided batches
// (perf/results/2026-12-02-h200-289a7cc/h200-2026-12-02-289a7cc-grouped-README.md). A 32 x 32 tile per
// matrix, K in steps of 16: fp32 on 64 threads with 4 x 4 per thread, eight teams per SM (105-109 registers;
// at sixteen and twelve teams the instances spilled 44-84 bytes); fp64 on four DMMA warps of 16 x 16, four
// teams per SM (96-103 registers; at eight and six, 16-60 bytes spilled). ptxas -v of one gemm_batched call
// per type, CUDA 11.8 for sm_90. Measured against the same cuBLAS batches
// (perf/results/2026-12-02-h200-ece23cb/h200-2026-12-02-ece23cb-batched32-README.md): 32^3 fp32 1.07x (from
// 0.45x), fp64 0.80x of its default math (from 0.50x); 24^3 and 28^3 0.76-0.83x.
struct GemmTilesFp32Batched32 {
  static constexpr int bm = 32, bn = 32, bk = 16;
  static constexpr int tm = 4, tn = 4, fm = 4, fn = 4;
  static constexpr int pad_a = 4, pad_b = 4;
  static constexpr int team_size = 64, vector_length = 1, stages = 2, min_blocks = 8;
  static constexpr int scratch_level = 0, group_m = 8;
  static constexpr bool prefer_l1 = true;
};
// fp64 runs those tiles on m16n8k8 with the slice loop (DmmaAcrossEntry: the next k8 slice's fragments load
// while the current one multiplies): batched 32^3 x 40690, NN, timed alone on an H100
// (perf/results/2026-12-06-h100-435f668/, -bench7.txt), 0.333-0.334 ms against 0.370-0.376 for m16n8k16
// loading each step's fragments first (1.11x); 32 x 512 x 32 on the 32-row entry 0.358-0.361 (this form
// 0.393). 107-114 registers, no stack (cuobjdump, every orientation).
struct GemmTilesFp64DmmaBatched32 : DmmaAcrossEntry<GemmTilesFp64DmmaBatched32, 32, 32, 16, 16, 2, 4> {};

// Batched matrices of at most 32 rows and more than 32 columns (gemm_batched's tiles path): 32 x 64 tiles, K
// in steps of 16; fp32 on 64 threads with 4 x 8 per thread, eight teams per SM (126-128 registers, no stack);
// fp64 on four DMMA warps of 16 x 32, four teams per SM (119-121 registers, no stack). cuobjdump
// --dump-resource-usage, CUDA 11.8 for sm_90, every orientation. The 64 x 64 small tiles left half of each
// tile empty rows. Batched tiles timed directly on an H100, NN, operands about 1 GB
// (perf/results/2026-12-06-h100-d3aa9c2/, -bench5.txt), ms, these tiles / the 32 x 32 entry / the small
// tiles: fp32 32x512x32 0.434 / 0.521 / 0.746, 32x128x32 0.386 / 0.464 / 0.680, 32x1024x64 0.432 / 0.514 /
// 0.775, 24x500x40 0.550 / 0.718 / 0.910 (32 x 64 tiles on 128 threads, 4 x 4 each, 0.477 / 0.428 / 0.480 /
// 0.650); fp64 0.356 / 0.433 / 0.415, 0.341 / 0.412 / 0.390, 0.351 / 0.435 / 0.393, 0.400 / 0.533 / 0.483
// (eight warps of 16 x 16: 0.383-0.478). Matrices of at most 32 x 32 keep the 32 x 32 entry: 32^3 fp32 0.382
// against 0.519 here, fp64 0.367 against 0.396 (-bench6.txt).
struct GemmTilesFp32BatchedRows {
  static constexpr int bm = 32, bn = 64, bk = 16;
  static constexpr int tm = 4, tn = 8, fm = 4, fn = 4;
  static constexpr int pad_a = 4, pad_b = 4;
  static constexpr int team_size = 64, vector_length = 1, stages = 2, min_blocks = 8;
  static constexpr int scratch_level = 0, group_m = 8;
  static constexpr bool prefer_l1 = true;
};
struct GemmTilesFp64DmmaBatchedRows : DmmaAsyncEntry<GemmTilesFp64DmmaBatchedRows, 32, 64, 16, 32, 2, 4> {};

// team_gemm's staged form (team_gemm.hpp): a user's team of 128 threads computes its matrix tile by tile
// through the scratch it grants, on operands of any strides and alignment, so its entries stage through
// registers (the asynchronous ones copy 16-byte packets, which gemm_batched checks for and a user's subviews
// need not hold: 9fedbb5 listed the batched 32 x 32 DMMA entry and read past a 70 x 33 matrix,
// perf/results/2026-12-06-h100-9fedbb5/), with no more span than Kokkos 3.4 grants a team beside the user's
// own scratch (40 KB). fp64: 64 x 64 DMMA tiles, four warps of 32 x 32, three teams per SM (168 registers);
// fp32: the 64 x 64 small tiles. One team per matrix against gemm_batched on the same batch, H100 (bench9 in
// perf/results/2026-12-06-h100-eda8ecf/ and -9fedbb5-; ridgeline-perf in -eda8ecf- and -5ef5825-): fp64 at
// 32^3 / 48^3 / 64^3 / 128^3 / 256^3 0.57 / 0.83 / 0.87 / 0.54 / 0.39; two teams per SM (208 registers)
// 0.86-1.23x, four spilled (272 bytes, 0.35-0.67x); 32 x 32 tiles 0.90 / 0.65 / 0.69 / 0.38 / 0.20. A list of
// both, picked per matrix by padded area (5ef5825), runs in one kernel at one register budget: at three teams
// per SM it spilled (200 bytes of stack with team_gemm's unstaged form beside it) and ran 0.79-0.94x this
// entry alone (its eda8ecf run) from 64^3 on, at two 0.85-1.02x, gaining only 32^3 (0.61 against 0.50). fp32
// small tiles 0.40 / 1.00 / 0.90 / 0.78 / 0.67, the general 64 x 128 tiles 1.04-1.06x at 128^3 and up (more
// registers for every size); 32 x 32 tiles on 128 threads 0.69-0.86 at 24^3 and 32^3 alone, 0.60-0.65 listed
// with the small tiles. From 128^3 on one team per matrix gives the GPU 636-5086 teams that run their tiles
// one after another, where gemm_batched runs one team per tile, and each tile reads its own operand panels
// from DRAM: under ncu on the H200, fp64, 1.31 GB at 128^3 and 2.66 GB at 256^3 against gemm_batched's 0.667
// (its teams of one matrix share the panels in L2); with the operands L2-resident 0.82 and 0.74 of
// gemm_batched (perf/results/2026-12-06-h200-c4c7f56/, bench10).
template <class Self, int kBm, int kBn, int kWarpM, int kWarpN, int kMinBlocks>
struct DmmaRegisterEntry {
  static constexpr int bm = kBm, bn = kBn, bk = 16;
  static constexpr int warp_m = kWarpM, warp_n = kWarpN;
  static constexpr int tm = warp_m / 8, tn = warp_n / 4;  // accumulators per lane
  static constexpr int pad_a = 4, pad_b = 4;
  static constexpr int team_size = (bm / warp_m) * (bn / warp_n) * 32, vector_length = 1;
  static constexpr int stages = 2, min_blocks = kMinBlocks;
  static constexpr int scratch_level = 0, group_m = 8;
  template <class T, class Acc>
  using micro_kernel = DmmaSm90MicroKernel<Self, T, Acc>;
  static constexpr const char* micro_kernel_name = "dmma-m16n8k16";
  static constexpr bool matrix_unit = true;
};
struct GemmTilesFp64DmmaTeam : DmmaRegisterEntry<GemmTilesFp64DmmaTeam, 64, 64, 32, 32, 3> {};

// Complex GEMM (Kokkos::complex<float>, Kokkos::complex<double>) on the SIMT pipes: the portable
// micro-kernel with complex accumulators, each multiply-add four real FMAs (fma_into), reading scratch
// in 16-byte accesses (ComplexSharedScratchAccess), staging through registers, where 'C' operands are
// conjugated. No tensor-core entry takes complex numbers: these are the only complex entries. Sized
// from the real SIMT entries, not swept on a GPU yet: 128 threads, 4 x 8 complex<float> micro-tiles (64
// float accumulators, as the fp32 entries' 8 x 8) on a 64 x 64 tile at three teams per SM (170
// registers), or 4 x 4 complex<double> ones (64 registers of accumulators) on 64 x 32 at two (255); K
// steps of 8, two stages of register staging. Register counts from cuobjdump --dump-resource-usage
// (CUDA 11.8, sm_90): at 256 threads and two teams per SM (128 registers) every instance spilled 96-136
// bytes of stack; at three teams of 128 threads complex<float> takes 162-168 registers and no stack, while
// two of the four complex<double> orientations spilled 72-80 bytes there, and at two teams take 200-206
// registers and no stack. Scratch: 2 x 8 x (66 + 66) x 8 B =
// 17 KB (complex<float>), 2 x 8 x (65 + 33) x 16 B = 25 KB (complex<double>). complex<float> operands that
// stage in 16-byte packets (two elements) take the same tiles with packet staging; a complex<double> is a
// 16-byte packet by itself. fm, fn: one 16-byte scratch load per fragment piece, 16 lanes along m reading
// 256 consecutive bytes.
template <class Self, int kBm, int kBn, int kTm, int kTn, int kF, int kPad, int kMinBlocks>
struct ComplexSimtEntry {
  static constexpr int bm = kBm, bn = kBn, bk = 8;
  static constexpr int tm = kTm, tn = kTn, fm = kF, fn = kF;
  static constexpr int pad_a = kPad, pad_b = kPad;
  static constexpr int team_size = (kBm / kTm) * (kBn / kTn), vector_length = 1, stages = 2;
  static constexpr int min_blocks = kMinBlocks;
  static constexpr int scratch_level = 0, group_m = 8;
  template <class T, class Acc>
  using micro_kernel = detail::PortableMicroKernel<Self, T, Acc, ComplexSharedScratchAccess>;
  static constexpr const char* micro_kernel_name = "simt-complex";
};
struct GemmTilesComplexFloat : ComplexSimtEntry<GemmTilesComplexFloat, 64, 64, 4, 8, 2, 2, 3> {};
struct GemmTilesComplexDouble : ComplexSimtEntry<GemmTilesComplexDouble, 64, 32, 4, 4, 1, 1, 2> {};

struct GemmBatchedSmallTiles {
  static constexpr int team_size = 128, min_blocks = 8, cols_per_thread = 4;
  static constexpr int max_extent = 16, max_per_team = 64;
  static constexpr std::size_t scratch_bytes = 24 * 1024;
};

struct Tiles {
  static constexpr const char* name = "cuda";
  // What `ridgeline tune` tries (tune_space.hpp).
  using tune_space = TuneSpace;
  // The GPU's name, for tune keys (tune_cache.hpp).
  template <class Exec>
  static auto device_name(const Exec& exec) -> decltype(std::string(exec.cuda_device_prop().name)) {
    return exec.cuda_device_prop().name;
  }
  // By element size: 8 bytes double, 4 float, 2 the 16-bit types.
  template <class T, class Fp64, class Fp32, class Half>
  using by_size = std::conditional_t<sizeof(T) == 8, Fp64, std::conditional_t<sizeof(T) == 4, Fp32, Half>>;
  // The GEMM entries, first match wins (gemm_plan.hpp): tensor cores for fp64 and the 16-bit types,
  // TF32 only where the build has wgmma (void: Math::allow_tf32 computes in exact FP32), narrow
  // entries for products of at most one narrow tile of rows, then the packet entry, then the general
  // entry for any strides and alignment.
  using Fp64Entries = detail::GemmEntries<
      detail::GemmEntry<GemmMultiVectorTiles<double>,
                        detail::when::columns_at_most<GemmMultiVectorTiles<double>::max_vectors>>,
      detail::GemmEntry<GemmMultiVectorDotTiles<double>,
                        detail::when::columns_at_most_dot<GemmMultiVectorDotTiles<double>::max_vectors>>,
      detail::GemmEntry<GemmTilesFp64DmmaFewColumns,
                        detail::when::columns_at_most_tiles<GemmTilesFp64DmmaFewColumns::max_columns>>,
      detail::GemmEntry<GemmTilesFp64DmmaK32,
                        detail::when::both<detail::when::wave_share_of<
                                               GemmTilesFp64DmmaK32, GemmTilesFp64DmmaK32::min_wave_percent,
                                               GemmTilesFp64DmmaK32::max_wave_percent>,
                                           detail::when::depth_at_most<GemmTilesFp64DmmaK32::max_depth>>>,
      detail::GemmEntry<
          GemmTilesFp64DmmaFewColumns,
          detail::when::both<detail::when::wave_share_of<GemmTilesFp64DmmaFewColumns, 0,
                                                         GemmTilesFp64DmmaFewColumns::max_wave_percent>,
                             detail::when::depth_at_most<GemmTilesFp64DmmaFewColumns::max_depth>>>,
      detail::GemmEntry<GemmTilesFp64DmmaShort,
                        detail::when::depth_at_most<GemmTilesFp64DmmaShort::short_depth>>,
      detail::GemmEntry<GemmTilesFp64DmmaPairs,
                        detail::when::nn<detail::when::wave_share_of<GemmTilesFp64DmmaAsync, 400, 800>,
                                         detail::GemmRole::packets>>,
      detail::GemmEntry<GemmTilesFp64DmmaSmall, detail::when::wave_share_of<GemmTilesFp64DmmaAsync, 0, 800>>,
      detail::GemmEntry<GemmTilesFp64DmmaSmall, detail::when::depth_at_most<2048>>,
      detail::GemmEntry<GemmTilesFp64DmmaInPlace,
                        detail::when::in_place<detail::when::wave_share_of<GemmTilesFp64DmmaAsync, 0, 800>>>,
      detail::GemmEntry<GemmTilesFp64DmmaPairs, detail::when::packets_nn>,
      detail::GemmEntry<GemmTilesFp64DmmaAsync, detail::when::packets>,
      detail::GemmEntry<GemmTilesFp64Dmma, detail::when::any>>;
  using Fp32Entries = detail::GemmEntries<
      detail::GemmEntry<GemmMultiVectorTiles<float>,
                        detail::when::columns_at_most<GemmMultiVectorTiles<float>::max_vectors>>,
      detail::GemmEntry<GemmMultiVectorDotTiles<float>,
                        detail::when::columns_at_most_dot<GemmMultiVectorDotTiles<float>::max_vectors>>,
      detail::GemmEntry<GemmMultiVectorDotTilesWide,
                        detail::when::columns_at_most_dot<GemmMultiVectorDotTilesWide::max_vectors>>,
      detail::GemmEntry<std::conditional_t<wgmma::kBuiltWithSm90a, GemmTilesTf32WgmmaTma, void>,
                        detail::when::tf32>,
      detail::GemmEntry<GemmTilesFp32Narrow, detail::when::rows_at_most<GemmTilesFp32Narrow::bm>>,
      detail::GemmEntry<GemmTilesFp32FewColumns,
                        detail::when::columns_at_most_tiles<GemmTilesFp32FewColumns::bn>>,
      detail::GemmEntry<GemmTilesFp32Small, detail::when::wave_share_of<GemmTilesFp32Packets, 0, 60>>,
      detail::GemmEntry<GemmTilesFp32Small, detail::when::wave_share_of<GemmTilesFp32Packets, 0, 60, false>>,
      detail::GemmEntry<GemmTilesFp32Small, detail::when::depth_at_most<GemmTilesFp32Small::max_depth>>,
      detail::GemmEntry<
          GemmTilesFp32Narrow,
          detail::when::nn<
              detail::when::both<detail::when::wave_share_of<GemmTilesFp32Packets, 100, (1 << 30)>,
                                 detail::when::depth_at_most<GemmTilesFp32Narrow::max_nn_depth>>,
              detail::GemmRole::narrow>>,
      detail::GemmEntry<GemmTilesFp32Packets, detail::when::packets>,
      detail::GemmEntry<GemmTilesFp32, detail::when::any>>;
  using HalfNarrow =
      std::conditional_t<wgmma::kBuiltWithSm90a, GemmTilesHalfWgmmaNarrowTma, GemmTilesHalfMmaNarrow>;
  using HalfEntries =
      detail::GemmEntries<detail::GemmEntry<HalfNarrow, detail::when::rows_at_most<HalfNarrow::bm>>,
                          detail::GemmEntry<GemmTilesHalfPackets, detail::when::packets>,
                          detail::GemmEntry<GemmTilesHalfMma, detail::when::any>>;
  // Complex types: the complex SIMT entries alone (by size, complex<float> would take the fp64 DMMA list).
  using ComplexFloatEntries =
      detail::GemmEntries<detail::GemmEntry<GemmTilesComplexFloat, detail::when::packets>,
                          detail::GemmEntry<GemmTilesComplexFloat, detail::when::any>>;
  using ComplexDoubleEntries =
      detail::GemmEntries<detail::GemmEntry<GemmTilesComplexDouble, detail::when::any>>;
  template <class T>
  using gemm_entries =
      std::conditional_t<detail::is_complex_v<T>,
                         std::conditional_t<sizeof(T) == 16, ComplexDoubleEntries, ComplexFloatEntries>,
                         by_size<T, Fp64Entries, Fp32Entries, HalfEntries>>;
  // Batched products (dispatch_batched.hpp): the small path, and the tile entries a batch of larger
  // matrices runs in one league, first match wins. fp64: the 32 x 32 entry for matrices that fit it, the
  // 32-row entry for more columns, the few-column 64 x 32 tiles for at most 32 columns and more rows, else
  // the 64 x 64 small tiles (packets) or the general entry. fp32: the same order, with the general entry's
  // 64 x 128 tiles in packets for matrices of 128 x 128 and more. Batched tiles timed directly on an H100,
  // NN, operands about 1 GB (perf/results/2026-12-06-h100-d3aa9c2/, -bench5.txt and -bench6.txt), ms:
  // - at most 32 columns, more rows, against the small tiles: fp32 on the few-column 128 x 32 tiles
  //   512x32x32 0.409 / 0.720, 128x32x128 0.372 / 0.718 (the 32 x 32 entry 0.503, 0.461); fp64 on its
  //   64 x 32 tiles 0.340 / 0.419, 128x32x128 0.339 / 0.344.
  // - fp32 of 128 x 128 and more, the general entry's tiles against the 128 x 128 packet tiles (with the
  //   compact epilogue that 7e23c3e gave them for batches) and the small tiles: 128^3 0.575 / 0.612 / 0.663,
  //   256^3 0.997 / 1.078 / 1.157, 384^3 1.422 / 1.546 / 1.707, 512^3 1.871 / 2.075 / 2.255, 2048^2 x 256
  //   2.334 / 2.513 / -, 1024^2 x 128 1.374-1.406 / 1.368-1.390 (level); the general tiles with the compact
  //   epilogue 1.02-1.07x slower than without. Under 128 the small tiles keep their place (64^3 0.416
  //   against 0.690), but not everywhere: 192^3 0.897 against 1.022, 100^3 0.956 against 0.882.
  // - fp64 keeps the small tiles at 128 x 128 and more: 256^3 0.503, 512^3 0.925-0.939 against the 128 x 64
  //   entry's 0.535-0.550 and 1.001-1.115 (128^3 0.361 against 0.352).
  // 16-bit inputs take the register-staging HMMA entry alone (any alignment): the TMA and wgmma kernels
  // take no league rank.
  static constexpr int kBatchedGeneralFrom = 128;  // fp32: the general tiles from this square on (above)
  template <class T>
  using gemm_batched_small = GemmBatchedSmallTiles;
  template <class T>
  using gemm_batched_entries =
      by_size<T,
              detail::GemmEntries<
                  detail::GemmEntry<GemmTilesFp64DmmaBatched32,
                                    detail::when::extents_at_most<GemmTilesFp64DmmaBatched32::bm,
                                                                  GemmTilesFp64DmmaBatched32::bn>>,
                  detail::GemmEntry<GemmTilesFp64DmmaBatchedRows,
                                    detail::when::rows_at_most<GemmTilesFp64DmmaBatchedRows::bm>>,
                  detail::GemmEntry<GemmTilesFp64DmmaFewColumns,
                                    detail::when::columns_at_most_tiles<GemmTilesFp64DmmaFewColumns::bn>>,
                  detail::GemmEntry<GemmTilesFp64DmmaShort,
                                    detail::when::depth_at_most<GemmTilesFp64DmmaShort::short_depth>>,
                  detail::GemmEntry<GemmTilesFp64DmmaSmall, detail::when::packets>,
                  detail::GemmEntry<GemmTilesFp64Dmma, detail::when::any>>,
              detail::GemmEntries<
                  detail::GemmEntry<
                      GemmTilesFp32Batched32,
                      detail::when::extents_at_most<GemmTilesFp32Batched32::bm, GemmTilesFp32Batched32::bn>>,
                  detail::GemmEntry<GemmTilesFp32BatchedRows,
                                    detail::when::rows_at_most<GemmTilesFp32BatchedRows::bm>>,
                  detail::GemmEntry<GemmTilesFp32FewColumns,
                                    detail::when::columns_at_most_tiles<GemmTilesFp32FewColumns::bn>>,
                  detail::GemmEntry<GemmTilesFp32,
                                    detail::when::extents_at_least<kBatchedGeneralFrom, kBatchedGeneralFrom>>,
                  detail::GemmEntry<GemmTilesFp32Small, detail::when::packets>,
                  detail::GemmEntry<GemmTilesFp32, detail::when::any>>,
              detail::GemmEntries<detail::GemmEntry<GemmTilesHalfMma, detail::when::any>>>;
  // team_gemm's staged form (above): one entry per input type; void: the unstaged form.
  template <class T>
  using team_gemm_tiles =
      std::conditional_t<std::is_same_v<T, double>, GemmTilesFp64DmmaTeam,
                         std::conditional_t<std::is_same_v<T, float>, GemmTilesFp32Small, void>>;
  // SMs of exec's device, for the split-K decision. A template so that this header also compiles
  // where Kokkos has no CUDA backend (the Kokkos 5 gate compiles every header on a host build).
  template <class Exec>
  static auto compute_units(const Exec& exec) -> decltype(exec.cuda_device_prop().multiProcessorCount) {
    return exec.cuda_device_prop().multiProcessorCount;
  }
  // For entries with prefer_l1, after their launch.
  template <class Kernel, class Exec>
  static void prefer_l1(const Exec& exec, std::size_t team_shmem, int team_size) {
    fit_carveout<Kernel>(exec, team_shmem, team_size);
  }
  // Team scratch for Kernel beyond Kokkos's limit, where this Kokkos needs the hook (team_scratch.hpp);
  // 0: Kokkos's own limit applies.
  template <class Kernel, class Exec>
  static std::size_t team_scratch_limit(const Exec& exec, int team_size) {
    return lift_team_scratch_limit<Kernel>(exec, team_size);
  }
  // Calls on a CUDA instance are asynchronous: their workspace is per stream.
  template <class Exec>
  static auto instance_key(const Exec& exec) -> decltype(static_cast<const void*>(exec.cuda_stream())) {
    return static_cast<const void*>(exec.cuda_stream());
  }
  // Operands that cannot stage in packets are copied aligned (into the stream's workspace) when M, N
  // and K reach this. The copies then cost at most ~4% of the product (45 * (1/M + 1/N) percent at
  // 40 TF/s and 3.5 TB/s), while element staging ran 0.83 of cuBLAS on 4097^3 against 0.94 for
  // packets on 4096^3 (perf/results/2026-11-30-h200-e1a543c/h200-2026-11-30-e1a543c-README.md).
  // fp64 copies from 1500 on: the DMMA register-staging entry trails the packet entries by more than
  // SIMT fp32's does. Plan sweeps: the copies ran 1.25x element staging on 2039x2053x2063 and 1.06x on
  // 3001x2999x1501 in fp64, 0.87x on 1021x1031x1033, and in fp32 lost on all three (0.75-0.90x)
  // (perf/results/2026-12-01-h200/h200-2026-12-01-worktree-plans-sweep.txt); with 1500, e50b3ec ran the two
  // fp64 shapes in 0.456 and 0.758 ms against 0.588 and 0.772 element-staged (-e50b3ec-plans-sweep.txt).
  template <class T>
  static constexpr std::int64_t pack_min_extent = sizeof(T) == 8 ? 1500 : 2048;
  // From the same extents on, a k-contiguous fp64 operand whose lines do not start on 32-byte sectors (a
  // leading dimension of 2 mod 4, such as 2050) is copied onto cache lines as well, though it stages in
  // packets as it is: the DMMA entries stage 16 doubles of each line a step, four sectors or five. H100,
  // ridgeline-perf against 761c493, three rounds with cuBLAS (perf/results/2026-12-07-h100-761c493/): with
  // 128-byte lines as the bound, TN 2050^3 1.16x (0.85 -> 0.98 of cuBLAS), TT 1.11x, NN 1.10x, TN 3002 x 2998
  // x 1502 1.32x (0.85 -> 1.13); but 2500^3 (20000-byte lines: on sectors, off cache lines) 0.90-0.95x, the
  // copies' cost with no gain. The copies of odd operands said the same (-71950e0-, calls 3-5): padded to 16
  // bytes, those that fell on sectors ran TN at 0.98-1.11 of cuBLAS, the others at 0.68-0.75. With 32 bytes
  // as the bound, against 761c493, three rounds (perf/results/2026-12-07-h100-52b4bc8/): TN 2050^3 1.15x
  // (1.01 of cuBLAS), NN 1.11x, TT 1.10x, TN 3002 x 2998 x 1502 1.30x (1.13), 2500^3 in every orientation
  // 0.99-1.00x.
  template <class T>
  static constexpr int copy_k_lines_off = sizeof(T) == 8 ? 32 : 0;
  // Complex products from these extents on (M, N and K) run as one real product on the real entries
  // (gemm_complex_as_real.hpp), the expansion held to 4 GiB (16384^3 complex<double>: two K chunks).
  // complex<double> on the DMMA entries, from 256: the tile sweep
  // (perf/results/2026-12-02-h200-8423c69/) ran it 1.10-1.20x the SIMT complex entries at 256^3, 1.33x
  // at 512^3, 2.0-2.4x from 1024^3 on (NN, CN, NC, NT, TN; 3001x2999x1501 2.08x); 8192^3 in one chunk
  // 86.6 ms against 90.9 in the three chunks a 1 GiB limit made. complex<float> on the SIMT fp32
  // entries, from 1024: PROVISIONAL (the same sweep ran it 0.94-0.97x the complex entries NN, 1.04x CN
  // and TN, while ridgeline-perf's run of it was 0.93 of cuBLAS's CGEMM against 0.88 for the complex
  // entries at 07b572c).
  template <class T>
  static constexpr detail::ComplexAsRealTerms complex_as_real =
      !detail::is_complex_v<T> ? detail::ComplexAsRealTerms{}
      : sizeof(T) == 16        ? detail::ComplexAsRealTerms{256, std::size_t(4) << 30}
                               : detail::ComplexAsRealTerms{1024, std::size_t(4) << 30};
  // A rows-contiguous GEMV whose rows entry fills less than this percentage of its team slots runs as
  // a one-column multi-vector product split along its columns (gemv_split_columns in dispatch.hpp).
  // Sweep (perf/results/2026-12-01-h200-2297cb1/h200-2026-12-01-2297cb1-worktree-sweep.txt), split against
  // the rows entry: 1000 x 100000 (16 teams of 64 rows for 132 SMs, 12%) 1.67x fp32 and 2.12x fp64; 2000 x
  // 50000 (24%) 1.00x and 1.14x; 4000 x 25000 (48%) 0.83x and 0.82x; 8192 x 8192 (97%) 0.81x and 0.82x.
  static constexpr int gemv_split_percent = 35;
  template <class Cfg, class T, class Acc>
  using micro_kernel =
      typename detail::EntryMicroKernel<Cfg, T, Acc,
                                        detail::PortableMicroKernel<Cfg, T, Acc, SharedScratchAccess>>::type;
  static constexpr const char* micro_kernel_name = "simt-lds128";
  template <class T>
  using gemv_rows = GemvRowsTiles<T>;
  // The tall rows entry and the short-row dot entry were swept on real types only: complex GEMV runs
  // the regular ones (void and 0 turn the others off).
  template <class T>
  using gemv_rows_tall = std::conditional_t<detail::is_complex_v<T>, void, GemvRowsTallTiles<T>>;
  template <class T>
  using gemv_dot = GemvDotTiles<T>;
  template <class T>
  using gemv_dot_short = GemvDotShortTiles<T>;
  template <class T>
  static constexpr std::int64_t gemv_dot_short_bytes = sizeof(T) >= 4 && !detail::is_complex_v<T> ? 16384 : 0;
};

}  // namespace ridgeline::backends::cuda
