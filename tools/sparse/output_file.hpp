// Where `bslz4 sparse` puts an output file, and how it keeps a user's files safe while doing so:
// the output is written under a temporary name beside its target and renamed over it only when
// the run finished; an existing file is replaced only when the user said so (--overwrite); an
// interrupted or failed run leaves its partial result under a name of its own (TARGET.incomplete)
// and never touches the target; temporaries left by processes that are gone (killed outright)
// are removed by the next run to the same target, which says so.
//
// Temporaries are named TARGET.part-HOST-PID[-N]: the host keeps a run on another node of a
// shared file system, whose process this host cannot see, from being taken for a dead one.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

namespace bslz4::tool {

// Where output `path` goes: `path` itself, or the file an existing symbolic link names (the link
// stays). Refuses (bad_argument) what exists and is not a regular file, a regular file the user
// may not write (io), and an existing file when `overwrite` is false (bad_argument, naming
// --overwrite); a missing folder is named as such (io).
struct OutputTarget {
    std::string path;    // as given, for messages
    std::string target;  // the file that will be replaced or made
    bool exists = false;
};
OutputTarget output_target(const std::string& path, bool overwrite);

// The refusal output_target makes of an existing output without --overwrite, as a message.
std::string exists_without_overwrite(const std::string& path);

// TARGET.incomplete: where an interrupted or failed run keeps what it had written.
std::string incomplete_name(const std::string& target);

// Removes the temporaries of `target` (TARGET.part-...) made on this host by processes that are
// no longer running; returns a line for each ("removed X, left by process N, which is gone").
std::vector<std::string> remove_stale_temporaries(const std::string& target);

// An empty file beside `target` (with the mode of the file it will replace, if any), removed
// when this goes unless moved into place or kept.
class TemporaryFile {
public:
    TemporaryFile() = default;
    explicit TemporaryFile(const OutputTarget& where);
    ~TemporaryFile();
    TemporaryFile(const TemporaryFile&) = delete;
    TemporaryFile& operator=(const TemporaryFile&) = delete;
    const std::string& path() const { return path_; }
    // Renames the file to `to` (replacing what is there); throws io naming both, the file kept.
    void move_to(const std::string& to);
    void remove();

private:
    std::string path_;
};

}  // namespace bslz4::tool
