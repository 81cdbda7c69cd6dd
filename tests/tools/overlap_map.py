#!/usr/bin/env python3
"""Writes a copy of a file-mode perf.data in which a later map of a process
overlaps part of an earlier one: of two live maps that overlap, the later
wins (perf splits the older one around it).

    overlap_map.py IN OUT TARGET VICTIM START_SHIFT END_SHIFT NAME

TARGET and VICTIM end the file names of two MMAP2 records of one process,
VICTIM's after TARGET's.  VICTIM's record is rewritten in place: it maps
NAME (no longer than its own name) from TARGET's start + START_SHIFT to
TARGET's end + END_SHIFT (shifts in bytes, may be negative), file offset 0,
device and inode 0; its time and place stay.  E.g. 0x250 0x250: the later
map covers TARGET's from 0x250 on, TARGET's map alone the bytes below.
Prints the new map's start and end.  Little-endian.
"""
import struct
import sys

MMAP2 = 10


def main():
    src, dst, target, victim, start_shift, end_shift, name = sys.argv[1:8]
    start_shift, end_shift = int(start_shift, 0), int(end_shift, 0)
    b = bytearray(open(src, 'rb').read())
    if b[:8] != b'PERFILE2':
        sys.exit('%s: not a little-endian perf.data file' % src)
    data_offset, data_size = struct.unpack_from('<QQ', b, 40)
    at, end, found = data_offset, data_offset + data_size, None
    while at + 8 <= end:
        rtype, misc, size = struct.unpack_from('<IHH', b, at)
        if size < 8:
            sys.exit('%s: damaged record at offset %d' % (src, at))
        if rtype == MMAP2 and not misc & 0x4000:      # the inode form, no build-id
            pid, _tid, start, length = struct.unpack_from('<IIQQ', b, at + 8)
            fname_at = at + 8 + 64
            fname = bytes(b[fname_at:at + size]).split(b'\0', 1)[0].decode('utf-8', 'replace')
            if found is None and fname.endswith(target):
                found = (pid, start, length)
            elif found and pid == found[0] and fname.endswith(victim):
                room = at + size - fname_at     # the name field, sample_id trailer included
                trailer = room - (len(fname) + 8 & ~7)
                new = name.encode() + b'\0'
                if len(new) + 7 & ~7 > room - trailer:
                    sys.exit('%s: %s does not fit in the name of %s' % (src, name, fname))
                new_start = found[1] + start_shift
                new_end = found[1] + found[2] + end_shift
                if new_end <= new_start:
                    sys.exit('%s: an empty map' % src)
                struct.pack_into('<QQQ', b, at + 8 + 8, new_start, new_end - new_start, 0)
                struct.pack_into('<IIQQ', b, at + 8 + 32, 0, 0, 0, 0)   # maj min ino ino_generation
                field = room - trailer
                b[fname_at:fname_at + field] = new.ljust(field, b'\0')
                open(dst, 'wb').write(b)
                print(new_start, new_end)
                return
        at += size
    sys.exit('%s: no MMAP2 of *%s after one of *%s in the same process' % (src, victim, target))


if __name__ == '__main__':
    main()
