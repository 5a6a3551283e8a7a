// A read-only view of bytes owned by somebody else (C++17 has no std::span).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace bslz4 {

struct ByteView {
    const std::uint8_t* data = nullptr;
    std::size_t size = 0;

    ByteView() = default;
    ByteView(const void* d, std::size_t n) : data(static_cast<const std::uint8_t*>(d)), size(n) {}
    ByteView(const std::vector<std::uint8_t>& v) : data(v.data()), size(v.size()) {}  // NOLINT: implicit by design
    ByteView(const std::string& s) : data(reinterpret_cast<const std::uint8_t*>(s.data())), size(s.size()) {}  // NOLINT
};

}  // namespace bslz4
