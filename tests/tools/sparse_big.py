#!/usr/bin/python3
"""Rewrites a little-endian file-mode perf.data so that its data section and
feature sections lie past 4 GiB: a hole (a sparse region, no disk blocks) is
inserted before the data section, and the offsets that point past it moved.

    sparse_big.py IN OUT [SHIFT]      SHIFT defaults to 4 GiB + 4 KiB

The records and features are the same bytes as IN's, so every table must
give the same rows (but file_offset, moved by SHIFT).
"""
import struct
import sys

src, dst = sys.argv[1], sys.argv[2]
shift = int(sys.argv[3], 0) if len(sys.argv) > 3 else (1 << 32) + 4096
data = open(src, 'rb').read()
assert data[:8] == b'PERFILE2', 'little-endian file-mode perf.data only'
data_offset, data_size = struct.unpack_from('<QQ', data, 40)
bitmap = struct.unpack_from('<4Q', data, 72)
nr_features = sum(bin(w).count('1') for w in bitmap)
header = bytearray(data[:data_offset])
struct.pack_into('<Q', header, 40, data_offset + shift)
index_at = data_offset + data_size
index = bytearray(data[index_at:index_at + 16 * nr_features])
for k in range(nr_features):
    off, size = struct.unpack_from('<QQ', index, 16 * k)
    assert off >= index_at, 'a feature section before the data section'
    struct.pack_into('<Q', index, 16 * k, off + shift)
with open(dst, 'wb') as out:
    out.write(header)
    out.seek(data_offset + shift)
    out.write(data[data_offset:index_at])
    out.write(index)
    out.write(data[index_at + 16 * nr_features:])
