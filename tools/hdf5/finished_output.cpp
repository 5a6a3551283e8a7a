// A sparse output's own account of itself (sparse_output.cpp writes it): writer and input_file
// at the root, and on each group of lists complete (1 once its last frame is written) and cut.
#include "finished_output.hpp"

#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "hdf5_file.hpp"

namespace bslz4::tool {

namespace {

// The groups under `path` holding a complete attribute (the lists' groups), depth first; a
// sparse output nests them a few levels down (/entry/data/data, or a data file's dataset path).
void list_groups(hid_t file, const std::string& path, const std::string& output, unsigned depth,
                 std::vector<std::string>& found) {
    if (depth > 16) return;
    for (const std::string& name : h5::link_names(file, path, output)) {
        const std::string child = (path == "/" ? "/" : path + "/") + name;
        if (!h5::exists(file, child, output)) continue;  // a dangling link holds no lists
        if (h5::has_attribute(file, child, "complete", output)) found.push_back(child);
        list_groups(file, child, output, depth + 1, found);  // none below a dataset
    }
}

bool same_file(const std::string& a, const std::string& b) {
    if (a == b) return true;
    std::error_code ec;
    return std::filesystem::equivalent(a, b, ec) && !ec;
}

}  // namespace

std::string unfinished_because(const std::string& output, const std::string& input, double cut) {
    const h5::Lock lock;
    const h5::Handle file = h5::open_file(output);
    const hid_t f = file.get();
    if (!h5::has_attribute(f, "/", "writer", output) || h5::read_text_attribute(f, "/", "writer") != "bslz4 sparse")
        return "not written by bslz4 sparse";
    const std::string from = h5::has_attribute(f, "/", "input_file", output) ? h5::read_text_attribute(f, "/", "input_file") : "";
    if (!same_file(from, input)) return "written from " + (from.empty() ? std::string("an unnamed input") : from) + ", not " + input;
    std::vector<std::string> groups;
    list_groups(f, "/", output, 0, groups);
    if (groups.empty()) return "no lists in it";
    for (const std::string& g : groups) {
        const std::vector<std::int64_t> complete = h5::read_int_attribute(f, g, "complete");
        if (complete.size() != 1 || complete[0] != 1) return "group " + g + " is incomplete (complete = 0)";
        if (!h5::has_attribute(f, g, "cut", output)) return "group " + g + " has no cut";
        const std::vector<double> c = h5::read_double_attribute(f, g, "cut");
        if (c.size() != 1 || c[0] != cut) return "group " + g + " was cut at " + (c.empty() ? std::string("?") : std::to_string(c[0])) + ", not " + std::to_string(cut);
    }
    return "";
}

}  // namespace bslz4::tool
