// bslz4_options: initialised, read (struct_size, every field in range) and turned into the
// classes' options.
#include "c_options.hpp"

#include <string>

#include "argument_checks.hpp"
#include "bslz4/error.hpp"
#include "c_arguments.hpp"
#include "c_status.hpp"

namespace bslz4::c_api {

static_assert(BSLZ4_MAX_THREADS == kMaxThreads, "the C limit is the library's");

bslz4_options options_or_default(const bslz4_options* options) {
    bslz4_options o;
    bslz4_options_init(&o);
    if (!options) return o;
    // Later versions will accept the sizes of earlier ones; this is the first.
    if (options->struct_size != sizeof(bslz4_options))
        throw Error(ErrorCode::bad_argument, "options.struct_size is " + std::to_string(options->struct_size) + ", not " +
                                                 std::to_string(sizeof(bslz4_options)) +
                                                 " (fill the options with bslz4_options_init first)");
    // Every class's options, though only the CPU classes start threads: one rule for all.
    detail::checked_thread_count(options->threads, "options.threads");
    return *options;
}

OnError on_error_from(int on_error) {
    if (on_error != BSLZ4_ON_ERROR_STOP && on_error != BSLZ4_ON_ERROR_REPORT)
        throw Error(ErrorCode::bad_argument, "on_error " + std::to_string(on_error) +
                                                 " is none of BSLZ4_ON_ERROR_STOP (0), BSLZ4_ON_ERROR_REPORT (1)");
    return on_error == BSLZ4_ON_ERROR_STOP ? OnError::throw_first : OnError::report;
}

Chunk2SparseOptions cpu_options(const bslz4_options* options) {
    const bslz4_options o = options_or_default(options);
    Chunk2SparseOptions out;
    out.codec = codec_from(o.codec);
    out.threads = o.threads;
    out.on_error = on_error_from(o.on_error);
    out.howmany = howmany_from(o.howmany);
    out.thresholds = thresholds_from(o.thresholds, o.nthresholds);
    return out;
}

}  // namespace bslz4::c_api

int bslz4_options_init(bslz4_options* options) {
    return bslz4::c_api::guarded("bslz4_options_init", [&] {
        bslz4::c_api::require(options, "options");
        *options = bslz4_options{};
        options->struct_size = sizeof(bslz4_options);
        options->codec = BSLZ4_CODEC_LZ4;
        options->on_error = BSLZ4_ON_ERROR_STOP;
        options->howmany = BSLZ4_EVERY_PIXEL;
        options->thresholds = nullptr;
        options->nthresholds = BSLZ4_DEFAULT_THRESHOLDS;
        options->threads = 0;
        options->batch = 0;
        options->group = 0;
        options->unblock = BSLZ4_UNBLOCK_GPU;
        options->device = -1;
        return BSLZ4_OK;
    });
}
