"""What the tools that rewrite a little-endian file-mode perf.data share
(keep_samples.py, mmap2_short_layout.py, fp_to_lbr.py, fp_to_deferred.py,
add_branch_counters.py): the refusal, the header's sections, the attrs
(rewritten in place, and their copies in HEADER_EVENT_DESC), the feature
index, the walk over the records and the file written again around a new
data section.  Python 3 standard library only."""
import os
import struct
import sys

HEADER_FEATURE_BITS_AT = 72
FEATURE_BITS = 256
FEATURE_EVENT_DESC = 12
COMPRESSED_TYPES = (81, 83)
ATTR_SAMPLE_TYPE_AT = 24
S_IDENTIFIER, S_IP, S_TID, S_TIME, S_ADDR = 1 << 16, 1 << 0, 1 << 1, 1 << 2, 1 << 3


def refuse(message):
    """Exit 2 with the tool's name and message on stderr."""
    sys.stderr.write('%s: %s\n' % (os.path.basename(sys.argv[0]), message))
    sys.exit(2)


def read_file_mode(path):
    """The file's bytes; refused unless little-endian file mode."""
    b = bytearray(open(path, 'rb').read())
    if b[:8] != b'PERFILE2':
        refuse('%s: not a little-endian file-mode perf.data' % path)
    return b


def data_section(b):
    """(offset, size) of the data section."""
    return struct.unpack_from('<QQ', b, 40)


class Event:
    """An attr of the attrs section: its sample_type (after any rewrite),
    its ids, whether it was rewritten, where its attr is."""

    def __init__(self, sample_type, ids, rewritten, attr_at):
        self.sample_type, self.ids, self.rewritten, self.attr_at = \
            sample_type, ids, rewritten, attr_at


def rewrite_attrs(b, rewrite):
    """Each attr of the attrs section replaced by rewrite(attr bytes) unless
    that is None; gives the Events in file order."""
    # each entry: the attr, then the {offset, size} of its ids
    entry_size, = struct.unpack_from('<Q', b, 16)
    attr_size = entry_size - 16
    at, size = struct.unpack_from('<QQ', b, 24)
    events = []
    for off in range(at, at + size, entry_size):
        new = rewrite(bytes(b[off:off + attr_size]))
        if new is not None:
            b[off:off + attr_size] = new
        ids_at, ids_size = struct.unpack_from('<QQ', b, off + attr_size)
        ids = list(struct.unpack_from('<%dQ' % (ids_size // 8), b, ids_at))
        sample_type, = struct.unpack_from('<Q', b, off + ATTR_SAMPLE_TYPE_AT)
        events.append(Event(sample_type, ids, new is not None, off))
    return events


def feature_index(b, data_end):
    """{feature bit: (where its entry is, offset, size)} and the index's end."""
    bits = int.from_bytes(b[HEADER_FEATURE_BITS_AT:HEADER_FEATURE_BITS_AT + FEATURE_BITS // 8],
                          'little')
    entries, at = {}, data_end
    for bit in range(FEATURE_BITS):
        if bits >> bit & 1:
            entries[bit] = (at,) + struct.unpack_from('<QQ', b, at)
            at += 16
    return entries, at


def rewrite_event_desc(b, features, rewrite):
    """HEADER_EVENT_DESC holds a copy of each attr: rewritten the same way."""
    if FEATURE_EVENT_DESC not in features:
        return
    off = features[FEATURE_EVENT_DESC][1]
    nre, sz = struct.unpack_from('<II', b, off)
    at = off + 8
    for _ in range(nre):
        new = rewrite(bytes(b[at:at + sz]))
        if new is not None:
            b[at:at + sz] = new
        at += sz
        nr_ids, = struct.unpack_from('<I', b, at)
        at += 4
        slen, = struct.unpack_from('<I', b, at)
        at += 4 + slen + 8 * nr_ids


def event_of(rec, events):
    """The Event of a sample: by its id when the file has several events,
    else the only one."""
    if len(events) == 1:
        return events[0]
    st = events[0].sample_type
    if st & S_IDENTIFIER:
        sid, = struct.unpack_from('<Q', rec, 8)
    else:
        at = 8 + 8 * sum(1 for bit in (S_IP, S_TID, S_TIME, S_ADDR) if st & bit)
        sid, = struct.unpack_from('<Q', rec, at)
    for e in events:
        if sid in e.ids:
            return e
    refuse('a sample has id %d, of no event' % sid)


def records(b, path):
    """(offset, type, misc, size) of each record of the data section;
    refused when one's size is impossible or the file has compressed
    records."""
    data_offset, data_size = data_section(b)
    at, data_end = data_offset, data_offset + data_size
    while at < data_end:
        rtype, misc, size = struct.unpack_from('<IHH', b, at)
        if size < 8 or at + size > data_end:
            refuse('record at offset 0x%x has size %d' % (at, size))
        if rtype in COMPRESSED_TYPES:
            refuse('%s has compressed records' % path)
        yield at, rtype, misc, size
        at += size


def write_with_data(path, b, data):
    """Writes b to path with data as its data section: the header's data
    size and the feature sections' offsets (which follow the data) moved."""
    data_offset, data_size = data_section(b)
    data_end = data_offset + data_size
    _, index_end = feature_index(b, data_end)
    grow = len(data) - data_size
    header = bytearray(b[:data_offset])
    struct.pack_into('<Q', header, 48, len(data))
    index = bytearray(b[data_end:index_end])
    for i in range(0, len(index), 16):
        offset, = struct.unpack_from('<Q', index, i)
        if offset < data_end:
            refuse('a feature section at 0x%x lies before the end of the data' % offset)
        struct.pack_into('<Q', index, i, offset + grow)
    open(path, 'wb').write(bytes(header) + bytes(data) + bytes(index) + bytes(b[index_end:]))
