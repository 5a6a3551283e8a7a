// ImageD11's dataset file (ImageD11.sinograms.dataset.DataSet.save, with the options its
// segmenter's setup saved in the group lima_segmenter): which LImA files a scan has, where
// ImageD11 expects their sparse files, and the segmenter's options, so that `bslz4 sparse
// --imaged11 DATASET.h5` does what ImageD11's segmenter jobs would.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace bslz4::tool {

struct ImageD11Dataset {
    std::string file;
    std::string datapath, analysispath, limapath;
    std::vector<std::string> imagefiles, sparsefiles;  // relative to datapath and analysispath
    // lima_segmenter's options, where the file has them (else ImageD11's defaults apply).
    std::optional<double> cut;
    std::optional<std::size_t> howmany, pixels_in_spot;
    std::string maskfile;  // EDF, 1 = masked ("" none)
    std::vector<std::string> inputs() const;   // datapath/imagefiles[i]
    std::vector<std::string> outputs() const;  // analysispath/sparsefiles[i]
};

// ImageD11's segmenter defaults (SegmenterOptions): cut 1, howmany 100,000, pixels_in_spot 3,
// thresholds cut x 2^i for i < 6.
constexpr double kImageD11Cut = 1;
constexpr std::size_t kImageD11Howmany = 100000, kImageD11PixelsInSpot = 3, kImageD11Thresholds = 6;

// Everything a missing or malformed name is an Error naming the file and the name.
ImageD11Dataset read_imaged11_dataset(const std::string& path);

}  // namespace bslz4::tool
