#pragma once

namespace ridgeline {

// With OMP_PROC_BIND set, libgomp pins the process's initial thread to the first place as it loads,
// before main, and a child (fork) or a new image (exec) inherits that one-CPU mask and starts one thread.
// The places together are the mask the process started with: this gives it back to the calling thread,
// for the programs that run or re-exec the perf suite (`ridgeline perf`, ridgeline-perf's OpenBLAS core
// rerun). No effect without OpenMP or off Linux.
void restore_openmp_start_affinity();

}  // namespace ridgeline
