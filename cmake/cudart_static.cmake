# Link the CUDA runtime statically, so CUDA binaries built here (CUDA 11.8) run on a GPU machine
# that has only a newer toolkit and no libcudart.so.11.0. Kokkos' package config defines
# CUDA::cudart as the shared library unless the target already exists, so this must run before
# find_package(Kokkos). Harmless for host builds, which never link CUDA::cudart.
option(RIDGELINE_CUDART_STATIC "Link the CUDA runtime statically in CUDA builds" ON)
if(RIDGELINE_CUDART_STATIC AND NOT TARGET CUDA::cudart)
  find_library(RIDGELINE_CUDART_STATIC_LIB NAMES cudart_static
               HINTS ${CUDAToolkit_ROOT} ENV CUDA_ROOT PATH_SUFFIXES lib64 lib lib/x86_64-linux-gnu)
  if(RIDGELINE_CUDART_STATIC_LIB)
    find_package(Threads REQUIRED)
    add_library(CUDA::cudart STATIC IMPORTED)
    set_target_properties(CUDA::cudart PROPERTIES IMPORTED_LOCATION "${RIDGELINE_CUDART_STATIC_LIB}"
                                                  INTERFACE_LINK_LIBRARIES "Threads::Threads;${CMAKE_DL_LIBS};rt")
  endif()
endif()
