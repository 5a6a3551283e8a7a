// SHA-256 (FIPS 180-4) as a lowercase hex string: the reference cases record each decoded
// frame's digest, so the demo and the tests can check frames that have no .raw file.
#pragma once
#include <string>

#include "bslz4/byte_view.hpp"

namespace bslz4::tool {

std::string sha256_hex(ByteView bytes);

}  // namespace bslz4::tool
