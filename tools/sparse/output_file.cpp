#include "sparse/output_file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "bslz4/error.hpp"

namespace bslz4::tool {

namespace {

std::string folder_of(const std::string& path) {
    const std::size_t slash = path.rfind('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

std::string file_name_of(const std::string& path) { return path.substr(path.rfind('/') + 1); }

std::string this_host() {
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) != 0 || !name[0]) return "localhost";
    // a name that is a file-name part: no slashes (a host name has none, but it is not ours to trust)
    std::string host = name;
    for (char& c : host)
        if (c == '/') c = '_';
    return host;
}

// The part a temporary's name gives after ".part-": "HOST-PID" or "HOST-PID-N" (or, from before
// the host was named, "PID" or "PID-N"); the PID when it is this host's, else 0.
pid_t pid_of_temporary(const std::string& tail, const std::string& host) {
    std::string rest = tail;
    if (rest.rfind(host + "-", 0) == 0)
        rest = rest.substr(host.size() + 1);
    else if (rest.empty() || rest.find_first_not_of("0123456789-") != std::string::npos)
        return 0;  // another host's, or not ours
    const std::size_t dash = rest.find('-');
    const std::string digits = rest.substr(0, dash);
    if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) return 0;
    if (dash != std::string::npos && (dash + 1 == rest.size() || rest.find_first_not_of("0123456789", dash + 1) != std::string::npos))
        return 0;
    return static_cast<pid_t>(std::strtol(digits.c_str(), nullptr, 10));
}

}  // namespace

std::string exists_without_overwrite(const std::string& path) {
    return path + ": the output file exists; give --overwrite to replace it (it is left unchanged, nothing was run)";
}

OutputTarget output_target(const std::string& path, bool overwrite) {
    OutputTarget out{path, path, false};
    struct stat st {};
    if (lstat(path.c_str(), &st) != 0) {
        const std::string folder = folder_of(path);
        struct stat dir {};
        if (stat(folder.c_str(), &dir) != 0)
            throw Error(ErrorCode::io, path + ": the folder " + folder + " does not exist (" + std::strerror(errno) +
                                           "); create it first (nothing was written)");
        if (!S_ISDIR(dir.st_mode)) throw Error(ErrorCode::io, path + ": " + folder + " is not a folder (nothing was written)");
        return out;
    }
    if (S_ISLNK(st.st_mode)) {
        std::unique_ptr<char, decltype(&std::free)> real(realpath(path.c_str(), nullptr), &std::free);
        if (!real) return out;  // a dangling link: replaced by the file
        out.target = real.get();
        if (stat(out.target.c_str(), &st) != 0) return out;
    }
    if (!S_ISREG(st.st_mode))
        throw Error(ErrorCode::bad_argument, path + ": exists and is not a regular file; it is left unchanged");
    out.exists = true;
    if (!overwrite) throw Error(ErrorCode::bad_argument, exists_without_overwrite(path));
    if (access(out.target.c_str(), W_OK) != 0)
        throw Error(ErrorCode::io, path + ": exists and is not writable (" + std::strerror(errno) + "); it is left unchanged");
    return out;
}

std::string incomplete_name(const std::string& target) { return target + ".incomplete"; }

std::vector<std::string> remove_stale_temporaries(const std::string& target) {
    std::vector<std::string> removed;
    const std::string folder = folder_of(target), prefix = file_name_of(target) + ".part-", host = this_host();
    std::unique_ptr<DIR, decltype(&closedir)> dir(opendir(folder.c_str()), &closedir);
    if (!dir) return removed;
    while (const dirent* e = readdir(dir.get())) {
        const std::string name = e->d_name;
        if (name.rfind(prefix, 0) != 0) continue;
        const pid_t pid = pid_of_temporary(name.substr(prefix.size()), host);
        if (pid <= 0 || pid == getpid()) continue;
        if (kill(pid, 0) == 0 || errno != ESRCH) continue;  // running (or not ours to signal): in use
        const std::string path = (folder == "/" ? "" : folder) + "/" + name;
        struct stat st {};
        if (lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
        if (std::remove(path.c_str()) == 0)
            removed.push_back("removed " + path + ", a temporary file left by process " + std::to_string(pid) +
                              " of an earlier run, which is no longer running");
    }
    return removed;
}

TemporaryFile::TemporaryFile(const OutputTarget& where) {
    struct stat st {};
    const bool replaces = stat(where.target.c_str(), &st) == 0;
    const std::string base = where.target + ".part-" + this_host() + "-" + std::to_string(getpid());
    for (int n = 0;; ++n) {
        const std::string name = base + (n ? "-" + std::to_string(n) : "");
        const int fd = open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            if (replaces) fchmod(fd, st.st_mode & 07777);
            close(fd);
            path_ = name;
            return;
        }
        if (errno != EEXIST || n == 1000)
            throw Error(ErrorCode::io, where.path + ": cannot create the output file (" + std::strerror(errno) + " for " + name + ")");
    }
}

TemporaryFile::~TemporaryFile() { remove(); }

void TemporaryFile::remove() {
    if (!path_.empty()) std::remove(path_.c_str());
    path_.clear();
}

void TemporaryFile::move_to(const std::string& to) {
    if (std::rename(path_.c_str(), to.c_str()) != 0) {
        const std::string why = std::strerror(errno), kept = path_;
        path_.clear();  // kept: it holds the results
        throw Error(ErrorCode::io, "cannot rename " + kept + " to " + to + " (" + why + "); the results are in " + kept);
    }
    path_.clear();
}

}  // namespace bslz4::tool
