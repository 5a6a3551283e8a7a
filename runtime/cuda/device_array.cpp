#include "bslz4/cuda/device_array.hpp"

#include "device_array_state.hpp"

namespace bslz4::cuda {

namespace {
const std::vector<std::size_t> kNoShape;
const std::string kNoType;
}  // namespace

DeviceArray::DeviceArray() = default;
DeviceArray::DeviceArray(std::unique_ptr<detail::DeviceArrayState> state) : state_(std::move(state)) {}
DeviceArray::~DeviceArray() = default;
DeviceArray::DeviceArray(DeviceArray&&) noexcept = default;
DeviceArray& DeviceArray::operator=(DeviceArray&&) noexcept = default;

std::uint64_t DeviceArray::device_pointer() const { return state_ ? state_->buffer.get() : 0; }
const std::vector<std::size_t>& DeviceArray::shape() const { return state_ ? state_->shape : kNoShape; }
const std::string& DeviceArray::dtype() const { return state_ ? state_->dtype : kNoType; }
std::size_t DeviceArray::bytes() const { return state_ ? state_->bytes : 0; }
int DeviceArray::device() const { return state_ ? state_->ctx.ordinal() : -1; }

std::vector<std::uint8_t> DeviceArray::to_host() const {
    std::vector<std::uint8_t> out(bytes());
    if (out.empty()) return out;
    detail::ScopedContext scope(state_->ctx);
    detail::check(detail::driver().cuMemcpyDtoHAsync(out.data(), state_->buffer.get(), out.size(), nullptr),
                  "cuMemcpyDtoH(device array)");
    detail::check(detail::driver().cuCtxSynchronize(), "cuCtxSynchronize");
    return out;
}

}  // namespace bslz4::cuda
