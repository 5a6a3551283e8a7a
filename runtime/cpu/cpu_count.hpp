// The parts of usable_cpu_count() that read files, with the file system's root a parameter so
// that the tests can lay out cgroup trees of both versions.
#pragma once
#include <string>

namespace bslz4::detail {

// The CPU quota of the cgroup this process is in, read under `root` ("" for the real one):
// /proc/self/cgroup names the cgroup, /proc/self/mountinfo where its hierarchy is mounted, and
// cpu.max (v2: "QUOTA PERIOD" or "max PERIOD") or cpu.cfs_quota_us / cpu.cfs_period_us (v1:
// -1 for none) give the quota at each level from the cgroup up to the mount. The tightest, in
// whole CPUs rounded up; 0 when no level sets one (or nothing can be read).
unsigned cgroup_cpu_quota(const std::string& root);

// The CPUs in the calling thread's affinity mask (0 when it cannot be read).
unsigned affinity_cpu_count();

}  // namespace bslz4::detail
