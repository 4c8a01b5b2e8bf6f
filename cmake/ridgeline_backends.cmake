# Which Kokkos backends this build runs Ridgeline on. Tests and perf binaries are written once and
# compiled once per enabled backend, with RIDGELINE_TEST_EXEC_SPACE naming the execution space.
set(RIDGELINE_BACKENDS "")
if(Kokkos_ENABLE_CUDA)
  list(APPEND RIDGELINE_BACKENDS cuda)
endif()
if(Kokkos_ENABLE_HIP)
  list(APPEND RIDGELINE_BACKENDS hip)
endif()
# A device build's host spaces run the same host code the host build already tests; compiling
# their tests again through the device compiler only costs CI time, so it is opt-in there.
if(Kokkos_ENABLE_CUDA OR Kokkos_ENABLE_HIP)
  option(RIDGELINE_TEST_HOST_BACKENDS "Also build kernel tests for host spaces in a device build" OFF)
else()
  set(RIDGELINE_TEST_HOST_BACKENDS ON)
endif()
if(Kokkos_ENABLE_OPENMP AND RIDGELINE_TEST_HOST_BACKENDS)
  list(APPEND RIDGELINE_BACKENDS openmp)
endif()
if(Kokkos_ENABLE_SERIAL AND RIDGELINE_TEST_HOST_BACKENDS)
  list(APPEND RIDGELINE_BACKENDS serial)
endif()
set(RIDGELINE_EXEC_SPACE_cuda "Kokkos::Cuda")
set(RIDGELINE_EXEC_SPACE_hip "Kokkos::Experimental::HIP")
set(RIDGELINE_EXEC_SPACE_openmp "Kokkos::OpenMP")
set(RIDGELINE_EXEC_SPACE_serial "Kokkos::Serial")
message(STATUS "Ridgeline backends: ${RIDGELINE_BACKENDS}")

# The first enabled backend is the one the perf suite and the CLI treat as "the device".
list(GET RIDGELINE_BACKENDS 0 RIDGELINE_DEFAULT_BACKEND)

# Kernel tests built for Kokkos::Serial as well as OpenMP: "all", or a list of test names. The two host
# spaces run the same kernels (Serial on one thread), so CI's host build (scripts/test.sh) keeps only
# test_validation on Serial, for time: for Serial alone, test_gemm took 428 s and test_gemm_batched 251 s
# of compile on CI's two cores (5aa4713), before test_gemv's and the grouped tests'.
set(RIDGELINE_SERIAL_TESTS "all" CACHE STRING "Kernel tests also built for Kokkos::Serial: all, or a list of names")

# ridgeline_add_backend_test(<name> <source>...): one executable and one ctest entry per backend.
# The kernel tests allocate, fill and free operands of 10-200 MB per case (a 20000 x 1000 GEMV's A, its host
# copies and its reference). glibc serves each from a fresh mmap and gives it back on free, so every case
# faults in and zeroes new pages again. ctest runs them with glibc's malloc keeping that memory instead
# (the thresholds are tunables only: mallopt caps M_MMAP_THRESHOLD at 32 MB). Measured on two cores of a
# VM (2026-12-02, OMP_NUM_THREADS=2): test_gemv_openmp 52.0 s -> 13.8 s (CPU 68 -> 18 s), test_gemm_openmp
# 37.3 -> 32.3 s, peak memory 664 -> 790 MB.
set(RIDGELINE_TEST_MALLOC_TUNABLES
    "GLIBC_TUNABLES=glibc.malloc.mmap_threshold=4294967296:glibc.malloc.trim_threshold=68719476736")

function(ridgeline_add_backend_test name)
  foreach(be IN LISTS RIDGELINE_BACKENDS)
    if(be STREQUAL "serial" AND NOT RIDGELINE_SERIAL_TESTS STREQUAL "all" AND NOT name IN_LIST RIDGELINE_SERIAL_TESTS)
      continue()
    endif()
    set(exe ${name}_${be})
    add_executable(${exe} ${ARGN})
    target_link_libraries(${exe} PRIVATE Ridgeline::ridgeline GTest::gtest ridgeline_test_main)
    target_compile_definitions(${exe} PRIVATE RIDGELINE_TEST_EXEC_SPACE=${RIDGELINE_EXEC_SPACE_${be}}
                                              RIDGELINE_TEST_BACKEND="${be}")
    add_test(NAME ${exe} COMMAND ${exe})
    set_tests_properties(${exe} PROPERTIES ENVIRONMENT "${RIDGELINE_TEST_MALLOC_TUNABLES}")
  endforeach()
endfunction()

# ridgeline_add_host_test(<name> <source>...): host-only code (roofline, specs, CLI parsing).
function(ridgeline_add_host_test name)
  add_executable(${name} ${ARGN})
  target_link_libraries(${name} PRIVATE Ridgeline::ridgeline GTest::gtest ridgeline_test_main)
  add_test(NAME ${name} COMMAND ${name})
endfunction()
