#pragma once
#include <string>

namespace ridgeline {

// Ridgeline's version, "MAJOR.MINOR.PATCH".
std::string version();

// The Kokkos this library was compiled against and the backends it enables, e.g.
// "Kokkos 3.4.01 [Cuda,OpenMP,Serial]". Perf records carry it so a number names its stack.
std::string kokkos_description();

}  // namespace ridgeline
