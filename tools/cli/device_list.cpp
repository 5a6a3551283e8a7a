#include "cli/device_list.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "bslz4/error.hpp"
#include "cli/command_line.hpp"

#if BSLZ4_HAVE_CUDA
#include "bslz4/cuda/device.hpp"
#endif

namespace bslz4::tool {

namespace {
constexpr std::size_t kMostDevices = 64;
}

DeviceList parse_device_list(const std::string& spec) {
    DeviceList list;
    if (spec == "all") {
        list.all = true;
        return list;
    }
    const std::string expected = "--device '" + spec + "': expected all, a GPU number (0, 1, ...) or a comma list such as 0,1";
    std::size_t start = 0;
    for (;;) {
        const std::size_t comma = spec.find(',', start);
        const std::string item = spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos || item.size() > 4)
            throw UsageError(expected);
        const int ordinal = std::atoi(item.c_str());
        if (std::find(list.ordinals.begin(), list.ordinals.end(), ordinal) != list.ordinals.end())
            throw UsageError("--device '" + spec + "' names GPU " + item + " twice");
        list.ordinals.push_back(ordinal);
        if (list.ordinals.size() > kMostDevices)
            throw UsageError("--device '" + spec + "': at most " + std::to_string(kMostDevices) + " GPUs");
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return list;
}

std::vector<int> resolve_devices(const DeviceList& list, const std::string& spec) {
#if BSLZ4_HAVE_CUDA
    if (!cuda::available())
        throw Error(ErrorCode::bad_argument, "--device " + spec + ": no GPU to run on: " + cuda::unavailable_reason() + "; give --cpu to run on the CPU");
    const int count = cuda::device_count();
    if (list.all) {
        std::vector<int> every;
        for (int d = 0; d < count; ++d) every.push_back(d);
        return every;
    }
    for (int d : list.ordinals)
        if (d >= count)
            throw Error(ErrorCode::bad_argument, "--device " + spec + ": there is no GPU " + std::to_string(d) +
                                                     " (the driver sees " + std::to_string(count) + ", numbered from 0)");
    return list.ordinals;
#else
    (void)list;
    throw Error(ErrorCode::bad_argument,
                "--device " + spec + ": no GPU to run on: this build has no GPU runtime (built without nvcc); give --cpu to run on the CPU");
#endif
}

std::string describe_devices(const std::vector<int>& ordinals) {
#if BSLZ4_HAVE_CUDA
    std::vector<std::string> names;
    for (int d : ordinals) names.push_back(cuda::device_info(d).name);
    if (ordinals.size() == 1) return "GPU " + std::to_string(ordinals[0]) + " (" + names[0] + ")";
    const bool same = std::all_of(names.begin(), names.end(), [&](const std::string& n) { return n == names[0]; });
    std::string text = std::to_string(ordinals.size()) + " GPUs (";
    for (std::size_t k = 0; k < ordinals.size(); ++k) {
        text += (k ? ", " : "") + std::to_string(ordinals[k]);
        if (!same) text += ": " + names[k];
    }
    return text + (same ? ": " + names[0] : "") + ")";
#else
    (void)ordinals;
    return "no GPU";
#endif
}

}  // namespace bslz4::tool
