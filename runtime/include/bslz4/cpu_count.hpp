// How many CPUs this process may run on: the threads that "all cores" means (the CPU decoder's
// default, the tools' reports). Under a batch system or a container that is not the machine's
// core count: the affinity mask (taskset, SLURM's --cpus-per-task, docker --cpuset-cpus) and the
// cgroup's CPU quota (docker --cpus, systemd CPUQuota) both cut it down.
#pragma once
#include "bslz4/export.h"

namespace bslz4 {

// The CPUs in this thread's affinity mask, at most the cgroup v2 or v1 CPU quota (rounded up,
// the tightest along the cgroup's ancestors); at least 1.
BSLZ4_API unsigned usable_cpu_count();

}  // namespace bslz4
