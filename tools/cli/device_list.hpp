// Which GPUs `--device` names: "all", one ordinal ("1") or a comma list ("0,1"). Parsing is
// the command line's (a malformed list is a usage error); resolving asks the driver, so that no
// GPU, or one that does not exist, is an error before any file is read.
#pragma once
#include <string>
#include <vector>

namespace bslz4::tool {

struct DeviceList {
    bool all = false;
    std::vector<int> ordinals;  // in the order given, each once
};

// Throws UsageError naming `spec` for anything but all, N or N,M,... (no repeats, at most 64).
DeviceList parse_device_list(const std::string& spec);

// The ordinals, "all" being every GPU the driver sees. Throws bslz4::Error saying why when there
// is no GPU (no driver, no device, a build without the GPU part) or a listed one does not exist.
std::vector<int> resolve_devices(const DeviceList& list, const std::string& spec);

// "GPU 0 (NVIDIA H200)", or "2 GPUs (0, 1: NVIDIA H200)" / "(0: A, 1: B)" when they differ.
std::string describe_devices(const std::vector<int>& ordinals);

}  // namespace bslz4::tool
