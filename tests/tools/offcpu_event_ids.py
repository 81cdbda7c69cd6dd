"""The sample ids of `perf record --off-cpu`'s event in a little-endian
file-mode perf.data: those HEADER_EVENT_DESC names "offcpu-time" (perf
6.14+ writes that event's samples with their fields in their raw data, as
u64 words in the machine's order; perf_to_big_endian.py swaps them so:
mark_offcpu_attrs flags its attrs).
A pipe's names come later, as records: not read here."""
import struct

HEADER_EVENT_DESC = 12


def offcpu_event_ids(src, index_at, feats):
    """The ids; feats: the feature bits set, in order; index_at: the index."""
    if HEADER_EVENT_DESC not in feats:
        return []
    off = struct.unpack_from('<Q', src, index_at + 16 * feats.index(HEADER_EVENT_DESC))[0]
    nr_events, attr_size = struct.unpack_from('<II', src, off)
    off += 8
    found = []
    for _ in range(nr_events):
        off += attr_size
        nr_ids, length = struct.unpack_from('<II', src, off)
        name = src[off + 8:off + 8 + length].split(b'\0')[0]
        off += 8 + length
        if name == b'offcpu-time':
            found += struct.unpack_from('<%dQ' % nr_ids, src, off)
        off += 8 * nr_ids
    return found


def mark_offcpu_attrs(src, index_at, feats, attrs_by_id):
    """Sets 'offcpu' in the attr dicts of the event (a bpf-output event,
    PERF_TYPE_SOFTWARE config 10, sampling RAW, as perf recognises it)."""
    for sid in offcpu_event_ids(src, index_at, feats):
        a = attrs_by_id.get(sid)
        if a and a['type'] == 1 and a['config'] == 10 and a['sample_type'] & 1024:
            a['offcpu'] = True
