// Where a file keeps a scan's frames, as the detectors' software writes them: a LImA file's
// /entry_NNNN/INSTRUMENT/DETECTOR/data, an Eiger master's /entry/data/data_NNNNNN links (and the
// frames it says it took), each found by its links alone. For open_scan (scan_input.cpp).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "hdf5_file.hpp"

namespace bslz4::tool::scan_layout {

// Every link on the path is a hard link: the object's own place, not a link to it from elsewhere.
bool hard_links_only(hid_t file, const std::string& path);
// A 3-d dataset reached by hard links only.
bool is_frames_dataset(hid_t file, const std::string& path, const std::string& file_name);
// A LImA file's frames: /entry_NNNN/INSTRUMENT/DETECTOR/data (LImA's HDF5 saving, as ESRF
// beamlines write it: /entry_0000/ESRF-ID11/eiger/data).
std::vector<std::string> lima_datasets(hid_t file, const std::string& file_name);
// An Eiger master's data links in /entry/data, data_000001 up, checked to follow on from 1 with
// no gap (else an io error naming the gap or the odd link); empty when the group holds none.
std::vector<std::string> eiger_data_links(hid_t file, const std::string& file_name);
// The frames an Eiger master says it took (detectorSpecific's nimages x ntrigger), or 0 when it
// does not say.
std::size_t eiger_frames_recorded(hid_t file, const std::string& file_name);

}  // namespace bslz4::tool::scan_layout
