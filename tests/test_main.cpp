#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <cstdlib>

int main(int argc, char** argv) {
  // A tune cache on the machine (ridgeline/tune_cache.hpp) would change what gemm runs: the tests run the
  // table's plans unless a test points RIDGELINE_TUNE_CACHE at a file of its own.
  ::setenv("RIDGELINE_TUNE_CACHE", "", 1);
  ::testing::InitGoogleTest(&argc, argv);
  Kokkos::ScopeGuard kokkos(argc, argv);
  return RUN_ALL_TESTS();
}
