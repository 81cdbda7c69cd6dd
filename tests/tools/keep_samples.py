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

from perfdata import read_file_mode, records, refuse, write_with_data

SAMPLE = 9
ATTR_SAMPLE_TYPE_AT = 24
S_IP, S_IDENTIFIER = 1 << 0, 1 << 16


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
    b = read_file_mode(opts.src)
    check_attrs(b)
    out = bytearray()
    kept = others = samples = 0
    for at, rtype, _misc, size in records(b, opts.src):
        rec = b[at:at + size]
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
    write_with_data(opts.dst, b, out)
    print('%d %d' % (kept, samples))


main()
