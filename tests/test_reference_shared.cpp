// Every case of ../shared/testdata. A user's own clone has no ../shared: then this program
// says so and exits 77, which Meson reports as skipped (tests/data still pins the format).
#define CATCH_CONFIG_RUNNER
#include <cstdio>

#include "reference_check.hpp"
#include "cli/reference_cases.hpp"

TEST_CASE("every shared reference case decodes to its sha256 and its .raw", "[reference]") {
    CHECK(bslz4::test::check_reference_cases(bslz4::tool::default_testdata_dir()) >= 280);
}

int main(int argc, char** argv) {
    const std::string dir = bslz4::tool::default_testdata_dir();
    if (std::FILE* f = std::fopen((dir + "/cases.tsv").c_str(), "r")) {
        std::fclose(f);
    } else {
        std::printf("SKIP: no shared reference data at %s (a clone without ../shared); tests/data is checked instead\n",
                    dir.c_str());
        return 77;
    }
    return Catch::Session().run(argc, argv);
}
