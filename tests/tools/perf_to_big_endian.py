#!/usr/bin/python3
"""Rewrite a little-endian file-mode perf.data as a 64-bit big-endian machine
would have written it (magic "2ELIFREP").

Usage: perf_to_big_endian.py IN OUT

What is swapped:
  * the file header (every u64), the attr section (each perf_event_attr field
    at its own width; the flag bit field at offset 40 has the bits of each
    byte reversed, as a big-endian compiler allocates bit fields from the MSB),
    the attrs' id arrays, the old event_types section;
  * the feature index and these features: build_id, hostname, osrelease,
    version, arch, nrcpus, cpudesc, cpuid, total_mem, cmdline, event_desc,
    cpu_topology, numa_topology, branch_stack, pmu_mappings, group_desc,
    auxtrace, stat, cache, sample_time, mem_topology, clockid, dir_format,
    compressed, cpu_pmu_caps, clock_data, hybrid_topology, pmu_caps,
    cpu_domain_info, e_machine, cln_size.
    tracing_data is kept as it is: it names its own byte order, and the RAW
    payloads it describes are kept as they are too, so the two stay
    consistent.  Features this tool cannot swap (bpf_prog_info, bpf_btf,
    unknown ids) are dropped: their bit is cleared and their index entry
    removed (the bytes stay in the file, unreferenced);
  * every record of the data section: header and body field by field, the
    sample per sample_type in kernel order, the sample_id_all trailer (perf
    7's BPF_METADATA and SCHEDSTAT_* of schedstat versions 15 to 17 too; the
    raw data of perf 6.14+'s offcpu-time samples as u64 words, offcpu_event_ids.py).

Pipe mode (16-byte header): the header, then the records, HEADER_ATTR (attr
and ids), HEADER_EVENT_TYPE, HEADER_FEATURE (the feature id and the feature
as above; an all-zero one it cannot swap, like an empty bpf_prog_info, is
kept) and HEADER_TRACING_DATA (its size; the tracing data after the record
is kept as it is); trailing bytes that form no record (text a shell appended)
are kept as they are.

COMPRESSED (81) and COMPRESSED2 (83) records: the zstd stream is decompressed
container by container with libzstd through ctypes (Python's standard library
has no zstd), its records swapped, and each container's share of them
compressed again as a zstd frame of its own; in file mode what follows the
data section moves by the change in its size.

Refused (exit 2, message on stderr): files already big-endian, record types
it does not know, pipe-mode features it cannot swap.
Python 3 standard library, plus libzstd for compressed files.
"""
import ctypes
import ctypes.util
import struct
import sys

from offcpu_event_ids import mark_offcpu_attrs


class Refuse(Exception):
    pass


def bitrev8(b):
    r = 0
    for k in range(8):
        r |= ((b >> k) & 1) << (7 - k)
    return r


class Buf:
    """The input bytes (little-endian) and the output buffer being rewritten."""

    def __init__(self, data):
        self.src = data
        self.out = bytearray(data)

    def rd(self, fmt, off):
        return struct.unpack_from('<' + fmt, self.src, off)

    def sw(self, fmt, off):
        """Swap the little-endian values of struct format fmt at off."""
        vals = struct.unpack_from('<' + fmt, self.src, off)
        struct.pack_into('>' + fmt, self.out, off, *vals)
        return vals

    def u16(self, off):
        return self.sw('H', off)[0]

    def u32(self, off):
        return self.sw('I', off)[0]

    def u64(self, off):
        return self.sw('Q', off)[0]

    def u64s(self, off, n):
        if n:
            self.sw('%dQ' % n, off)

    def u32s(self, off, n):
        if n:
            self.sw('%dI' % n, off)


# ---- perf_event_attr -------------------------------------------------------

ATTR_FIELDS = [  # (offset, struct format) in declaration order
    (0, 'I'), (4, 'I'), (8, 'Q'), (16, 'Q'), (24, 'Q'), (32, 'Q'),
    # 40: flags, bit-reversed per byte (below)
    (48, 'I'), (52, 'I'), (56, 'Q'), (64, 'Q'), (72, 'Q'), (80, 'Q'),
    (88, 'I'), (92, 'i'), (96, 'Q'), (104, 'I'), (108, 'H'), (110, 'H'),
    (112, 'I'), (116, 'I'), (120, 'Q'), (128, 'Q'),
]


def swap_attr(b, off, size):
    """Swap one perf_event_attr of size bytes at off; returns a dict."""
    a = {}
    for fo, fmt in ATTR_FIELDS:
        if fo + struct.calcsize(fmt) <= size:
            a[fo] = b.sw(fmt, off + fo)[0]
    if size >= 48:
        for i in range(8):
            b.out[off + 40 + i] = bitrev8(b.src[off + 40 + i])
        a['flags'] = b.rd('Q', off + 40)[0]
    if size > 136:
        raise Refuse('perf_event_attr of %d bytes (> 136, unknown fields)' % size)
    return {
        'sample_type': a.get(24, 0), 'read_format': a.get(32, 0),
        'flags': a.get('flags', 0), 'branch_sample_type': a.get(72, 0),
        'sample_regs_user': a.get(80, 0), 'sample_regs_intr': a.get(96, 0),
        'type': a.get(0, 0), 'config': a.get(8, 0),
    }


# ---- sample layout ---------------------------------------------------------

S_IP, S_TID, S_TIME, S_ADDR, S_READ, S_CALLCHAIN, S_ID, S_CPU = (1 << i for i in range(8))
S_PERIOD, S_STREAM_ID, S_RAW, S_BRANCH_STACK = (1 << i for i in range(8, 12))
S_REGS_USER, S_STACK_USER, S_WEIGHT, S_DATA_SRC = (1 << i for i in range(12, 16))
S_IDENTIFIER, S_TRANSACTION, S_REGS_INTR, S_PHYS_ADDR = (1 << i for i in range(16, 20))
S_AUX, S_CGROUP, S_DATA_PAGE_SIZE, S_CODE_PAGE_SIZE, S_WEIGHT_STRUCT = (
    1 << i for i in range(20, 25))
KNOWN_SAMPLE = (1 << 25) - 1

FMT_TOTAL_TIME_ENABLED, FMT_TOTAL_TIME_RUNNING, FMT_ID, FMT_GROUP, FMT_LOST = (
    1 << i for i in range(5))
BRANCH_HW_INDEX = 1 << 17
BRANCH_COUNTERS = 1 << 19
FLAG_SAMPLE_ID_ALL = 1 << 18

# perf_branch_entry flags, little-endian bit positions: (pos, width)
BRANCH_FLAG_FIELDS = [(0, 1), (1, 1), (2, 1), (3, 1), (4, 16), (20, 4), (24, 2),
                      (26, 4), (30, 3), (33, 31)]


def branch_flags_to_big_endian(v):
    """The u64 a big-endian kernel writes: bit fields allocated from the MSB."""
    out = 0
    for pos, width in BRANCH_FLAG_FIELDS:
        field = (v >> pos) & ((1 << width) - 1)
        out |= field << (64 - pos - width)
    return out


def read_values(rf):
    """Number of u64s of a non-group read value."""
    n = 1
    for bit in (FMT_TOTAL_TIME_ENABLED, FMT_TOTAL_TIME_RUNNING, FMT_ID, FMT_LOST):
        if rf & bit:
            n += 1
    return n


def swap_read(b, off, rf):
    if rf & FMT_GROUP:
        nr = b.u64(off)
        off += 8
        extra = (1 if rf & FMT_TOTAL_TIME_ENABLED else 0) + (1 if rf & FMT_TOTAL_TIME_RUNNING else 0)
        b.u64s(off, extra)
        off += 8 * extra
        per = 1 + (1 if rf & FMT_ID else 0) + (1 if rf & FMT_LOST else 0)
        b.u64s(off, nr * per)
        return off + 8 * nr * per
    n = read_values(rf)
    b.u64s(off, n)
    return off + 8 * n


def swap_sample(b, off, end, a):
    st = a['sample_type']
    if st & ~KNOWN_SAMPLE:
        raise Refuse('sample_type 0x%x has bits this tool does not know' % st)
    for bit in (S_IDENTIFIER, S_IP):
        if st & bit:
            b.u64(off)
            off += 8
    if st & S_TID:
        b.u32s(off, 2)
        off += 8
    for bit in (S_TIME, S_ADDR, S_ID, S_STREAM_ID):
        if st & bit:
            b.u64(off)
            off += 8
    if st & S_CPU:
        b.u32s(off, 2)
        off += 8
    if st & S_PERIOD:
        b.u64(off)
        off += 8
    if st & S_READ:
        off = swap_read(b, off, a['read_format'])
    if st & S_CALLCHAIN:
        nr = b.u64(off)
        b.u64s(off + 8, nr)
        off += 8 + 8 * nr
    if st & S_RAW:
        size = b.u32(off)
        if a.get('offcpu'):  # perf 6.14+'s offcpu-time: u64 words, 4 padding bytes
            b.u64s(off + 4, size // 8)
        off += 4 + size  # any other payload kept as is
    if st & S_BRANCH_STACK:
        nr = b.u64(off)
        off += 8
        if a['branch_sample_type'] & BRANCH_HW_INDEX:
            b.u64(off)
            off += 8
        for i in range(nr):
            b.u64s(off, 2)
            flags = b.rd('Q', off + 16)[0]
            struct.pack_into('>Q', b.out, off + 16, branch_flags_to_big_endian(flags))
            off += 24
        if a['branch_sample_type'] & BRANCH_COUNTERS:  # one u64 per entry
            b.u64s(off, nr)
            off += 8 * nr
    if st & S_REGS_USER:
        abi = b.u64(off)
        off += 8
        if abi:
            n = bin(a['sample_regs_user']).count('1')
            b.u64s(off, n)
            off += 8 * n
    if st & S_STACK_USER:
        size = b.u64(off)
        off += 8 + size  # the stack copy is memory, kept as is
        if size:
            b.u64(off)
            off += 8
    if st & (S_WEIGHT | S_WEIGHT_STRUCT):
        # union perf_sample_weight declares its struct in reverse order on
        # big-endian (var3_w, var2_w, var1_dw), so var1_dw stays the low 32
        # bits of the u64 "full": one u64
        b.u64(off)
        off += 8
    for bit in (S_DATA_SRC, S_TRANSACTION):
        if st & bit:
            b.u64(off)
            off += 8
    if st & S_REGS_INTR:
        abi = b.u64(off)
        off += 8
        if abi:
            n = bin(a['sample_regs_intr']).count('1')
            b.u64s(off, n)
            off += 8 * n
    for bit in (S_PHYS_ADDR, S_CGROUP, S_DATA_PAGE_SIZE, S_CODE_PAGE_SIZE):
        if st & bit:
            b.u64(off)
            off += 8
    if st & S_AUX:
        size = b.u64(off)
        off += 8 + size
    if off > end:
        raise Refuse('sample at 0x%x overruns its record' % off)


def id_trailer(a):
    """(size, swap function) of the sample_id_all trailer of non-sample records."""
    if not a['flags'] & FLAG_SAMPLE_ID_ALL:
        return 0, lambda b, off: None
    st = a['sample_type']
    parts = []
    if st & S_TID:
        parts.append('II')
    for bit in (S_TIME, S_ID, S_STREAM_ID):
        if st & bit:
            parts.append('Q')
    if st & S_CPU:
        parts.append('II')
    if st & S_IDENTIFIER:
        parts.append('Q')
    fmt = ''.join(parts)
    size = struct.calcsize('<' + fmt)
    return size, (lambda b, off: b.sw(fmt, off) if fmt else None)


# ---- records ---------------------------------------------------------------

def swap_cpu_map_data(b, off, end):
    typ = b.u16(off)
    off += 2
    if typ == 0:
        nr = b.u16(off)
        b.sw('%dH' % nr, off + 2) if nr else None
    elif typ == 1:
        nr = b.u16(off)
        long_size = b.u16(off + 2)
        if long_size == 4:
            b.u32s(off + 4, nr)
        elif long_size == 8:
            b.u64s(off + 8, nr)
        else:
            raise Refuse('cpu map mask long_size %d' % long_size)
    elif typ == 2:
        b.sw('HH', off + 2)  # any_cpu, pad are bytes
    else:
        raise Refuse('cpu map type %d' % typ)


def swap_record_body(b, typ, misc, off, end, stream):
    """Swap the fields of a record body [off, end) (trailer excluded)."""
    if typ == 1:  # MMAP
        b.sw('IIQQQ', off)
    elif typ in (2,):  # LOST
        b.u64s(off, 2)
    elif typ == 3:  # COMM
        b.u32s(off, 2)
    elif typ in (4, 7):  # EXIT, FORK
        b.sw('IIIIQ', off)
    elif typ in (5, 6):  # THROTTLE, UNTHROTTLE
        b.u64s(off, 3)
    elif typ == 8:  # READ
        b.u32s(off, 2)
        b.u64s(off + 8, (end - off - 8) // 8)
    elif typ == 10:  # MMAP2
        b.sw('IIQQQ', off)
        if misc & (1 << 14):  # build id: u8 size, u8, u16 reserved, bytes
            b.u16(off + 34)
        else:
            b.sw('IIQQ', off + 32)
        b.u32s(off + 56, 2)
    elif typ == 11:  # AUX
        b.u64s(off, 3)
    elif typ == 12:  # ITRACE_START
        b.u32s(off, 2)
    elif typ == 13:  # LOST_SAMPLES
        b.u64(off)
    elif typ == 14:  # SWITCH
        pass
    elif typ == 15:  # SWITCH_CPU_WIDE
        b.u32s(off, 2)
    elif typ == 16:  # NAMESPACES
        b.u32s(off, 2)
        nr = b.u64(off + 8)
        b.u64s(off + 16, 2 * nr)
    elif typ == 17:  # KSYMBOL
        b.sw('QIHH', off)
    elif typ == 18:  # BPF_EVENT
        b.sw('HHI', off)
    elif typ == 19:  # CGROUP
        b.u64(off)
    elif typ == 20:  # TEXT_POKE
        b.sw('QHH', off)
    elif typ == 21:  # AUX_OUTPUT_HW_ID
        b.u64(off)
    elif typ == 22:  # CALLCHAIN_DEFERRED: cookie, nr, ips[nr]
        b.u64(off)
        nr = b.u64(off + 8)
        b.u64s(off + 16, nr)
    elif typ == 67:  # HEADER_BUILD_ID
        b.sw('i', off)
    elif typ in (68, 82):  # FINISHED_ROUND, FINISHED_INIT
        pass
    elif typ == 69:  # ID_INDEX
        nr = b.u64(off)
        per = (end - off - 8) // nr // 8 if nr else 4
        b.u64s(off + 8, nr * per)
    elif typ == 70:  # AUXTRACE_INFO
        b.u32s(off, 2)
        b.u64s(off + 8, (end - off - 8) // 8)
    elif typ == 71:  # AUXTRACE
        b.sw('QQQIIII', off)
    elif typ == 73:  # THREAD_MAP
        nr = b.u64(off)
        for i in range(nr):
            b.u64(off + 8 + 24 * i)
    elif typ == 74:  # CPU_MAP
        swap_cpu_map_data(b, off, end)
    elif typ == 75:  # STAT_CONFIG
        nr = b.u64(off)
        b.u64s(off + 8, 2 * nr)
    elif typ == 76:  # STAT
        b.sw('QIIQQQ', off)
    elif typ == 77:  # STAT_ROUND
        b.u64s(off, 2)
    elif typ == 78:  # EVENT_UPDATE
        utype = b.u64(off)
        b.u64(off + 8)
        if utype == 1:  # scale, a double
            b.u64(off + 16)
        elif utype == 3:
            swap_cpu_map_data(b, off + 16, end)
    elif typ == 79:  # TIME_CONV
        b.u64s(off, min(5, (end - off) // 8))
    elif typ == 84:  # BPF_METADATA: prog_name[512], u64 nr, {key, value}[]
        b.u64(off + 512)
    elif typ in (85, 86):  # SCHEDSTAT_CPU, _DOMAIN: u64, u32, u16, u16, counters
        version = b.sw('QIHH', off)[2]
        if version not in (15, 16, 17):
            raise Refuse('schedstat version %d not handled' % version)
        if typ == 85:  # 6 u32 and 3 u64 counters
            b.sw('6I3Q', off + 16)
        else:  # u32 counters only
            b.u32s(off + 16, (end - off - 16) // 4)
    elif typ == 65:  # HEADER_EVENT_TYPE: u64 event_id, char name[64]
        b.u64(off)
    elif typ == 66:  # HEADER_TRACING_DATA: u32 size (the data: see swap_records)
        b.u32(off)
    else:
        raise Refuse('record type %d not handled' % typ)


class Stream:
    """What a record walk needs and learns: the attrs (file mode: from the attr
    section; pipe mode: from HEADER_ATTR records as they come), the feature
    context, and the COMPRESSED containers met (swapped later, see repack)."""

    def __init__(self, attrs=(), attrs_by_id=None, pipe=False):
        self.attrs = list(attrs)
        self.attrs_by_id = dict(attrs_by_id or {})
        self.pipe = pipe
        self.ctx = {}
        self.containers = []   # (offset, size, type) of COMPRESSED/COMPRESSED2

    def attr_of_sample(self, b, body):
        a = self.attrs[0]
        if len(self.attrs_by_id) > 1 or len(self.attrs) > 1:
            st = a['sample_type']
            if st & S_IDENTIFIER:
                sid = b.rd('Q', body)[0]
            elif st & S_ID:
                sid = b.rd('Q', body + 8 * sum(1 for bit in (S_IP, S_TID, S_TIME, S_ADDR)
                                               if st & bit))[0]
            else:
                sid = None
            a = self.attrs_by_id.get(sid, a)
        return a


def swap_header_attr(b, body, rend, stream):
    """HEADER_ATTR (pipe mode): perf_event_attr (attr.size bytes), u64 ids[]."""
    asize = b.rd('I', body + 4)[0]
    if asize < 64 or body + asize > rend:
        raise Refuse('HEADER_ATTR at 0x%x: attr size %d' % (body - 8, asize))
    a = swap_attr(b, body, asize)
    n = (rend - body - asize) // 8
    ids = b.rd('%dQ' % n, body + asize) if n else ()
    b.u64s(body + asize, n)
    stream.attrs.append(a)
    for sid in ids:
        stream.attrs_by_id[sid] = a


def swap_header_feature(b, body, rend, stream):
    """HEADER_FEATURE (pipe mode): u64 feature id, then the feature section."""
    fid = b.u64(body)
    if fid == 7 and rend - body >= 16:
        stream.ctx['nr_cpus_avail'] = b.rd('I', body + 8)[0]
    if fid in FEATURES:
        FEATURES[fid](b, body + 8, rend, stream.ctx)
    elif any(b.src[body + 8:rend]):
        # an empty bpf_prog_info / bpf_btf (a zero count) reads the same in
        # both orders; anything else this tool cannot swap
        raise Refuse('HEADER_FEATURE %d with data this tool does not swap' % fid)


def swap_records(b, start, end, stream):
    """Swap the records of [start, end); returns how many there were."""
    off = start
    n = 0
    while off + 8 <= end:
        typ, misc, size = b.rd('IHH', off)
        if stream.pipe and (typ >= 0x10000 or size < 8 or off + size > end):
            # what a shell appended to a pipe recording: kept as it is
            return n
        b.sw('IHH', off)
        if size < 8 or off + size > end:
            raise Refuse('bad record size %d at 0x%x' % (size, off))
        body, rend = off + 8, off + size
        if typ == 9:  # SAMPLE
            if not stream.attrs:
                raise Refuse('SAMPLE at 0x%x before any attr' % off)
            swap_sample(b, body, rend, stream.attr_of_sample(b, body))
        elif typ < 64:
            trailer_size, trailer_swap = id_trailer(stream.attrs[0]) if stream.attrs else (0, None)
            bend = rend - trailer_size
            swap_record_body(b, typ, misc, body, bend, stream)
            if trailer_size:
                trailer_swap(b, bend)
        elif typ == 64:
            swap_header_attr(b, body, rend, stream)
        elif typ == 80:
            swap_header_feature(b, body, rend, stream)
        elif typ in (81, 83):
            stream.containers.append((off, size, typ))
            if typ == 83:
                b.u64(body)
        else:
            swap_record_body(b, typ, misc, body, rend, stream)
        off += size
        if typ == 71:  # AUXTRACE: the trace data follows the record
            off += b.rd('Q', body)[0]
        if typ == 66 and stream.pipe:  # pipe: the tracing data follows, kept as is
            off += b.rd('I', body)[0]
        n += 1
    if off != end and not stream.pipe:
        raise Refuse('%d bytes after the last record at 0x%x' % (end - off, off))
    return n


# ---- COMPRESSED containers -------------------------------------------------
# perf compresses records into one zstd stream that runs across all the
# containers of a file (flushed at the end of each, never ended).  Python's
# standard library has no zstd: libzstd (which the reader links too) is
# called through ctypes.  The stream is decompressed container by container,
# its records swapped, and each container's share of them compressed again
# as a zstd frame of its own (a decoder that runs one stream across the
# containers reads a sequence of frames the same way).

class _InBuffer(ctypes.Structure):
    _fields_ = [('src', ctypes.c_void_p), ('size', ctypes.c_size_t), ('pos', ctypes.c_size_t)]


class _OutBuffer(ctypes.Structure):
    _fields_ = [('dst', ctypes.c_void_p), ('size', ctypes.c_size_t), ('pos', ctypes.c_size_t)]


def libzstd():
    name = ctypes.util.find_library('zstd')
    if not name:
        raise Refuse('COMPRESSED records need libzstd, which was not found')
    z = ctypes.CDLL(name)
    z.ZSTD_createDStream.restype = ctypes.c_void_p
    z.ZSTD_freeDStream.argtypes = [ctypes.c_void_p]
    z.ZSTD_decompressStream.restype = ctypes.c_size_t
    z.ZSTD_decompressStream.argtypes = [ctypes.c_void_p, ctypes.POINTER(_OutBuffer),
                                        ctypes.POINTER(_InBuffer)]
    z.ZSTD_isError.argtypes = [ctypes.c_size_t]
    z.ZSTD_compressBound.restype = ctypes.c_size_t
    z.ZSTD_compressBound.argtypes = [ctypes.c_size_t]
    z.ZSTD_compress.restype = ctypes.c_size_t
    z.ZSTD_compress.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p,
                                ctypes.c_size_t, ctypes.c_int]
    return z


def decompress_each(z, payloads):
    """What each container's bytes add to the one stream."""
    ds = z.ZSTD_createDStream()
    out = []
    chunk = ctypes.create_string_buffer(1 << 16)
    try:
        for payload in payloads:
            src = ctypes.create_string_buffer(payload, len(payload))
            inb = _InBuffer(ctypes.cast(src, ctypes.c_void_p), len(payload), 0)
            got = bytearray()
            while True:
                outb = _OutBuffer(ctypes.cast(chunk, ctypes.c_void_p), len(chunk), 0)
                rc = z.ZSTD_decompressStream(ds, ctypes.byref(outb), ctypes.byref(inb))
                if z.ZSTD_isError(rc):
                    raise Refuse('the zstd stream does not decompress')
                got += chunk.raw[:outb.pos]
                if inb.pos == inb.size and outb.pos < outb.size:
                    break
            out.append(bytes(got))
    finally:
        z.ZSTD_freeDStream(ds)
    return out


def compress_frame(z, data):
    cap = z.ZSTD_compressBound(len(data))
    dst = ctypes.create_string_buffer(cap)
    n = z.ZSTD_compress(dst, cap, data, len(data), 19)
    if z.ZSTD_isError(n):
        raise Refuse('zstd could not compress')
    return dst.raw[:n]


def container_payload(src, off, size, typ):
    if typ == 81:
        return src[off + 8:off + size]
    n = struct.unpack_from('<Q', src, off + 8)[0]
    return src[off + 16:off + 16 + n]


def repack(b, stream, start, end):
    """The records [start, end) with every container swapped and rebuilt:
    returns the new bytes of that range."""
    if not stream.containers:
        return bytes(b.out[start:end])
    z = libzstd()
    shares = decompress_each(z, [container_payload(b.src, *c) for c in stream.containers])
    full = b''.join(shares)
    inner = Buf(full)
    swap_records(inner, 0, len(full), Stream(stream.attrs, stream.attrs_by_id))
    pieces, at, prev = [], start, 0
    for (off, size, typ), share in zip(stream.containers, shares):
        pieces.append(bytes(b.out[at:off]))
        frame = compress_frame(z, bytes(inner.out[prev:prev + len(share)]))
        misc = b.rd('H', off + 4)[0]
        if typ == 81:
            rec = struct.pack('>IHH', 81, misc, 8 + len(frame)) + frame
        else:
            pad = (-len(frame)) % 8
            rec = struct.pack('>IHHQ', 83, misc, 16 + len(frame) + pad, len(frame)) + frame + bytes(pad)
        if len(rec) > 0xffff:
            raise Refuse('a rebuilt COMPRESSED record is over 64 KiB')
        pieces.append(rec)
        at, prev = off + size, prev + len(share)
    pieces.append(bytes(b.out[at:end]))
    return b''.join(pieces)


# ---- features --------------------------------------------------------------

def swap_string(b, off):
    """u32 length (swapped) + bytes; returns the offset after it."""
    n = b.u32(off)
    return off + 4 + n


def swap_strings(b, off, n):
    for _ in range(n):
        off = swap_string(b, off)
    return off


def feat_event_desc(b, off, end, ctx):
    nre, sz = b.sw('II', off)
    off += 8
    for _ in range(nre):
        swap_attr(b, off, sz)
        off += sz
        nr_ids = b.u32(off)
        off = swap_string(b, off + 4)
        b.u64s(off, nr_ids)
        off += 8 * nr_ids


def feat_cpu_topology(b, off, end, ctx):
    off = swap_strings(b, off + 4, b.u32(off))  # core siblings
    off = swap_strings(b, off + 4, b.u32(off))  # thread siblings
    ncpu = ctx.get('nr_cpus_avail', 0)
    if off + 8 * ncpu <= end and off < end:
        b.u32s(off, 2 * ncpu)  # core_id, socket_id per cpu
        off += 8 * ncpu
    if off + 4 <= end:
        off = swap_strings(b, off + 4, b.u32(off))  # die siblings
        b.u32s(off, min(ncpu, (end - off) // 4))  # die_id per cpu


def feat_numa_topology(b, off, end, ctx):
    nr = b.u32(off)
    off += 4
    for _ in range(nr):
        b.sw('IQQ', off)
        off = swap_string(b, off + 20)


def feat_pmu_mappings(b, off, end, ctx):
    nr = b.u32(off)
    off += 4
    for _ in range(nr):
        b.u32(off)
        off = swap_string(b, off + 4)


def feat_group_desc(b, off, end, ctx):
    nr = b.u32(off)
    off += 4
    for _ in range(nr):
        off = swap_string(b, off)
        b.u32s(off, 2)
        off += 8


def feat_cache(b, off, end, ctx):
    b.u32(off)
    cnt = b.u32(off + 4)
    off += 8
    for _ in range(cnt):
        b.u32s(off, 4)
        off = swap_strings(b, off + 16, 3)


def feat_mem_topology(b, off, end, ctx):
    b.u64s(off, 3)
    count = b.rd('Q', off + 16)[0]
    off += 24
    for _ in range(count):
        b.u64s(off, 2)
        bits = b.u64(off + 16)
        words = (bits + 63) // 64
        b.u64s(off + 24, words)
        off += 24 + 8 * words


def feat_cpu_pmu_caps(b, off, end, ctx):
    nr = b.u32(off)
    swap_strings(b, off + 4, 2 * nr)


def feat_pmu_caps(b, off, end, ctx):
    nr_pmu = b.u32(off)
    off += 4
    for _ in range(nr_pmu):
        nr = b.u32(off)
        off = swap_strings(b, off + 4, 2 * nr + 1)


def feat_hybrid_topology(b, off, end, ctx):
    nr = b.u32(off)
    swap_strings(b, off + 4, 2 * nr)


def feat_build_id(b, off, end, ctx):
    while off + 8 <= end:
        typ, misc, size = b.sw('IHH', off)
        if size < 8:
            raise Refuse('build_id entry of size %d' % size)
        b.sw('i', off + 8)
        off += size


def feat_auxtrace(b, off, end, ctx):
    b.u64s(off, (end - off) // 8)


def feat_cmdline(b, off, end, ctx):
    swap_strings(b, off + 4, b.u32(off))


def feat_cpu_domain_info(b, off, end, ctx):
    version = b.sw('II', off)[0]
    off += 8
    while off < end:
        nr = b.sw('II', off)[1]
        off += 8
        for _ in range(nr):
            b.u32(off)
            off = swap_strings(b, off + 4, 3 if version >= 17 else 2)


FEATURES = {
    2: feat_build_id,
    3: lambda b, off, end, ctx: swap_string(b, off),  # hostname
    4: lambda b, off, end, ctx: swap_string(b, off),  # osrelease
    5: lambda b, off, end, ctx: swap_string(b, off),  # version
    6: lambda b, off, end, ctx: swap_string(b, off),  # arch
    7: lambda b, off, end, ctx: b.u32s(off, 2),  # nrcpus
    8: lambda b, off, end, ctx: swap_string(b, off),  # cpudesc
    9: lambda b, off, end, ctx: swap_string(b, off),  # cpuid
    10: lambda b, off, end, ctx: b.u64(off),  # total_mem
    11: feat_cmdline,
    12: feat_event_desc,
    13: feat_cpu_topology,
    14: feat_numa_topology,
    15: lambda b, off, end, ctx: None,  # branch_stack: no data
    16: feat_pmu_mappings,
    17: feat_group_desc,
    18: feat_auxtrace,
    19: lambda b, off, end, ctx: None,  # stat: no data
    20: feat_cache,
    21: lambda b, off, end, ctx: b.u64s(off, 2),  # sample_time
    22: feat_mem_topology,
    23: lambda b, off, end, ctx: b.u64(off),  # clockid
    24: lambda b, off, end, ctx: b.u64(off),  # dir_format
    27: lambda b, off, end, ctx: b.u32s(off, 5),  # compressed
    28: feat_cpu_pmu_caps,
    29: lambda b, off, end, ctx: b.sw('IIQQ', off),  # clock_data
    30: feat_hybrid_topology,
    31: feat_pmu_caps,
    32: feat_cpu_domain_info,
    33: lambda b, off, end, ctx: b.u32s(off, 2),  # e_machine
    34: lambda b, off, end, ctx: b.sw('I' if end - off == 4 else 'Q', off),  # cln_size
}
KEEP_AS_IS = {1}  # tracing_data names its own byte order


# ---- the file --------------------------------------------------------------

def convert_pipe(b):
    """Pipe mode: the 16-byte header, then records only."""
    b.out[0:8] = b'2ELIFREP'
    b.u64(8)
    stream = Stream(pipe=True)
    nrec = swap_records(b, 16, len(b.src), stream)
    return bytes(b.out[:16]) + repack(b, stream, 16, len(b.src)), nrec


def convert(data, dropped):
    if data[:8] != b'PERFILE2':
        raise Refuse('not a little-endian perf.data (magic %r)' % data[:8])
    b = Buf(data)
    hsize = b.rd('Q', 8)[0]
    if hsize == 16:
        return convert_pipe(b)
    if hsize != 104:
        raise Refuse('header size %d: unknown layout' % hsize)
    b.out[0:8] = b'2ELIFREP'
    (_, attr_size, attrs_off, attrs_size, data_off, data_size, et_off, et_size,
     f0, f1, f2, f3) = b.sw('12Q', 8)
    feats = [bit for bit in range(256) if ((f0, f1, f2, f3)[bit // 64] >> (bit % 64)) & 1]

    # attrs
    attrs = []
    attrs_by_id = {}
    n_attrs = attrs_size // attr_size if attr_size else 0
    for i in range(n_attrs):
        at = attrs_off + i * attr_size
        a = swap_attr(b, at, attr_size - 16)
        ids_off, ids_size = b.sw('QQ', at + attr_size - 16)
        ids = b.rd('%dQ' % (ids_size // 8), ids_off) if ids_size else ()
        b.u64s(ids_off, ids_size // 8)
        attrs.append(a)
        for sid in ids:
            attrs_by_id[sid] = a
    if not attrs:
        raise Refuse('no attrs')
    # old event_types section: {u64 event_id; char name[64]}
    for i in range(et_size // 72):
        b.u64(et_off + 72 * i)

    mark_offcpu_attrs(b.src, data_off + data_size, feats, attrs_by_id)
    stream = Stream(attrs, attrs_by_id)
    nrec = swap_records(b, data_off, data_off + data_size, stream)

    # features
    idx = data_off + data_size
    ctx = {}
    kept = []
    for k, bit in enumerate(feats):
        foff, fsize = b.rd('QQ', idx + 16 * k)
        kept_bit = bit in FEATURES or bit in KEEP_AS_IS
        if bit == 7 and fsize >= 8:
            ctx['nr_cpus_avail'] = b.rd('I', foff)[0]
        if kept_bit:
            kept.append((bit, foff, fsize))
        else:
            dropped.append(bit)
    for bit, foff, fsize in kept:
        if bit in FEATURES:
            FEATURES[bit](b, foff, foff + fsize, ctx)
    # rewrite the index with the kept features only, and the bitmap
    words = [0, 0, 0, 0]
    for k, (bit, foff, fsize) in enumerate(kept):
        struct.pack_into('>QQ', b.out, idx + 16 * k, foff, fsize)
        words[bit // 64] |= 1 << (bit % 64)
    for k in range(len(kept), len(feats)):
        struct.pack_into('>QQ', b.out, idx + 16 * k, 0, 0)
    struct.pack_into('>4Q', b.out, 72, *words)
    if not stream.containers:
        return bytes(b.out), nrec
    # rebuilt containers change the data section's size: what lies after
    # it (the feature index and sections, perhaps attrs and ids) moves
    end = data_off + data_size
    new_data = repack(b, stream, data_off, end)
    delta = len(new_data) - data_size

    def moved(o):
        return o + delta if o >= end else o
    for k in range(len(kept)):
        foff, fsize = struct.unpack_from('>QQ', b.out, idx + 16 * k)
        struct.pack_into('>QQ', b.out, idx + 16 * k, moved(foff), fsize)
    for i in range(n_attrs):
        at = attrs_off + i * attr_size + attr_size - 16
        ids_off, ids_size = struct.unpack_from('>QQ', b.out, at)
        struct.pack_into('>QQ', b.out, at, moved(ids_off), ids_size)
    struct.pack_into('>Q', b.out, 24, moved(attrs_off))
    struct.pack_into('>Q', b.out, 48, len(new_data))
    struct.pack_into('>Q', b.out, 56, moved(et_off))
    return bytes(b.out[:data_off]) + new_data + bytes(b.out[end:]), nrec


def main(argv):
    if len(argv) != 3:
        sys.stderr.write('usage: perf_to_big_endian.py IN OUT\n')
        return 2
    with open(argv[1], 'rb') as fh:
        data = fh.read()
    dropped = []
    try:
        out, nrec = convert(data, dropped)
    except (Refuse, struct.error, OSError) as e:
        sys.stderr.write('perf_to_big_endian: %s: cannot convert: %s\n' % (argv[1], e))
        return 2
    with open(argv[2], 'wb') as fh:
        fh.write(out)
    if dropped:
        sys.stderr.write('perf_to_big_endian: %s: dropped features %s\n'
                         % (argv[1], ' '.join(str(x) for x in dropped)))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
