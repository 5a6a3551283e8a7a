// Everything of the CPU library in one include.
#pragma once
#include "bslz4/byte_view.hpp"
#include "bslz4/chunk2sparse.hpp"
#include "bslz4/chunk_header.hpp"
#include "bslz4/codec.hpp"
#include "bslz4/decode.hpp"
#include "bslz4/encode.hpp"
#include "bslz4/error.hpp"
#include "bslz4/pixel_type.hpp"
#include "bslz4/sparse_result.hpp"
#include "bslz4/synthetic_eiger.hpp"
