// The pixels-in-spot filter (tools/connected_pixels, bslz4 sparse --pixels-in-spot K) against a
// plain statement of ImageD11's rule (spot_reference.hpp: a flood fill over the whole frame),
// every type, shapes down to one row and one column, cuts that list nearly nothing and nearly
// everything.
#include <catch2/catch.hpp>

#include <cstring>

#include "sparse/connected_pixels.hpp"
#include "error_codes.hpp"
#include "spot_reference.hpp"
#include "test_support.hpp"

using namespace bslz4;

namespace {

using List = test::PixelList;
using test::value_at;

// The pixels of a dense frame above the cut (NaN never), as the decoder lists them.
template <class T>
List listed(const std::vector<std::uint8_t>& frame, std::size_t ni, std::size_t nj, double cut) {
    List l;
    for (std::size_t i = 0; i < ni * nj; ++i) {
        const T v = value_at<T>(frame, i);
        if (!(static_cast<long double>(v) > cut)) continue;
        l.row.push_back(static_cast<std::uint16_t>(i / nj));
        l.col.push_back(static_cast<std::uint16_t>(i % nj));
        l.values.insert(l.values.end(), frame.begin() + i * sizeof(T), frame.begin() + (i + 1) * sizeof(T));
    }
    return l;
}

List filtered(tool::SpotFilter& f, const List& in) {
    List out = in;  // sized as the input
    const std::size_t kept = f.keep(in.row.data(), in.col.data(), in.values.data(), in.size(), out.row.data(), out.col.data(),
                                    out.values.data());
    const std::size_t elem = in.size() ? in.values.size() / in.size() : 0;
    out.row.resize(kept);
    out.col.resize(kept);
    out.values.resize(kept * elem);
    return out;
}

// The same, written over its own input (as the job does).
List filtered_in_place(tool::SpotFilter& f, List l) {
    const std::size_t elem = l.size() ? l.values.size() / l.size() : 0;
    const std::size_t kept = f.keep(l.row.data(), l.col.data(), l.values.data(), l.size(), l.row.data(), l.col.data(), l.values.data());
    l.row.resize(kept);
    l.col.resize(kept);
    l.values.resize(kept * elem);
    return l;
}

void require_same(const List& got, const List& want) {
    REQUIRE(got.size() == want.size());
    CHECK(got.row == want.row);
    CHECK(got.col == want.col);
    CHECK(got.values == want.values);
}

template <class T>
void check_type(PixelType type, const std::vector<double>& cuts) {
    const std::pair<std::size_t, std::size_t> shapes[] = {{1, 1}, {1, 9}, {9, 1}, {2, 2}, {7, 13}, {40, 50}, {65, 300}};
    std::uint32_t seed = 1;
    for (const auto& [ni, nj] : shapes)
        for (const double cut : cuts)
            for (const std::size_t k : {0, 1, 2, 3, 4, 7}) {
                INFO(pixel_type_name(type) << " " << ni << " x " << nj << ", cut " << cut << ", K " << k);
                const auto frame = test::random_pixels<T>(ni * nj, seed++);
                tool::SpotFilter f(k, type, nj);
                const List in = listed<T>(frame, ni, nj, cut), want = test::reference_spots<T>(in, ni, nj, k);
                require_same(filtered(f, in), want);
                require_same(filtered_in_place(f, in), want);
                require_same(filtered(f, in), want);  // the object reused for the next frame
            }
}

// A frame of nj columns whose listed pixels (all of value 5) are at `cells` ({row, col}, in order).
List cells_list(const std::vector<std::pair<int, int>>& cells) {
    List l;
    for (const auto& [r, c] : cells) {
        l.row.push_back(static_cast<std::uint16_t>(r));
        l.col.push_back(static_cast<std::uint16_t>(c));
        const std::uint16_t v = 5;
        l.values.insert(l.values.end(), reinterpret_cast<const std::uint8_t*>(&v), reinterpret_cast<const std::uint8_t*>(&v) + 2);
    }
    return l;
}

std::size_t kept_of(const std::vector<std::pair<int, int>>& cells, std::size_t k, std::size_t nj) {
    tool::SpotFilter f(k, PixelType::u16, nj);
    return filtered(f, cells_list(cells)).size();
}

}  // namespace

TEST_CASE("pixels in spot keeps exactly the pixels the flood fill finds in groups of at least K, for every type",
          "[spots]") {
    check_type<std::uint8_t>(PixelType::u8, {0, 20, 38});
    check_type<std::uint16_t>(PixelType::u16, {0, 5, 30, 38});
    check_type<std::uint32_t>(PixelType::u32, {0, 30});
    check_type<std::uint64_t>(PixelType::u64, {0, 30});
    // below 0: the listed pixels not above 0 count as one group, as ImageD11 counts them
    check_type<std::int8_t>(PixelType::i8, {-10, 0, 30});
    check_type<std::int16_t>(PixelType::i16, {-10, 30});
    check_type<std::int32_t>(PixelType::i32, {-1e9, -10, 0, 30});
    check_type<std::int64_t>(PixelType::i64, {-10, 30});
    check_type<float>(PixelType::f32, {-50, 0, 20});
    // float64's denormals are above 0 but not as float32: they do not join
    check_type<double>(PixelType::f64, {-50, 0, 20});
}

TEST_CASE("pixels touch across a corner but not across a row's end, and groups meeting late are one", "[spots]") {
    // (0, 3) and (1, 0) are neighbours in memory, not on the detector
    CHECK(kept_of({{0, 3}, {1, 0}}, 2, 4) == 0);
    CHECK(kept_of({{0, 1}, {1, 2}}, 2, 4) == 2);  // a corner
    CHECK(kept_of({{0, 2}, {1, 1}}, 2, 4) == 2);  // the other corner
    CHECK(kept_of({{0, 0}, {0, 2}}, 2, 4) == 0);  // a column apart
    CHECK(kept_of({{0, 1}, {2, 1}}, 2, 4) == 0);  // a row apart
    // a V: the two arms are one group only from the last row on
    const std::vector<std::pair<int, int>> v = {{0, 0}, {0, 4}, {1, 1}, {1, 3}, {2, 2}};
    CHECK(kept_of(v, 5, 5) == 5);
    CHECK(kept_of(v, 6, 5) == 0);
    // above-right joins left: (1, 0) - (1, 1) and (0, 2) meet at (1, 1)
    CHECK(kept_of({{0, 2}, {1, 0}, {1, 1}}, 3, 5) == 3);
    // a long snake down the rows, each row's pixel under the last one's right neighbour
    std::vector<std::pair<int, int>> snake;
    for (int r = 0; r < 300; ++r) snake.push_back({r, r % 2 ? 1 : 0});
    CHECK(kept_of(snake, 300, 2) == 300);
    CHECK(kept_of(snake, 301, 2) == 0);
    CHECK(kept_of({}, 3, 5) == 0);
}

TEST_CASE("pixels in spot refuses a list out of order or outside the frame instead of grouping it wrongly", "[spots]") {
    tool::SpotFilter f(2, PixelType::u16, 5);
    const auto code_of = [&](const std::vector<std::pair<int, int>>& cells) {
        const List l = cells_list(cells);
        List out = l;
        return test::code_thrown_by(
            [&] { f.keep(l.row.data(), l.col.data(), l.values.data(), l.size(), out.row.data(), out.col.data(), out.values.data()); });
    };
    CHECK(code_of({{1, 0}, {0, 0}}) == ErrorCode::bad_argument);  // rows going back
    CHECK(code_of({{0, 2}, {0, 1}}) == ErrorCode::bad_argument);  // columns going back
    CHECK(code_of({{0, 2}, {0, 2}}) == ErrorCode::bad_argument);  // twice
    CHECK(code_of({{0, 5}}) == ErrorCode::bad_argument);          // past the last column
    CHECK(code_of({{0, 1}, {0, 2}, {3, 4}}) == ErrorCode::ok);
    // a refused list leaves nothing behind for the next frame: row 2's labels, held when (0, 5)
    // was refused, would be the row above a next frame's row 0
    CHECK(code_of({{1, 1}, {2, 0}, {2, 1}, {2, 2}, {0, 5}}) == ErrorCode::bad_argument);
    CHECK(filtered(f, cells_list({{0, 1}, {0, 3}})).size() == 0);
    CHECK(filtered(f, cells_list({{0, 1}, {1, 0}})).size() == 2);
    const List outside = cells_list({{0, 7}});
    List out = outside;
    CHECK_THROWS_WITH(f.keep(outside.row.data(), outside.col.data(), outside.values.data(), 1, out.row.data(), out.col.data(),
                             out.values.data()),
                      Catch::Contains("column 7") && Catch::Contains("5 columns"));
}
