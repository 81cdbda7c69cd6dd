#!/usr/bin/python3
"""Writes damaged copies of a valid perf.data file, one per kind of damage.

    make_bad.py BASE OUTDIR

BASE must be a little-endian file-mode perf.data whose samples have no
READ block (tests/bad_input/base.data).  Prints one line per file written:

    name <TAB> scope <TAB> must_contain <TAB> description

scope says which reads must fail: "open" (every table: the header, attrs or
feature index are bad), "walk" (tables that walk the records), "sample"
(perf_samples, which decodes sample bodies), "feature" (perf_features, which
reads feature sections).  must_contain is a piece of
text the error must hold besides the path and "offset 0x" ("-" for none).
Stdlib only.
"""
import os
import struct
import sys

HEADER_SIZE = 104
SAMPLE = 9

# PERF_SAMPLE_* bits that come before CALLCHAIN in a sample, with their size.
BEFORE_CALLCHAIN = [
    (1 << 16, 8),  # IDENTIFIER
    (1 << 0, 8),   # IP
    (1 << 1, 8),   # TID
    (1 << 2, 8),   # TIME
    (1 << 3, 8),   # ADDR
    (1 << 6, 8),   # ID
    (1 << 9, 8),   # STREAM_ID
    (1 << 7, 8),   # CPU
    (1 << 8, 8),   # PERIOD
]
SAMPLE_READ = 1 << 4
SAMPLE_CALLCHAIN = 1 << 5


class Base:
    def __init__(self, data):
        self.data = data
        if data[:8] != b"PERFILE2":
            sys.exit("make_bad.py: base must be a little-endian file-mode perf.data")
        (self.header_size, self.attr_size, self.attr_off, self.attr_len,
         self.data_off, self.data_len) = struct.unpack_from("<QQQQQQ", data, 8)
        self.sample_type = struct.unpack_from("<Q", data, self.attr_off + 24)[0]
        self.records = []  # (offset, type, size)
        at, end = self.data_off, self.data_off + self.data_len
        while at < end:
            rtype, _misc, size = struct.unpack_from("<IHH", data, at)
            self.records.append((at, rtype, size))
            at += size

    def first(self, rtype):
        return next(r for r in self.records if r[1] == rtype)


def main():
    base_path, out = sys.argv[1], sys.argv[2]
    base = Base(open(base_path, "rb").read())
    d = base.data
    cases = []

    def write(name, content, scope, must, description):
        with open(os.path.join(out, name), "wb") as f:
            f.write(content)
        cases.append((name, scope, must, description))

    def patched(offset, fmt, *values):
        b = bytearray(d)
        struct.pack_into(fmt, b, offset, *values)
        return bytes(b)

    write("empty.data", b"", "open", "-", "empty file")
    write("magic.data", b"NOTPERF!" + d[8:], "open", "magic", "wrong magic")
    write("v1.data", b"PERFFILE" + d[8:], "open", "supported", "old PERFFILE v1 magic")
    for n in (8, 50, 103):
        write("header%d.data" % n, d[:n], "open", "-", "header truncated at %d bytes" % n)
    write("attr_past_end.data", patched(24, "<Q", len(d) - base.attr_len // 2), "open", "attr",
          "attr section past the end of the file")
    write("attr_offset_huge.data", patched(24, "<Q", (1 << 64) - 8), "open", "attr",
          "attr section offset 2^64-8 (offset + size wraps)")
    write("attr_size8.data", patched(16, "<Q", 8), "open", "attr_size", "attr_size 8")
    write("attr_size_odd.data", patched(16, "<Q", base.attr_size + 1), "open", "attr",
          "attr_size odd (%d)" % (base.attr_size + 1))
    write("attr_size0.data", patched(16, "<Q", 0), "open", "attr_size", "attr_size 0")
    write("attrs_truncated.data", d[:base.attr_off + base.attr_size // 2], "open", "-",
          "file cut inside the attr section")
    ids_off, ids_len = struct.unpack_from("<QQ", d, base.attr_off + base.attr_size - 16)
    write("ids_past_end.data", patched(base.attr_off + base.attr_size - 16, "<Q", len(d)),
          "open", "id", "event id list past the end of the file")
    data_end = base.data_off + base.data_len
    write("feature_index_truncated.data", d[:data_end + 12], "open", "feature",
          "file cut inside the feature index")
    mid = base.records[len(base.records) // 2]
    write("data_truncated.data", d[:mid[0] + mid[2] // 2], "open", "data",
          "file cut in the middle of a record (data section past the end)")
    write("data_size_huge.data", patched(48, "<Q", (1 << 64) - 1), "open", "data",
          "data section size 2^64-1")
    write("data_offset_huge.data", patched(40, "<Q", (1 << 64) - 8), "open", "data",
          "data section offset 2^64-8 (offset + size wraps)")
    write("header_size_huge.data", patched(8, "<Q", 1 << 63), "open", "header",
          "header size 2^63")

    # A feature section is read when its value is: perf_features fails.
    bitmap = int.from_bytes(d[72:104], "little")
    bits = [b for b in range(256) if bitmap >> b & 1]
    bit = 3 if 3 in bits else bits[0]  # HEADER_HOSTNAME
    entry = data_end + 16 * bits.index(bit)
    write("feature_past_end.data", patched(entry, "<Q", len(d) - 4), "feature", "feature",
          "feature %d section past the end of the file" % bit)
    write("feature_offset_wrap.data", patched(entry, "<QQ", (1 << 64) - 16, 32), "feature", "feature",
          "feature %d section offset 2^64-16 (offset + size wraps)" % bit)

    first = base.records[0]
    for size in (0, 4, 7):
        write("record_size%d.data" % size, patched(first[0] + 6, "<H", size), "walk", "size",
              "first record has size %d" % size)
    mid_size = patched(mid[0] + 6, "<H", 3)
    write("record_size3_mid.data", mid_size, "walk", "size",
          "record %d (offset 0x%x) has size 3" % (base.records.index(mid), mid[0]))
    last = base.records[-1]
    write("record_past_data.data", patched(last[0] + 6, "<H", last[2] + 0x100), "walk", "past",
          "last record's size goes past the end of the data section")
    # AUXTRACE (71): its trace data follows the record, the length in its body.
    write("auxtrace_short.data", patched(last[0], "<I", 71), "walk", "AUXTRACE",
          "AUXTRACE record of size %d (< 16)" % last[2])
    write("auxtrace_payload.data", patched(mid[0], "<IHHQ", 71, 0, mid[2], (1 << 64) - 8), "walk",
          "AUXTRACE", "AUXTRACE record with 2^64-8 bytes of trace data")
    # The data section ends inside a record though the file goes on.
    write("data_ends_mid_record.data", patched(48, "<Q", mid[0] + mid[2] // 2 - base.data_off),
          "walk", "past", "data section size ends inside a record")

    if base.sample_type & SAMPLE_READ or not base.sample_type & SAMPLE_CALLCHAIN:
        sys.exit("make_bad.py: base samples must have CALLCHAIN and no READ")
    sample = base.first(SAMPLE)
    nr_at = sample[0] + 8 + sum(size for bit, size in BEFORE_CALLCHAIN if base.sample_type & bit)
    nr = struct.unpack_from("<Q", d, nr_at)[0]
    write("callchain_nr.data", patched(nr_at, "<Q", nr + 1), "sample", "callchain",
          "sample callchain nr one more than the record holds")
    write("callchain_nr_2_61.data", patched(nr_at, "<Q", 1 << 61), "sample", "callchain",
          "sample callchain nr 2^61 (nr*8 wraps to 0)")

    for name, scope, must, description in cases:
        print("%s\t%s\t%s\t%s" % (name, scope, must, description))


if __name__ == "__main__":
    main()
