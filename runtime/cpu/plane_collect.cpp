#include "plane_collect.hpp"

#include "bslz4/error.hpp"

namespace bslz4::detail {

PlaneCollectFn plane_collector(std::size_t es, CpuPath path) {
    switch (path) {
#if defined(BSLZ4_HAVE_X86_PATHS)
        case CpuPath::avx512: return plane_collector_avx512(es);
        case CpuPath::avx2: return plane_collector_avx2(es);
#else
        case CpuPath::avx512:
        case CpuPath::avx2: throw Error(ErrorCode::bad_argument, "this build has no x86 CPU paths");
#endif
        case CpuPath::portable: break;
    }
    return plane_collector_portable(es);
}

}  // namespace bslz4::detail
