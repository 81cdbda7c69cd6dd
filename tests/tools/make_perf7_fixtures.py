#!/usr/bin/python3
"""Make the fixtures of the records and features perf added after 6.1, which
perf 6.1 (the perf installed here) cannot record: tests/fixtures/perf7/.

Usage, from the repository root:  python3 tests/tools/make_perf7_fixtures.py [OUTDIR]
(OUTDIR: tests/fixtures/perf7 by default; the test makes them again in a
temporary directory and compares.)  Also, for the tests:
  make_perf7_fixtures.py --without-features IN OUT BIT[,BIT...]
copies IN without those feature sections.

Each fixture is a perf 6.1 recording with bytes added exactly as the layouts
give them (cited below by file: perf's tools/lib/perf/include/perf/event.h
and schedstat-v15.h/-v16.h/-v17.h, perf's tools/perf/util/header.c and
tools/perf/Documentation/perf.data-file-format.txt):

  perf7.data            tests/fixtures/buildid_mmap.data, with after its last
                        record: BPF_METADATA (84) records, SCHEDSTAT_CPU (85)
                        and SCHEDSTAT_DOMAIN (86) records of schedstat
                        versions 15, 16 and 17; and the feature sections
                        CPU_DOMAIN_INFO (32), E_MACHINE (33), CLN_SIZE (34).
  big_endian/perf7.data its big-endian copy (tests/tools/perf_to_big_endian.py).
  dwarf_e_machine.data  tests/fixtures/dwarf.data without its arch feature and
                        with an E_MACHINE feature (EM_X86_64): the DWARF
                        unwinder must take the architecture from E_MACHINE.
  expected.json         what the added bytes say: each added record's perf
                        name and fields, each added feature's value, written
                        from the same values the bytes were made from.

The data section grows by the added records; the feature index (just after
the data section) and every feature section move by that much plus the index
entries added; the added sections go at the end of the file.  Python 3
standard library only.
"""
import json
import os
import struct
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, 'tests', 'fixtures')
OUT = os.path.join(FIXTURES, 'perf7')

# ---- perf.data header (perf.data-file-format.txt: struct perf_header) ------

HEADER = struct.Struct('<8sQQ QQ QQ QQ 32s')


def read_file(path):
    data = bytearray(open(path, 'rb').read())
    (magic, size, attr_size, attrs_off, attrs_size, data_off, data_size,
     et_off, et_size, flags) = HEADER.unpack_from(data, 0)
    assert magic == b'PERFILE2', path
    bits = [b for b in range(256) if flags[b // 8] >> (b % 8) & 1]
    index_off = data_off + data_size
    sections = {}
    for i, bit in enumerate(bits):
        sections[bit] = struct.unpack_from('<QQ', data, index_off + 16 * i)
    return data, data_off, data_size, sections


def write_file(base, data_off, data_size, new_records, sections, path):
    """base's header and data with new_records after the data, then the
    feature index and sections (bit -> bytes), in bit order."""
    out = bytearray(base[:data_off + data_size]) + new_records
    flags = bytearray(32)
    for bit in sections:
        flags[bit // 8] |= 1 << (bit % 8)
    struct.pack_into('<QQ', out, 40, data_off, data_size + len(new_records))
    out[72:104] = flags
    index_off = len(out)
    out += bytes(16 * len(sections))
    for i, bit in enumerate(sorted(sections)):
        body = sections[bit]
        struct.pack_into('<QQ', out, index_off + 16 * i, len(out), len(body))
        out += body
    with open(path, 'wb') as f:
        f.write(out)


def old_sections(data, sections):
    return {bit: bytes(data[off:off + size]) for bit, (off, size) in sections.items()}


def record(typ, body, misc=0):
    """A record: struct perf_event_header {u32 type; u16 misc; u16 size},
    the body padded to 8 bytes as perf's structs are."""
    body = body + bytes(-len(body) % 8)
    return struct.pack('<IHH', typ, misc, 8 + len(body)) + body


def padded(text, n):
    raw = text.encode()
    assert len(raw) < n
    return raw + bytes(n - len(raw))


def header_string(text):
    """perf_header_string: u32 len, then the string NUL-padded to len, which
    perf's do_write_string rounds up to 64 bytes."""
    raw = text.encode() + b'\0'
    raw += bytes(-len(raw) % 64)
    return struct.pack('<I', len(raw)) + raw

# ---- BPF_METADATA (event.h: struct perf_record_bpf_metadata) ---------------
# prog_name[KSYM_NAME_LEN = 512], u64 nr_entries, then entries of
# {key[BPF_METADATA_KEY_LEN = 64], value[BPF_METADATA_VALUE_LEN = 256]}


def bpf_metadata(prog_name, entries):
    body = padded(prog_name, 512) + struct.pack('<Q', len(entries))
    for key, value in entries:
        body += padded(key, 64) + padded(value, 256)
    fields = {'prog_name': prog_name,
              'entries': [{'key': k, 'value': v} for k, v in entries]}
    return record(84, body), ('BPF_METADATA', fields)

# ---- SCHEDSTAT_CPU / SCHEDSTAT_DOMAIN (event.h, schedstat-v1[567].h) -------
# cpu:    u64 timestamp, u32 cpu, u16 version, char __pad[2], the counters
# domain: u64 timestamp, u32 cpu, u16 version, u16 domain, the counters


CPU_COUNTERS = [('yld_count', 4), ('array_exp', 4), ('sched_count', 4),
                ('sched_goidle', 4), ('ttwu_count', 4), ('ttwu_local', 4),
                ('rq_cpu_time', 8), ('run_delay', 8), ('pcount', 8)]


def lb(cat, v17):
    names = ['count', 'balanced', 'failed']
    names += (['imbalance_load', 'imbalance_util', 'imbalance_task', 'imbalance_misfit']
              if v17 else ['imbalance'])
    names += ['gained', 'hot_gained', 'nobusyq', 'nobusyg']
    return [('%s_lb_%s' % (cat, n), 4) for n in names]


TAIL = [(n, 4) for n in ('alb_count', 'alb_failed', 'alb_pushed', 'sbe_count', 'sbe_balanced',
                         'sbe_pushed', 'sbf_count', 'sbf_balanced', 'sbf_pushed',
                         'ttwu_wake_remote', 'ttwu_move_affine', 'ttwu_move_balance')]
DOMAIN_COUNTERS = {
    15: lb('idle', False) + lb('busy', False) + lb('newidle', False) + TAIL,
    16: lb('busy', False) + lb('idle', False) + lb('newidle', False) + TAIL,
    17: lb('busy', True) + lb('idle', True) + lb('newidle', True) + TAIL,
}


def counter_values(layout, seed):
    """A distinct value per counter, u64 ones past 2^32 and u32 ones near
    2^32, so that a counter read at the wrong place or width shows."""
    values = []
    for i, (_, width) in enumerate(layout):
        values.append((seed << 36) + 1000 * i + 7 if width == 8 else 0xfff00000 + seed * 256 + i)
    return values


def schedstat(domain, version, timestamp, cpu, seed):
    layout = DOMAIN_COUNTERS[version] if domain is not None else CPU_COUNTERS
    values = counter_values(layout, seed)
    body = struct.pack('<QIH', timestamp, cpu, version)
    body += struct.pack('<H', domain if domain is not None else 0)
    fields = {'timestamp': timestamp, 'cpu': cpu, 'version': version}
    if domain is not None:
        fields['domain'] = domain
    for (name, width), v in zip(layout, values):
        body += struct.pack('<I' if width == 4 else '<Q', v)
        fields[name] = v
    name = 'SCHEDSTAT_DOMAIN' if domain is not None else 'SCHEDSTAT_CPU'
    return record(86 if domain is not None else 85, body), (name, fields)

# ---- features (header.c: write_cpu_domain_info, write_e_machine) ----------


def cpu_domain_info(version, cpus):
    """u32 schedstat_version, u32 max_sched_domains, then per cpu: u32 cpu,
    u32 nr_domains, per domain: u32 domain, [dname if version >= 17],
    cpumask, cpulist (perf_header_strings)."""
    max_domains = 1 + max(d[0] for _, ds in cpus for d in ds)
    body = struct.pack('<II', version, max_domains)
    value = {'schedstat_version': version, 'max_sched_domains': max_domains, 'cpus': []}
    for cpu, domains in cpus:
        body += struct.pack('<II', cpu, len(domains))
        entry = {'cpu': cpu, 'domains': []}
        for number, name, mask, cpulist in domains:
            body += struct.pack('<I', number)
            d = {'domain': number}
            if version >= 17:
                body += header_string(name)
                d['name'] = name
            body += header_string(mask) + header_string(cpulist)
            d['cpumask'] = mask
            d['cpulist'] = cpulist
            entry['domains'].append(d)
        value['cpus'].append(entry)
    return body, value


def e_machine(machine, flags):
    """u32 e_machine (ELF's u16, widened), u32 e_flags."""
    return struct.pack('<II', machine, flags)


def without_features(src, dst, bits):
    data, data_off, data_size, sections = read_file(src)
    new = old_sections(data, sections)
    for bit in bits:
        new.pop(bit, None)
    write_file(data, data_off, data_size, b'', new, dst)


def main():
    global OUT
    if len(sys.argv) == 5 and sys.argv[1] == '--without-features':
        without_features(sys.argv[2], sys.argv[3], [int(b) for b in sys.argv[4].split(',')])
        return
    if len(sys.argv) == 2:
        OUT = sys.argv[1]
    os.makedirs(os.path.join(OUT, 'big_endian'), exist_ok=True)
    expected = {'records': [], 'features': {}}

    # perf7.data
    data, data_off, data_size, sections = read_file(os.path.join(FIXTURES, 'buildid_mmap.data'))
    added = bytearray()
    made = [
        bpf_metadata('bpf_prog_7d4a2f10', [('bpf_metadata_owner', 'perfvtab tests'),
                                           ('bpf_metadata_build', '"2026-11-27"')]),
        bpf_metadata('bpf_prog_empty', []),
        schedstat(None, 15, 1000001, 0, 1),
        schedstat(None, 16, 1000002, 1, 2),
        schedstat(None, 17, 1000003, 3, 3),
        schedstat(0, 15, 1000004, 0, 4),
        schedstat(1, 16, 1000005, 1, 5),
        schedstat(2, 17, 1000006, 3, 6),
    ]
    for raw, (name, fields) in made:
        added += raw
        expected['records'].append({'name': name, 'fields': fields})
    new = old_sections(data, sections)
    new[32], value = cpu_domain_info(17, [
        (0, [(0, 'SMT', '00000003', '0-1'), (1, 'MC', '0000000f', '0-3')]),
        (1, [(0, 'SMT', '00000003', '0-1'), (1, 'MC', '0000000f', '0-3')])])
    expected['features']['cpu_domain_info'] = value
    new[33] = e_machine(62, 0)   # EM_X86_64
    expected['features']['e_machine'] = {'e_machine': 62, 'e_flags': 0, 'arch': 'x86_64'}
    new[34] = struct.pack('<I', 64)
    expected['features']['cln_size'] = 64
    perf7 = os.path.join(OUT, 'perf7.data')
    write_file(data, data_off, data_size, bytes(added), new, perf7)

    # the schedstat version 16 layout of the domain counters, before
    # version 17 named domains: a CPU_DOMAIN_INFO of version 16 (no names)
    # goes in dwarf_e_machine.data, which also lacks the arch feature
    data, data_off, data_size, sections = read_file(os.path.join(FIXTURES, 'dwarf.data'))
    new = old_sections(data, sections)
    del new[6]                   # arch
    new[32], value = cpu_domain_info(16, [(0, [(0, '', '00000003', '0-1')])])
    expected['features_dwarf_e_machine'] = {'cpu_domain_info': value,
                                            'e_machine': {'e_machine': 62, 'e_flags': 0,
                                                          'arch': 'x86_64'}}
    new[33] = e_machine(62, 0)
    write_file(data, data_off, data_size, b'', new, os.path.join(OUT, 'dwarf_e_machine.data'))

    with open(os.path.join(OUT, 'expected.json'), 'w') as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write('\n')
    subprocess.run([sys.executable, os.path.join(ROOT, 'tests', 'tools', 'perf_to_big_endian.py'),
                    perf7, os.path.join(OUT, 'big_endian', 'perf7.data')], check=True)


if __name__ == '__main__':
    main()
