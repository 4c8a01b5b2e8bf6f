#pragma once
// Ridgeline: tiled GEMM/GEMV on Kokkos team policies, with a roofline of every run.
#include "ridgeline/gemm.hpp"
#include "ridgeline/gemm_batched.hpp"
#include "ridgeline/gemm_grouped.hpp"
#include "ridgeline/gemv.hpp"
#include "ridgeline/gemv_batched.hpp"
#include "ridgeline/half.hpp"
#include "ridgeline/library_info.hpp"
#include "ridgeline/team_gemm.hpp"
#include "ridgeline/tile_config.hpp"
#include "ridgeline/tune.hpp"
