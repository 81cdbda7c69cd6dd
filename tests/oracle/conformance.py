"""Conformance suite: every file of $PV_SHARED/corpus/ against the expected
outputs its own project keeps (see the corpus README).  Run by
tests/t_conformance.sh; prints TAP-style "ok - ..." / "not ok - ..." lines
and one "# <source>: ..." summary line per source.

  quipper (perf_data_converter): *.io.out.pb_text / *.pr.out.pb_text event
      by event in file order (tests/oracle/quipper_compare.py), the time-sorted
      *.pb_text as a multiset of samples, *.buildids as perf_build_ids, the
      facts of EXPECTED_FACTS.txt; the corrupted file and the fuzz
      reproducers fail with a clear error (or open and read without one).
  simpleperf: the facts of EXPECTED_simpleperf_tests.txt and
      EXPECTED_perfetto_simpleperf_diff_tests.txt (parsed from those files,
      not retyped here), perf_display_bitmaps.perf-script sample by sample.
  linux-perf-data: EXPECTED_FACTS.txt: the sample and record counts of the
      independent parse, compression info, pipe mode.
Every data file listed in MANIFEST.tsv at least opens, or (NEGATIVE rows)
fails with an error naming the file and an offset.

usage: conformance.py SQLRUN CORPUS_DIR
"""
import csv
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import quipper_compare  # noqa: E402

SQLRUN, CORPUS = sys.argv[1:3]
QT = 'perf_data_converter/src/quipper/testdata'
SP = 'simpleperf/simpleperf/testdata'
LPD = 'linux-perf-data/tests/fixtures'


def ok(what):
    print('ok - %s' % what)


def nok(what, why):
    print('not ok - %s: %s' % (what, why))


def q(path):
    return "'" + path.replace("'", "''") + "'"


def run(sql):
    """(exit status, stdout rows, stderr) of one query."""
    r = subprocess.run([SQLRUN, sql], capture_output=True, text=True, errors='surrogateescape',
                       timeout=600)
    rows = [line.split('\t') for line in r.stdout.split('\n') if line]
    return r.returncode, rows, r.stderr.strip()


def rows(sql):
    rc, out, err = run(sql)
    if rc != 0:
        raise RuntimeError(err[:300])
    return out


def one(sql):
    out = rows(sql)
    return out[0][0] if out and out[0] else None


def corpus_path(rel):
    return os.path.join(CORPUS, rel)


def manifest():
    with open(corpus_path('MANIFEST.tsv'), newline='') as f:
        return list(csv.DictReader(f, delimiter='\t'))


def clean_failure(label, path, negative):
    """A file that must not be read: every table query either works or fails
    with a message naming the file and an offset; never a crash."""
    failed = []
    for table in ('perf_records', 'perf_samples', 'perf_features', 'perf_events'):
        rc, _, err = run('SELECT count(*) FROM %s(%s)' % (table, q(path)))
        if rc not in (0, 1) or 'Sanitizer' in err or 'runtime error' in err:
            return nok(label, '%s crashed (status %d): %s' % (table, rc, err[-300:]))
        if rc == 1:
            if path not in err or not re.search(r'offset 0x|cannot open|not a perf.data', err):
                return nok(label, '%s: the error does not name the file and an offset: %s'
                           % (table, err[:300]))
            failed.append(err)
    if negative and not failed:
        return nok(label, 'read without any error')
    ok('%s: %s' % (label, failed[0].replace('Error: ', '')[:160] if failed else 'reads cleanly'))
    return True


# ---------------------------------------------------------------- quipper
def quipper(rows_):
    files = samples = events = 0
    for row in rows_:
        rel = row['file']
        path = corpus_path(rel)
        name = os.path.basename(rel)
        label = 'quipper %s' % name
        if '/corpus/' in rel or 'NEGATIVE' in row['notes']:
            clean_failure(label, path, negative='corrupted' in rel)
            continue
        files += 1
        expected = [e for e in row['expected_output_file'].split(';') if e and e != '-']
        dumps = [e for e in expected if e.endswith('.pb_text')]
        for e in dumps:
            multiset = not (e.endswith('.io.out.pb_text') or e.endswith('.pr.out.pb_text'))
            try:
                verdict = quipper_compare.compare(SQLRUN, path, corpus_path(e), multiset)
            except SystemExit as ex:
                verdict = 'bad %s' % ex
            if verdict.startswith('ok'):
                n, m = map(int, verdict.split()[1:3])
                samples += n
                events += m
                how = 'samples as a multiset' if multiset else 'events in file order'
                ok('%s: %d samples%s equal %s (%s)' % (label, n, ', %d events' % m if m else '',
                                                      os.path.basename(e), how))
            else:
                nok(label, 'differs from %s: %s' % (os.path.basename(e), verdict[4:]))
        for e in expected:
            if e.endswith('.buildids'):
                buildids(label, path, corpus_path(e))
        if not dumps and not any(e.endswith('.buildids') for e in expected):
            rc, _, err = run('SELECT count(*) FROM perf_records(%s)' % q(path))
            if rc == 0:
                ok('%s: opens and reads (no dump kept by quipper)' % label)
            else:
                nok(label, err[:300])
    quipper_facts()
    print('# quipper: %d files, %d samples and %d events compared with its dumps'
          % (files, samples, events))


def buildids(label, path, expected):
    """`perf buildid-list --force` lines; an empty id means perf knows the DSO
    but no build-id for it: we must not have one either."""
    want, unknown = set(), set()
    with open(expected, encoding='utf-8', errors='surrogateescape') as f:
        for line in f:
            line = line.rstrip('\n')
            if not line:
                continue
            bid, _, name = line.strip().partition(' ') if not line.startswith(' ') else ('', '', line.strip())
            (want.add((bid, name)) if bid else unknown.add(name))
    got = set(tuple(r) for r in rows('SELECT DISTINCT build_id, filename FROM perf_build_ids(%s)'
                                     % q(path)))
    wrong = [n for b, n in got if n in unknown]
    if want == {g for g in got if g[1] not in unknown} and not wrong:
        ok('%s: build-ids equal %s (%d)' % (label, os.path.basename(expected), len(want)))
    else:
        nok(label, 'build-ids differ from %s: missing %s, extra %s'
            % (os.path.basename(expected), sorted(want - got)[:3], sorted(got - want)[:3]))


def quipper_facts():
    facts = open(corpus_path('perf_data_converter/EXPECTED_FACTS.txt')).read()
    m = re.search(r'single-event-multi-process\.perf\.data\s+(\d+) samples, (\d+) distinct pids', facts)
    path = corpus_path('perf_data_converter/src/testdata/single-event-multi-process.perf.data')
    if m and os.path.exists(path):
        got = rows('SELECT count(*), count(DISTINCT pid) FROM perf_samples(%s)' % q(path))[0]
        if got == [m.group(1), m.group(2)]:
            ok('quipper single-event-multi-process.perf.data: %s samples, %s pids' % tuple(got))
        else:
            nok('quipper single-event-multi-process.perf.data', 'expected %s samples and %s pids, got %s'
                % (m.group(1), m.group(2), got))
    m = re.search(r'single-event-single-process\.perf\.data\s+VERSION "([^"]*)", CMDLINE "([^"]*)"', facts)
    path = corpus_path('perf_data_converter/src/testdata/single-event-single-process.perf.data')
    if m and os.path.exists(path):
        got = dict((r[0], r[1]) for r in rows(
            "SELECT name, value FROM perf_features(%s) WHERE name IN ('version', 'cmdline')" % q(path)))
        cmdline = ' '.join(json.loads(got.get('cmdline', '[]')))
        if got.get('version') == m.group(1) and cmdline == m.group(2):
            ok('quipper single-event-single-process.perf.data: version %s, cmdline %s' % m.groups())
        else:
            nok('quipper single-event-single-process.perf.data', 'expected %s, got %s' % (m.groups(), got))


# ---------------------------------------------------------------- simpleperf
def simpleperf(rows_):
    facts = open(corpus_path('simpleperf/EXPECTED_simpleperf_tests.txt')).read()
    diff = open(corpus_path('simpleperf/EXPECTED_perfetto_simpleperf_diff_tests.txt')).read()
    counted = {'files': 0, 'samples': 0}
    for row in rows_:
        rel, path = row['file'], corpus_path(row['file'])
        label = 'simpleperf %s' % rel.split('simpleperf/', 2)[-1]
        if 'NEGATIVE' in row['notes']:
            clean_failure(label, path, negative=True)
            continue
        counted['files'] += 1
        m = re.search(r'samples=(\d+) records=(\d+)', row['notes'])
        rc, out, err = run('SELECT (SELECT count(*) FROM perf_samples(%s)), (SELECT count(*) FROM '
                           'perf_records(%s))' % (q(path), q(path)))
        if rc != 0:
            nok(label, 'does not read: %s' % err[:300])
        elif m and out[0] != [m.group(1), m.group(2)]:
            nok(label, 'expected %s samples and %s records, read %s' % (m.group(1), m.group(2), out[0]))
        else:
            ok('%s: reads, %s samples, %s records' % (label, out[0][0], out[0][1]))
            counted['samples'] += int(out[0][0])

    # perf_with_symbols.data: one sample with ip and time has pid, tid, cpu, period
    path = corpus_path(SP + '/perf_with_symbols.data')
    m = re.search(r'build id of (\S+) = ([0-9a-f]+)', facts)
    got = rows('SELECT build_id FROM perf_build_ids(%s) WHERE filename = %s' % (q(path), q(m.group(1))))
    if [[m.group(2)]] == got:
        ok('simpleperf perf_with_symbols.data: build id of %s is %s' % m.groups())
    else:
        nok('simpleperf perf_with_symbols.data', 'build id of %s: expected %s, got %s'
            % (m.group(1), m.group(2), got))
    m = re.search(r'ip == (0x[0-9a-f]+) and time == (\d+) has:\s+pid (\d+), tid (\d+), thread comm "[^"]*", '
                  r'cpu (\d+), period (\d+), event "[^"]*", callchain nr (\d+)', facts)
    ip, time, pid, tid, cpu, period, nr = m.groups()
    # a sample without PERF_SAMPLE_CALLCHAIN has no callchain: nr 0
    got = rows('SELECT pid, tid, cpu, period, ifnull(json_array_length(callchain), 0) FROM perf_samples(%s) '
               'WHERE ip = %d AND time = %s' % (q(path), int(ip, 16), time))
    if got == [[pid, tid, cpu, period, nr]]:
        ok('simpleperf perf_with_symbols.data: the sample at ip %s time %s has pid %s tid %s cpu %s '
           'period %s and %s callchain entries' % (ip, time, pid, tid, cpu, period, nr))
    else:
        nok('simpleperf perf_with_symbols.data', 'sample at ip %s time %s: expected %s, got %s'
            % (ip, time, [pid, tid, cpu, period, nr], got))

    # perf_with_trace_offcpu_v2.data: CMDLINE
    path = corpus_path(SP + '/perf_with_trace_offcpu_v2.data')
    m = re.search(r'CMDLINE joined = "([^"]*)"', facts)
    got = ' '.join(json.loads(one("SELECT value FROM perf_features(%s) WHERE name = 'cmdline'" % q(path))))
    (ok('simpleperf perf_with_trace_offcpu_v2.data: cmdline as simpleperf reports it')
     if got == m.group(1) else nok('simpleperf perf_with_trace_offcpu_v2.data', 'cmdline %r' % got))

    perfetto_facts(diff)
    add_counter(diff)
    display_bitmaps()
    print('# simpleperf: %d files read with the counts of the independent parse (%d samples), '
          'facts of simpleperf\'s and perfetto\'s tests checked' % (counted['files'], counted['samples']))


def csv_block(text, title):
    """The CSV rows after a '## ... -- <title>' header."""
    start = text.index(title)
    lines = text[start:].split('\n')[1:]
    lines = [ln for ln in lines if not ln.startswith('## ')]
    out = []
    for ln in lines:
        if not ln.strip():
            if out:
                break
            continue
        out.append(ln)
    return list(csv.reader(out))


def perfetto_facts(diff):
    path = corpus_path(SP + '/perf.data')
    label = 'simpleperf perf.data (perfetto test_perf)'
    table = csv_block(diff, '-- test_perf\n')
    head, body = table[0], table[1:]
    want = sorted((int(r[head.index('event_count')]), r[head.index('pid')], r[head.index('tid')])
                  for r in body)
    got = sorted((int(r[3]), r[0], r[1]) for r in rows(
        'SELECT pid, tid, ip, sum(period) FROM perf_samples(%s) WHERE cpu IN (2, 6, 7) '
        'GROUP BY pid, tid, ip' % q(path)))
    if want == got:
        ok('%s: the %d per-(pid, tid, ip) period sums of cpus 2, 6, 7 equal simpleperf report\'s'
           % (label, len(want)))
    else:
        nok(label, 'period sums differ: expected %s..., got %s...' % (want[:3], got[:3]))
    table = csv_block(diff, '-- test_perf_tracks')
    want = sorted(r[table[0].index('cpu')] for r in table[1:])
    got = sorted(r[0] for r in rows('SELECT DISTINCT cpu FROM perf_samples(%s)' % q(path)))
    (ok('%s: samples on cpus %s' % (label, ' '.join(got))) if want == got
     else nok(label, 'cpus: expected %s, got %s' % (want, got)))
    table = csv_block(diff, '-- test_build_id_feature')
    want = sorted(set((r[0], r[1]) for r in table[1:]))
    got = sorted(set(tuple(r) for r in rows(
        "SELECT DISTINCT build_id, filename FROM perf_build_ids(%s) WHERE build_id <> ''" % q(path))))
    (ok('%s: build ids %s' % (label, len(want))) if want == got
     else nok(label, 'build ids: expected %s, got %s' % (want, got)))
    table = csv_block(diff, '-- test_cmdline')
    got = ' '.join(json.loads(one("SELECT value FROM perf_features(%s) WHERE name = 'cmdline'" % q(path))))
    (ok('%s: cmdline' % label) if [got] == table[1]
     else nok(label, 'cmdline: expected %s, got %r' % (table[1], got)))


def add_counter(diff):
    """perfetto's test_perf_with_add_counter: per sample, each counter of the
    group READ minus its previous value, summed per symbol.  Kernel rows name
    the ip ("[kernel.kallsyms][+<ip>]"): compared per ip; the user rows need
    symbols, so only the column totals cover them."""
    path = corpus_path(SP + '/perf_with_add_counter.data')
    label = 'simpleperf perf_with_add_counter.data (perfetto)'
    table = csv_block(diff, '-- test_perf_with_add_counter\n')
    head, body = table[0], table[1:]
    last, per_ip = {}, {}
    for ip, read in rows('SELECT ip, read FROM perf_samples(%s) ORDER BY record' % q(path)):
        deltas = []
        for v in json.loads(read)['values']:
            deltas.append(v['value'] - last.get(v['id'], 0))
            last[v['id']] = v['value']
        acc = per_ip.setdefault(int(ip) & quipper_compare.MASK64, [0] * len(deltas))
        per_ip[int(ip) & quipper_compare.MASK64] = [a + d for a, d in zip(acc, deltas)]
    cyc, ins = head.index('cpu_cycles'), head.index('instructions')
    totals = [sum(int(r[cyc]) for r in body), sum(int(r[ins]) for r in body)]
    mine = [sum(v[0] for v in per_ip.values()), sum(v[1] for v in per_ip.values())]
    bad = []
    kernel = 0
    for r in body:
        m = re.match(r'^\[kernel\.kallsyms\]\[\+([0-9a-f]+)\]$', r[head.index('symbol')])
        if m:
            kernel += 1
            got = per_ip.get(int(m.group(1), 16))
            if got != [int(r[cyc]), int(r[ins])]:
                bad.append('%s: perfetto %s, ours %s' % (m.group(0), [r[cyc], r[ins]], got))
    if not bad and totals == mine and kernel:
        ok('%s: counter deltas of %d kernel ips and the totals %s equal perfetto\'s'
           % (label, kernel, totals))
    else:
        nok(label, 'totals perfetto %s, ours %s; %s' % (totals, mine, '; '.join(bad[:2])))


def display_bitmaps():
    """perf_display_bitmaps.perf-script: one block per sample in file order,
    "<comm>\\t<pid>/<tid> [<cpu>] <sec>.<usec>: <period> <event>:"."""
    path = corpus_path(SP + '/perf_display_bitmaps.data')
    label = 'simpleperf perf_display_bitmaps.data'
    want = []
    with open(corpus_path(SP + '/perf_display_bitmaps.perf-script'), encoding='utf-8',
              errors='surrogateescape') as f:
        for line in f:
            m = re.match(r'^[^\t]*\t(\d+)/(\d+) \[(\d+)\] (\d+)\.(\d{6}): (\d+) (\S+):$', line.rstrip('\n'))
            if m:
                pid, tid, cpu, sec, usec, period, _ = m.groups()
                want.append([pid, tid, str(int(cpu)), str(int(sec) * 1000000 + int(usec)), period])
    got = rows('SELECT pid, tid, cpu, time / 1000, period FROM perf_samples(%s) ORDER BY record'
               % q(path))
    if want and want == got:
        ok('%s: all %d samples (pid, tid, cpu, time in us, period) equal the .perf-script, in order'
           % (label, len(want)))
    else:
        bad = next((i for i, (a, b) in enumerate(zip(want, got)) if a != b), min(len(want), len(got)))
        nok(label, '%d samples expected, %d read; first difference at %d: %s vs %s'
            % (len(want), len(got), bad, want[bad:bad + 1], got[bad:bad + 1]))


# ---------------------------------------------------------------- linux-perf-data
def linux_perf_data(rows_):
    facts = open(corpus_path('linux-perf-data/EXPECTED_FACTS.txt')).read()
    total = 0
    counts = dict((n, (int(s), int(r))) for n, s, r in
                  re.findall(r'(\S+\.data) (\d+) samples/(\d+) recs', facts))
    counts.update((n, (int(s), int(r))) for n, s, r in
                  re.findall(r'(\S+\.data) (\d+)/(\d+)', facts))
    for row in rows_:
        rel, path = row['file'], corpus_path(row['file'])
        name = os.path.basename(rel)
        label = 'linux-perf-data %s' % name
        want = counts.get(name)
        rc, out, err = run("SELECT (SELECT count(*) FROM perf_samples(%s)), (SELECT count(*) FROM "
                           "perf_records(%s)), (SELECT count(*) FROM perf_features(%s) WHERE name = "
                           "'compressed')" % (q(path), q(path), q(path)))
        if rc != 0:
            nok(label, 'does not read: %s' % err[:300])
            continue
        samples, records, compressed = map(int, out[0])
        if want is None:
            nok(label, 'no counts in EXPECTED_FACTS.txt')
        elif (samples, records) != want:
            nok(label, 'expected %d samples and %d records, read %d and %d'
                % (want + (samples, records)))
        else:
            ok('%s: %d samples, %d records, as the independent parse' % (label, samples, records))
            total += samples
        # "compression info present" / "no compression info"
        line = next((ln for ln in facts.split('\n') if ln.strip().startswith(name + ' ')), '')
        if 'compress' in line.lower() or 'ZSTD' in line:
            expect = 'no compression' not in line
            zipped = one("SELECT count(*) FROM perf_records(%s) WHERE type IN (81, 83)" % q(path))
            has = compressed > 0 if row['mode'] == 'file' else int(zipped) > 0
            (ok('%s: compression %s' % (label, 'present' if has else 'absent')) if has == expect
             else nok(label, 'compression info expected %s' % expect))
        # "compression type ZSTD, level <=22, ratio>0, mmap_len>0"
        if 'level <=22' in line:
            info = json.loads(one("SELECT value FROM perf_features(%s) WHERE name = 'compressed'"
                                  % q(path)) or '{}')
            good = (info.get('type') == 1 and 0 < info.get('level', 0) <= 22 and
                    info.get('ratio', 0) > 0 and info.get('mmap_len', 0) > 0)
            (ok('%s: HEADER_COMPRESSED %s' % (label, info)) if good
             else nok(label, 'HEADER_COMPRESSED %s is not zstd, level <= 22, ratio > 0, mmap_len > 0'
                      % info))
        if 'pipe' in line:
            pipe = one("SELECT count(*) FROM perf_records(%s) WHERE type = 64" % q(path))
            (ok('%s: pipe mode (attrs from HEADER_ATTR records)' % label) if int(pipe) > 0
             else nok(label, 'expected pipe mode'))
    print('# linux-perf-data: %d files, %d samples (counts of its facts file)' % (len(rows_), total))


def main():
    entries = manifest()
    by_source = {}
    for row in entries:
        by_source.setdefault(row['file'].split('/', 1)[0], []).append(row)
    for source, fn in (('perf_data_converter', quipper), ('simpleperf', simpleperf),
                       ('linux-perf-data', linux_perf_data)):
        try:
            fn(by_source.get(source, []))
        except (RuntimeError, OSError, ValueError, AttributeError, IndexError) as ex:
            nok('%s conformance' % source, 'stopped: %s: %s' % (type(ex).__name__, ex))


main()
