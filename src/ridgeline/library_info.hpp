#pragma once
#include <string>

namespace ridgeline {

// Ridgeline's version, "MAJOR.MINOR.PATCH".
std::string version();

// The Kokkos this library was compiled against and the backends it enables, e.g.
// "Kokkos 3.4.01 [Cuda,OpenMP,Serial]", followed in CUDA builds by the matrix units the build can use,
// "; cuda matrix units: wgmma (sm_90a route)". Perf records carry it so a number names its stack.
std::string kokkos_description();

// Which tensor-core instructions this build's CUDA kernels can use: "wgmma (sm_90a route)" for a
// build through the PTX-8 / sm_90a route (RIDGELINE_HAVE_SM90A), "mma.sync only" for a plain
// CUDA 11.8 build, and "" without the CUDA backend.
std::string cuda_matrix_units();

}  // namespace ridgeline
