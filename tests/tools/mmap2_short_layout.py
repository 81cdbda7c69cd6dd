#!/usr/bin/env python3
"""Rewrite the MMAP2 records of a perf.data as Linux 3.12-3.15 and RHEL 7's
3.10 kernels wrote them: without the u32 prot and u32 flags at body offset
56, so the filename starts at 56 instead of 64 and each record is 8 bytes
shorter.

Usage: mmap2_short_layout.py IN OUT

Only MMAP2 records in the inode form are rewritten (the build-id form, misc
bit 14, came with Linux 5.12, long after).  The name field is taken as the
kernel writes it: NUL-terminated, NUL-padded to a multiple of 8 bytes; what
follows it is the sample_id_all trailer, moved along unchanged.  The header's
data size shrinks by 8 bytes a record, and the feature sections, which follow
the data section, move back by the same amount (their index entries too).

Prints the number of records rewritten.  Refused (exit 2): big-endian and
pipe-mode files, compressed records (their MMAP2 would be inside the zstd
stream), a name field that is not the kernel's.
Python 3 standard library only."""
import struct
import sys

from perfdata import read_file_mode, records, refuse, write_with_data

MMAP2 = 10
MISC_MMAP_BUILD_ID = 1 << 14
NAME_AT = 8 + 64          # the record's name, header included: today's layout
PROT_FLAGS_AT = 8 + 56    # prot and flags, which the short layout has not


def shortened(rec, offset):
    """The record in the short layout."""
    name_end = rec.find(b'\0', NAME_AT)
    if name_end < 0:
        refuse('MMAP2 at offset 0x%x has no NUL-terminated name' % offset)
    field_end = NAME_AT + (name_end - NAME_AT + 1 + 7) // 8 * 8
    if field_end > len(rec) or any(rec[name_end:field_end]):
        refuse('MMAP2 at offset 0x%x: the name is not padded as a kernel pads it' % offset)
    body = rec[:PROT_FLAGS_AT] + rec[NAME_AT:]
    return body[:6] + struct.pack('<H', len(body)) + body[8:]


def main():
    if len(sys.argv) != 3:
        refuse('usage: mmap2_short_layout.py IN OUT')
    src, dst = sys.argv[1:]
    b = read_file_mode(src)
    out = bytearray()
    rewritten = 0
    for at, rtype, misc, size in records(b, src):
        rec = b[at:at + size]
        if rtype == MMAP2 and not misc & MISC_MMAP_BUILD_ID:
            rec = shortened(rec, at)
            rewritten += 1
        out += rec
    write_with_data(dst, b, out)
    print(rewritten)


main()
