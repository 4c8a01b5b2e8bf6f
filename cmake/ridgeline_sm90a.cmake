# The PTX-8 / sm_90a route: Hopper's wgmma (and setmaxnreg, TMA) with CUDA 11.8's front end.
#
# Kokkos 3.4 builds only with CUDA 11.8, which knows neither PTX ISA 8.0 nor the sm_90a target that
# wgmma needs. nvcc 11.8 passes inline PTX through untouched and finds ptxas and fatbinary by PATH,
# so Ridgeline's own objects are compiled through scripts/sm90a/launch, which puts two shims first
# on PATH: ptxas assembles the sm_90 PTX for sm_90a with a CUDA >= 12 ptxas, and fatbinary is the
# newer toolkit's (11.8's rejects the new cubins). Kokkos's library stays as it was built.
#
#   RIDGELINE_CUDA_SM90A       AUTO (default): on when a CUDA >= 12 ptxas and fatbinary are found
#                              in RIDGELINE_SM90A_CUDA_ROOT/bin; ON: required; OFF: plain CUDA 11.8
#                              (mma.sync only).
#   RIDGELINE_SM90A_CUDA_ROOT  that toolkit (default /usr/local/cuda)
#   RIDGELINE_SM90A_TOOLS      the folder with launch, ptxas and fatbinary (default: scripts/sm90a;
#                              scripts/build.sh passes the copy bootstrap.sh installs in .deps/bin/sm90a)
#
# Sets RIDGELINE_HAVE_SM90A (0/1), which config.hpp exports. With the route on, every Ridgeline
# kernel is assembled by the newer ptxas, not only the ones that use wgmma.
set(RIDGELINE_CUDA_SM90A AUTO CACHE STRING "PTX-8 / sm_90a route (wgmma) for the CUDA backend: AUTO, ON or OFF")
set_property(CACHE RIDGELINE_CUDA_SM90A PROPERTY STRINGS AUTO ON OFF)
set(RIDGELINE_SM90A_CUDA_ROOT /usr/local/cuda CACHE PATH "CUDA >= 12 toolkit whose ptxas and fatbinary the sm_90a route uses")
set(RIDGELINE_SM90A_TOOLS ${PROJECT_SOURCE_DIR}/scripts/sm90a CACHE PATH "Folder with the sm_90a route's launch, ptxas and fatbinary shims")

set(RIDGELINE_HAVE_SM90A 0)
string(TOUPPER "${RIDGELINE_CUDA_SM90A}" _rl_sm90a)
if(NOT _rl_sm90a MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "RIDGELINE_CUDA_SM90A must be AUTO, ON or OFF, not '${RIDGELINE_CUDA_SM90A}'")
endif()

if(Kokkos_ENABLE_CUDA)
  set(_rl_why "")
  if(_rl_sm90a STREQUAL "OFF")
    set(_rl_why "RIDGELINE_CUDA_SM90A=OFF")
  else()
    find_program(RIDGELINE_SM90A_PTXAS ptxas PATHS ${RIDGELINE_SM90A_CUDA_ROOT}/bin NO_DEFAULT_PATH)
    find_program(RIDGELINE_SM90A_FATBINARY fatbinary PATHS ${RIDGELINE_SM90A_CUDA_ROOT}/bin NO_DEFAULT_PATH)
    set(_rl_ptxas_version "")
    if(RIDGELINE_SM90A_PTXAS)
      execute_process(COMMAND ${RIDGELINE_SM90A_PTXAS} --version OUTPUT_VARIABLE _rl_out ERROR_QUIET)
      if(_rl_out MATCHES "release ([0-9]+\\.[0-9]+)")
        set(_rl_ptxas_version ${CMAKE_MATCH_1})
      endif()
    endif()
    if(NOT RIDGELINE_SM90A_PTXAS OR NOT RIDGELINE_SM90A_FATBINARY)
      set(_rl_why "no ptxas and fatbinary in ${RIDGELINE_SM90A_CUDA_ROOT}/bin")
    elseif(_rl_ptxas_version VERSION_LESS 12.0)
      set(_rl_why "${RIDGELINE_SM90A_PTXAS} is release '${_rl_ptxas_version}', sm_90a needs 12.0 or later")
    else()
      foreach(_rl_tool launch ptxas fatbinary)
        if(NOT EXISTS ${RIDGELINE_SM90A_TOOLS}/${_rl_tool})
          set(_rl_why "${RIDGELINE_SM90A_TOOLS}/${_rl_tool} is missing")
        endif()
      endforeach()
    endif()
    if(_rl_why STREQUAL "")
      set(RIDGELINE_HAVE_SM90A 1)
      get_filename_component(_rl_bin ${RIDGELINE_SM90A_PTXAS} DIRECTORY)
      # A variable in this directory scope: it initializes every target created after this point,
      # i.e. Ridgeline's own; an existing launcher (ccache) runs inside ours.
      set(CMAKE_CXX_COMPILER_LAUNCHER ${RIDGELINE_SM90A_TOOLS}/launch ${_rl_bin} ${CMAKE_CXX_COMPILER_LAUNCHER})
      # Links too: nvcc's link step runs nvlink and fatbinary, and they must see the same tools.
      set(CMAKE_CXX_LINKER_LAUNCHER ${RIDGELINE_SM90A_TOOLS}/launch ${_rl_bin} ${CMAKE_CXX_LINKER_LAUNCHER})
      message(STATUS "Ridgeline CUDA matrix units: wgmma (sm_90a route: ptxas/fatbinary ${_rl_ptxas_version} from ${_rl_bin})")
    elseif(_rl_sm90a STREQUAL "ON")
      message(FATAL_ERROR "RIDGELINE_CUDA_SM90A=ON, but the sm_90a route is unavailable: ${_rl_why}")
    endif()
  endif()
  if(NOT RIDGELINE_HAVE_SM90A)
    message(STATUS "Ridgeline CUDA matrix units: mma.sync only (${_rl_why})")
  endif()
endif()
