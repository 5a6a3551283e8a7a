#!/usr/bin/env python3
"""Says what a CUDA fatbin holds, for a -Dprebuilt_fatbin build, which has no nvcc to ask:
line 1 the CUDA toolkit that built it ("13.0"; "13.x" when only its major can be told), line 2
its architectures in the form the build reports them ("75 80 90 (PTX 90)").

The toolkit comes from an SASS entry's toolkit note ("Cuda compilation tools, release 13.0"),
else from a PTX entry's ISA version (PTX ISA 7.x came with CUDA 11, 8.x with 12, 9.x with 13).
Entry headers (little-endian): u16 kind (1 PTX, 2 SASS), u16, u32 header size, u64 payload
size, ..., u32 at 24 the PTX ISA version (major << 16 | minor), u32 at 28 the sm.

usage: fatbin_contents.py FATBIN [TOOLKIT ARCHS]
With TOOLKIT and ARCHS (what nvcc was asked for), exits 1 unless the fatbin says the same.
"""
import re
import struct
import sys

FATBIN_MAGIC = 0xBA55ED50
KIND_PTX, KIND_SASS = 1, 2


def entries(data, path):
    if len(data) < 16 or struct.unpack_from("<I", data, 0)[0] != FATBIN_MAGIC:
        sys.exit(f"fatbin_contents.py: {path} is not a CUDA fatbin (no 0xBA55ED50 magic)")
    _, _, header_size, body_size = struct.unpack_from("<IHHQ", data, 0)
    at, end = header_size, min(len(data), header_size + body_size)
    while at + 32 <= end:
        kind, _, entry_header, payload = struct.unpack_from("<HHIQ", data, at)
        isa, sm = struct.unpack_from("<II", data, at + 24)
        if entry_header < 32 or at + entry_header + payload > end:
            sys.exit(f"fatbin_contents.py: {path}: an entry at byte {at} runs past the fatbin")
        yield kind, isa, sm, data[at + entry_header:at + entry_header + payload]
        at += entry_header + payload


def main():
    path = sys.argv[1]
    data = open(path, "rb").read()
    sass, ptx, toolkit, ptx_toolkit = [], [], None, None
    for kind, isa, sm, payload in entries(data, path):
        if kind == KIND_SASS:
            sass.append(sm)
            note = re.search(rb"Cuda compilation tools, release (\d+)\.(\d+)", payload)
            if note and toolkit is None:
                toolkit = f"{int(note.group(1))}.{int(note.group(2))}"
        elif kind == KIND_PTX:
            ptx.append(sm)
            if (isa >> 16) >= 7:
                ptx_toolkit = f"{(isa >> 16) + 4}.x"
    toolkit = toolkit or ptx_toolkit
    if not sass and not ptx:
        sys.exit(f"fatbin_contents.py: {path} holds no SASS and no PTX")
    if toolkit is None:
        sys.exit(f"fatbin_contents.py: cannot tell which CUDA toolkit built {path} (no toolkit note, no PTX)")
    archs = " ".join(str(a) for a in sorted(set(sass)))
    if ptx:
        archs += " (PTX " + " ".join(str(a) for a in sorted(set(ptx))) + ")"
    print(toolkit)
    print(archs.strip())
    if len(sys.argv) == 4 and (toolkit, archs.strip()) != (sys.argv[2], sys.argv[3]):
        sys.exit(f"fatbin_contents.py: {path} reads as CUDA {toolkit}, {archs.strip()}; "
                 f"nvcc {sys.argv[2]} was asked for {sys.argv[3]}")


if __name__ == "__main__":
    main()
