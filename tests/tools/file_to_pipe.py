#!/usr/bin/python3
"""Rewrite a little-endian file-mode perf.data as the pipe-mode stream that
carries the same header: what `perf record -o -` would have written had it
recorded the same thing.

Usage: file_to_pipe.py IN OUT

perf's own `perf inject -o -` also writes a pipe, but with the header
features of the machine it runs on (its hostname, osrelease, cmdline, no
build-ids), so a reader symbolizes such a pipe differently from the file.
This tool keeps every feature of the file:

  * the 16-byte pipe header (magic, size 16);
  * one HEADER_ATTR (64) record per attr: the attr as the file holds it
    (the header's attr_size less the 16 bytes of its ids section),
    then its ids;
  * one HEADER_FEATURE (80) record per feature section of the file, in
    feature-bit order: the feature id (u64), then the section's bytes,
    unpadded, as perf writes them (a file with tracing_data,
    feature 1, is refused: it would need HEADER_TRACING_DATA);
  * an empty HEADER_FEATURE whose id is the first one past the file's
    highest feature: the marker that ends the features;
  * the data section's records, as they are.

Layouts from tools/perf/Documentation/perf.data-file-format.txt ("Pipe-mode
data" and the file header).  Python 3 standard library only.
"""
import struct
import sys

HEADER_ATTR, HEADER_FEATURE = 64, 80
FEATURE_TRACING_DATA = 1


def record(rtype, body):
    size = 8 + len(body)
    if size > 0xFFFF:
        sys.exit("a record of %d bytes does not fit a pipe record" % size)
    return struct.pack("<IHH", rtype, 0, size) + body


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    raw = open(sys.argv[1], "rb").read()
    if raw[:8] != b"PERFILE2":
        sys.exit("%s: not a little-endian file-mode perf.data" % sys.argv[1])
    attr_size, = struct.unpack_from("<Q", raw, 16)
    attrs_at, attrs_size, data_at, data_size = struct.unpack_from("<4Q", raw, 24)
    feature_bits = int.from_bytes(raw[72:104], "little")

    out = [b"PERFILE2" + struct.pack("<Q", 16)]
    entry = attr_size  # an attr, then its ids' {offset, size}
    for at in range(attrs_at, attrs_at + attrs_size - entry + 1, entry):
        attr = raw[at:at + entry - 16]
        ids_at, ids_size = struct.unpack_from("<QQ", raw, at + entry - 16)
        out.append(record(HEADER_ATTR, attr + raw[ids_at:ids_at + ids_size]))

    index_at = data_at + data_size
    features = [bit for bit in range(256) if feature_bits >> bit & 1]
    for k, bit in enumerate(features):
        at, size = struct.unpack_from("<QQ", raw, index_at + 16 * k)
        section = raw[at:at + size]
        if bit == FEATURE_TRACING_DATA:
            sys.exit("%s: has tracing data, which this tool does not carry" % sys.argv[1])
        out.append(record(HEADER_FEATURE, struct.pack("<Q", bit) + section))
    end_marker = (features[-1] + 1) if features else 32
    out.append(record(HEADER_FEATURE, struct.pack("<Q", max(end_marker, 32))))
    out.append(raw[data_at:data_at + data_size])
    open(sys.argv[2], "wb").write(b"".join(out))


main()
