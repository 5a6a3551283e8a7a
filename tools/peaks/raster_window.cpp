#include "raster_window.hpp"

namespace bslz4::tool::peaks {

std::size_t RasterWindows::row_end(std::size_t first) const {
    std::size_t e = first;
    while (e < f_.n && f_.row[e] == f_.row[first]) ++e;
    return e;
}

void RasterWindows::take(std::size_t& cursor, std::size_t end, long c, std::uint32_t* out, unsigned& n) const {
    while (cursor < end && long(f_.col[cursor]) < c - 1) ++cursor;
    for (std::size_t p = cursor; p < end && long(f_.col[p]) <= c + 1; ++p) out[n++] = static_cast<std::uint32_t>(p);
}

unsigned RasterWindows::window(std::size_t k, std::uint32_t out[9], unsigned& self) {
    const long r = f_.row[k], c = f_.col[k];
    if (r != row_) {
        const bool next = row_ >= 0 && r == row_ + 1;
        above_ = above_end_ = 0;
        if (next) {
            above_ = here_first_;
            above_end_ = here_end_;
        }
        here_first_ = k;
        here_end_ = row_end(k);  // each row is scanned twice at most: here and as the row below
        below_ = below_end_ = here_end_;
        if (here_end_ < f_.n && long(f_.row[here_end_]) == r + 1) below_end_ = row_end(here_end_);
        row_ = r;
    }
    unsigned n = 0;
    take(above_, above_end_, c, out, n);
    if (k > here_first_ && long(f_.col[k - 1]) == c - 1) out[n++] = static_cast<std::uint32_t>(k - 1);
    self = n;
    out[n++] = static_cast<std::uint32_t>(k);
    if (k + 1 < here_end_ && long(f_.col[k + 1]) == c + 1) out[n++] = static_cast<std::uint32_t>(k + 1);
    take(below_, below_end_, c, out, n);
    return n;
}

}  // namespace bslz4::tool::peaks
