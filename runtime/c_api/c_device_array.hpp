// The C handle of a cuda::DeviceArray, and the calls that return one (decompress, integrate and
// their _from_device forms), written once for both GPU classes.
#pragma once
#include <utility>

#include "bslz4/bslz4.h"
#include "bslz4/cuda/device_array.hpp"
#include "c_handle_class.hpp"
#include "c_in_call.hpp"
#include "c_status.hpp"

struct bslz4_device_array : bslz4::c_api::Tagged<bslz4::c_api::HandleClass::device_array> {
    explicit bslz4_device_array(bslz4::cuda::DeviceArray a) : array(std::move(a)) {}
    bslz4::cuda::DeviceArray array;
};

namespace bslz4::c_api {

template <class H, class Run>
int device_array_call(const char* function, H* h, bslz4_device_array** result, Run&& run) {
    return guarded(function, [&] {
        const InCall in_call(h);
        require(result, "result");
        *result = nullptr;
        *result = new bslz4_device_array{run(h->engine)};
        return BSLZ4_OK;
    });
}

// A size_t the handle knows (last_host, cap).
template <class H, class Read>
int handle_query(const char* function, const H* h, std::size_t* value, Read&& read) {
    return guarded(function, [&] {
        const InCall in_call(h);
        require(value, "result");
        *value = read(h->engine);
        return BSLZ4_OK;
    });
}

}  // namespace bslz4::c_api
