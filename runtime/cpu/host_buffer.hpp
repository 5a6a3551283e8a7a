// A growable, uninitialised host buffer: result arrays of a whole batch can be gigabytes, and
// zero-filling them (as std::vector would) costs more than decoding into them.
#pragma once
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <string>

#include "bslz4/error.hpp"

namespace bslz4::detail {

class HostBuffer {
public:
    // Ensures room for `bytes`; old contents are not kept.
    std::uint8_t* reserve(std::size_t bytes) {
        if (bytes > capacity_) {
            data_.reset();
            data_.reset(static_cast<std::uint8_t*>(std::malloc(bytes ? bytes : 1)));
            if (!data_)
                throw Error(ErrorCode::out_of_memory,
                            "cannot allocate " + std::to_string(bytes) + " bytes of host memory");
            capacity_ = bytes;
        }
        return data_.get();
    }
    std::uint8_t* data() const { return data_.get(); }

private:
    struct Free {
        void operator()(std::uint8_t* p) const { std::free(p); }
    };
    std::unique_ptr<std::uint8_t, Free> data_;
    std::size_t capacity_ = 0;
};

}  // namespace bslz4::detail
