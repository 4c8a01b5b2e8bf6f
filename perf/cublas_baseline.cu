// The cuBLAS baseline of the GPU perf run. Standalone on purpose: it is compiled on the GPU machine
// by that machine's nvcc and cuBLAS (perf/run_gpu.sh),
//
//   nvcc -O3 -std=c++17 -arch=sm_90 perf/cublas_baseline.cu -lcublas -o cublas_baseline
//
// so the Ridgeline build never depends on cuBLAS. It takes ridgeline-perf's shape syntax and
// presets, fills the same counter-based inputs (shape_spec.hpp), times with CUDA events and writes
// the same CSV columns, plus the norm and probe of each result so merge_results.py can check
// Ridgeline against cuBLAS without moving matrices between the two programs.
//
// Math modes: FP32 in CUBLAS_PEDANTIC_MATH (no TF32: the FP32 numbers compare like with like);
// FP64 GEMM twice, in the default mode (FP64 tensor cores) and in pedantic mode.
// fp16/bf16 GEMM: cublasGemmEx, A and B CUDA_R_16F / CUDA_R_16BF, C CUDA_R_32F, CUBLAS_COMPUTE_32F,
// CUBLAS_GEMM_DEFAULT, in CUBLAS_DEFAULT_MATH (tensor cores, FP32 accumulation).
// fp16/bf16 GEMV: cublasHSSgemvStridedBatched / cublasTSSgemvStridedBatched with one batch (A and x
// 16-bit, y float, FP32 compute: cuBLAS's own mixed-precision GEMV), CUBLAS_DEFAULT_MATH.
// tf32 GEMM: cublasGemmEx, A, B and C CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT,
// CUBLAS_DEFAULT_MATH; a tf32 GEMV is cublasSgemv in CUBLAS_DEFAULT_MATH (TF32 does not apply).
// cf32/cf64 (complex<float>/complex<double>, transposes N, T or C): cublasCgemm in
// CUBLAS_PEDANTIC_MATH (no TF32) and cublasZgemm in CUBLAS_DEFAULT_MATH (its FP64 tensor cores, the
// number issue 18's targets name), cublasCgemv pedantic and cublasZgemv default. Their buffers are filled
// and judged as interleaved (real, imaginary) pairs, as ridgeline-perf does with Kokkos::complex.
// Batched GEMM (a shape's batch=N): cublasSgemmStridedBatched / cublasDgemmStridedBatched over the
// matrices stored one after another (stride rows x cols), math modes as for single products; fp32 and
// fp64 only, other dtypes are skipped with a message. The result signature covers the matrices
// ridgeline-perf checks (check_matrices: the first, a middle one and the last), every element of each.
// The config column names the call and its types; the math column the math mode.
#include <cuComplex.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <string>
#include <type_traits>
#include <vector>

#include "perf_record.hpp"
#include "shape_spec.hpp"

using namespace ridgeline_perf;

#define CUDA_CHECK(expr)                                                                           \
  do {                                                                                             \
    const cudaError_t err_ = (expr);                                                               \
    if (err_ != cudaSuccess) {                                                                     \
      std::fprintf(stderr, "cublas_baseline: %s failed at %s:%d: %s\n", #expr, __FILE__, __LINE__, \
                   cudaGetErrorString(err_));                                                      \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

#define CUBLAS_CHECK(expr)                                                                              \
  do {                                                                                                  \
    const cublasStatus_t st_ = (expr);                                                                  \
    if (st_ != CUBLAS_STATUS_SUCCESS) {                                                                 \
      std::fprintf(stderr, "cublas_baseline: %s failed at %s:%d: %s (%d)\n", #expr, __FILE__, __LINE__, \
                   cublasGetStatusString(st_), int(st_));                                               \
      std::exit(1);                                                                                     \
    }                                                                                                   \
  } while (0)

namespace {

struct Options {
  std::string shapes = "h200";
  int reps = 10;
  int warmup = 2;
  double min_sample_ms = 1.0;
  double rotate_bytes = -1;  // < 0: 3x the device's L2
  int max_buffer_sets = 64;
  double alpha = 1.0, beta = 0.0;
  unsigned long long seed = default_seed;
  std::string csv, git_sha = "unknown";
  bool list_shapes = false;
};

void usage() {
  std::printf(
      "usage: cublas_baseline [--shapes PRESET|LIST] [--reps N>=10] [--warmup N] [--min-sample-ms MS]\n"
      "                       [--rotate-bytes B] [--max-buffer-sets N] [--alpha A] [--beta B] [--seed S]\n"
      "                       [--csv FILE] [--git-sha SHA] [--list-shapes]\n"
      "shapes as in ridgeline-perf, e.g. gemm:NN:4096x4096x4096:fp32,gemv:T:8192x8192:fp64\n");
}

Options parse_args(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "cublas_baseline: %s needs a value\n", a.c_str());
        std::exit(1);
      }
      return argv[++i];
    };
    try {
      if (a == "--shapes")
        o.shapes = value();
      else if (a == "--reps")
        o.reps = std::stoi(value());
      else if (a == "--warmup")
        o.warmup = std::stoi(value());
      else if (a == "--min-sample-ms")
        o.min_sample_ms = std::stod(value());
      else if (a == "--rotate-bytes")
        o.rotate_bytes = std::stod(value());
      else if (a == "--max-buffer-sets")
        o.max_buffer_sets = std::stoi(value());
      else if (a == "--alpha")
        o.alpha = std::stod(value());
      else if (a == "--beta")
        o.beta = std::stod(value());
      else if (a == "--seed")
        o.seed = std::stoull(value());
      else if (a == "--csv")
        o.csv = value();
      else if (a == "--git-sha")
        o.git_sha = value();
      else if (a == "--list-shapes")
        o.list_shapes = true;
      else if (a == "-h" || a == "--help") {
        usage();
        std::exit(0);
      } else {
        std::fprintf(stderr, "cublas_baseline: unknown argument %s\n", a.c_str());
        usage();
        std::exit(1);
      }
    } catch (const std::exception&) {
      std::fprintf(stderr, "cublas_baseline: bad value for %s\n", a.c_str());
      std::exit(1);
    }
  }
  if (o.reps < 10) {
    std::fprintf(stderr, "cublas_baseline: --reps must be >= 10\n");
    std::exit(1);
  }
  o.warmup = std::max(o.warmup, 1);
  o.max_buffer_sets = std::max(o.max_buffer_sets, 1);
  return o;
}

// ---- device helpers ----------------------------------------------------------------------------

template <class T>
__global__ void fill_kernel(T* p, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    p[i] = input_value<T>(seed, i);
}

__device__ inline void store_value(float* p, float v) {
  *p = v;
}
__device__ inline void store_value(__half* p, float v) {
  *p = __float2half_rn(v);
}
__device__ inline void store_value(__nv_bfloat16* p, float v) {
  *p = __float2bfloat16_rn(v);
}

// input_value_bits: the fp16/bf16/tf32 inputs, exact in their format (the conversions do not round).
template <class T>
__global__ void fill_bits_kernel(T* p, std::size_t n, std::uint64_t seed, int bits) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    store_value(p + i, input_value_bits(seed, i, bits));
}

// Complex elements as their (real, imaginary) parts.
template <class T>
struct ComplexOf {
  static constexpr bool value = false;
};
template <>
struct ComplexOf<cuComplex> {
  static constexpr bool value = true;
  using real = float;
};
template <>
struct ComplexOf<cuDoubleComplex> {
  static constexpr bool value = true;
  using real = double;
};

template <class T>
void fill(T* p, std::size_t n, std::uint64_t seed, int bits = 0) {
  constexpr bool narrow = std::is_same<T, __half>::value || std::is_same<T, __nv_bfloat16>::value;
  if constexpr (ComplexOf<T>::value) {
    using R = typename ComplexOf<T>::real;
    fill_kernel<R><<<1024, 256>>>(reinterpret_cast<R*>(p), 2 * n, seed);
  } else if constexpr (narrow) {
    fill_bits_kernel<T><<<1024, 256>>>(p, n, seed, bits);
  } else if constexpr (std::is_same<T, float>::value) {
    if (bits > 0)
      fill_bits_kernel<T><<<1024, 256>>>(p, n, seed, bits);
    else
      fill_kernel<T><<<1024, 256>>>(p, n, seed);
  } else {
    fill_kernel<T><<<1024, 256>>>(p, n, seed);
  }
  CUDA_CHECK(cudaGetLastError());
}

// acc[0] += sum out_i^2, acc[1] += sum w_(first + i) out_i (double, as in ridgeline-perf's reduction):
// p is element `first` of the whole output on.
template <class T>
__global__ void signature_kernel(const T* p, std::size_t n, std::size_t first, double* acc) {
  __shared__ double s_sq[256], s_pr[256];
  double sq = 0, pr = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const double v = double(p[i]);
    sq += v * v;
    pr += probe_weight(first + i) * v;
  }
  s_sq[threadIdx.x] = sq;
  s_pr[threadIdx.x] = pr;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      s_sq[threadIdx.x] += s_sq[threadIdx.x + s];
      s_pr[threadIdx.x] += s_pr[threadIdx.x + s];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    atomicAdd(&acc[0], s_sq[0]);
    atomicAdd(&acc[1], s_pr[0]);
  }
}

// The signature of the check run's output over check_matrices(s) (the whole output for a single
// product), each `per` elements long.
// Complex outputs: over their parts, element i's at 2i and 2i + 1, as ridgeline-perf's signature does.
template <class T>
void signature(const T* p, const ShapeSpec& s, double* d_acc, double& norm, double& probe) {
  const std::size_t per = std::size_t(s.matrix_out_elems());
  CUDA_CHECK(cudaMemset(d_acc, 0, 2 * sizeof(double)));
  for (const std::int64_t g : check_matrices(s)) {
    const std::size_t first = std::size_t(g) * per;
    if constexpr (ComplexOf<T>::value) {
      using R = typename ComplexOf<T>::real;
      signature_kernel<R><<<512, 256>>>(reinterpret_cast<const R*>(p + first), 2 * per, 2 * first, d_acc);
    } else {
      signature_kernel<T><<<512, 256>>>(p + first, per, first, d_acc);
    }
    CUDA_CHECK(cudaGetLastError());
  }
  double h[2];
  CUDA_CHECK(cudaMemcpy(h, d_acc, sizeof h, cudaMemcpyDeviceToHost));
  norm = std::sqrt(h[0]);
  probe = h[1];
}

template <class T>
T* device_alloc(std::size_t n) {
  void* p = nullptr;
  CUDA_CHECK(cudaMalloc(&p, n * sizeof(T)));
  return static_cast<T*>(p);
}

// ---- cuBLAS calls --------------------------------------------------------------------------------

cublasOperation_t op_of(char t) {
  return t == 'N' ? CUBLAS_OP_N : t == 'C' ? CUBLAS_OP_C : CUBLAS_OP_T;
}

void gemm_call(cublasHandle_t h, const ShapeSpec& s, const float* alpha, const float* A, const float* B,
               const float* beta, float* C) {
  CUBLAS_CHECK(cublasSgemm(h, op_of(s.trans_a()), op_of(s.trans_b()), int(s.m), int(s.n), int(s.k), alpha, A,
                           int(s.a_rows()), B, int(s.b_rows()), beta, C, int(s.m)));
}
void gemm_call(cublasHandle_t h, const ShapeSpec& s, const double* alpha, const double* A, const double* B,
               const double* beta, double* C) {
  CUBLAS_CHECK(cublasDgemm(h, op_of(s.trans_a()), op_of(s.trans_b()), int(s.m), int(s.n), int(s.k), alpha, A,
                           int(s.a_rows()), B, int(s.b_rows()), beta, C, int(s.m)));
}
void gemv_call(cublasHandle_t h, const ShapeSpec& s, const float* alpha, const float* A, const float* x,
               const float* beta, float* y) {
  CUBLAS_CHECK(cublasSgemv(h, op_of(s.trans_a()), int(s.m), int(s.n), alpha, A, int(s.m), x, 1, beta, y, 1));
}
void gemv_call(cublasHandle_t h, const ShapeSpec& s, const double* alpha, const double* A, const double* x,
               const double* beta, double* y) {
  CUBLAS_CHECK(cublasDgemv(h, op_of(s.trans_a()), int(s.m), int(s.n), alpha, A, int(s.m), x, 1, beta, y, 1));
}

void gemm_call(cublasHandle_t h, const ShapeSpec& s, const cuComplex* alpha, const cuComplex* A,
               const cuComplex* B, const cuComplex* beta, cuComplex* C) {
  CUBLAS_CHECK(cublasCgemm(h, op_of(s.trans_a()), op_of(s.trans_b()), int(s.m), int(s.n), int(s.k), alpha, A,
                           int(s.a_rows()), B, int(s.b_rows()), beta, C, int(s.m)));
}
void gemm_call(cublasHandle_t h, const ShapeSpec& s, const cuDoubleComplex* alpha, const cuDoubleComplex* A,
               const cuDoubleComplex* B, const cuDoubleComplex* beta, cuDoubleComplex* C) {
  CUBLAS_CHECK(cublasZgemm(h, op_of(s.trans_a()), op_of(s.trans_b()), int(s.m), int(s.n), int(s.k), alpha, A,
                           int(s.a_rows()), B, int(s.b_rows()), beta, C, int(s.m)));
}
void gemv_call(cublasHandle_t h, const ShapeSpec& s, const cuComplex* alpha, const cuComplex* A,
               const cuComplex* x, const cuComplex* beta, cuComplex* y) {
  CUBLAS_CHECK(cublasCgemv(h, op_of(s.trans_a()), int(s.m), int(s.n), alpha, A, int(s.m), x, 1, beta, y, 1));
}
void gemv_call(cublasHandle_t h, const ShapeSpec& s, const cuDoubleComplex* alpha, const cuDoubleComplex* A,
               const cuDoubleComplex* x, const cuDoubleComplex* beta, cuDoubleComplex* y) {
  CUBLAS_CHECK(cublasZgemv(h, op_of(s.trans_a()), int(s.m), int(s.n), alpha, A, int(s.m), x, 1, beta, y, 1));
}

// alpha and beta (real, from the command line) in the compute type.
template <class T>
T scalar_of(double v) {
  if constexpr (std::is_same<T, cuComplex>::value)
    return make_cuComplex(float(v), 0.0f);
  else if constexpr (std::is_same<T, cuDoubleComplex>::value)
    return make_cuDoubleComplex(v, 0.0);
  else
    return T(v);
}

// A batch: A, B and C each hold their matrices one after another, rows x cols as stored apart.
void gemm_batched_call(cublasHandle_t h, const ShapeSpec& s, const float* alpha, const float* A,
                       const float* B, const float* beta, float* C) {
  CUBLAS_CHECK(cublasSgemmStridedBatched(h, op_of(s.trans_a()), op_of(s.trans_b()), int(s.m), int(s.n),
                                         int(s.k), alpha, A, int(s.a_rows()), s.a_rows() * s.a_cols(), B,
                                         int(s.b_rows()), s.b_rows() * s.b_cols(), beta, C, int(s.m),
                                         s.m * s.n, int(s.batch)));
}
void gemm_batched_call(cublasHandle_t h, const ShapeSpec& s, const double* alpha, const double* A,
                       const double* B, const double* beta, double* C) {
  CUBLAS_CHECK(cublasDgemmStridedBatched(h, op_of(s.trans_a()), op_of(s.trans_b()), int(s.m), int(s.n),
                                         int(s.k), alpha, A, int(s.a_rows()), s.a_rows() * s.a_cols(), B,
                                         int(s.b_rows()), s.b_rows() * s.b_cols(), beta, C, int(s.m),
                                         s.m * s.n, int(s.batch)));
}

// 16-bit inputs, float outputs, FP32 compute (fp16, bf16).
template <class In>
cudaDataType_t cuda_type();
template <>
cudaDataType_t cuda_type<__half>() {
  return CUDA_R_16F;
}
template <>
cudaDataType_t cuda_type<__nv_bfloat16>() {
  return CUDA_R_16BF;
}

template <class In>
void gemm_call(cublasHandle_t h, const ShapeSpec& s, const float* alpha, const In* A, const In* B,
               const float* beta, float* C) {
  CUBLAS_CHECK(cublasGemmEx(h, op_of(s.trans_a()), op_of(s.trans_b()), int(s.m), int(s.n), int(s.k), alpha, A,
                            cuda_type<In>(), int(s.a_rows()), B, cuda_type<In>(), int(s.b_rows()), beta, C,
                            CUDA_R_32F, int(s.m), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}
void gemv_call(cublasHandle_t h, const ShapeSpec& s, const float* alpha, const __half* A, const __half* x,
               const float* beta, float* y) {
  CUBLAS_CHECK(cublasHSSgemvStridedBatched(h, op_of(s.trans_a()), int(s.m), int(s.n), alpha, A, int(s.m),
                                           s.m * s.n, x, 1, s.x_len(), beta, y, 1, s.y_len(), 1));
}
void gemv_call(cublasHandle_t h, const ShapeSpec& s, const float* alpha, const __nv_bfloat16* A,
               const __nv_bfloat16* x, const float* beta, float* y) {
  CUBLAS_CHECK(cublasTSSgemvStridedBatched(h, op_of(s.trans_a()), int(s.m), int(s.n), alpha, A, int(s.m),
                                           s.m * s.n, x, 1, s.x_len(), beta, y, 1, s.y_len(), 1));
}
// TF32: float in and out, products on the tensor cores' TF32 path.
void gemm_tf32_call(cublasHandle_t h, const ShapeSpec& s, const float* alpha, const float* A, const float* B,
                    const float* beta, float* C) {
  CUBLAS_CHECK(cublasGemmEx(h, op_of(s.trans_a()), op_of(s.trans_b()), int(s.m), int(s.n), int(s.k), alpha, A,
                            CUDA_R_32F, int(s.a_rows()), B, CUDA_R_32F, int(s.b_rows()), beta, C, CUDA_R_32F,
                            int(s.m), CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
}

// What each row calls, for the config column and the README.
std::string call_name(const ShapeSpec& s) {
  const bool gemm = s.op == Op::gemm;
  if (s.batch > 1) {
    const std::string batch = "(matrices rows x cols apart)";
    if (s.precision == Precision::fp32) return "cublasSgemmStridedBatched" + batch;
    if (s.precision == Precision::fp64) return "cublasDgemmStridedBatched" + batch;
    return "-";
  }
  switch (s.precision) {
    case Precision::fp32:
      return gemm ? "cublasSgemm" : "cublasSgemv";
    case Precision::fp64:
      return gemm ? "cublasDgemm" : "cublasDgemv";
    case Precision::fp16:
      return gemm ? "cublasGemmEx(A,B CUDA_R_16F; C CUDA_R_32F; CUBLAS_COMPUTE_32F; CUBLAS_GEMM_DEFAULT)"
                  : "cublasHSSgemvStridedBatched(batch 1; A,x __half; y float; FP32 compute)";
    case Precision::bf16:
      return gemm ? "cublasGemmEx(A,B CUDA_R_16BF; C CUDA_R_32F; CUBLAS_COMPUTE_32F; CUBLAS_GEMM_DEFAULT)"
                  : "cublasTSSgemvStridedBatched(batch 1; A,x __nv_bfloat16; y float; FP32 compute)";
    case Precision::tf32:
      return gemm ? "cublasGemmEx(A,B,C CUDA_R_32F; CUBLAS_COMPUTE_32F_FAST_TF32; CUBLAS_GEMM_DEFAULT)"
                  : "cublasSgemv (TF32 does not apply to GEMV)";
    case Precision::cf32:
      return gemm ? "cublasCgemm" : "cublasCgemv";
    case Precision::cf64:
      return gemm ? "cublasZgemm" : "cublasZgemv";
  }
  return "?";
}

template <class In, class Out>
struct BufferSet {
  In* a = nullptr;
  In* b = nullptr;   // B (GEMM) or x (GEMV)
  Out* c = nullptr;  // C (GEMM) or y (GEMV)
};

struct Math {
  cublasMath_t mode;
  const char* name;
};

// In: A and B (A and x); Out: C (y). Out is In except for fp16/bf16 (float out).
template <class In, class Out = In>
std::vector<PerfRecord> run_shape(cublasHandle_t h, const ShapeSpec& s, const Options& opt,
                                  double rotate_bytes, const std::string& config, double* d_acc) {
  const bool gemm = s.op == Op::gemm;
  const bool batched = s.batch > 1;
  // Whole tensors: a batch's matrices one after another, in the storage order ridgeline-perf fills.
  const std::size_t na = std::size_t(s.a_rows() * s.a_cols() * s.batch);
  const std::size_t nb = gemm ? std::size_t(s.b_rows() * s.b_cols() * s.batch) : std::size_t(s.x_len());
  const std::size_t nc = std::size_t(s.out_elems());
  const double set_bytes = double(na + nb) * sizeof(In) + double(nc) * sizeof(Out);
  const int n_sets = case_footprint(s, rotate_bytes, opt.max_buffer_sets).sets;
  const int bits = input_bits(s.precision);  // A, B, x as ridgeline-perf draws them; C, y full width

  std::vector<BufferSet<In, Out>> sets(static_cast<std::size_t>(n_sets));
  for (int i = 0; i < n_sets; ++i) {
    auto& b = sets[std::size_t(i)];
    b.a = device_alloc<In>(na);
    b.b = device_alloc<In>(nb);
    b.c = device_alloc<Out>(nc);
    fill(b.a, na, tensor_seed(opt.seed, Tensor::a, i), bits);
    fill(b.b, nb, tensor_seed(opt.seed, gemm ? Tensor::b : Tensor::x, i), bits);
    fill(b.c, nc, tensor_seed(opt.seed, gemm ? Tensor::c : Tensor::y, i));
  }
  Out* out = device_alloc<Out>(nc);
  CUDA_CHECK(cudaDeviceSynchronize());

  // alpha and beta in the compute type: float for everything but fp64 and the complex types.
  const Out alpha = scalar_of<Out>(opt.alpha), beta = scalar_of<Out>(opt.beta);
  const bool tf32 = s.precision == Precision::tf32;
  auto call = [&](const In* a, const In* b, Out* c) {
    if constexpr (std::is_same<In, Out>::value && !ComplexOf<In>::value) {
      if (batched) {  // fp32 and fp64 (main skips the other dtypes)
        gemm_batched_call(h, s, &alpha, a, b, &beta, c);
        return;
      }
    }
    if constexpr (std::is_same<In, float>::value) {
      if (gemm && tf32) {
        gemm_tf32_call(h, s, &alpha, a, b, &beta, c);
        return;
      }
    }
    if (gemm)
      gemm_call(h, s, &alpha, a, b, &beta, c);
    else
      gemv_call(h, s, &alpha, a, b, &beta, c);
  };

  std::vector<Math> maths;
  if (s.precision == Precision::fp32 || s.precision == Precision::cf32)
    maths = {{CUBLAS_PEDANTIC_MATH, "pedantic"}};
  else if (gemm && s.precision == Precision::fp64)
    maths = {{CUBLAS_DEFAULT_MATH, "default"}, {CUBLAS_PEDANTIC_MATH, "pedantic"}};
  else
    maths = {{CUBLAS_DEFAULT_MATH, "default"}};  // fp64 GEMV; fp16, bf16, tf32; cf64

  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<PerfRecord> rows;
  for (const Math& math : maths) {
    CUBLAS_CHECK(cublasSetMathMode(h, math.mode));
    PerfRecord r;
    r.shape = s;
    r.impl = "cublas";
    r.math = math.name;
    r.config = config + " " + call_name(s);
    r.alpha = opt.alpha;
    r.beta = opt.beta;
    r.buffer_sets = n_sets;
    r.rotate_bytes = set_bytes * n_sets;
    r.check = "-";

    // The check run: set 0's inputs, a freshly filled output, exactly as ridgeline-perf does it.
    fill(out, nc, tensor_seed(opt.seed, Tensor::check_out, 0));
    call(sets[0].a, sets[0].b, out);
    CUDA_CHECK(cudaDeviceSynchronize());
    signature(out, s, d_acc, r.out_norm, r.out_probe);

    int next = 0;
    auto batch = [&](int calls) {
      CUDA_CHECK(cudaEventRecord(start));
      for (int i = 0; i < calls; ++i) {
        const auto& b = sets[std::size_t(next)];
        call(b.a, b.b, b.c);
        next = (next + 1) % n_sets;
      }
      CUDA_CHECK(cudaEventRecord(stop));
      CUDA_CHECK(cudaEventSynchronize(stop));
      float ms = 0;
      CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
      return double(ms) / calls;
    };
    double last = 0;
    for (int w = 0; w < opt.warmup; ++w) last = batch(1);
    int per_sample = 1;
    if (last > 0 && last < opt.min_sample_ms)
      per_sample = std::min(256, int(std::ceil(opt.min_sample_ms / last)));
    std::vector<double> t;
    for (int i = 0; i < opt.reps; ++i) t.push_back(batch(per_sample));
    std::sort(t.begin(), t.end());
    const std::size_t n = t.size();
    r.median_ms = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    r.min_ms = t.front();
    r.max_ms = t.back();
    r.samples = int(n);
    r.calls_per_sample = per_sample;
    r.gflops = s.flops() / (r.median_ms * 1e-3) * 1e-9;
    r.gbs = ideal_bytes(s, opt.beta != 0.0) / (r.median_ms * 1e-3) * 1e-9;
    r.intensity = s.flops() / ideal_bytes(s, opt.beta != 0.0);
    rows.push_back(r);
  }
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  for (auto& b : sets) {
    CUDA_CHECK(cudaFree(b.a));
    CUDA_CHECK(cudaFree(b.b));
    CUDA_CHECK(cudaFree(b.c));
  }
  CUDA_CHECK(cudaFree(out));
  return rows;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  const Options opt = parse_args(argc, argv);
  std::vector<ShapeSpec> shapes;
  try {
    shapes = parse_shapes(opt.shapes);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cublas_baseline: %s\n", e.what());
    return 1;
  }
  if (opt.list_shapes) {
    for (const auto& s : shapes) std::printf("%s\n", spec_string(s).c_str());
    return 0;
  }

  int dev = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
  cublasHandle_t h;
  CUBLAS_CHECK(cublasCreate(&h));
  int version = 0;
  CUBLAS_CHECK(cublasGetVersion(h, &version));
  // alpha/beta are host scalars.
  CUBLAS_CHECK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
  const std::string config = "cuBLAS " + std::to_string(version);

  const double l2 = prop.l2CacheSize > 0 ? double(prop.l2CacheSize) : 64.0 * (1 << 20);
  const double rotate_bytes = opt.rotate_bytes >= 0 ? opt.rotate_bytes : 3.0 * l2;
  // The same check as ridgeline-perf's: a shape too large for the device is a usage error naming it,
  // before the first cudaMalloc.
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  try {
    check_shapes_fit(shapes, rotate_bytes, opt.max_buffer_sets, free_bytes,
                     "the free memory of the CUDA device");
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "cublas_baseline: %s\n", e.what());
    return 1;
  }

  RunInfo info;
  for (int i = 0; i < argc; ++i) info.command += std::string(i ? " " : "") + argv[i];
  info.git_sha = opt.git_sha;
  info.date_utc = utc_now();
  info.device = prop.name;
  info.backend = "cuda";

  std::printf(
      "cublas_baseline: %s, %s, L2 %.0f MiB, rotation %.0f MiB/case; median of %d samples after %d "
      "warm-up calls\n",
      prop.name, config.c_str(), l2 / (1 << 20), rotate_bytes / (1 << 20), opt.reps, opt.warmup);
  double* d_acc = device_alloc<double>(2);
  std::vector<PerfRecord> rows;
  for (const auto& s : shapes) {
    std::vector<PerfRecord> r;
    if (s.batch > 1 && s.precision != Precision::fp32 && s.precision != Precision::fp64) {
      std::printf("%-34s skipped: the strided-batched baseline covers fp32 and fp64 only\n",
                  spec_string(s).c_str());
      continue;
    }
    if (s.batch > 2147483647LL) {
      std::printf("%-34s skipped: cuBLAS takes an int batch count\n", spec_string(s).c_str());
      continue;
    }
    switch (s.precision) {
      case Precision::fp32:
      case Precision::tf32:
        r = run_shape<float>(h, s, opt, rotate_bytes, config, d_acc);
        break;
      case Precision::fp64:
        r = run_shape<double>(h, s, opt, rotate_bytes, config, d_acc);
        break;
      case Precision::fp16:
        r = run_shape<__half, float>(h, s, opt, rotate_bytes, config, d_acc);
        break;
      case Precision::bf16:
        r = run_shape<__nv_bfloat16, float>(h, s, opt, rotate_bytes, config, d_acc);
        break;
      case Precision::cf32:
        r = run_shape<cuComplex>(h, s, opt, rotate_bytes, config, d_acc);
        break;
      case Precision::cf64:
        r = run_shape<cuDoubleComplex>(h, s, opt, rotate_bytes, config, d_acc);
        break;
    }
    for (const auto& x : r)
      std::printf("%-34s %-9s %10.4f ms %10.1f GFLOP/s %8.1f GB/s  %s\n", spec_string(s).c_str(),
                  x.math.c_str(), x.median_ms, x.gflops, x.gbs, call_name(s).c_str());
    rows.insert(rows.end(), r.begin(), r.end());
  }
  CUDA_CHECK(cudaFree(d_acc));
  CUBLAS_CHECK(cublasDestroy(h));

  if (!opt.csv.empty()) {
    std::ofstream f(opt.csv);
    if (!f) {
      std::fprintf(stderr, "cublas_baseline: cannot write %s\n", opt.csv.c_str());
      return 1;
    }
    write_csv_header(f);
    for (const auto& r : rows) write_csv_row(f, r, info);
  }
  return 0;
}
