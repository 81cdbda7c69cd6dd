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

from perfdata import (ATTR_SAMPLE_TYPE_AT, S_ADDR, S_IDENTIFIER, S_IP, S_TID, S_TIME,
                      data_section, feature_index, read_file_mode, records, refuse,
                      rewrite_attrs, rewrite_event_desc, write_with_data)

SAMPLE = 9
S_READ, S_CALLCHAIN, S_ID, S_CPU, S_PERIOD = 1 << 4, 1 << 5, 1 << 6, 1 << 7, 1 << 8
S_STREAM_ID, S_RAW, S_BRANCH_STACK = 1 << 9, 1 << 10, 1 << 11
B_HW_INDEX, B_COUNTERS = 1 << 17, 1 << 19
ATTR_BRANCH_SAMPLE_TYPE_AT = 72


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
    b = read_file_mode(src)
    events = rewrite_attrs(b, counters_attr)
    if not any(e.sample_type & S_BRANCH_STACK for e in events):
        refuse('no event samples BRANCH_STACK')
    if len(events) > 1:
        refuse('more than one event (not handled)')
    st = events[0].sample_type
    bst, = struct.unpack_from('<Q', b, events[0].attr_at + ATTR_BRANCH_SAMPLE_TYPE_AT)
    data_offset, data_size = data_section(b)
    features, _ = feature_index(b, data_offset + data_size)
    rewrite_event_desc(b, features, counters_attr)
    out = bytearray()
    samples = entries = total = 0
    for at, rtype, misc, rsize in records(b, src):
        rec = bytes(b[at:at + rsize])
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
    write_with_data(dst, b, out)
    print('%d %d %d' % (samples, entries, total))


main()
