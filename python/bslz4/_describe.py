"""bslz4.describe, the seed's name for its pipeline registry: the seed chose, per object, one
of several implementations of each step (decode, mask, untranspose, collect, route, dot). Ours
has one implementation of each and no choice to make, so a pipeline argument is accepted and not
used; describe says so in the seed's shapes."""

STEPS = ("decode", "mask", "untranspose", "collect", "route", "dot")

# What our library does in each step (its one value, numbered 1 as the seed numbered values).
_OURS = {
    "decode": "lz4 or zstd by the chunk's codec (liblz4, libzstd; the GPU decodes lz4 itself)",
    "mask": "tested per pixel when listing",
    "untranspose": "the bit unshuffle of each block",
    "collect": "the pixels above the cut, in pixel order",
    "route": "every pixel of the frame into the matrix product",
    "dot": "CSR by bin over the decoded frame (float weights, or fixed-point for int64 sums)",
}


def describe(pipeline=None):
    """With no argument: {step: [(1, name, True, what it is)]}, our one implementation of each of
    the seed's steps. With a pipeline (the seed's argument): {step: None}, every step left to the
    library, since a pipeline is accepted and not used."""
    if pipeline is None:
        return {step: [(1, "bslz4", True, _OURS[step])] for step in STEPS}
    return {step: None for step in STEPS}
