// The EDF mask reader (tools/edf/edf_mask.cpp): ImageD11's and pyFAI's masks read as fabio
// writes them, every type and byte order, and every header that lies about its image refused
// before a buffer is sized by it.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "edf/edf_mask.hpp"
#include "error_codes.hpp"
#include "tool_runner.hpp"

using namespace bslz4;
using test::code_thrown_by;

namespace {

// An EDF file as fabio writes one: the header padded with spaces to 512 bytes, then the image.
std::string write_edf(const std::string& name, const std::string& keys, const std::vector<std::uint8_t>& image) {
    std::string header = "{\nHeaderID = EH:000001:000000:000000 ;\n" + keys;
    header.resize(510, ' ');
    header += "}\n";
    const std::string path = test::temp_path(name);
    std::FILE* f = std::fopen(path.c_str(), "wb");
    std::fwrite(header.data(), 1, header.size(), f);
    std::fwrite(image.data(), 1, image.size(), f);
    std::fclose(f);
    return path;
}

std::string keys(const char* type, std::size_t dim1, std::size_t dim2, const char* order = "LowByteFirst") {
    return std::string("ByteOrder = ") + order + " ;\nDataType = " + type + " ;\nDim_1 = " + std::to_string(dim1) +
           " ;\nDim_2 = " + std::to_string(dim2) + " ;\n";
}

}  // namespace

TEST_CASE("an EDF mask is read as fabio writes it: nonzero pixels of every type and byte order", "[edf]") {
    // 2 x 3 pixels, pixel (0, 1) and (1, 2) nonzero.
    const std::vector<std::uint8_t> want = {0, 1, 0, 0, 0, 1};
    const auto image = [&](std::size_t bytes, bool big, bool is_float) {
        std::vector<std::uint8_t> out(6 * bytes, 0);
        for (std::size_t i = 0; i < 6; ++i) {
            if (!want[i]) continue;
            std::vector<std::uint8_t> v(bytes, 0);
            if (is_float && bytes == 4) {
                const float x = 0.5f;
                std::memcpy(v.data(), &x, 4);
            } else if (is_float) {
                const double x = -2.0;
                std::memcpy(v.data(), &x, 8);
            } else {
                v[bytes - 1] = 1;  // only the most significant byte: the order must not matter
            }
            for (std::size_t k = 0; k < bytes; ++k) out[i * bytes + k] = v[big ? bytes - 1 - k : k];
        }
        return out;
    };
    struct Case {
        const char* type;
        std::size_t bytes;
        bool is_float;
    };
    for (const Case& c : {Case{"UnsignedByte", 1, false}, Case{"SignedShort", 2, false}, Case{"UnsignedInteger", 4, false},
                          Case{"Signed64", 8, false}, Case{"FloatValue", 4, true}, Case{"DoubleValue", 8, true}})
        for (bool big : {false, true}) {
            INFO(c.type << (big ? " big-endian" : ""));
            const std::string path = write_edf(std::string("edf_") + c.type + (big ? "_be" : "") + ".edf",
                                               keys(c.type, 3, 2, big ? "HighByteFirst" : "LowByteFirst"),
                                               image(c.bytes, big, c.is_float));
            REQUIRE(tool::is_edf_file(path));
            REQUIRE(tool::read_edf_nonzero(path, 2, 3) == want);
        }
}

TEST_CASE("an EDF header that does not fit its image or the frames is an error naming the file, not a read", "[edf]") {
    const std::vector<std::uint8_t> six(6, 1);
    const std::string ok = write_edf("edf_ok.edf", keys("UnsignedByte", 3, 2), six);
    CHECK(code_thrown_by([&] { tool::read_edf_nonzero(ok, 3, 2); }) == ErrorCode::bad_argument);  // other shape
    const std::string lying = write_edf("edf_lying.edf", keys("UnsignedByte", 3000000, 2000000), six);
    CHECK(code_thrown_by([&] { tool::read_edf_nonzero(lying, 2000000, 3000000); }) == ErrorCode::truncated_chunk);
    const std::string short_image = write_edf("edf_short.edf", keys("UnsignedShort", 3, 2), six);
    CHECK(code_thrown_by([&] { tool::read_edf_nonzero(short_image, 2, 3); }) == ErrorCode::truncated_chunk);
    const std::string packed = write_edf("edf_packed.edf", keys("UnsignedByte", 3, 2) + "Compression = gzip ;\n", six);
    CHECK(code_thrown_by([&] { tool::read_edf_nonzero(packed, 2, 3); }) == ErrorCode::bad_argument);
    const std::string odd = write_edf("edf_odd.edf", keys("ComplexValue", 3, 2), six);
    CHECK(code_thrown_by([&] { tool::read_edf_nonzero(odd, 2, 3); }) == ErrorCode::bad_argument);
    const std::string no_dim = write_edf("edf_nodim.edf", "DataType = UnsignedByte ;\n", six);
    CHECK(code_thrown_by([&] { tool::read_edf_nonzero(no_dim, 2, 3); }) == ErrorCode::bad_argument);
    try {
        tool::read_edf_nonzero(short_image, 2, 3);
    } catch (const Error& e) {
        CHECK(std::string(e.what()).find("edf_short.edf") != std::string::npos);
    }
    const std::string text = test::temp_path("edf_not.txt");
    std::FILE* f = std::fopen(text.c_str(), "wb");
    std::fputs("not an image\n", f);
    std::fclose(f);
    CHECK_FALSE(tool::is_edf_file(text));
    CHECK(code_thrown_by([&] { tool::read_edf_nonzero(text, 2, 3); }) == ErrorCode::bad_argument);
    CHECK(code_thrown_by([&] { tool::read_edf_nonzero(test::temp_path("edf_absent.edf"), 2, 3); }) == ErrorCode::io);
}
