// A dataset's 2D peaks and how they join into 3D ones: what ImageD11's properties step
// (ImageD11.sinograms.properties.main) writes into its peaks table file (group pks2d), for
// pks_table.load, DataSet.pk2d / pk4d and the columnfiles made from them:
//   ipk       (rows + 1)  where each row's peaks start;
//   pk_props  (5, peaks)  npixels, sum, sum row x w, sum col x w, frame (f + row x frames);
//   npk       (rows, 3)   each row's peaks, overlaps within it, overlaps with the row before;
//   glabel    (peaks)     the 3D peak of each 2D peak: the connected groups of overlapping 2D
//                         peaks, numbered from 0 in order of their first 2D peak;
//   nlabel                how many 3D peaks.
// The rows are labelled in parallel, read one at a time by the caller's reader; a row's pixels are
// kept only until its overlaps with both neighbours are found.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "scan_peaks.hpp"

namespace bslz4::tool::peaks {

struct PeakTable {
    std::vector<std::int64_t> ipk;
    PeakColumns properties;
    std::vector<std::array<std::int64_t, 3>> npk;
    std::vector<std::int64_t> glabel;
    std::int64_t nlabel = 0;
    std::size_t rows_labelled_before = 0;  // rows whose labels came with their pixels
    std::size_t peaks() const { return properties[kPixels].size(); }
};

// read(i) gives row i (called from one thread at a time, rows in any order); threads 0: as many
// as the machine has cores. The first error (a row's, or read's) stops the work and is thrown.
PeakTable build_peak_table(std::size_t rows, const std::function<ScanPixels(std::size_t)>& read, const PeakOptions& options,
                           unsigned threads);

// The connected groups of the edges' peaks (numbered over all rows by ipk), from 0 in order of
// each group's smallest peak; returns the number of groups.
std::int64_t group_peaks(const std::vector<std::int64_t>& ipk, const std::vector<PeakEdge>& edges,
                         std::vector<std::int64_t>& glabel);

}  // namespace bslz4::tool::peaks
