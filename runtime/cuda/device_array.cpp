#include "bslz4/cuda/device_array.hpp"

#include <type_traits>

#include "bslz4/pixel_type.hpp"
#include "device_array_state.hpp"

namespace bslz4::cuda {

namespace {
const std::vector<std::size_t> kNoShape;
const std::string kNoType;

DLDataType dlpack_type(const std::string& dtype) {
    return visit_pixel_type(parse_pixel_type(dtype), [](auto zero) {
        using T = decltype(zero);
        const std::uint8_t code = std::is_floating_point_v<T> ? kDLFloat : std::is_signed_v<T> ? kDLInt : kDLUInt;
        return DLDataType{code, static_cast<std::uint8_t>(8 * sizeof(T)), 1};
    });
}

// What a tensor's manager_ctx points to: the tensor itself, its shape and strides, and a share
// of the array's state, all freed by the tensor's deleter.
template <class Managed>
struct Export {
    Managed managed{};
    std::vector<std::int64_t> shape, strides;
    std::shared_ptr<detail::DeviceArrayState> state;

    static void release(Managed* self) noexcept {
        if (self) delete static_cast<Export*>(self->manager_ctx);
    }
};

template <class Managed>
Managed* export_tensor(const std::shared_ptr<detail::DeviceArrayState>& state, const char* call) {
    if (!state) throw Error(ErrorCode::bad_argument, std::string(call) + ": the DeviceArray is empty (default-made or moved from)");
    auto e = std::make_unique<Export<Managed>>();
    e->state = state;
    const std::size_t ndim = state->shape.size();
    e->shape.assign(state->shape.begin(), state->shape.end());
    e->strides.assign(ndim, 1);
    std::size_t elements = ndim ? state->shape[ndim - 1] : 1;
    for (std::size_t d = ndim; d-- > 1;) {
        e->strides[d - 1] = e->strides[d] * e->shape[d];
        elements *= state->shape[d - 1];
    }
    DLTensor& t = e->managed.dl_tensor;
    // The spec wants no pointer for a tensor of no elements (the buffer still holds one byte).
    t.data = elements ? reinterpret_cast<void*>(static_cast<std::uintptr_t>(state->buffer.get())) : nullptr;
    t.device = DLDevice{kDLCUDA, state->ctx.ordinal()};
    t.ndim = static_cast<std::int32_t>(ndim);
    t.dtype = dlpack_type(state->dtype);
    t.shape = e->shape.data();
    t.strides = e->strides.data();
    t.byte_offset = 0;
    e->managed.manager_ctx = e.get();
    e->managed.deleter = &Export<Managed>::release;
    return &e.release()->managed;
}
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
    copy_to_host(out.data(), out.size());
    return out;
}

void DeviceArray::copy_to_host(void* out, std::size_t out_bytes) const {
    if (out_bytes < bytes())
        throw Error(ErrorCode::bad_argument, "copy_to_host: " + std::to_string(out_bytes) + " bytes of room for a " +
                                                 std::to_string(bytes()) + "-byte device array");
    if (bytes() == 0) return;
    if (!out) throw Error(ErrorCode::bad_argument, "copy_to_host: a null output pointer");
    detail::ScopedContext scope(state_->ctx);
    detail::check(detail::driver().cuMemcpyDtoHAsync(out, state_->buffer.get(), bytes(), nullptr),
                  "cuMemcpyDtoH(device array)");
    detail::check(detail::driver().cuCtxSynchronize(), "cuCtxSynchronize");
}

DLManagedTensor* DeviceArray::to_dlpack() const { return export_tensor<DLManagedTensor>(state_, "to_dlpack"); }

DLManagedTensorVersioned* DeviceArray::to_dlpack_versioned() const {
    DLManagedTensorVersioned* t = export_tensor<DLManagedTensorVersioned>(state_, "to_dlpack_versioned");
    t->version = DLPackVersion{1, 0};
    t->flags = 0;
    return t;
}

}  // namespace bslz4::cuda
