#!/usr/bin/env python3
"""Repairs a copy of an unfinished perf.data (perf record killed: header data
size 0, no feature sections) so that perf itself reads it: the test oracle
for perfvtab, which reads the unfinished file as it is.

    repair_unfinished.py IN OUT      a file
    repair_unfinished.py --dir IN OUT   a `perf record --threads` directory

The copy ends at the last whole record of the data section; its header gets
that data size and no feature bits but the two perf needs to read it: a
directory's HEADER_DIR_FORMAT (version 1; without it perf does not read the
data.N files, each cut to its last whole record) and, with COMPRESSED
records, HEADER_COMPRESSED (zstd).  Prints the bytes dropped.
Little-endian files only (what the tests record)."""
import os
import shutil
import struct
import sys

HEADER_DIR_FORMAT = 24
HEADER_COMPRESSED = 27
# HEADER_COMPRESSED: version 0, zstd, level 1, ratio 0, and a buffer for
# one decompressed chunk larger than any ring buffer the tests record with
COMPRESSED_SECTION = struct.pack('<5I', 0, 1, 1, 0, 1 << 22)


def whole_records_end(b, start):
    """Offset after the last whole record from start."""
    at = start
    while len(b) - at >= 8:
        rtype, _misc, size = struct.unpack_from('<IHH', b, at)
        if size < 8 or len(b) - at < size:
            break
        if rtype == 71:  # AUXTRACE: its trace data follows the record
            if size < 16:
                break
            payload = struct.unpack_from('<Q', b, at + 8)[0]
            if len(b) - at - size < payload:
                break
            size += payload
        at += size
    return at


def has_compressed(b, start):
    at = start
    while len(b) - at >= 8:
        rtype, _misc, size = struct.unpack_from('<IHH', b, at)
        if rtype in (81, 83):
            return True
        at += max(size, 8)
    return False


def repair_file(src, dst, dir_format):
    b = bytearray(open(src, 'rb').read())
    if b[:8] != b'PERFILE2':
        raise SystemExit('%s: not a little-endian perf.data file' % src)
    data_offset, data_size = struct.unpack_from('<QQ', b, 40)
    if data_size != 0:
        raise SystemExit('%s: data size is %d, not an unfinished recording' % (src, data_size))
    end = whole_records_end(b, data_offset)
    dropped = len(b) - end
    out = b[:end]
    struct.pack_into('<Q', out, 48, end - data_offset)
    # COMPRESSED records (81) need HEADER_COMPRESSED, data.N need DIR_FORMAT
    sections = {}
    if dir_format:
        sections[HEADER_DIR_FORMAT] = struct.pack('<Q', 1)
    if has_compressed(out, data_offset):
        sections[HEADER_COMPRESSED] = COMPRESSED_SECTION
    bitmap = sum(1 << bit for bit in sections)
    out[72:104] = bitmap.to_bytes(32, 'little')
    at = end + 16 * len(sections)
    index, bodies = b'', b''
    for bit in sorted(sections):
        index += struct.pack('<QQ', at + len(bodies), len(sections[bit]))
        bodies += sections[bit]
    out += index + bodies
    open(dst, 'wb').write(out)
    return dropped


def main():
    args = sys.argv[1:]
    if args and args[0] == '--dir':
        src, dst = args[1:3]
        os.makedirs(dst, exist_ok=True)
        dropped = repair_file(os.path.join(src, 'data'), os.path.join(dst, 'data'), True)
        for name in sorted(os.listdir(src)):
            if name.startswith('data.'):
                b = open(os.path.join(src, name), 'rb').read()
                end = whole_records_end(b, 0)
                dropped += len(b) - end
                open(os.path.join(dst, name), 'wb').write(b[:end])
        print(dropped)
    else:
        print(repair_file(args[0], args[1], False))


if __name__ == '__main__':
    main()
