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

MMAP2 = 10
COMPRESSED_TYPES = (81, 83)
MISC_MMAP_BUILD_ID = 1 << 14
NAME_AT = 8 + 64          # the record's name, header included: today's layout
PROT_FLAGS_AT = 8 + 56    # prot and flags, which the short layout has not
HEADER_FEATURE_BITS_AT = 72
FEATURE_BITS = 256


def refuse(message):
    sys.stderr.write('mmap2_short_layout.py: %s\n' % message)
    sys.exit(2)


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
    b = open(src, 'rb').read()
    if b[:8] != b'PERFILE2':
        refuse('%s: not a little-endian file-mode perf.data' % src)
    data_offset, data_size = struct.unpack_from('<QQ', b, 40)
    data_end = data_offset + data_size
    out = bytearray()
    rewritten = 0
    at = data_offset
    while at < data_end:
        rtype, misc, size = struct.unpack_from('<IHH', b, at)
        if size < 8 or at + size > data_end:
            refuse('record at offset 0x%x has size %d' % (at, size))
        rec = b[at:at + size]
        if rtype in COMPRESSED_TYPES:
            refuse('%s has compressed records' % src)
        if rtype == MMAP2 and not misc & MISC_MMAP_BUILD_ID:
            rec = shortened(rec, at)
            rewritten += 1
        out += rec
        at += size
    shrink = data_size - len(out)
    header = bytearray(b[:data_offset])
    struct.pack_into('<Q', header, 48, len(out))
    # the feature index (one {offset, size} per bit set) follows the data
    bits = int.from_bytes(b[HEADER_FEATURE_BITS_AT:HEADER_FEATURE_BITS_AT + FEATURE_BITS // 8],
                          'little')
    index = bytearray(b[data_end:data_end + 16 * bin(bits).count('1')])
    for i in range(0, len(index), 16):
        offset = struct.unpack_from('<Q', index, i)[0]
        if offset < data_end:
            refuse('a feature section at 0x%x lies before the end of the data' % offset)
        struct.pack_into('<Q', index, i, offset - shrink)
    rest = b[data_end + len(index):]
    open(dst, 'wb').write(bytes(header) + bytes(out) + bytes(index) + rest)
    print(rewritten)


main()
