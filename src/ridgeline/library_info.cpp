#include "ridgeline/library_info.hpp"

#include <Kokkos_Core.hpp>
#include <ridgeline/config.hpp>

namespace ridgeline {

std::string version() {
  return RIDGELINE_VERSION_STRING;
}

std::string kokkos_description() {
  const int v = KOKKOS_VERSION;
  std::string s = "Kokkos " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
                  (v % 100 < 10 ? "0" : "") + std::to_string(v % 100) + " [";
  const char* sep = "";
#if defined(KOKKOS_ENABLE_CUDA)
  s += sep, s += "Cuda", sep = ",";
#endif
#if defined(KOKKOS_ENABLE_HIP)
  s += sep, s += "HIP", sep = ",";
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  s += sep, s += "OpenMP", sep = ",";
#endif
#if defined(KOKKOS_ENABLE_SERIAL)
  s += sep, s += "Serial", sep = ",";
#endif
  s += "]";
  const std::string units = cuda_matrix_units();
  if (!units.empty()) s += "; cuda matrix units: " + units;
  return s;
}

std::string cuda_matrix_units() {
#if defined(KOKKOS_ENABLE_CUDA)
  return RIDGELINE_HAVE_SM90A ? "wgmma (sm_90a route)" : "mma.sync only";
#else
  return "";
#endif
}

}  // namespace ridgeline
