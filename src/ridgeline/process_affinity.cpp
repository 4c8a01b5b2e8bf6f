#include "ridgeline/process_affinity.hpp"

#if defined(_OPENMP) && defined(__linux__)
#include <omp.h>
#include <sched.h>

#include <algorithm>
#include <vector>
#endif

namespace ridgeline {

void restore_openmp_start_affinity() {
#if defined(_OPENMP) && defined(__linux__)
  const int places = omp_get_num_places();
  if (places <= 0) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int p = 0; p < places; ++p) {
    std::vector<int> ids(std::size_t(std::max(0, omp_get_place_num_procs(p))));
    omp_get_place_proc_ids(p, ids.data());
    for (int id : ids)
      if (id >= 0 && id < CPU_SETSIZE) CPU_SET(id, &set);
  }
  if (CPU_COUNT(&set) > 0) sched_setaffinity(0, sizeof set, &set);
#endif
}

}  // namespace ridgeline
