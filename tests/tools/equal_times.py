#!/usr/bin/env python3
"""Writes a copy of a file-mode perf.data in which many records share their
time, so that putting records in time order must keep file order among
equal times (perf's ordered-events queue does: a record goes after every
queued one whose time is not above its own).

    equal_times.py IN OUT QUANTUM_NS

Every time of the data section (a SAMPLE's TIME, the sample_id trailer's
time of other kernel records, FORK's and EXIT's own) is rounded down to a multiple of QUANTUM_NS;
0 and ~0 stay (perf hands such records out when read).  Rounding down keeps
the order of each CPU buffer's records and of the rounds.  A sample's PERIOD
becomes its ordinal among the samples in file order (1, 2, ...), so that
samples of equal time are told apart: `perf script -F period` names them.
Every event must have the same sample_type, with TIME and PERIOD;
little-endian, no AUXTRACE or COMPRESSED records.  Prints the number of samples.
"""
import struct
import sys

SAMPLE_IDENTIFIER, SAMPLE_IP, SAMPLE_TID, SAMPLE_TIME = 1 << 16, 1 << 0, 1 << 1, 1 << 2
SAMPLE_ADDR, SAMPLE_ID, SAMPLE_STREAM_ID = 1 << 3, 1 << 6, 1 << 9
SAMPLE_CPU, SAMPLE_PERIOD = 1 << 7, 1 << 8
SAMPLE_ID_ALL_BIT = 18
MAX_TIME = (1 << 64) - 1


def main():
    src, dst, quantum = sys.argv[1], sys.argv[2], int(sys.argv[3])
    b = bytearray(open(src, 'rb').read())
    if b[:8] != b'PERFILE2':
        sys.exit('%s: not a little-endian perf.data file' % src)
    attr_size, attrs_offset, attrs_size, data_offset, data_size = \
        struct.unpack_from('<QQQQQ', b, 16)
    types, id_all = set(), set()
    for at in range(attrs_offset, attrs_offset + attrs_size, attr_size):
        sample_type, _read_format, flags = struct.unpack_from('<QQQ', b, at + 24)
        types.add(sample_type)
        id_all.add(bool(flags >> SAMPLE_ID_ALL_BIT & 1))
    if len(types) != 1 or len(id_all) != 1:
        sys.exit('%s: events of different sample_type or sample_id_all' % src)
    t = types.pop()
    if not t & SAMPLE_TIME or not t & SAMPLE_PERIOD:
        sys.exit('%s: samples without TIME or PERIOD' % src)
    # the fixed fields before TIME and before PERIOD, in the kernel's order
    words = [SAMPLE_IDENTIFIER, SAMPLE_IP, SAMPLE_TID, SAMPLE_TIME, SAMPLE_ADDR, SAMPLE_ID,
             SAMPLE_STREAM_ID, SAMPLE_CPU, SAMPLE_PERIOD]
    time_at = 8 + 8 * sum(1 for w in words[:words.index(SAMPLE_TIME)] if t & w)
    period_at = 8 + 8 * sum(1 for w in words[:words.index(SAMPLE_PERIOD)] if t & w)
    # the sample_id trailer: TID TIME ID STREAM_ID CPU IDENTIFIER
    trailer = [SAMPLE_TID, SAMPLE_TIME, SAMPLE_ID, SAMPLE_STREAM_ID, SAMPLE_CPU,
               SAMPLE_IDENTIFIER]
    trailer_words = sum(1 for w in trailer if t & w) if id_all.pop() else 0
    trailer_time = 8 * (1 if t & SAMPLE_TID else 0)

    def round_down(at):
        v = struct.unpack_from('<Q', b, at)[0]
        if v not in (0, MAX_TIME):
            struct.pack_into('<Q', b, at, v - v % quantum)

    at, end, samples = data_offset, data_offset + data_size, 0
    while at + 8 <= end:
        rtype, _misc, size = struct.unpack_from('<IHH', b, at)
        if size < 8 or at + size > end:
            sys.exit('%s: damaged record at offset %d' % (src, at))
        if rtype in (71, 81, 83):
            sys.exit('%s: AUXTRACE or COMPRESSED records' % src)
        if rtype == 9:
            samples += 1
            round_down(at + time_at)
            struct.pack_into('<Q', b, at + period_at, samples)
        elif rtype < 64 and trailer_words and size >= 8 + 8 * trailer_words:
            round_down(at + size - 8 * trailer_words + trailer_time)
            if rtype in (4, 7):     # EXIT, FORK: the time in the body too
                round_down(at + 24)
        at += size
    open(dst, 'wb').write(b)
    print(samples)


if __name__ == '__main__':
    main()
