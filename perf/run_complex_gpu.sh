#!/usr/bin/env bash
# Issue 18's GPU run (complex GEMM/GEMV), on the GPU machine from the repository root:
#
#   perf/run_complex_gpu.sh BIN_DIR [OUT_DIR]
#
# BIN_DIR: test_gemm_cuda, test_gemv_cuda and ridgeline-perf of a CUDA build (scripts/build.sh cuda, then
# scripts/gpu_bundle.sh: .out/cuda). This is perf/run_gpu.sh with the complex cases only:
#   - the complex GoogleTest cases (*Complex*: ComplexGemm*, ComplexGemv*, All/ComplexGemm*...) at full size,
#   - ridgeline-perf --shapes complex and cublas_baseline on the same shapes (cublasZgemm in default math,
#     cublasCgemm pedantic, cublasZgemv / cublasCgemv), merged (merged.md: ratio against cuBLAS),
#   - compute-sanitizer memcheck and racecheck on the complex cases at reduced size.
# Environment knobs as for run_gpu.sh; SHAPES may name other complex shapes, e.g.
# SHAPES=gemm:NN:4096x4096x4096:cf64,gemv:C:8192x8192:cf32.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export SHAPES=${SHAPES:-complex}
export GTEST_FILTER=${GTEST_FILTER:-*Complex*}
export SANITIZER_FILTER=${SANITIZER_FILTER:-*Complex*}
exec "$here/run_gpu.sh" "$@"
