// What the safety tests of `bslz4 sparse` share: small scans (30 x 40 frames), Bliss scans of
// LImA files and a VDS, mask files, folders of their own, a process that is gone, a writer's
// lock held, and bytes of a file overwritten in place.
#pragma once
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <system_error>
#include <utility>
#include <vector>
#include "bslz4/bslz4.hpp"
#include "h5_reader.hpp"
#include "hdf5/hdf5_file.hpp"
#include "hdf5/scan_writer.hpp"
#include "sparse/sparse_job.hpp"
#include "sparse_job_fixture.hpp"
#include "test_support.hpp"
#include "tool_runner.hpp"
#include "synthetic/synthetic_eiger.hpp"

namespace bslz4::test::safety {

namespace h5 = bslz4::tool::h5;
using test::run_tool;
using test::slurp;

inline constexpr std::size_t kNi = 30, kNj = 40;

// An empty folder of this run's own, for the files of one test.
inline std::string fresh_folder(const std::string& name) {
    const std::string dir = test::temp_path("safety_" + name);
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
    std::filesystem::create_directories(dir);
    return dir;
}

// A u16 scan of `frames` frames at /entry/data/data, frame `corrupt_frame` cut short (a bad
// frame), with a NeXus pixel_mask when `nexus_mask` is not empty (nonzero = do not use).
inline void write_safety_scan(const std::string& path, std::size_t frames = 70, std::size_t corrupt_frame = SIZE_MAX,
                       const std::vector<std::uint8_t>& nexus_mask = {}) {
    std::vector<std::vector<std::uint8_t>> chunks;
    for (std::uint32_t f = 0; f < frames; ++f) {
        chunks.push_back(encode_chunk(synthetic_eiger_frame(kNi, kNj, PixelType::u16, f), 2));
        if (f == corrupt_frame) chunks.back().resize(chunks.back().size() - 7);
    }
    tool::write_scan(path, kNi, kNj, PixelType::u16, frames, nexus_mask, chunks);
}

inline void write_text(const std::string& path, const std::string& text) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << text;
    REQUIRE(f.good());
}

inline bool exists(const std::string& path) {
    struct stat st {};
    return lstat(path.c_str(), &st) == 0;
}


// An Eiger master: /entry/data/NAME an external link to /entry/data/data in FILE (by the name
// given: relative names are found beside the master, as Eiger writes them) for each (NAME, FILE);
// and /entry/instrument/detector/detectorSpecific/nimages and ntrigger (int64 scalars) where >= 0.
struct DataLink {
    std::string name, file;
};
inline void write_eiger_master(const std::string& master, const std::vector<DataLink>& links, std::int64_t nimages = -1,
                        std::int64_t ntrigger = -1) {
    const h5::Handle file = h5::create_file(master);
    const h5::Handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose, "lcpl");
    REQUIRE(H5Pset_create_intermediate_group(lcpl.get(), 1) >= 0);
    const h5::Handle data(H5Gcreate2(file.get(), "/entry/data", lcpl.get(), H5P_DEFAULT, H5P_DEFAULT), H5Gclose, "data");
    for (const DataLink& l : links)
        REQUIRE(H5Lcreate_external(l.file.c_str(), "/entry/data/data", data.get(), l.name.c_str(), H5P_DEFAULT, H5P_DEFAULT) >= 0);
    for (const auto& [name, value] : {std::pair<const char*, std::int64_t>{"nimages", nimages}, {"ntrigger", ntrigger}}) {
        if (value < 0) continue;
        const std::string path = std::string("/entry/instrument/detector/detectorSpecific/") + name;
        const h5::Handle space(H5Screate(H5S_SCALAR), H5Sclose, "scalar");
        const h5::Handle d(H5Dcreate2(file.get(), path.c_str(), H5T_STD_I64LE, space.get(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT),
                           H5Dclose, path);
        REQUIRE(H5Dwrite(d.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, &value) >= 0);
    }
}

// A Bliss-like master DIR/bliss.h5: a VDS at /1.1/instrument/eiger/data (Bliss's soft link to it
// at /1.1/measurement/eiger) over the frames of two LImA-like files, DIR/lima/eiger_0000.h5 and
// DIR/lima/eiger_0001.h5 (named relative to the master, as Bliss does), 40 frames each.
inline const std::string kLimaPath = "/entry_0000/ESRF-ID11/eiger/data", kVdsPath = "/1.1/instrument/eiger/data",
                  kMeasurement = "/1.1/measurement/eiger";
struct BlissScan {
    std::string master;
    std::vector<std::string> sources;
};
inline BlissScan write_bliss_scan(const std::string& dir) {
    constexpr hsize_t kPart = 40;
    BlissScan s{dir + "/bliss.h5", {}};
    std::filesystem::create_directories(dir + "/lima");
    const h5::Handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose, "lcpl");
    REQUIRE(H5Pset_create_intermediate_group(lcpl.get(), 1) >= 0);
    const h5::Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "dcpl");
    for (int k = 0; k < 2; ++k) {
        const std::string relative = "lima/eiger_000" + std::to_string(k) + ".h5", file = dir + "/" + relative;
        const std::string scratch = file + ".scratch.h5";
        write_safety_scan(scratch, kPart);
        {
            const h5::Handle from = h5::open_file(scratch);
            const h5::Handle to = h5::create_file(file);
            REQUIRE(H5Ocopy(from.get(), "/entry/data/data", to.get(), kLimaPath.c_str(), H5P_DEFAULT, lcpl.get()) >= 0);
        }
        std::filesystem::remove(scratch);
        s.sources.push_back(file);
        const hsize_t vds_dims[3] = {2 * kPart, kNi, kNj}, src_dims[3] = {kPart, kNi, kNj};
        const hsize_t start[3] = {k * kPart, 0, 0}, count[3] = {kPart, kNi, kNj};
        const h5::Handle vds_space(H5Screate_simple(3, vds_dims, nullptr), H5Sclose, "vds space");
        REQUIRE(H5Sselect_hyperslab(vds_space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr) >= 0);
        const h5::Handle src_space(H5Screate_simple(3, src_dims, nullptr), H5Sclose, "source space");
        REQUIRE(H5Pset_virtual(dcpl.get(), vds_space.get(), relative.c_str(), kLimaPath.c_str(), src_space.get()) >= 0);
    }
    const h5::Handle f = h5::create_file(s.master);
    const hsize_t dims[3] = {2 * kPart, kNi, kNj};
    const h5::Handle space(H5Screate_simple(3, dims, nullptr), H5Sclose, "space");
    const h5::Handle d(H5Dcreate2(f.get(), kVdsPath.c_str(), H5T_STD_U16LE, space.get(), lcpl.get(), dcpl.get(), H5P_DEFAULT),
                       H5Dclose, "vds");
    REQUIRE(H5Lcreate_soft(kVdsPath.c_str(), f.get(), kMeasurement.c_str(), lcpl.get(), H5P_DEFAULT) >= 0);
    return s;
}

// A 2-D u8 dataset /m of kNi x kNj, for --mask and --use-mask.
inline void write_mask_file(const std::string& path, const std::vector<std::uint8_t>& m) {
    const h5::Handle f = h5::create_file(path);
    const hsize_t dims[2] = {kNi, kNj};
    const h5::Handle space(H5Screate_simple(2, dims, nullptr), H5Sclose, "mask space");
    const h5::Handle d(H5Dcreate2(f.get(), "/m", H5T_STD_U8LE, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose, "m");
    REQUIRE(H5Dwrite(d.get(), H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, m.data()) >= 0);
}

inline std::string this_host() {
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) != 0 || !name[0]) return "localhost";
    return name;
}

// The id of a process that was started here and is gone (and reaped).
inline pid_t pid_of_a_process_gone() {
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) _exit(0);
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    return child;
}

// A child process holding an exclusive flock() on `path` (as HDF5 1.10's writer takes it) until
// released: stopped by its id, the one it was started with.
class LockHolder {
public:
    explicit LockHolder(const std::string& path) {
        int ready[2];
        REQUIRE(pipe(ready) == 0);
        pid_ = fork();
        REQUIRE(pid_ >= 0);
        if (pid_ == 0) {
            close(ready[0]);
            const int fd = open(path.c_str(), O_RDWR);
            const char ok = fd >= 0 && flock(fd, LOCK_EX) == 0 ? 'y' : 'n';
            if (write(ready[1], &ok, 1) != 1) _exit(1);
            for (int i = 0; i < 600; ++i) sleep(1);  // until killed (ten minutes at most)
            _exit(0);
        }
        close(ready[1]);
        char ok = 0;
        const ssize_t n = read(ready[0], &ok, 1);
        close(ready[0]);
        locked_ = n == 1 && ok == 'y';
    }
    ~LockHolder() {
        if (pid_ > 0) {
            kill(pid_, SIGKILL);
            int status = 0;
            waitpid(pid_, &status, 0);
        }
    }
    LockHolder(const LockHolder&) = delete;
    LockHolder& operator=(const LockHolder&) = delete;
    bool locked() const { return locked_; }

private:
    pid_t pid_ = -1;
    bool locked_ = false;
};

// The file address of the object header of `object` in `file`.
inline haddr_t object_header_address(const std::string& file, const std::string& object) {
    const h5::Handle f = h5::open_file(file);
#if H5_VERSION_GE(1, 12, 0)
    H5O_info1_t info{};
#else
    H5O_info_t info{};
#endif
    REQUIRE(H5Oget_info_by_name1(f.get(), object.c_str(), &info, H5P_DEFAULT) >= 0);
    return info.addr;
}

inline void overwrite_bytes(const std::string& file, std::uint64_t at, const std::vector<std::uint8_t>& bytes) {
    const int fd = open(file.c_str(), O_WRONLY);
    REQUIRE(fd >= 0);
    const ssize_t n = pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(at));
    close(fd);
    REQUIRE(n == static_cast<ssize_t>(bytes.size()));
}

inline std::int64_t attribute_of(const std::string& file, const std::string& group, const std::string& name) {
    const test::H5Reader f(file);
    return f.attribute(group, name).at(0);
}

}  // namespace bslz4::test::safety
