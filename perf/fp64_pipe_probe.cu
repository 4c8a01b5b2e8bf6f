// How fast the FP64 FMA pipe runs the SIMT GEMM's inner product when nothing else is in the way.
//
// `ridgeline ceilings` now measures the portable part of this on any Kokkos backend (FP64/FP32 FMA
// chains, and on CUDA the DMMA/HMMA instructions' rate through the micro-kernels' own wrappers). This
// probe stays for what it adds: the SIMT GEMM entry's register-tile shape and its occupancy variants.
//
//   nvcc -O3 -arch=sm_90 -o fp64_pipe_probe perf/fp64_pipe_probe.cu
//   ./fp64_pipe_probe --peak-tflops 34      (the device spec's fp64 vector peak)
//
// Each thread runs acc[i][j] += a[i] * b[j] on a TM x TN register tile, 8 k per loop trip, with a
// and b already in registers: the fp64 GEMM entry's math (8x8 per thread, 256 threads, one team per
// SM, so two warps per scheduler) without its scratch loads, staging and barriers. Its rate is the
// ceiling that code of this shape reaches when compiled by nvcc; the other variants show how the rate
// moves with warps per scheduler. Built with the GPU machine's own nvcc (CUDA 13), like the cuBLAS
// baseline: this program needs no Kokkos.
//
// Timing: 2 warm-up launches, then the median of 10, each bracketed by CUDA events. The SM clock
// during the run is estimated from clock64() in every block (the longest block's cycles / elapsed
// time, a lower bound).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(x)                                                                              \
  do {                                                                                        \
    cudaError_t e_ = (x);                                                                     \
    if (e_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

template <int TM, int TN, int kThreads, int kMinBlocks>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    outer_product(const double* seed, double* out, long long* cycles, int trips) {
  double a[TM], b[TN], acc[TM][TN];
  // Operands from memory, so the compiler cannot fold them.
#pragma unroll
  for (int i = 0; i < TM; ++i) a[i] = seed[(threadIdx.x + i) % 64];
#pragma unroll
  for (int j = 0; j < TN; ++j) b[j] = seed[64 + (threadIdx.x + j) % 64];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0;
  const long long t0 = clock64();
  for (int t = 0; t < trips; ++t) {
#pragma unroll
    for (int k = 0; k < 8; ++k)
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fma(a[i], b[j], acc[i][j]);
  }
  const long long t1 = clock64();
  double s = 0;
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) s += acc[i][j];
  out[blockIdx.x * kThreads + threadIdx.x] = s;
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

struct Device {
  int sms = 0, schedulers_per_sm = 4;
};

template <int TM, int TN, int kThreads, int kMinBlocks>
void run(const char* name, const Device& dev, double peak_tflops, const double* seed, double* out,
         long long* cycles) {
  auto kernel = outer_product<TM, TN, kThreads, kMinBlocks>;
  int per_sm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, 0));
  cudaFuncAttributes attr{};
  CHECK(cudaFuncGetAttributes(&attr, kernel));
  const int blocks = dev.sms * per_sm;
  // About 50 ms per launch at the nominal peak.
  const double flop_per_trip = 2.0 * TM * TN * 8 * double(kThreads) * blocks;
  const int trips = std::max(1, int(0.05 * peak_tflops * 1e12 / flop_per_trip));
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  for (int w = 0; w < 2; ++w) kernel<<<blocks, kThreads>>>(seed, out, cycles, trips);
  CHECK(cudaGetLastError());
  std::vector<float> ms;
  std::vector<double> ghz;
  std::vector<long long> cyc(blocks);
  for (int r = 0; r < 10; ++r) {
    CHECK(cudaEventRecord(e0));
    kernel<<<blocks, kThreads>>>(seed, out, cycles, trips);
    CHECK(cudaEventRecord(e1));
    CHECK(cudaEventSynchronize(e1));
    float t = 0;
    CHECK(cudaEventElapsedTime(&t, e0, e1));
    ms.push_back(t);
    CHECK(cudaMemcpy(cyc.data(), cycles, sizeof(long long) * blocks, cudaMemcpyDeviceToHost));
    std::sort(cyc.begin(), cyc.end());
    // The longest block: blocks that share an SM start together but need not end together.
    ghz.push_back(double(cyc[blocks - 1]) / (t * 1e-3) * 1e-9);
  }
  std::sort(ms.begin(), ms.end());
  std::sort(ghz.begin(), ghz.end());
  const double med = 0.5 * (ms[4] + ms[5]) * 1e-3;
  const double tflops = flop_per_trip * trips / med * 1e-12;
  const int warps = kThreads / 32 * per_sm;
  std::printf(
      "%-34s regs %3d  blocks/SM %d  warps/scheduler %4.1f  %8.3f ms  %6.2f TFLOP/s  %5.1f%% of peak  "
      "SM clock ~%.2f GHz\n",
      name, attr.numRegs, per_sm, double(warps) / dev.schedulers_per_sm, med * 1e3, tflops,
      100 * tflops / peak_tflops, ghz[5]);
  CHECK(cudaEventDestroy(e0));
  CHECK(cudaEventDestroy(e1));
}

int main(int argc, char** argv) {
  double peak = 0;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--peak-tflops") == 0) peak = std::atof(argv[i + 1]);
  if (peak <= 0) {
    std::fprintf(stderr, "usage: %s --peak-tflops P   (the device spec's fp64 vector peak)\n", argv[0]);
    return 2;
  }
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  Device dev;
  dev.sms = prop.multiProcessorCount;
  std::printf("fp64 pipe probe on %s, %d SMs, fp64 vector peak %.1f TFLOP/s (given)\n", prop.name, dev.sms,
              peak);
  const int max_blocks = dev.sms * 16;
  double *seed, *out;
  long long* cycles;
  CHECK(cudaMalloc(&seed, 128 * sizeof(double)));
  CHECK(cudaMalloc(&out, sizeof(double) * max_blocks * 1024));
  CHECK(cudaMalloc(&cycles, sizeof(long long) * max_blocks));
  std::vector<double> h(128);
  for (int i = 0; i < 128; ++i) h[i] = 1.0 + 1e-9 * ((i * 37) % 101);
  CHECK(cudaMemcpy(seed, h.data(), sizeof(double) * 128, cudaMemcpyHostToDevice));
  // The GEMM entry's shape and occupancy first.
  run<8, 8, 256, 1>("8x8, 256 threads (GEMM entry)", dev, peak, seed, out, cycles);
  run<8, 8, 128, 1>("8x8, 128 threads", dev, peak, seed, out, cycles);
  run<8, 8, 128, 3>("8x8, 128 threads, 3 blocks/SM", dev, peak, seed, out, cycles);
  run<8, 4, 256, 2>("8x4, 256 threads, 2 blocks/SM", dev, peak, seed, out, cycles);
  run<4, 4, 256, 4>("4x4, 256 threads, 4 blocks/SM", dev, peak, seed, out, cycles);
  CHECK(cudaFree(seed));
  CHECK(cudaFree(out));
  CHECK(cudaFree(cycles));
  return 0;
}
