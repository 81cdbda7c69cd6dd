#!/usr/bin/env python3
"""The build-ids perf_build_ids must give for a file, as the local `perf`
shows them (tests/gen/features.sh writes this to
tests/expected/features/<name>.buildids; tests/t_features.sh compares).

    buildids_expect.py PERF.DATA

prints a first line "# <mode>: <where from>", then one "<build-id> <name>"
line per build-id (a line of spaces and a name: perf knows no build-id for
that DSO).  The mode, and where the lines come from, depend on the file:
  exact   the file has the BUILD_ID feature (or is a pipe, where perf prints
          no missing features): `perf buildid-list`, as printed.
  exact   no BUILD_ID feature (`--buildid-mmap`, `perf stat record`, -z):
          the build-ids perf script -D prints in MMAP2 records.  buildid-list
          would list only the DSOs hit by samples, and could add build-ids
          read from local files.  A build-id buildid-list prints too takes
          its DSO name ("[kernel.kallsyms]" for "[kernel.kallsyms]_text").
  subset  no BUILD_ID feature and perf script -D refuses the file: all that
          is left is buildid-list, which ours must include.
Exit status 2 when perf buildid-list fails; 1, saying why, when it prints a
build-id that is not among the MMAP2 ones: the exact list would then not
include perf's, and a person must look.  Standard library only.
"""
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from perf_expect import HDR_RE, MMAP_RE, dec, run_dump, run_to_file  # noqa: E402


def lacks_build_id_feature(header_path):
    with open(header_path, 'rb') as f:
        m = re.search(rb'^# missing features: (.*)$', f.read(), re.M)
    return bool(m) and b'BUILD_ID' in m.group(1).split()


def mmap2_build_ids(dump_path):
    """{(build_id, filename)} of the MMAP2 records perf -D prints with one."""
    ids = set()
    with open(dump_path, 'rb') as f:
        for raw in f:
            m = HDR_RE.match(raw.rstrip(b'\n'))
            if not m or m.group(4) != b'MMAP2':
                continue
            mm = MMAP_RE.match(dec(m.group(5)))
            if not mm:
                raise SystemExit('unparsed mmap line: %r' % raw)
            bm = re.match(r'^ <([0-9a-f]*)>$', mm.group(6) or '')
            if bm:
                ids.add((bm.group(1), mm.group(8)))
    return ids


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    data = sys.argv[1]
    perf = os.environ.get('PERF', 'perf')
    with tempfile.TemporaryDirectory(prefix='buildids_expect.') as tmp:
        rc, listed = run_to_file([perf, 'buildid-list', '-i', data], tmp, 'buildids')
        if rc != 0:
            print('perf buildid-list fails on %s' % data, file=sys.stderr)
            sys.exit(2)
        with open(listed, 'rb') as f:
            lines = [dec(raw.rstrip(b'\n')) for raw in f if raw.strip()]
        rc, hdr = run_to_file([perf, 'report', '--header-only', '-I', '-i', data], tmp, 'header')
        if rc != 0 or not lacks_build_id_feature(hdr):
            out = ['# exact: perf buildid-list'] + lines
        else:
            rc, dump = run_dump(perf, data, tmp)
            if rc != 0:
                out = ['# subset: perf buildid-list (no BUILD_ID feature, '
                       'perf script -D refuses the file)'] + lines
            else:
                names = dict(l.split(' ', 1) for l in lines if re.match(r'^[0-9a-f]+ ', l))
                ids = set((b, names.get(b, n)) for b, n in mmap2_build_ids(dump))
                extra = [l for l in lines if re.match(r'^[0-9a-f]+ ', l)
                         and tuple(l.split(' ', 1)) not in ids]
                if extra:
                    raise SystemExit('%s: perf buildid-list prints build-ids no MMAP2 '
                                     'record has: %s' % (data, '; '.join(extra[:3])))
                out = ['# exact: the MMAP2 build-ids perf script -D prints '
                       '(no BUILD_ID feature)'] + sorted('%s %s' % i for i in ids)
    sys.stdout.buffer.write(b''.join(l.encode('utf-8', 'surrogateescape') + b'\n'
                                     for l in out))


if __name__ == '__main__':
    main()
