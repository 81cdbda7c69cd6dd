#!/usr/bin/env python3
"""Expected values of perf_records.fields, from the local `perf script -D`.

    record_fields_expect.py PERF.DATA OUT.TSV SOURCE-LABEL

Writes OUT.TSV for tests/t_record_fields.sh: a "# source<TAB>LABEL" line,
then one check per line:

    file_offset  name  label  json_path  how  expected

name is the record's perf_records.name; how says what the test computes from
fields: "v" json_extract(fields, path), "f" printf('%f', that), "bit1" that & 1.
For each record type, the first PER_TYPE records of the type are checked, with
every value perf prints for them (its decoded lines only, never its hex dumps),
plus the sample_id trailer's cpu and time that perf prints before the offset.
Exit status 2 when perf refuses the file.  Standard library only.
"""
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from perf_expect import (COMM_RE, HDR_RE, MMAP_RE, SAMPLE_RE, dec,  # noqa: E402
                         parse_evlist, run_to_file, s32, s64)

PER_TYPE = 3
USER_TYPES = {'HEADER_ATTR': 'ATTR', 'HEADER_EVENT_TYPE': 'EVENT_TYPE',
              'HEADER_TRACING_DATA': 'TRACING_DATA', 'HEADER_BUILD_ID': 'BUILD_ID',
              'HEADER_FEATURE': 'FEATURE'}
KERNEL_TYPES = {'MMAP', 'LOST', 'COMM', 'EXIT', 'THROTTLE', 'UNTHROTTLE', 'FORK', 'READ',
                'MMAP2', 'AUX', 'ITRACE_START', 'LOST_SAMPLES', 'SWITCH',
                'SWITCH_CPU_WIDE', 'NAMESPACES', 'KSYMBOL', 'BPF_EVENT', 'CGROUP',
                'TEXT_POKE', 'AUX_OUTPUT_HW_ID'}


def num(text):
    """perf's numbers: 0x-hex or decimal."""
    return int(text, 16) if text.startswith('0x') else int(text)


def cpu_list(text):
    """'0-3,5' -> [0, 1, 2, 3, 5]"""
    cpus = []
    for part in text.split(','):
        part = part.strip()
        if not part:
            continue
        if '-' in part[1:]:
            a, b = part.split('-', 1)
            cpus.extend(range(int(a), int(b) + 1))
        else:
            cpus.append(int(part))
    return cpus


def body_checks(kind, rest, cont, sample_type):
    """(label, path, how, value) for what perf printed of one record."""
    out = []

    def add(path, value, how='v', label=None):
        out.append((label or path, path, how, value))

    if kind in ('MMAP', 'MMAP2'):
        m = MMAP_RE.match(rest)
        if not m:
            raise SystemExit('unparsed %s line: %r' % (kind, rest))
        add('$.pid', s32(int(m.group(1))))
        add('$.tid', s32(int(m.group(2))))
        add('$.start', s64(num(m.group(3))))
        add('$.len', s64(num(m.group(4))))
        add('$.pgoff', s64(num(m.group(5))))
        add('$.filename', m.group(8))
        extra = (m.group(6) or '').strip()
        if kind == 'MMAP2':
            bid = re.match(r'^<([0-9a-f]*)>$', extra)
            dev = re.match(r'^([0-9a-f]+):([0-9a-f]+) (\d+) (\d+)$', extra)
            if bid:
                add('$.build_id', bid.group(1))
            elif dev:
                add('$.maj', int(dev.group(1), 16))
                add('$.min', int(dev.group(2), 16))
                add('$.ino', s64(int(dev.group(3))))
                add('$.ino_generation', s64(int(dev.group(4))))
            prot = m.group(7)
            add('$.prot', (4 if prot[2] == 'x' else 0) | (2 if prot[1] == 'w' else 0) |
                (1 if prot[0] == 'r' else 0))
            add('$.flags', 1 if prot[3] == 's' else 0, 'bit1', '$.flags&MAP_SHARED')
    elif kind == 'COMM':
        m = COMM_RE.match(rest)
        if not m:
            raise SystemExit('unparsed COMM line: %r' % rest)
        add('$.comm', m.group(1))
        add('$.pid', s32(int(m.group(2))))
        add('$.tid', s32(int(m.group(3))))
    elif kind in ('FORK', 'EXIT'):
        m = re.match(r'^\((-?\d+):(-?\d+)\):\((-?\d+):(-?\d+)\)$', rest)
        if m:
            for path, g in (('$.pid', 1), ('$.tid', 2), ('$.ppid', 3), ('$.ptid', 4)):
                add(path, s32(int(m.group(g))))
    elif kind == 'LOST':
        m = re.match(r'^: id:(\d+): lost:(\d+)$', rest)
        if m:
            add('$.id', s64(int(m.group(1))))
            add('$.lost', int(m.group(2)))
    elif kind == 'LOST_SAMPLES':
        m = re.match(r'^: id:(\d+): lost samples :(\d+)$', rest)
        if m:
            add('$.lost', int(m.group(2)))
    elif kind in ('SWITCH', 'SWITCH_CPU_WIDE'):
        words = rest.split()
        if words and words[0] in ('IN', 'OUT'):
            add('$.out', 1 if words[0] == 'OUT' else 0)
            add('$.preempt', 1 if 'preempt' in words else 0)
        m = re.search(r'(?:next|prev) pid/tid:\s*(-?\d+)/(-?\d+)', rest)
        if kind == 'SWITCH_CPU_WIDE' and m:
            add('$.next_prev_pid', s32(int(m.group(1))))
            add('$.next_prev_tid', s32(int(m.group(2))))
    elif kind == 'NAMESPACES':
        m = re.match(r'^ (-?\d+)/(-?\d+) - nr_namespaces: (\d+)$', rest)
        if m:
            add('$.pid', s32(int(m.group(1))))
            add('$.tid', s32(int(m.group(2))))
            add('$.nr_namespaces', int(m.group(3)))
            for e in re.finditer(r'(\d+)/\w+: (\d+)/(0x[0-9a-f]+|\d+)', ' '.join(cont)):
                i = int(e.group(1))
                add('$.namespaces[%d].dev' % i, s64(int(e.group(2))))
                add('$.namespaces[%d].ino' % i, s64(num(e.group(3))))
    elif kind == 'KSYMBOL':
        m = re.match(r'^ addr ([0-9a-f]+) len (\d+) type (\d+) flags 0x([0-9a-f]+) name (.*)$', rest)
        if m:
            add('$.addr', s64(int(m.group(1), 16)))
            add('$.len', int(m.group(2)))
            add('$.ksym_type', int(m.group(3)))
            add('$.flags', int(m.group(4), 16))
            add('$.name', m.group(5))
    elif kind == 'BPF_EVENT':
        m = re.match(r'^ type (\d+), flags (\d+), id (\d+)$', rest)
        if m:
            add('$.type', int(m.group(1)))
            add('$.flags', int(m.group(2)))
            add('$.id', int(m.group(3)))
    elif kind == 'AUX':
        m = re.match(r'^ offset: (0x[0-9a-f]+|0) size: (0x[0-9a-f]+|0) flags: (0x[0-9a-f]+|0)', rest)
        if m:
            add('$.aux_offset', num(m.group(1)))
            add('$.aux_size', num(m.group(2)))
            add('$.flags', s64(num(m.group(3))))
    elif kind == 'ITRACE_START':
        m = re.match(r'^ pid: (-?\d+) tid: (-?\d+)$', rest)
        if m:
            add('$.pid', s32(int(m.group(1))))
            add('$.tid', s32(int(m.group(2))))
    elif kind == 'AUXTRACE':
        m = re.match(r'^ size: (0x[0-9a-f]+|0)\s+offset: (0x[0-9a-f]+|0)\s+ref: (0x[0-9a-f]+|0)'
                     r'\s+idx: (\d+)\s+tid: (-?\d+)\s+cpu: (-?\d+)', rest)
        if m:
            add('$.size', num(m.group(1)))
            add('$.offset', num(m.group(2)))
            add('$.reference', s64(num(m.group(3))))
            add('$.idx', int(m.group(4)))
            add('$.tid', s32(int(m.group(5))))
            add('$.cpu', s32(int(m.group(6))))
    elif kind == 'AUXTRACE_INFO':
        m = re.match(r'^ type: (\d+)', rest)
        if m:
            add('$.type', int(m.group(1)))
    elif kind == 'ID_INDEX':
        m = re.match(r'^ nr: (\d+)$', rest)
        if m:
            add('$.nr', int(m.group(1)))
        i = 0
        for line in cont:
            e = re.match(r'^ \.\.\. id: (\d+)\s+idx: (\d+)\s+cpu: (-?\d+)\s+tid: (-?\d+)', line)
            if e:
                add('$.entries[%d].id' % i, s64(int(e.group(1))))
                add('$.entries[%d].idx' % i, int(e.group(2)))
                add('$.entries[%d].cpu' % i, s64(int(e.group(3)) & (2**64 - 1)))
                add('$.entries[%d].tid' % i, s64(int(e.group(4)) & (2**64 - 1)))
                i += 1
    elif kind == 'THREAD_MAP':
        m = re.match(r'^ nr: (\d+) thread: (.*)$', rest)
        if m:
            add('$.nr', int(m.group(1)))
            for i, t in enumerate(re.findall(r'-?\d+', m.group(2))):
                add('$.threads[%d].pid' % i, s32(int(t)))
    elif kind == 'CPU_MAP':
        m = re.match(r'^: (.*)$', rest)
        if m:
            add('$.cpus', '[' + ','.join(str(c) for c in cpu_list(m.group(1))) + ']')
    elif kind == 'EVENT_UPDATE':
        for line in cont:
            e = re.match(r'^\.\.\. (id|unit|scale|name):\s+(.*)$', line)
            if not e:
                continue
            if e.group(1) == 'id':
                add('$.id', s64(int(e.group(2))))
            elif e.group(1) == 'scale':
                add('$.scale', e.group(2).strip(), 'f')
            else:
                add('$.' + e.group(1), e.group(2))
    elif kind in ('FINISHED_ROUND', 'FINISHED_INIT'):
        add('$', '{}', label='fields')
    elif kind == 'SAMPLE':
        m = SAMPLE_RE.match(rest)
        if m:
            if 'TID' in sample_type:
                add('$.pid', s32(int(m.group(1))))
                add('$.tid', s32(int(m.group(2))))
            if 'IP' in sample_type:
                add('$.ip', s64(num(m.group(3))))
            if 'PERIOD' in sample_type:
                add('$.period', int(m.group(4)))
    return out


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    path, out_path, label = sys.argv[1:]
    with tempfile.TemporaryDirectory() as tmp:
        rc, dump = run_to_file(['perf', 'script', '-D', '-i', path], tmp, 'dump')
        if rc != 0:
            sys.exit(2)
        # perf 6.1 prints the stream offsets of a pipe's records 16 bytes
        # short after its HEADER_TRACING_DATA, and the records of COMPRESSED
        # containers share an offset: no offset to match records by.
        with open(dump, 'rb') as f:
            text = f.read()
            if re.search(rb'^0x[0-9a-f]+@pipe \[0x[0-9a-f]+\]: event: 66$', text, re.M):
                print('%s: pipe with tracing data, perf\'s offsets are off' % path, file=sys.stderr)
                sys.exit(2)
            offsets = re.findall(rb'^(0x[0-9a-f]+)@', text, re.M)
            if len(offsets) != len(set(offsets)):
                print('%s: records share an offset (COMPRESSED containers): no offsets to '
                      'match by' % path, file=sys.stderr)
                sys.exit(2)
        rc, evl = run_to_file(['perf', 'evlist', '-v', '-i', path], tmp, 'evlist')
        events = parse_evlist(evl) if rc == 0 else []
        with open(evl, 'rb') as f:
            id_all = b'sample_id_all: 1' in f.read()
        sample_type = set()
        for _, bits in events:
            sample_type |= bits
        rows, seen = [], {}
        cur = None      # [offset, kind, prefix, rest, continuation lines]

        def flush():
            if cur is None:
                return
            off, kind, prefix, rest, cont = cur
            name = USER_TYPES.get(kind, kind)
            if seen.get(name, 0) >= PER_TYPE:
                return
            checks = body_checks(kind, rest, cont, sample_type)
            # perf prints the trailer's cpu and time before the offset
            if kind in KERNEL_TYPES and id_all:
                want = [b for b in ('CPU', 'TIME') if b in sample_type]
                if len(prefix) == len(want):
                    for bit, value in zip(want, prefix):
                        path = '$.sample_id.' + bit.lower()
                        checks.append((path, path, 'v', int(value)))
            if not checks:
                return
            seen[name] = seen.get(name, 0) + 1
            for lab, p, how, value in checks:
                rows.append((off, name, lab, p, how, value))

        with open(dump, 'rb') as f:
            for raw in f:
                line = raw.rstrip(b'\n')
                m = HDR_RE.match(line)
                if m:
                    flush()
                    cur = [int(m.group(2), 16), dec(m.group(4)), dec(m.group(1)).split(),
                           dec(m.group(5)), []]
                    continue
                if cur is None:
                    continue
                text = dec(line)
                if not text.strip() or re.match(r'^0x[0-9a-f]+@', text):
                    flush()
                    cur = None
                elif not text.startswith('.') or text.startswith('...'):
                    cur[4].append(text)
        flush()
    with open(out_path, 'w', encoding='utf-8', errors='surrogateescape') as out:
        out.write('# source\t%s\n' % label)
        for row in rows:
            out.write('\t'.join(str(c) for c in row) + '\n')


if __name__ == '__main__':
    main()
