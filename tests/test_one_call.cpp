// One object, one call at a time, on the CPU classes as on the GPU's (call_guard.hpp): while a
// long call runs, another thread's calls into the same object are refused with bad_argument
// naming the rule, never run over its buffers, and the object is unharmed after.
#include <catch2/catch.hpp>

#include <atomic>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "bslz4/bslz4.hpp"
#include "gpu_comparison.hpp"
#include "list_rows_buffer.hpp"
#include "matrix_support.hpp"

using namespace bslz4;

namespace {

// `object` (a fresh one) against `reference` (called once, then left alone, so its views stay).
template <class Object>
void check_one_call_at_a_time(Object& object, Object& reference) {
    const test::Stack s = test::eiger_stack(257, 515, PixelType::u16, 48);
    const SparseBatch want = test::lists_of(reference.multi(s.views(), 3.0));
    const std::vector<std::size_t> want_npixels(want.npixels, want.npixels + want.nframes);
    // The long calls list into rows of their own: the object's buffers are the other thread's
    // to overwrite once a call has returned.
    test::ListRowsBuffer rows(s.chunks.size(), s.ni * s.nj, s.ni * s.nj, s.type);
    std::atomic<bool> running{true};
    std::atomic<int> refused{0};
    std::string says, differs;
    std::exception_ptr long_call_error;
    std::thread busy([&] {
        try {
            for (int round = 0; round < 12;) {
                try {
                    SparseBatch got = test::lists_of(object.multi(s.views(), 3.0, rows.rows()));
                    got.npixels = want_npixels.data();  // its own may be the other thread's by now
                    got.values = rows.rows().values;
                    got.indices = rows.rows().indices;
                    const std::string d = test::list_difference(got, want);
                    if (!d.empty() && differs.empty()) differs = d;
                    ++round;
                } catch (const Error& e) {  // refused itself, while the other thread's short call ran
                    if (std::string(e.what()).find("in a call on another thread") == std::string::npos) throw;
                }
            }
        } catch (...) {
            long_call_error = std::current_exception();
        }
        running = false;
    });
    while (running) {
        try {
            object.multi({s.views()[0]}, 3.0);
        } catch (const Error& e) {
            if (refused++ == 0) says = e.what();
            CHECK(e.code() == ErrorCode::bad_argument);
        }
    }
    busy.join();
    if (long_call_error) REQUIRE_NOTHROW(std::rethrow_exception(long_call_error));
    CHECK(differs.empty());
    INFO(says);
    CHECK(refused > 0);
    CHECK_THAT(says, Catch::Contains("in a call on another thread") && Catch::Contains("give each thread its own object"));
    CHECK(test::list_difference(test::lists_of(object.multi(s.views(), 3.0)), want).empty());  // unharmed
}

}  // namespace

TEST_CASE("a CPU object in a call on another thread refuses a second thread's calls, the object unharmed", "[threads]") {
    const test::Stack s = test::eiger_stack(257, 515, PixelType::u16, 1);
    SECTION("Chunk2Sparse") {
        Chunk2Sparse object(s.mask, s.ni, s.nj, s.type), reference(s.mask, s.ni, s.nj, s.type);
        check_one_call_at_a_time(object, reference);
    }
    SECTION("Chunk2SparseCSC") {
        const IntegrationMatrix m = normalise_matrix(test::random_csr(300, s.ni * s.nj, 1.0, 11).input());
        Chunk2SparseCSC object(s.mask, s.ni, s.nj, s.type, m, Accumulator::f64),
            reference(s.mask, s.ni, s.nj, s.type, m, Accumulator::f64);
        check_one_call_at_a_time(object, reference);
    }
}

TEST_CASE("a call made from within a call on the same thread is not refused", "[threads]") {
    // coo is a call made of a call (operator()).
    const test::Stack s = test::eiger_stack(64, 96, PixelType::u16, 1);
    Chunk2Sparse object(s.mask, s.ni, s.nj, s.type);
    REQUIRE_NOTHROW(object.coo(s.views()[0], 3.0));
}
