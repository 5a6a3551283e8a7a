// The CPUs the process may run on (usable_cpu_count): the affinity mask, and cgroup v2 and v1 CPU
// quotas read from trees laid out here as the kernel shows them.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <thread>

#include "bslz4/chunk2sparse.hpp"
#include "bslz4/cpu_count.hpp"
#include "cpu_affinity.hpp"
#include "cpu_count.hpp"
#include "tool_runner.hpp"

using namespace bslz4;

namespace {


// A fake root: files at root + path with the given text.
class FakeRoot {
public:
    explicit FakeRoot(const std::string& name) : root_(test::temp_path(name)) { std::filesystem::remove_all(root_); }
    ~FakeRoot() { std::filesystem::remove_all(root_); }
    void put(const std::string& path, const std::string& text) const {
        std::filesystem::create_directories(std::filesystem::path(root_ + path).parent_path());
        std::ofstream(root_ + path) << text;
    }
    const std::string& root() const { return root_; }

private:
    std::string root_;
};

const char* kV2Mount = "30 24 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate\n";
const char* kV1Mount =
    "24 23 0:21 / /sys/fs/cgroup rw - tmpfs tmpfs rw,mode=755\n"
    "35 24 0:30 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid shared:9 - cgroup cgroup rw,cpu,cpuacct\n"
    "36 24 0:31 / /sys/fs/cgroup/memory rw,nosuid shared:10 - cgroup cgroup rw,memory\n";

}  // namespace

TEST_CASE("the CPU decoder's default threads are the CPUs of the affinity mask, not the machine's cores", "[cpu-count]") {
    if (std::thread::hardware_concurrency() < 2) WARN("one core here: this case cannot tell the mask from the cores");
    test::on_one_cpu([] {
        CHECK(usable_cpu_count() == 1);
        const Chunk2Sparse c(std::vector<std::uint8_t>(16, 1), 4, 4, PixelType::u16);
        CHECK(c.threads() == 1);
    });
    CHECK(usable_cpu_count() >= 1);
    CHECK(usable_cpu_count() <= std::max(1u, std::thread::hardware_concurrency()));
}

TEST_CASE("a cgroup v2 CPU quota, the tightest along its ancestors, rounded up to whole CPUs", "[cpu-count]") {
    FakeRoot fs("cgroup_v2");
    fs.put("/proc/self/mountinfo", kV2Mount);
    fs.put("/proc/self/cgroup", "0::/job/step\n");
    CHECK(detail::cgroup_cpu_quota(fs.root()) == 0);  // no cpu.max anywhere
    fs.put("/sys/fs/cgroup/job/step/cpu.max", "max 100000\n");
    CHECK(detail::cgroup_cpu_quota(fs.root()) == 0);
    fs.put("/sys/fs/cgroup/job/cpu.max", "150000 100000\n");
    CHECK(detail::cgroup_cpu_quota(fs.root()) == 2);
    fs.put("/sys/fs/cgroup/job/step/cpu.max", "400000 100000\n");
    CHECK(detail::cgroup_cpu_quota(fs.root()) == 2);  // the parent's is tighter
    fs.put("/sys/fs/cgroup/job/step/cpu.max", "50000 100000\n");
    CHECK(detail::cgroup_cpu_quota(fs.root()) == 1);
}

TEST_CASE("a cgroup v1 CFS quota, and a container that sees its own cgroup as the mount's root", "[cpu-count]") {
    FakeRoot fs("cgroup_v1");
    fs.put("/proc/self/mountinfo", kV1Mount);
    fs.put("/proc/self/cgroup", "5:memory:/slurm/job7\n4:cpu,cpuacct:/slurm/job7\n0::/\n");
    fs.put("/sys/fs/cgroup/cpu,cpuacct/slurm/job7/cpu.cfs_quota_us", "-1\n");
    fs.put("/sys/fs/cgroup/cpu,cpuacct/slurm/job7/cpu.cfs_period_us", "100000\n");
    CHECK(detail::cgroup_cpu_quota(fs.root()) == 0);
    fs.put("/sys/fs/cgroup/cpu,cpuacct/slurm/job7/cpu.cfs_quota_us", "300000\n");
    CHECK(detail::cgroup_cpu_quota(fs.root()) == 3);

    // docker: the hierarchy's /docker/ID is mounted as the container's /sys/fs/cgroup/cpu,cpuacct
    FakeRoot box("cgroup_v1_container");
    box.put("/proc/self/mountinfo", "40 35 0:30 /docker/abc /sys/fs/cgroup/cpu,cpuacct ro - cgroup cgroup rw,cpu,cpuacct\n");
    box.put("/proc/self/cgroup", "4:cpu,cpuacct:/docker/abc\n");
    box.put("/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "250000\n");
    box.put("/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n");
    CHECK(detail::cgroup_cpu_quota(box.root()) == 3);
}

TEST_CASE("no cgroup files to read is no quota", "[cpu-count]") {
    FakeRoot fs("cgroup_none");
    CHECK(detail::cgroup_cpu_quota(fs.root()) == 0);
    fs.put("/proc/self/cgroup", "0::/\n");
    fs.put("/proc/self/mountinfo", "garbage\n");
    CHECK(detail::cgroup_cpu_quota(fs.root()) == 0);
}
