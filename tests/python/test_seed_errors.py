"""Errors read as the seed's did, so that code matching its messages keeps working: each begins
"Error decoding chunk|batch: <the seed's number>: <its description>" with the bad chunks named
("chunks [k]"), and carries seed_code, seed_message and chunks, while our message (frame, block)
and our attributes (code, frame, block) follow. Checked against the seed package on the same
bad input wherever the seed refuses it too."""
import pickle
import re

import numpy as np
import pytest

import bslz4

SEED_FORM = re.compile(r"^Error decoding (chunk|batch): (-\d+): ")


def seed_form(message):
    m = SEED_FORM.match(message)
    return None if m is None else (m.group(1), int(m.group(2)))


def frames_and_chunks(n=3, shape=(20, 30)):
    rng = np.random.default_rng(4)
    frames = rng.poisson(2, (n,) + shape).astype(np.uint16)
    return frames, [bslz4._bslz4.encode_chunk(f.tobytes(), 2, "lz4") for f in frames]


def bad_inputs():
    """(what, a call of (module, mask, chunks)) for faults both packages refuse."""
    _, chunks = frames_and_chunks()
    good = chunks[0]
    zeros = good[:16] + b"\x00" * (len(good) - 16)  # block lengths of 0: the blocks are missing
    broken = bytearray(good)
    broken[17] ^= 0xFF  # the first LZ4 token's literal length
    return [
        ("truncated alone", lambda m, mask: m.chunk2sparse(mask, np.uint16)(good[:30], 1)),
        ("truncated in a batch", lambda m, mask: m.chunk2sparse(mask, np.uint16).multi([good, good[:30], good], 1)),
        ("shorter than its header", lambda m, mask: m.chunk2sparse(mask, np.uint16).multi([good, good[:5]], 1)),
        ("block lengths of zero", lambda m, mask: m.chunk2sparse(mask, np.uint16)(zeros, 1)),
        ("a broken LZ4 token", lambda m, mask: m.chunk2sparse(mask, np.uint16).multi([good, bytes(broken)], 1)),
        ("a mask too small", lambda m, mask: m.chunk2sparse(np.ones((10, 30), np.uint8), np.uint16)(good, 1)),
        ("a mask too large", lambda m, mask: m.chunk2sparse(np.ones((40, 30), np.uint8), np.uint16).multi(
            [good, good], 1)),
        ("no chunks", lambda m, mask: m.chunk2sparse(mask, np.uint16).multi([], 1)),
        ("outside the buffer", lambda m, mask: m.chunk2sparse(mask, np.uint16).from_buffer(
            good, [0, 5], [len(good), len(good)], 1)),
        ("decompress of a truncated chunk", lambda m, mask: m.decompress([good, good[:30]], np.uint16)),
        ("decompress of chunks of two sizes", lambda m, mask: m.decompress(
            [good, bslz4._bslz4.encode_chunk(np.zeros(60, np.uint16).tobytes(), 2, "lz4")], np.uint16)),
    ]


@pytest.mark.parametrize("what,call", bad_inputs(), ids=[w for w, _ in bad_inputs()])
def test_our_errors_begin_with_the_seeds_number_and_form(seed_package, what, call):
    mask = np.ones((20, 30), np.uint8)
    with pytest.raises(Exception) as ours:
        call(bslz4, mask)
    assert isinstance(ours.value, (bslz4.DecodeError, ValueError)), what
    mine = seed_form(str(ours.value))
    assert mine is not None, str(ours.value)
    assert ours.value.seed_code == mine[1] and str(ours.value).startswith(ours.value.seed_message)
    seed_message = None
    try:
        call(seed_package, mask)
    except Exception as e:  # noqa: BLE001 -- the seed raised plain Exceptions
        seed_message = str(e)
    if seed_message is None:
        pytest.skip("the seed %s accepts this (%s)" % (seed_package.version, what))
    theirs = seed_form(seed_message)
    if theirs is None:
        pytest.skip("the seed's message has no number here: %s" % (what,))
    assert mine == theirs, (what, str(ours.value))
    words = seed_message.split(": ", 2)[2].split(".")[0].split(";")[0]
    assert words in str(ours.value), (what, words)


def test_a_decode_error_keeps_our_message_and_attributes_and_names_the_chunk():
    _, chunks = frames_and_chunks()
    c = bslz4.chunk2sparse(np.ones((20, 30), np.uint8), np.uint16)
    with pytest.raises(bslz4.DecodeError) as e:
        c.multi([chunks[0], chunks[1], chunks[2][:-5]], 1)
    err = e.value
    assert err.frame == 2 and err.block == 0 and err.code == "bad_block_length"
    assert err.seed_code == -107 and err.chunks == [2]
    assert "corrupt" in str(err) and "chunks [2]" in str(err)
    assert err.message.startswith("frame 2: ") and str(err).endswith(err.message)
    assert str(err).startswith("Error decoding batch: -107: ")
    with pytest.raises(bslz4.DecodeError) as one:
        c(chunks[2][:-5], 1)
    assert str(one.value).startswith("Error decoding chunk: -107: ") and one.value.frame == 0
    again = pickle.loads(pickle.dumps(err))
    assert str(again) == str(err) and again.seed_code == -107 and again.chunks == [2]


def test_value_errors_of_the_seeds_refusals_carry_its_number():
    c = bslz4.chunk2sparse(np.ones((20, 30), np.uint8), np.uint16)
    with pytest.raises(ValueError) as e:
        c.multi([], 1)
    assert e.value.seed_code == -105 and str(e.value) == "Error decoding batch: -105: no chunks were given."
    _, chunks = frames_and_chunks()
    with pytest.raises(ValueError) as e:
        c.from_buffer(chunks[0], [0, 3, 0], [10, len(chunks[0]), 10 ** 6], 1)
    assert e.value.seed_code == -108 and e.value.chunks == [1, 2] and "chunks [1, 2]" in str(e.value)


def test_wrong_sizes_are_the_seeds_99_and_110_against_a_mask_and_106_between_chunks():
    _, chunks = frames_and_chunks()
    with pytest.raises(bslz4.DecodeError) as big:
        bslz4.chunk2sparse(np.ones((10, 30), np.uint8), np.uint16)(chunks[0], 1)
    with pytest.raises(bslz4.DecodeError) as small:
        bslz4.chunk2sparse(np.ones((40, 30), np.uint8), np.uint16)(chunks[0], 1)
    other = bslz4._bslz4.encode_chunk(np.zeros(60, np.uint16).tobytes(), 2, "lz4")
    with pytest.raises(bslz4.DecodeError) as between:
        bslz4.block_starts([chunks[0], other], np.uint16)
    assert (big.value.seed_code, small.value.seed_code, between.value.seed_code) == (-99, -110, -106)
    assert all(e.value.code == "wrong_decoded_size" for e in (big, small, between))
    assert between.value.chunks == [1]
