#!/usr/bin/env python3
"""Give every branch stack of a recording the per-entry counters of
PERF_SAMPLE_BRANCH_COUNTERS (Linux 6.8, perf 6.8 `-j any,counter` with
events in a group that count in the LBR), as a machine with that feature
(Intel LBR event logging, Sierra Forest and later) would have written them.

Usage: add_branch_counters.py IN OUT

IN is a little-endian file-mode recording whose events sample BRANCH_STACK
(fp_to_lbr.py makes one from a frame-pointer recording).  The layout (the
kernel's include/uapi/linux/perf_event.h, PERF_SAMPLE_BRANCH_STACK):
  { u64 nr; { u64 hw_idx; } && HW_INDEX; { u64 from, to, flags } lbr[nr];
    { u64 counters; } cntr[nr] && PERF_SAMPLE_BRANCH_COUNTERS }
so each sample gets nr u64 after its entries, and branch_sample_type (attr
offset 72) gets PERF_SAMPLE_BRANCH_COUNTERS (1 << 19), in the attrs section
and in HEADER_EVENT_DESC.  Entry k of the n-th branch stack (from 0, file
order) gets counters = n * 0x10000 + k + 1: distinct, so that a counter read
from the wrong entry or sample shows.  Prints "samples, entries, sum of
counters"; the tests compare perfvtab's reading with those.
Refused (exit 2): no event samples BRANCH_STACK, big-endian or pipe files,
compressed records, RAW or later fields after the branch stack (they would
move: not handled).  Python 3 standard library only."""
import struct
import sys

SAMPLE = 9
HEADER_FEATURE_BITS_AT = 72
FEATURE_BITS = 256
FEATURE_EVENT_DESC = 12
S_IDENTIFIER, S_IP, S_TID, S_TIME, S_ADDR = 1 << 16, 1 << 0, 1 << 1, 1 << 2, 1 << 3
S_READ, S_CALLCHAIN, S_ID, S_CPU, S_PERIOD = 1 << 4, 1 << 5, 1 << 6, 1 << 7, 1 << 8
S_STREAM_ID, S_RAW, S_BRANCH_STACK = 1 << 9, 1 << 10, 1 << 11
B_HW_INDEX, B_COUNTERS = 1 << 17, 1 << 19
ATTR_SAMPLE_TYPE_AT, ATTR_BRANCH_SAMPLE_TYPE_AT = 24, 72


def refuse(message):
    sys.stderr.write('add_branch_counters.py: %s\n' % message)
    sys.exit(2)


def counters_attr(attr):
    st, = struct.unpack_from('<Q', attr, ATTR_SAMPLE_TYPE_AT)
    if not st & S_BRANCH_STACK:
        return None
    if st & (S_READ | S_RAW) or st >> 12:
        refuse('an event samples READ, RAW or fields after the branch stack (not handled)')
    out = bytearray(attr)
    bst, = struct.unpack_from('<Q', attr, ATTR_BRANCH_SAMPLE_TYPE_AT)
    struct.pack_into('<Q', out, ATTR_BRANCH_SAMPLE_TYPE_AT, bst | B_COUNTERS)
    return bytes(out)


def main():
    if len(sys.argv) != 3:
        refuse('usage: add_branch_counters.py IN OUT')
    src, dst = sys.argv[1:]
    b = bytearray(open(src, 'rb').read())
    if b[:8] != b'PERFILE2':
        refuse('%s: not a little-endian file-mode perf.data' % src)
    entry_size, = struct.unpack_from('<Q', b, 16)
    attr_size = entry_size - 16
    at, size = struct.unpack_from('<QQ', b, 24)
    events = []
    for off in range(at, at + size, entry_size):
        new = counters_attr(bytes(b[off:off + attr_size]))
        if new is not None:
            b[off:off + attr_size] = new
        ids_at, ids_size = struct.unpack_from('<QQ', b, off + attr_size)
        ids = set(struct.unpack_from('<%dQ' % (ids_size // 8), b, ids_at))
        st, = struct.unpack_from('<Q', b, off + ATTR_SAMPLE_TYPE_AT)
        bst, = struct.unpack_from('<Q', b, off + ATTR_BRANCH_SAMPLE_TYPE_AT)
        events.append((st, bst, ids))
    if not any(e[0] & S_BRANCH_STACK for e in events):
        refuse('no event samples BRANCH_STACK')
    if len(events) > 1:
        refuse('more than one event (not handled)')
    st, bst, _ = events[0]
    data_offset, data_size = struct.unpack_from('<QQ', b, 40)
    data_end = data_offset + data_size
    bits = int.from_bytes(b[HEADER_FEATURE_BITS_AT:HEADER_FEATURE_BITS_AT + FEATURE_BITS // 8],
                          'little')
    features, index_at = {}, data_end
    for bit in range(FEATURE_BITS):
        if bits >> bit & 1:
            features[bit] = struct.unpack_from('<Q', b, index_at)[0]
            index_at += 16
    if FEATURE_EVENT_DESC in features:
        off = features[FEATURE_EVENT_DESC]
        nre, sz = struct.unpack_from('<II', b, off)
        at = off + 8
        for _ in range(nre):
            new = counters_attr(bytes(b[at:at + sz]))
            if new is not None:
                b[at:at + sz] = new
            at += sz
            nr_ids, = struct.unpack_from('<I', b, at)
            slen, = struct.unpack_from('<I', b, at + 4)
            at += 8 + slen + 8 * nr_ids
    out = bytearray()
    samples = entries = total = 0
    at = data_offset
    while at < data_end:
        rtype, misc, rsize = struct.unpack_from('<IHH', b, at)
        if rsize < 8 or at + rsize > data_end:
            refuse('record at offset 0x%x has size %d' % (at, rsize))
        if rtype in (81, 83):
            refuse('%s has compressed records' % src)
        rec = bytes(b[at:at + rsize])
        at += rsize
        if rtype != SAMPLE:
            out += rec
            continue
        pos = 8 + 8 * sum(1 for bit in (S_IDENTIFIER, S_IP, S_TID, S_TIME, S_ADDR, S_ID,
                                        S_STREAM_ID, S_CPU, S_PERIOD) if st & bit)
        if st & S_CALLCHAIN:
            nr, = struct.unpack_from('<Q', rec, pos)
            pos += 8 + 8 * nr
        nr, = struct.unpack_from('<Q', rec, pos)
        pos += 8 + (8 if bst & B_HW_INDEX else 0) + 24 * nr
        counters = [samples * 0x10000 + k + 1 for k in range(nr)]
        body = rec[8:pos] + struct.pack('<%dQ' % nr, *counters) + rec[pos:]
        if 8 + len(body) > 0xffff:
            refuse('a sample would exceed 64 KiB')
        out += struct.pack('<IHH', rtype, misc, 8 + len(body)) + body
        samples += 1
        entries += nr
        total += sum(counters)
    grow = len(out) - data_size
    header = bytearray(b[:data_offset])
    struct.pack_into('<Q', header, 48, len(out))
    index = bytearray(b[data_end:index_at])
    for i in range(0, len(index), 16):
        offset, = struct.unpack_from('<Q', index, i)
        struct.pack_into('<Q', index, i, offset + grow)
    open(dst, 'wb').write(bytes(header) + bytes(out) + bytes(index) + bytes(b[index_at:]))
    print('%d %d %d' % (samples, entries, total))


main()
