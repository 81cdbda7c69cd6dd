#!/usr/bin/env python3
"""Cut a recording down to the samples a fixture needs: every record that
is not a sample stays (maps, comms, FINISHED_ROUND...); of the samples, those
whose ip is one of the --ip addresses, and every N-th of the others (the
first, the N+1-th...) whose ip lies in one of the --range address ranges
(all of them without --range).

Usage: keep_samples.py --every N [--ip HEX ...] [--range LO-HI ...] IN OUT

The header's data size and the feature sections' offsets follow the shorter
data section.  Prints "samples kept, samples in IN".  Refused (exit 2):
big-endian and pipe files, compressed records, events whose samples do not
begin with the ip (IDENTIFIER or no IP in sample_type).
Python 3 standard library only."""
import argparse
import struct
import sys

SAMPLE = 9
COMPRESSED_TYPES = (81, 83)
HEADER_FEATURE_BITS_AT = 72
FEATURE_BITS = 256
ATTR_SAMPLE_TYPE_AT = 16
S_IP, S_IDENTIFIER = 1 << 0, 1 << 16


def refuse(message):
    sys.stderr.write('keep_samples.py: %s\n' % message)
    sys.exit(2)


def check_attrs(b):
    entry_size, = struct.unpack_from('<Q', b, 16)
    at, size = struct.unpack_from('<QQ', b, 24)
    for off in range(at, at + size, entry_size):
        sample_type, = struct.unpack_from('<Q', b, off + ATTR_SAMPLE_TYPE_AT)
        if sample_type & S_IDENTIFIER or not sample_type & S_IP:
            refuse('an event samples IDENTIFIER, or no IP (not handled)')


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--every', type=int, required=True)
    parser.add_argument('--ip', action='append', default=[])
    parser.add_argument('--range', action='append', default=[])
    parser.add_argument('src')
    parser.add_argument('dst')
    opts = parser.parse_args()
    wanted = {int(ip, 16) for ip in opts.ip}
    ranges = [tuple(int(x, 16) for x in r.split('-')) for r in opts.range]
    b = open(opts.src, 'rb').read()
    if b[:8] != b'PERFILE2':
        refuse('%s: not a little-endian file-mode perf.data' % opts.src)
    check_attrs(b)
    data_offset, data_size = struct.unpack_from('<QQ', b, 40)
    data_end = data_offset + data_size
    out = bytearray()
    kept = others = samples = 0
    at = data_offset
    while at < data_end:
        rtype, _misc, size = struct.unpack_from('<IHH', b, at)
        if size < 8 or size > data_end - at:
            refuse('record at offset 0x%x has size %d' % (at, size))
        if rtype in COMPRESSED_TYPES:
            refuse('%s has compressed records' % opts.src)
        rec = b[at:at + size]
        at += size
        if rtype == SAMPLE:
            samples += 1
            ip, = struct.unpack_from('<Q', rec, 8)
            if ip not in wanted:
                if ranges and not any(lo <= ip < hi for lo, hi in ranges):
                    continue
                others += 1
                if (others - 1) % opts.every:
                    continue
            kept += 1
        out += rec
    bits = int.from_bytes(b[HEADER_FEATURE_BITS_AT:HEADER_FEATURE_BITS_AT + FEATURE_BITS // 8],
                          'little')
    index_end = data_end + 16 * bin(bits).count('1')
    shrink = data_size - len(out)
    header = bytearray(b[:data_offset])
    struct.pack_into('<Q', header, 48, len(out))
    index = bytearray(b[data_end:index_end])
    for i in range(0, len(index), 16):
        offset, = struct.unpack_from('<Q', index, i)
        if offset < data_end:
            refuse('a feature section at 0x%x lies before the end of the data' % offset)
        struct.pack_into('<Q', index, i, offset - shrink)
    open(opts.dst, 'wb').write(bytes(header) + bytes(out) + bytes(index) + b[index_end:])
    print('%d %d' % (kept, samples))


main()
