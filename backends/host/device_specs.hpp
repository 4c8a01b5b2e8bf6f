#pragma once
// Host CPUs have no built-in entries: a CPU's spec is derived at run time from the OS (see
// derive_host_spec). What the OS cannot tell is assumed here, and specs built with it say they are
// estimates.
#include <ridgeline/device_spec.hpp>

namespace ridgeline {
namespace host_data {

inline HostDerivationRules host_derivation_rules() {
  HostDerivationRules r;
  // Two FMA ports per core: Intel since Haswell and AMD since Zen 2 (for 256-bit). Xeons with a
  // single AVX-512 FMA unit reach half the derived AVX-512 peak.
  r.fma_pipes_per_core = 2;
  // The OS reports no memory bandwidth. A few GB/s per core is a placeholder for the roofline's
  // slope only; a STREAM figure in a --file spec replaces it.
  r.dram_bw_bytes_per_s_per_core = 8e9;
  // An OpenMP parallel region's fork and join.
  r.launch_overhead_s = 2e-6;
  // Kokkos 3.4 OpenMP/Serial TeamPolicy::scratch_size_max(0) ("roughly L1 size").
  r.max_team_scratch_bytes = 32 * 1024;
  return r;
}

}  // namespace host_data
}  // namespace ridgeline
