#include "cpu_count.hpp"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <memory>
#include <thread>
#include <vector>

#include "bslz4/cpu_count.hpp"

namespace bslz4::detail {

namespace {

// No iostreams and no locale here: this runs in the first constructor of every object, and a
// module that links its own libstdc++ statically into a process that has loaded the system's
// crashed in `std::istream >> double` (the two libraries' locale objects mixed). Plain reads and
// std::from_chars instead.
bool read_text(const std::string& path, std::string& text) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    text.clear();
    char buffer[4096];
    // /proc and cgroup files are small; mountinfo on a busy host a few hundred kB at most
    constexpr std::size_t kMostBytes = std::size_t{16} << 20;
    for (;;) {
        const ssize_t n = read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0 || text.size() > kMostBytes) break;
        text.append(buffer, static_cast<std::size_t>(n));
    }
    close(fd);
    return true;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t end = std::min(text.find('\n', at), text.size());
        lines.push_back(text.substr(at, end - at));
        at = end + 1;
    }
    return lines;
}

// The blank-separated words of a line (mountinfo's fields, cpu.max's two values).
std::vector<std::string> words_of(const std::string& line) {
    std::vector<std::string> words;
    for (std::size_t at = 0;;) {
        at = line.find_first_not_of(" \t\r", at);
        if (at == std::string::npos) return words;
        const std::size_t end = std::min(line.find_first_of(" \t\r", at), line.size());
        words.push_back(line.substr(at, end - at));
        at = end;
    }
}

// The words of a file's first line.
std::vector<std::string> first_words(const std::string& text) {
    const std::vector<std::string> lines = lines_of(text);
    return lines.empty() ? std::vector<std::string>{} : words_of(lines[0]);
}

// A whole decimal integer, or `fallback` (leading blanks and a trailing newline allowed).
long long integer_of(const std::string& text, long long fallback) {
    const std::vector<std::string> w = first_words(text);
    if (w.empty()) return fallback;
    long long v = 0;
    const auto [end, ec] = std::from_chars(w[0].data(), w[0].data() + w[0].size(), v);
    return ec == std::errc() && end == w[0].data() + w[0].size() ? v : fallback;
}

std::vector<std::string> split(const std::string& text, char by) {
    std::vector<std::string> parts;
    std::size_t at = 0;
    for (;;) {
        const std::size_t next = text.find(by, at);
        parts.push_back(text.substr(at, next == std::string::npos ? std::string::npos : next - at));
        if (next == std::string::npos) return parts;
        at = next + 1;
    }
}

// One cgroup hierarchy as this process sees it: where it is mounted, the hierarchy's path at
// that mount point, and this process's cgroup in it.
struct Hierarchy {
    std::string mount_point, mount_root, cgroup;
    bool v2 = false;
};

// The cpu controller's hierarchy: cgroup v1's "cpu" if mounted (it is the one enforced on a
// hybrid host), else the v2 one.
bool find_cpu_hierarchy(const std::string& root, Hierarchy& h) {
    std::string cgroups, mounts;
    if (!read_text(root + "/proc/self/cgroup", cgroups) || !read_text(root + "/proc/self/mountinfo", mounts)) return false;
    std::string v1_path, v2_path;
    bool have_v1 = false, have_v2 = false;
    for (const std::string& line : lines_of(cgroups)) {  // ID:CONTROLLERS:PATH
        const std::size_t a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
        if (b == std::string::npos) continue;
        const std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
        if (line.compare(0, a, "0") == 0 && controllers.empty()) {
            have_v2 = true;
            v2_path = path;
        }
        for (const std::string& c : split(controllers, ','))
            if (c == "cpu") {
                have_v1 = true;
                v1_path = path;
            }
    }
    // mountinfo: ID PARENT MAJ:MIN ROOT MOUNT_POINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER_OPTIONS
    for (const std::string& line : lines_of(mounts)) {
        const std::vector<std::string> f = words_of(line);
        const auto dash = std::find(f.begin(), f.end(), "-");
        if (f.size() < 5 || dash == f.end() || f.end() - dash < 4) continue;
        const std::string& fstype = dash[1];
        const std::vector<std::string> options = split(dash[3], ',');
        const bool v1_cpu = fstype == "cgroup" && std::find(options.begin(), options.end(), "cpu") != options.end();
        if ((have_v1 && v1_cpu) || (!have_v1 && have_v2 && fstype == "cgroup2")) {
            h.mount_root = f[3];
            h.mount_point = f[4];
            h.cgroup = v1_cpu ? v1_path : v2_path;
            h.v2 = !v1_cpu;
            return true;
        }
    }
    return false;
}

// The quota set at one cgroup folder, in CPUs (0: none set, or unreadable).
double quota_at(const std::string& dir, bool v2) {
    std::string text;
    if (v2) {
        if (!read_text(dir + "/cpu.max", text)) return 0;
        const std::vector<std::string> w = first_words(text);
        if (w.size() < 2 || w[0] == "max") return 0;
        const long long q = integer_of(w[0], 0), period = integer_of(w[1], 0);
        return q > 0 && period > 0 ? static_cast<double>(q) / static_cast<double>(period) : 0;
    }
    std::string period_text;
    if (!read_text(dir + "/cpu.cfs_quota_us", text) || !read_text(dir + "/cpu.cfs_period_us", period_text)) return 0;
    const long long q = integer_of(text, 0), period = integer_of(period_text, 0);
    return q > 0 && period > 0 ? static_cast<double>(q) / static_cast<double>(period) : 0;
}

}  // namespace

unsigned cgroup_cpu_quota(const std::string& root) {
    Hierarchy h;
    if (!find_cpu_hierarchy(root, h)) return 0;
    // The cgroup's path is the hierarchy's; the mount shows it from mount_root down. Inside a
    // container the cgroup may lie above what is mounted: then the mount point is its folder.
    std::string relative;
    const std::string base = h.mount_root == "/" ? "" : h.mount_root;
    if (h.cgroup.compare(0, base.size(), base) == 0 && (h.cgroup.size() == base.size() || h.cgroup[base.size()] == '/'))
        relative = h.cgroup.substr(base.size());
    double tightest = 0;
    for (;;) {
        const double q = quota_at(root + h.mount_point + relative, h.v2);
        if (q > 0 && (tightest == 0 || q < tightest)) tightest = q;
        if (relative.empty() || relative == "/") break;
        relative.resize(relative.rfind('/'));
    }
    return tightest > 0 ? static_cast<unsigned>(std::ceil(tightest - 1e-9)) : 0;
}

unsigned affinity_cpu_count() {
    // Sized for the machine: a fixed cpu_set_t stops at 1,024 CPUs and fails beyond.
    for (int cpus = std::max(1024, static_cast<int>(std::thread::hardware_concurrency())); cpus <= (1 << 20); cpus *= 2) {
        std::unique_ptr<cpu_set_t, void (*)(cpu_set_t*)> set(CPU_ALLOC(cpus), [](cpu_set_t* s) { CPU_FREE(s); });
        if (!set) return 0;
        const std::size_t bytes = CPU_ALLOC_SIZE(cpus);
        CPU_ZERO_S(bytes, set.get());
        if (sched_getaffinity(0, bytes, set.get()) == 0) return static_cast<unsigned>(CPU_COUNT_S(bytes, set.get()));
        if (errno != EINVAL) return 0;
    }
    return 0;
}

}  // namespace bslz4::detail

namespace bslz4 {

unsigned usable_cpu_count() {
    unsigned n = detail::affinity_cpu_count();
    if (n == 0) n = std::thread::hardware_concurrency();
    const unsigned quota = detail::cgroup_cpu_quota("");
    if (quota > 0 && (n == 0 || quota < n)) n = quota;
    return std::max(1u, n);
}

}  // namespace bslz4
