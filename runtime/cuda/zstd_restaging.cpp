#include "zstd_restaging.hpp"
