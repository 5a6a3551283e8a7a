// The portable path: plain C++ (what the compiler vectorises for the baseline of the target,
// SSE2 on x86-64, NEON on aarch64), hits expanded one by one.
#include "../plane_collect_body.hpp"

namespace bslz4::detail {

PlaneCollectFn plane_collector_portable(std::size_t es) { return collector_for<ExpandEachHit>(es); }

}  // namespace bslz4::detail
