// The vendor's side of ridgeline-grouped-perf (issue 14): cuBLAS's own grouped GEMM,
// cublas[SD]gemmGroupedBatched (cuBLAS 12.5 and later), on the same mix (grouped_mix.hpp), next to a
// loop of cublas[SD]gemmStridedBatched calls over the same groups, both timed in this program as one
// stream of calls. Standalone like cublas_baseline.cu, and for the same reason (the Ridgeline build never
// depends on cuBLAS): it is compiled on the GPU machine by that machine's nvcc,
//
//   nvcc -O3 -std=c++17 -arch=sm_90 perf/cublas_grouped.cu -lcublas -o cublas_grouped
//   cublas_grouped [--dtype fp64|fp32|both] [--sizes 8,16,32,64,128,256] [--bytes 1e9] [--reps 10]
//
// Matrices are column-major, n x n, stored one after another per group (ridgeline-grouped-perf's batch
// layout holds the same bytes per matrix); alpha 1, beta 0, NN. Math as in cublas_baseline: fp64 in the
// default mode (FP64 tensor cores) and pedantic, fp32 pedantic (no TF32). Check: the grouped call's C
// against the loop's, every element of every matrix, after C was poisoned with NaN before each.
// Output: one line per dtype, math and call, the median of --reps samples after two warm-up samples,
// each sample at least 0.5 ms of back-to-back calls.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "grouped_mix.hpp"

using namespace ridgeline_perf;

namespace {

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "cublas_grouped: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}
void check_cublas(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "cublas_grouped: %s: %s (%d)\n", what, cublasGetStatusString(s), int(s));
    std::exit(1);
  }
}

// Uniform in [-1, 1) from a counter hash, so every run sees the same inputs.
template <class T>
__global__ void fill_kernel(T* x, std::size_t n, unsigned long long seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    unsigned long long z = (i + 1) * 0x9E3779B97F4A7C15ull ^ seed;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    x[i] = T(double(z >> 11) * 0x1.0p-52 - 1.0);
  }
}
template <class T>
void fill(T* x, std::size_t n, unsigned long long seed) {
  fill_kernel<<<1024, 256>>>(x, n, seed);
  check_cuda(cudaGetLastError(), "fill");
}

// The largest |a - b| / max(|b|, 1) over n elements, NaN counting as infinite.
template <class T>
__global__ void diff_kernel(const T* a, const T* b, std::size_t n, unsigned long long* out) {
  double worst = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const double d = fabs(double(a[i]) - double(b[i])) / fmax(fabs(double(b[i])), 1.0);
    worst = fmax(worst, d == d ? d : INFINITY);
  }
  atomicMax(out, static_cast<unsigned long long>(__double_as_longlong(worst)));  // non-negative: order holds
}

void gemm_strided(cublasHandle_t h, int n, const float* a, const float* b, float* c, int count) {
  const float one = 1, zero = 0;
  const long long s = 1ll * n * n;
  check_cublas(cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, s, b, n, s, &zero,
                                         c, n, s, count),
               "cublasSgemmStridedBatched");
}
void gemm_strided(cublasHandle_t h, int n, const double* a, const double* b, double* c, int count) {
  const double one = 1, zero = 0;
  const long long s = 1ll * n * n;
  check_cublas(cublasDgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, s, b, n, s, &zero,
                                         c, n, s, count),
               "cublasDgemmStridedBatched");
}

// The grouped call's arguments: host arrays per group, device arrays of matrix pointers.
template <class T>
struct GroupedArgs {
  std::vector<cublasOperation_t> ta, tb;
  std::vector<int> m, ld, size;
  std::vector<T> alpha, beta;
  const T** a = nullptr;
  const T** b = nullptr;
  T** c = nullptr;
};

#if CUBLAS_VER_MAJOR > 12 || (CUBLAS_VER_MAJOR == 12 && CUBLAS_VER_MINOR >= 5)
constexpr bool kHaveGrouped = true;
void gemm_grouped(cublasHandle_t h, const GroupedArgs<float>& g) {
  check_cublas(cublasSgemmGroupedBatched(h, g.ta.data(), g.tb.data(), g.m.data(), g.m.data(), g.m.data(),
                                         g.alpha.data(), g.a, g.ld.data(), g.b, g.ld.data(), g.beta.data(),
                                         g.c, g.ld.data(), int(g.size.size()), g.size.data()),
               "cublasSgemmGroupedBatched");
}
void gemm_grouped(cublasHandle_t h, const GroupedArgs<double>& g) {
  check_cublas(cublasDgemmGroupedBatched(h, g.ta.data(), g.tb.data(), g.m.data(), g.m.data(), g.m.data(),
                                         g.alpha.data(), g.a, g.ld.data(), g.b, g.ld.data(), g.beta.data(),
                                         g.c, g.ld.data(), int(g.size.size()), g.size.data()),
               "cublasDgemmGroupedBatched");
}
#else
constexpr bool kHaveGrouped = false;
template <class T>
void gemm_grouped(cublasHandle_t, const GroupedArgs<T>&) {}
#endif

// Median ms per call of `call`, samples of at least 0.5 ms of back-to-back calls.
template <class F>
double median_ms(F&& call, int reps) {
  cudaEvent_t e0, e1;
  check_cuda(cudaEventCreate(&e0), "event"), check_cuda(cudaEventCreate(&e1), "event");
  auto sample = [&](int calls) {
    check_cuda(cudaEventRecord(e0), "record");
    for (int i = 0; i < calls; ++i) call();
    check_cuda(cudaEventRecord(e1), "record");
    check_cuda(cudaEventSynchronize(e1), "sync");
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, e0, e1), "elapsed");
    return double(ms) / calls;
  };
  double last = 0;
  for (int w = 0; w < 2; ++w) last = sample(1);
  const int calls = last > 0 && last < 0.5 ? std::min(256, int(std::ceil(0.5 / last))) : 1;
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) t.push_back(sample(calls));
  std::sort(t.begin(), t.end());
  cudaEventDestroy(e0), cudaEventDestroy(e1);
  return t.size() % 2 ? t[t.size() / 2] : 0.5 * (t[t.size() / 2 - 1] + t[t.size() / 2]);
}

template <class T>
void run(cublasHandle_t h, const char* dtype, const std::vector<Group>& mix, int reps) {
  struct Buffers {
    T *a, *b, *c, *c_loop;
    std::int64_t n, count;
  };
  std::vector<Buffers> bufs;
  GroupedArgs<T> g;
  std::vector<const T*> pa, pb;
  std::vector<T*> pc;
  double flops = 0;
  std::int64_t n_max = 1;
  for (std::size_t i = 0; i < mix.size(); ++i) {
    n_max = std::max(n_max, mix[i].n);
    const auto [n, count] = mix[i];
    const std::size_t elems = std::size_t(n * n * count);
    Buffers x{nullptr, nullptr, nullptr, nullptr, n, count};
    check_cuda(cudaMalloc(&x.a, elems * sizeof(T)), "cudaMalloc A");
    check_cuda(cudaMalloc(&x.b, elems * sizeof(T)), "cudaMalloc B");
    check_cuda(cudaMalloc(&x.c, elems * sizeof(T)), "cudaMalloc C");
    check_cuda(cudaMalloc(&x.c_loop, elems * sizeof(T)), "cudaMalloc C (loop)");
    fill(x.a, elems, 11 + 3 * i), fill(x.b, elems, 12 + 3 * i);
    bufs.push_back(x);
    g.ta.push_back(CUBLAS_OP_N), g.tb.push_back(CUBLAS_OP_N);
    g.m.push_back(int(n)), g.ld.push_back(int(n)), g.size.push_back(int(count));
    g.alpha.push_back(T(1)), g.beta.push_back(T(0));
    for (std::int64_t j = 0; j < count; ++j) {
      pa.push_back(x.a + j * n * n), pb.push_back(x.b + j * n * n), pc.push_back(x.c + j * n * n);
    }
    flops += 2.0 * double(n) * n * n * count;
  }
  check_cuda(cudaMalloc(&g.a, pa.size() * sizeof(T*)), "cudaMalloc pointers");
  check_cuda(cudaMalloc(&g.b, pb.size() * sizeof(T*)), "cudaMalloc pointers");
  check_cuda(cudaMalloc(&g.c, pc.size() * sizeof(T*)), "cudaMalloc pointers");
  check_cuda(cudaMemcpy(g.a, pa.data(), pa.size() * sizeof(T*), cudaMemcpyHostToDevice), "pointers");
  check_cuda(cudaMemcpy(g.b, pb.data(), pb.size() * sizeof(T*), cudaMemcpyHostToDevice), "pointers");
  check_cuda(cudaMemcpy(g.c, pc.data(), pc.size() * sizeof(T*), cudaMemcpyHostToDevice), "pointers");
  unsigned long long* d_worst = nullptr;
  check_cuda(cudaMalloc(&d_worst, sizeof(unsigned long long)), "cudaMalloc");

  const auto loop = [&] {
    for (const auto& x : bufs) gemm_strided(h, int(x.n), x.a, x.b, x.c_loop, int(x.count));
  };
  const auto grouped = [&] { gemm_grouped(h, g); };
  struct Math {
    cublasMath_t mode;
    const char* name;
  };
  std::vector<Math> maths = {{CUBLAS_PEDANTIC_MATH, "pedantic"}};
  if (std::is_same<T, double>::value) maths.insert(maths.begin(), {CUBLAS_DEFAULT_MATH, "default"});
  for (const Math& math : maths) {
    check_cublas(cublasSetMathMode(h, math.mode), "cublasSetMathMode");
    // Check run: both outputs poisoned with NaN (all bits set), then compared element by element.
    for (const auto& x : bufs) {
      const std::size_t bytes = std::size_t(x.n * x.n * x.count) * sizeof(T);
      check_cuda(cudaMemset(x.c, 0xff, bytes), "poison"),
          check_cuda(cudaMemset(x.c_loop, 0xff, bytes), "poison");
    }
    loop();
    if (kHaveGrouped) grouped();
    check_cuda(cudaMemset(d_worst, 0, sizeof(unsigned long long)), "memset");
    for (const auto& x : bufs)
      diff_kernel<<<1024, 256>>>(x.c, x.c_loop, std::size_t(x.n * x.n * x.count), d_worst);
    unsigned long long worst_bits = 0;
    check_cuda(cudaMemcpy(&worst_bits, d_worst, sizeof worst_bits, cudaMemcpyDeviceToHost), "check");
    double worst;
    std::memcpy(&worst, &worst_bits, sizeof worst);
    // Two summation orders of n products of inputs in [-1, 1): their difference grows with n and epsilon.
    const double tol = 16.0 * double(n_max) * std::numeric_limits<T>::epsilon();

    const double t_loop = median_ms(loop, reps);
    std::printf("%s %-8s strided-batched loop  %9.4f ms %10.1f GFLOP/s  (%zu calls)\n", dtype, math.name,
                t_loop, flops / (t_loop * 1e-3) * 1e-9, bufs.size());
    if (!kHaveGrouped) {
      std::printf("%s %-8s grouped               skipped: this cuBLAS has no cublas?gemmGroupedBatched\n",
                  dtype, math.name);
      continue;
    }
    const double t_grouped = median_ms(grouped, reps);
    std::printf(
        "%s %-8s grouped               %9.4f ms %10.1f GFLOP/s  x%.3f the loop  max rel diff to the "
        "loop %.2e %s\n",
        dtype, math.name, t_grouped, flops / (t_grouped * 1e-3) * 1e-9, t_loop / t_grouped, worst,
        worst <= tol ? "ok" : "MISMATCH");
  }
  for (auto& x : bufs) cudaFree(x.a), cudaFree(x.b), cudaFree(x.c), cudaFree(x.c_loop);
  cudaFree(g.a), cudaFree(g.b), cudaFree(g.c), cudaFree(d_worst);
}

std::vector<std::int64_t> parse_sizes(const char* s) {
  std::vector<std::int64_t> v;
  for (const char* p = s; *p;) {
    char* end = nullptr;
    const long long x = std::strtoll(p, &end, 10);
    if (end == p || x <= 0) {
      std::fprintf(stderr, "cublas_grouped: bad --sizes '%s'\n", s);
      std::exit(2);
    }
    v.push_back(x);
    p = *end == ',' ? end + 1 : end;
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dtype = "both";
  std::vector<std::int64_t> sizes = {8, 16, 32, 64, 128, 256};
  double bytes = 1e9;
  int reps = 10;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (a == "--dtype" && v) {
      dtype = v, ++i;
    } else if (a == "--sizes" && v) {
      sizes = parse_sizes(v), ++i;
    } else if (a == "--bytes" && v) {
      bytes = std::atof(v), ++i;
    } else if (a == "--reps" && v) {
      reps = std::max(1, std::atoi(v)), ++i;
    } else {
      std::fprintf(stderr,
                   "usage: cublas_grouped [--dtype fp64|fp32|both] [--sizes 8,16,...] [--bytes 1e9] "
                   "[--reps 10]\n");
      return 2;
    }
  }
  if (dtype != "fp64" && dtype != "fp32" && dtype != "both") {
    std::fprintf(stderr, "cublas_grouped: --dtype must be fp64, fp32 or both\n");
    return 2;
  }
  cublasHandle_t h;
  check_cublas(cublasCreate(&h), "cublasCreate");
  int version = 0;
  check_cublas(cublasGetVersion(h, &version), "cublasGetVersion");
  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::printf("cublas_grouped: %s, cuBLAS %d, %.3g bytes of A, B and C, median of %d samples\n", prop.name,
              version, bytes, reps);
  if (dtype != "fp32") {
    const auto mix = mix_of(sizes, bytes, 8);
    std::printf("fp64 mix %s\n", mix_string(mix).c_str());
    run<double>(h, "fp64", mix, reps);
  }
  if (dtype != "fp64") {
    const auto mix = mix_of(sizes, bytes, 4);
    std::printf("fp32 mix %s\n", mix_string(mix).c_str());
    run<float>(h, "fp32", mix, reps);
  }
  cublasDestroy(h);
  return 0;
}
