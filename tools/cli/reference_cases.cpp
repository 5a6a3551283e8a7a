#include "cli/reference_cases.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "bslz4/error.hpp"

namespace bslz4::tool {

std::vector<ReferenceCase> read_reference_cases(const std::string& dir) {
    const std::string path = dir + "/cases.tsv";
    std::ifstream in(path);
    if (!in) throw Error(ErrorCode::io, path + ": cannot open");
    std::vector<ReferenceCase> cases;
    std::string line;
    std::getline(in, line);  // column names
    for (std::size_t lineno = 2; std::getline(in, line); ++lineno) {
        if (line.empty()) continue;
        std::istringstream fields(line);
        ReferenceCase c;
        std::string dtype, codec, raw;
        if (!std::getline(fields, c.name, '\t') || !std::getline(fields, dtype, '\t') || !(fields >> c.elem_size >> c.ni >> c.nj >> codec >> c.block_bytes >> c.chunk_bytes >> c.sha256 >> raw))
            throw Error(ErrorCode::bad_argument, path + ": line " + std::to_string(lineno) + " is malformed");
        c.type = parse_pixel_type(dtype);
        c.codec = parse_codec(codec);
        c.has_raw = raw == "yes";
        c.chunk_path = dir + "/chunks/" + c.name + ".bslz4";
        c.raw_path = dir + "/chunks/" + c.name + ".raw";
        cases.push_back(c);
    }
    return cases;
}

std::string default_testdata_dir() {
    if (const char* env = std::getenv("BSLZ4_TESTDATA")) return env;
    return BSLZ4_SOURCE_ROOT "/../shared/testdata";
}

}  // namespace bslz4::tool
