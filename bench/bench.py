#!/usr/bin/python3
"""perfvtab's benchmark: the SQL route against the tools users would run
otherwise, measured side by side in one run, printed as ratios.

    bench/bench.py [--quick] [--no-inflate] [--repeat N] [--dwarf DWARF_FILE]
                   [--unseen FILE] [--hotspot-limit S] [--only dwarf|scan]
                   [--build DIR] [FILE ...]

Each FILE is a frame-pointer recording (bench/run.sh makes two, system-wide:
the workload profile and a process-heavy one); --unseen FILE is one more,
recorded another way and never tuned against (bench/run.sh: mixed.data),
measured the same way and reported in a section of its own.  Every ratio
is printed for each, labelled with the file's name: the scan against the
floor (SQLite's own cost for as many rows, generate_series) plus a bare C
walk, and against perf script; the ready queries (sql/flat_profile.sql,
sql/inclusive_profile.sql) against a scan and against perf report, in time
and peak RSS; the plain GROUP BY users write first (with SQLite's own time
for the same rows where perf report beats it); sql/flamegraph.sql,
sql/folded_stacks.sql and perf_pprof against the inclusive profile and a
full perf script; hotspot-perfparser beside perf report; time windows,
joins, first rows, zstd and memory.  perf, hotspot-perfparser and perfvtab
run with one HOME of the bench's own (an empty build-id cache), and the
samples each left without a symbol are printed.
DWARF_FILE is a --call-graph dwarf recording of shell workloads (bench/run.sh
makes a short one): perf_callchains' first query against perf script, and a
second query in the same connection against the first (issue 13).
--only dwarf runs that part alone; --only scan runs the plain scan of
each FILE alone; --build DIR measures another build (a before/after run).
Every command runs --repeat times (default 3; --quick: once, every workload
and target still measured), perf's included; the best wall time and the peak
RSS are kept, and the load average is printed with each part.  These
machines are noisy: read the ratios, not the times; the scan's instruction
counts are printed beside it.  Targets (issues 5, 13, 14, 27) are printed
beside each ratio with PASS/MISS, and at the end as a markdown table, one
row per workload, one column per target.
"""
import argparse
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, 'build')
EXT = os.path.join(BUILD, 'perfvtab.so')
SQL_DIR = os.path.join(ROOT, 'sql')
HOTSPOT_PERFPARSER = '/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser'
results = []
# one entry per workload: its label, its targets' cells (key -> text) and
# measures beside them (key -> text), for the table at the end
SUMMARY = []
# the summary table's columns: key, heading (the target)
COLUMNS = [
    ('scan_floor', 'scan / (floor + walk) <= 1'),
    ('script_scan', 'perf script / scan >= 30'),
    ('flat_scan', 'flat_profile / samples scan <= 1.5'),
    ('incl_scan', 'inclusive_profile / callchains scan <= 1.5'),
    ('report_flat', 'report --no-children / flat >= 10'),
    ('report_incl', 'report --children / inclusive >= 10'),
    ('rss_flat', 'RSS report / flat >= 10'),
    ('rss_incl', 'RSS report --children / inclusive >= 10'),
    ('fg_incl', 'flamegraph / inclusive <= 2'),
    ('folded_incl', 'folded_stacks / inclusive <= 2'),
    ('script_fg', 'perf script / flamegraph >= 1'),
    ('script_folded', 'perf script / folded_stacks >= 1'),
    ('pprof_rss', 'RSS pprof / inclusive <= 2'),
    ('adhoc_flat', 'report / GROUP BY dso, sym >= 1'),
    ('adhoc_incl', 'report --children / GROUP BY DISTINCT, join >= 1'),
    ('join', 'JOIN / callchains scan <= 2'),
]
INFO_COLUMNS = [
    ('report', 'perf report --no-children'),
    ('children', 'perf report --children'),
    ('hotspot', 'hotspot-perfparser'),
    ('unsym', 'unsymbolized: perf report / perfvtab'),
]


def measure(cmd, repeat, stdout=subprocess.DEVNULL, env=None, timeout=None):
    """Best wall seconds and peak RSS (MB) of cmd over repeat runs.

    The RSS comes from GNU time, not from this process's wait4: a child
    forked from Python starts with Python's pages counted in its peak."""
    best, rss = None, 0.0
    for _ in range(repeat):
        with tempfile.NamedTemporaryFile('r') as peak:
            start = time.perf_counter()
            proc = subprocess.run(['/usr/bin/time', '-q', '-f', '%M', '-o', peak.name] + cmd,
                                  stdout=stdout, stderr=subprocess.DEVNULL, env=env,
                                  timeout=timeout)
            wall = time.perf_counter() - start
            if proc.returncode != 0:
                raise RuntimeError('failed: %s' % ' '.join(cmd))
            kb = int(peak.read().split()[-1])
        best = wall if best is None else min(best, wall)
        rss = max(rss, kb / 1024.0)
    return best, rss


def measure_capped(cmd, repeat, limit):
    """As measure, but a run over limit seconds is stopped: (None, 0)."""
    try:
        return measure(cmd, repeat, timeout=limit)
    except subprocess.TimeoutExpired:
        return None, 0.0


FRESH_QUERY = r"""
import sqlite3, sys
def rchar():
    with open('/proc/self/io') as f:
        return int(f.read().split('rchar:')[1].split()[0])
db = sqlite3.connect(':memory:')
db.enable_load_extension(True)
db.load_extension(sys.argv[1])
before = rchar()
db.execute(sys.argv[3].replace('@file', '?'), (sys.argv[2],)).fetchall()
print(rchar() - before)
"""


def fresh_process_read(path, query):
    """Bytes (rchar) a new process reads for its first query: the
    extension loaded, then query run in a new connection."""
    out = subprocess.run(['/usr/bin/python3', '-c', FRESH_QUERY, EXT, path, query],
                         capture_output=True, text=True, check=True)
    return int(out.stdout.strip())


def sql_cmd(path, query, params=None):
    """The sqlite3 shell with the extension, @file (and params: name ->
    text) bound, running query."""
    bound = dict(params or {}, file=path)
    cmd = ['sqlite3', ':memory:', '-cmd', '.load ' + EXT[:-3]]
    for name, value in bound.items():
        cmd += ['-cmd', ".param set @%s '%s'" % (name, value.replace("'", "''"))]
    return cmd + [query]


def sql_file(name):
    """A query file of sql/ as the shell's .read command, or None."""
    path = os.path.join(SQL_DIR, name)
    if not os.path.exists(path):
        return None
    return '.read ' + path


def report(name, ratio, target, better, note='', key=None, ok=None):
    """better: 'low' when a smaller ratio is better, 'high' otherwise.
    key: the summary table's column; ok: the verdict, where the target has
    another way to be met (adhoc_report)."""
    if ok is None:
        ok = ratio <= target if better == 'low' else ratio >= target
    sign = '<=' if better == 'low' else '>='
    results.append(ok)
    if key and SUMMARY:
        SUMMARY[-1]['cells'][key] = '%.2f %s' % (ratio, 'PASS' if ok else 'MISS')
    print('%-72s %8.2f   target %s %-6g %s %s' % (name, ratio, sign, target,
                                                  'PASS' if ok else 'MISS', note))
    sys.stdout.flush()


def line(text):
    print(text)
    sys.stdout.flush()


def rows_out_seconds(f, name, r):
    """SQLite's own time for a ready query's rows: its last SELECT (round(),
    the shell's text) run over a temp copy of perf_profile's rows in the
    query's order, less the time to make the copy.  perf_profile's pass is
    the rest of the query's time: the part perfvtab controls."""
    with open(os.path.join(SQL_DIR, name)) as q:
        text = '\n'.join(l for l in q.read().splitlines() if not l.lstrip().startswith('--'))
    body, order = text.rstrip().rstrip(';').split(';')[-1].split('ORDER BY')
    # the order's result names (dso_path AS the column dso) as the columns
    for column, alias in re.findall(r'\b(\w+) AS (\w+)', body):
        order = re.sub(r'(?<![.\w])%s\b' % alias, 'perf_profile.' + column, order)
    copy = ('CREATE TEMP TABLE p AS SELECT perf_profile.* FROM perf_profile(@file) ORDER BY %s;'
            % order.strip())
    rows = body.replace('perf_profile(@file)', 'p') + ';'
    both, _ = measure(sql_cmd(f, copy + rows), r)
    made, _ = measure(sql_cmd(f, copy), r)
    return max(both - made, 0.0)


def rchar():
    with open('/proc/self/io') as f:
        for row in f:
            if row.startswith('rchar:'):
                return int(row.split()[1])
    return 0


def connect():
    db = sqlite3.connect(':memory:')
    db.enable_load_extension(True)
    db.load_extension(EXT)
    return db


def tables():
    db = connect()
    names = [r[0] for r in db.execute(
        "SELECT name FROM pragma_module_list WHERE name LIKE 'perf\\_%' ESCAPE '\\' ORDER BY name")]
    db.close()
    return names


def first_row_ms(path, table, repeat=5):
    """Best time to the first row (all columns) on a fresh connection, and
    whether there was one."""
    best, found = None, False
    for _ in range(repeat):
        db = connect()
        start = time.perf_counter()
        found = bool(db.execute('SELECT * FROM %s(?) LIMIT 1' % table, (path,)).fetchall())
        ms = (time.perf_counter() - start) * 1000
        db.close()
        best = ms if best is None else min(best, ms)
    return best, found


# Tables whose rows are totals or findings over the whole file: their first row is the
# end of a full pass by nature.
AGGREGATES = {'perf_profile', 'perf_diagnostics', 'perf_folded_stacks'}


def slowest_first_row(path, repeat=5):
    """(ms, table) of the table slowest to give its first row.  A table
    with no rows in the file is left out (saying so takes a whole scan), and
    so are the aggregate tables."""
    timed, empty = [], []
    for t in tables():
        if t in AGGREGATES:
            continue
        ms, found = first_row_ms(path, t, repeat)
        (timed if found else empty).append((ms, t))
    if empty:
        line('    (no rows in %s: %s)' % (', '.join(t for _, t in empty),
                                       ', '.join('%.0f ms' % ms for ms, _ in empty)))
    return max(timed)


def dwarf_part(f, repeat):
    """perf_callchains on a --call-graph dwarf recording: the first query (a
    new process, as perf script is) against perf script, and a second query
    in the same connection against the first (both in this process)."""
    db = connect()
    samples, rows = db.execute(
        "SELECT count(DISTINCT sample), count(*) FROM perf_callchains(?)", (f,)).fetchone()
    db.close()
    line('DWARF: %s, %.1f MB, %d samples, %d perf_callchains rows'
         % (f, os.path.getsize(f) / 1e6, samples, rows))
    query = 'SELECT count(*) FROM perf_callchains(@file)'
    first, first_rss = measure(sql_cmd(f, query), repeat)
    script, script_rss = measure(['perf', 'script', '-i', f], repeat)
    report('DWARF perf_callchains first query / perf script (time)', first / script, 1, 'low',
           '(%.2f s, %.0f MB; perf script %.2f s, %.0f MB)' % (first, first_rss, script, script_rss))
    # one connection: the first query opens debug info and unwinds, the
    # second finds both in the connection's caches
    again = query.replace('@file', '?')
    best_first = best_second = None
    for _ in range(repeat):
        db = connect()
        start = time.perf_counter()
        db.execute(again, (f,)).fetchall()
        one = time.perf_counter() - start
        start = time.perf_counter()
        db.execute(again, (f,)).fetchall()
        two = time.perf_counter() - start
        db.close()
        best_first = one if best_first is None else min(best_first, one)
        best_second = two if best_second is None else min(best_second, two)
    report('DWARF perf_callchains second query / first, one connection', best_second / best_first,
           0.33, 'low', '(%.0f ms, first %.0f ms)' % (best_second * 1000, best_first * 1000))
    # a join: the samples' side materialized, each table scanned once
    join = ('WITH s AS MATERIALIZED (SELECT record, comm, sym FROM perf_samples(?1)) '
            'SELECT count(*) FROM perf_callchains(?1) c JOIN s ON s.record = c.sample')
    best_join = None
    for _ in range(repeat):
        db = connect()
        start = time.perf_counter()
        db.execute(join, (f,)).fetchall()
        best_join = min(best_join or 1e9, time.perf_counter() - start)
        db.close()
    line('    (perf_samples joined with perf_callchains, new connection: %.2fx the first query)'
         % (best_join / best_first))


def load_note():
    return 'load %.1f %.1f %.1f' % os.getloadavg()


def instructions(cmd):
    """User-space instructions of cmd (perf stat): a count the machine's load
    does not move, unlike the wall time.  None where perf stat fails."""
    proc = subprocess.run(['perf', 'stat', '-x,', '-e', 'instructions:u', '--'] + cmd,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    for row in proc.stderr.splitlines():
        fields = row.split(',')
        if len(fields) > 2 and fields[2].startswith('instructions') and fields[0].isdigit():
            return int(fields[0])
    return None


def scan_part(f, tag, samples, r):
    """1. The plain scan against the floor (SQLite's own cost for as many
    rows: generate_series) plus one bare C walk (issue 27 item 6), and
    against perf script."""
    walk_cmd = [os.path.join(BUILD, 'bench', 'raw_walk'), f]
    scan_cmd = sql_cmd(f, 'SELECT count(*), sum(period) FROM perf_samples(@file)')
    floor_cmd = sql_cmd(f, 'SELECT count(*), sum(value) FROM generate_series(1, %d)' % samples)
    raw, _ = measure(walk_cmd, r)
    scan, scan_rss = measure(scan_cmd, r)
    floor, _ = measure(floor_cmd, r)
    script, script_rss = measure(['perf', 'script', '-i', f, '-F', 'tid,time,ip,period'], r)
    line('    floor (generate_series over %d rows) %.3f s, bare C walk %.3f s, scan %.3f s (%.0f MB)'
         % (samples, floor, raw, scan, scan_rss))
    counts = [instructions(c) for c in (floor_cmd, walk_cmd, scan_cmd)]
    if None not in counts:
        line('    instructions:u, which load does not move: floor %.0f M, walk %.0f M, scan %.0f M:'
             ' scan / (floor + walk) %.2f' % (counts[0] / 1e6, counts[1] / 1e6, counts[2] / 1e6,
                                              counts[2] / (counts[0] + counts[1])))
    else:
        line('    (instructions:u: perf stat cannot count them on this machine, so only wall times)')
    report(tag + 'scan time / (floor + bare C walk)', scan / (floor + raw), 1, 'low',
           '(scan %.2fx the walk)' % (scan / raw), key='scan_floor')
    report(tag + 'perf script -F tid,time,ip,period time / SQL scan', script / scan, 30, 'high',
           '(perf script %.2f s, %.0f MB)' % (script, script_rss), key='script_scan')
    return scan, scan_rss


def scan_only_part(f, label, r):
    """--only scan: the scan part alone, on one recording."""
    db = connect()
    samples = db.execute("SELECT count(*) FROM perf_samples(?)", (f,)).fetchone()[0]
    db.close()
    line('')
    line('== %s: %s, %.0f MB, %d samples (%s)'
         % (label, f, os.path.getsize(f) / 1e6, samples, load_note()))
    scan_part(f, '[%s] ' % label, samples, r)
    line('    (%s)' % load_note())


HEX_SYMBOL = re.compile(r'^\s*(\d+)\s+\[.\]\s+(0x[0-9a-f]+|\[unknown\])\s*$')
SAMPLE_ROW = re.compile(r'^\s*(\d+)\s+\[.\]\s')


def unsymbolized(f):
    """Samples left without a symbol: (perf report's, perfvtab's, total).
    perf report's are its rows whose symbol is an address."""
    out = subprocess.run(['perf', 'report', '-i', f, '--no-children', '--sort', 'sym', '-F', 'sample,sym',
                          '-g', 'none', '--percent-limit', '0', '--stdio'],
                         capture_output=True, text=True).stdout
    perf_unknown = sum(int(m.group(1)) for m in map(HEX_SYMBOL.match, out.splitlines()) if m)
    perf_total = sum(int(m.group(1)) for m in map(SAMPLE_ROW.match, out.splitlines()) if m)
    db = connect()
    ours, total = db.execute('SELECT count(*) FILTER (WHERE sym IS NULL), count(*) FROM perf_samples(?)',
                             (f,)).fetchone()
    db.close()
    return perf_unknown, perf_total, ours, total


def sqlite_own(f, tables, query, r, limit):
    """SQLite's own time for the same rows: tables (name -> SELECT over the
    file) copied into a database file first, untimed, then query timed over
    them in the sqlite3 shell.  'unmeasured' when the copy or the query failed
or took too long."""
    tmp = tempfile.mkdtemp()
    try:
        rows_db = os.path.join(tmp, 'rows.db')
        setup = ';'.join('CREATE TABLE %s AS %s' % (name, select) for name, select in tables.items())
        subprocess.run(['sqlite3', rows_db, '-cmd', '.load ' + EXT[:-3],
                        '-cmd', ".param set @file '%s'" % f.replace("'", "''"), setup],
                       check=True, stdout=subprocess.DEVNULL, timeout=limit)
        return measure(['sqlite3', rows_db, query], r, timeout=limit)[0]
    except (subprocess.TimeoutExpired, subprocess.CalledProcessError, RuntimeError):
        return 'unmeasured'
    finally:
        shutil.rmtree(tmp)


def adhoc_report(name, ours, theirs, own, key):
    """The ad-hoc SQL target: >= 1x perf report, or, where SQLite alone is
    slower than perf report on the same rows, within 1.2x of SQLite alone.
    own: SQLite's time alone, 'unmeasured' when it could not be had, None
    when not needed."""
    if own is None or own == 'unmeasured':
        report(name, theirs / ours, 1, 'high',
               '(SQLite alone on the same rows: not measured, over the time limit)' if own else '', key=key)
        return
    within = ours <= 1.2 * own
    report(name, theirs / ours, 1, 'high',
           '(SQLite alone on the same rows %.2f s: ours %.2fx that%s)'
           % (own, ours / own, ', within 1.2x: met' if within else ''),
           key=key, ok=(theirs / ours >= 1 or within))
    if within and theirs / ours < 1:
        SUMMARY[-1]['cells'][key] += ' (within 1.2x of SQLite alone)'


def peers_part(f, tag, args, report_flat):
    """hotspot-perfparser, the parser behind hotspot's GUI, beside perf report."""
    if not os.path.exists(HOTSPOT_PERFPARSER):
        line('    hotspot-perfparser: skipped, %s is absent (scripts/install-deps.sh --bench installs'
             ' Debian\'s hotspot)' % HOTSPOT_PERFPARSER)
        SUMMARY[-1]['info']['hotspot'] = 'skipped'
        return
    limit = args.hotspot_limit
    cmd = [HOTSPOT_PERFPARSER, '--input', f, '--output', '/dev/null']
    try:
        took, rss = measure(cmd, 1, timeout=limit)
    except subprocess.TimeoutExpired:
        line('    hotspot-perfparser --input F --output /dev/null: stopped after %d s'
             ' (perf report --no-children %.2f s)' % (limit, report_flat))
        SUMMARY[-1]['info']['hotspot'] = '> %d s' % limit
        return
    except RuntimeError as e:
        line('    hotspot-perfparser: %s' % e)
        SUMMARY[-1]['info']['hotspot'] = 'failed'
        return
    line('    hotspot-perfparser --input F --output /dev/null: %.1f s, %.0f MB (perf report --no-children'
         ' %.2f s: hotspot-perfparser %.1fx that)' % (took, rss, report_flat, took / report_flat))
    SUMMARY[-1]['info']['hotspot'] = '%.1f s, %.0f MB' % (took, rss)


def workload_part(f, label, args, r, unseen=False):
    """Every ratio on one recording: scans, flat and inclusive profiles
    (ready queries and the ad-hoc SQL users write first), flame graphs,
    folded stacks, pprof, peers, time windows, joins, first rows, zstd, and
    memory as the file grows."""
    size_mb = os.path.getsize(f) / 1e6
    db = connect()
    samples, frames, pids = db.execute(
        "SELECT count(*), total(json_array_length(callchain)), count(DISTINCT pid)"
        " FROM perf_samples(?)", (f,)).fetchone()
    line('')
    if unseen:
        line('== NEVER TUNED AGAINST: nobody profiles perfvtab on this file; its targets are the same')
    line('== %s: %s, %.0f MB, %d samples, %d callchain entries, %d processes (%s)'
         % (label, f, size_mb, samples, frames, pids, load_note()))
    line('%-72s %8s' % ('measure', 'ratio'))
    SUMMARY.append({'label': label + (' (never tuned against)' if unseen else ''), 'cells': {}, 'info': {}})
    tag = '[%s] ' % label
    limit = args.hotspot_limit

    perf_unknown, perf_total, ours_unknown, total = unsymbolized(f)
    line('    unsymbolized samples (same HOME, same build-id cache): perf report %d of %d (%.1f%%),'
         ' perfvtab %d of %d (%.1f%%)' % (perf_unknown, perf_total, 100.0 * perf_unknown / max(perf_total, 1),
                                         ours_unknown, total, 100.0 * ours_unknown / max(total, 1)))
    SUMMARY[-1]['info']['unsym'] = '%.1f%% / %.1f%%' % (100.0 * perf_unknown / max(perf_total, 1),
                                                       100.0 * ours_unknown / max(total, 1))

    scan, scan_rss = scan_part(f, tag, samples, r)
    chains_scan, chains_rss = measure(sql_cmd(f, 'SELECT count(*), total(ip) FROM perf_callchains(@file)'), r)
    line('    perf_callchains scan %.2f s, %.0f MB' % (chains_scan, chains_rss))

    # 2. Flat profile: sql/flat_profile.sql and plain GROUP BY
    flat_sql = sql_file('flat_profile.sql')
    flat_rss = None
    report_flat, report_flat_rss = measure(
        ['perf', 'report', '-i', f, '--no-children', '--sort', 'dso,sym', '--stdio'], r)
    line('    perf report --no-children: %.2f s, %.0f MB' % (report_flat, report_flat_rss))
    SUMMARY[-1]['info']['report'] = '%.2f s, %.0f MB' % (report_flat, report_flat_rss)
    if flat_sql:
        flat, flat_rss = measure(sql_cmd(f, flat_sql), r)
        report(tag + 'sql/flat_profile.sql / perf_samples scan (time)', flat / scan, 1.5, 'low',
               '(%.2f s, %.0f MB)' % (flat, flat_rss), key='flat_scan')
        out = rows_out_seconds(f, 'flat_profile.sql', r)
        line('    of which SQLite\'s own work on the rows (round(), text out): %.2f s;'
             ' the rest / the scan: %.2f' % (out, (flat - out) / scan))
        report(tag + 'perf report --no-children / sql/flat_profile.sql (time)', report_flat / flat, 10, 'high',
               key='report_flat')
        report(tag + 'perf report --no-children / sql/flat_profile.sql (peak RSS)',
               report_flat_rss / flat_rss, 10, 'high', key='rss_flat')
        plain_flat = 'SELECT dso, sym, sum(period) FROM perf_samples(@file) GROUP BY dso, sym'
        grouped, grouped_rss = measure(sql_cmd(f, plain_flat), r)
        own = None
        if report_flat / grouped < 1:
            own = sqlite_own(f, {'s': 'SELECT dso, sym, period FROM perf_samples(@file)'},
                             'SELECT dso, sym, sum(period) FROM s GROUP BY dso, sym', r, limit)
        adhoc_report(tag + 'perf report --no-children / plain GROUP BY dso, sym', grouped, report_flat, own,
                     'adhoc_flat')
    else:
        line('    flat profile: sql/flat_profile.sql not found')

    # 3. Inclusive profile: sql/inclusive_profile.sql, perf_sum_by and plain GROUP BY
    incl_sql = sql_file('inclusive_profile.sql')
    children, children_rss = measure(
        ['perf', 'report', '-i', f, '--children', '--sort', 'sym', '--stdio'], r)
    line('    perf report --children: %.2f s, %.0f MB' % (children, children_rss))
    SUMMARY[-1]['info']['children'] = '%.2f s, %.0f MB' % (children, children_rss)
    incl = incl_rss = None
    if incl_sql:
        incl, incl_rss = measure(sql_cmd(f, incl_sql), r)
        report(tag + 'sql/inclusive_profile.sql / perf_callchains scan (time)', incl / chains_scan, 1.5, 'low',
               '(%.2f s, %.0f MB)' % (incl, incl_rss), key='incl_scan')
        out = rows_out_seconds(f, 'inclusive_profile.sql', r)
        line('    of which SQLite\'s own work on the rows (round(), text out): %.2f s;'
             ' the rest / the scan: %.2f' % (out, (incl - out) / chains_scan))
        report(tag + 'perf report --children / sql/inclusive_profile.sql (time)', children / incl, 10,
               'high', key='report_incl')
        report(tag + 'perf report --children / sql/inclusive_profile.sql (peak RSS)',
               children_rss / incl_rss, 10, 'high', key='rss_incl')
        frames_sql = ("SELECT sym, dso, period FROM perf_samples(@file)"
                      " UNION ALL SELECT sym, dso, period FROM perf_callchains(@file) WHERE repeated = 0")
        chains, chains_rss = measure(sql_cmd(
            f, "SELECT g.value->>0, g.value->>2 FROM json_each((SELECT perf_sum_by(sym, dso, period)"
               " FROM (%s))) g" % frames_sql), r)
        # SQL a user writes over the frame tables, held to the bar for
        # ad-hoc SQL (>= 1x, aim 3x); the ready query above is held to 10x
        report(tag + 'perf report --children / perf_callchains, perf_sum_by', children / chains, 1,
               'high', '(%.0f MB; aim 3x)' % chains_rss)
        # the plain SQL: each function once per sample, joined to the samples
        plain = ("SELECT c.sym, sum(s.period) FROM (SELECT DISTINCT sample, sym FROM %s) c"
                 " JOIN %s s ON s.record = c.sample GROUP BY c.sym")
        grouped, grouped_rss = measure(sql_cmd(f, plain % ('perf_callchains(@file)', 'perf_samples(@file)')), r)
        own = None
        if children / grouped < 1:
            own = sqlite_own(f, {'c': 'SELECT sample, sym FROM perf_callchains(@file)',
                                 's': 'SELECT record, period FROM perf_samples(@file)'},
                             plain % ('c', 's'), r, limit)
        adhoc_report(tag + 'perf report --children / plain GROUP BY, DISTINCT sample, sym, join',
                     grouped, children, own, 'adhoc_incl')
    else:
        line('    inclusive profile: sql/inclusive_profile.sql not found')

    # 4. What users look at: flame graph, folded stacks, pprof, against the
    # inclusive profile and a full perf script (callchains, symbols)
    script_full, script_full_rss = measure(['perf', 'script', '-i', f], r)
    line('    perf script (full, with call chains): %.2f s, %.0f MB' % (script_full, script_full_rss))
    tmp = tempfile.mkdtemp()
    try:
        svg = os.path.join(tmp, 'fg.svg')
        outputs = []
        fg_sql, folded_sql = sql_file('flamegraph.sql'), sql_file('folded_stacks.sql')
        if fg_sql:
            outputs.append(('sql/flamegraph.sql', 'fg', sql_cmd(f, fg_sql, {'svg': svg})))
        if folded_sql:
            outputs.append(('sql/folded_stacks.sql', 'folded', sql_cmd(f, folded_sql)))
        for name, key, cmd in outputs:
            try:
                took, rss = measure_capped(cmd, r, 20 * script_full + 30)
            except RuntimeError as e:
                line('    %s: %s' % (name, e))
                continue
            if took is None:
                line('    %s: stopped after %.0f s' % (name, 20 * script_full + 30))
                took = float('inf')
            else:
                line('    %s: %.2f s, %.0f MB' % (name, took, rss))
            if incl:
                report(tag + '%s / sql/inclusive_profile.sql (time)' % name, took / incl, 2, 'low',
                       key=key + '_incl')
            report(tag + 'perf script (full) / %s (time)' % name, script_full / took, 1, 'high',
                   key='script_' + key)
    finally:
        shutil.rmtree(tmp)
    try:
        pprof, pprof_rss = measure(sql_cmd(f, 'SELECT length(perf_pprof(@file))'), r)
    except RuntimeError as e:
        line('    perf_pprof: %s' % e)
        pprof = None
    if incl_rss and pprof is not None:
        report(tag + 'perf_pprof / sql/inclusive_profile.sql (peak RSS)', pprof_rss / incl_rss, 2, 'low',
               '(%.2f s, %.0f MB)' % (pprof, pprof_rss), key='pprof_rss')

    # 5. Peers: hotspot-perfparser
    peers_part(f, tag, args, report_flat)

    if not args.quick:
        exporter = '/usr/lib/perf-core/scripts/python/export-to-sqlite.py'
        has_qtsql = subprocess.run(['/usr/bin/python3', '-c', 'import PySide2.QtSql'],
                                   stderr=subprocess.DEVNULL).returncode == 0
        if os.path.exists(exporter) and not has_qtsql:
            line('    export-to-sqlite.py: skipped, it needs PySide2.QtSql and its SQLite driver (Debian python3-pyside2.qtsql libqt5sql5-sqlite)')
        elif os.path.exists(exporter):
            tmp = tempfile.mkdtemp()
            try:
                export, export_rss = measure(['perf', 'script', '-i', f, '-s', exporter,
                                              os.path.join(tmp, 'export.db')], 1)
                report(tag + 'export-to-sqlite.py (before any query) / SQL scan', export / scan, 30, 'high',
                       '(%.0f MB)' % export_rss)
            except RuntimeError as e:
                line('    export-to-sqlite.py: %s' % e)
            finally:
                shutil.rmtree(tmp)

    # 6. Time windows: the middle 1% of the recording, first query in a fresh
    # process (what one-shot sqlite3 commands pay: it builds the time index,
    # one pass, since no byte is skipped on trust in perf's round rule) and
    # later queries
    tmin, tmax = db.execute('SELECT min(time), max(time) FROM perf_samples(?)', (f,)).fetchone()
    lo = tmin + (tmax - tmin) // 2
    hi = lo + (tmax - tmin) // 100
    window = 'SELECT count(*), sum(period) FROM perf_samples(@file) WHERE time BETWEEN %d AND %d' % (lo, hi)
    first_read = fresh_process_read(f, window)
    plain_read = fresh_process_read(f, 'SELECT count(*), sum(period) FROM perf_samples(@file)')
    report(tag + '1% time range, first query in a fresh process: data read / a plain scan\'s',
           first_read / plain_read, 1.1, 'low')
    q = 'SELECT count(*), sum(period) FROM perf_samples(?) WHERE time BETWEEN ? AND ?'
    fresh = connect()
    fresh.execute(q, (f, lo, hi)).fetchall()
    before = rchar()
    start = time.perf_counter()
    fresh.execute(q, (f, lo, hi)).fetchall()
    again_s = time.perf_counter() - start
    again_read = rchar() - before
    fresh.close()
    report(tag + '1% time range, later queries: % of the file read',
           100.0 * again_read / os.path.getsize(f), 5, 'low', '(%.1f ms)' % (again_s * 1000))

    # 7. Joins between the tables of one file
    join_sql = ('SELECT count(*), total(c.ip), sum(s.period) FROM perf_samples(@file) s'
                ' JOIN perf_callchains(@file) c ON c.sample = s.record')
    join_s, join_rss = measure_capped(sql_cmd(f, join_sql), r, 40 * chains_scan + 5)
    if join_s is None:
        report(tag + 'perf_samples JOIN perf_callchains / perf_callchains scan', float('inf'), 2, 'low',
               '(stopped after %.0f s)' % (40 * chains_scan + 5), key='join')
    else:
        report(tag + 'perf_samples JOIN perf_callchains / perf_callchains scan', join_s / chains_scan, 2,
               'low', '(%.2f s, %.0f MB)' % (join_s, join_rss), key='join')

    # 8. First row
    ms, table = slowest_first_row(f, 1 if args.quick else 5)
    report(tag + 'first row of the slowest table (ms)', ms, 10, 'low', '(%s)' % table)

    # 9. Compressed: the same records as COMPRESSED containers
    base = os.path.splitext(f)[0]
    compressed = base + '.zst.data'
    if not os.path.exists(compressed) or os.path.getmtime(compressed) < os.path.getmtime(f):
        subprocess.check_call([os.path.join(BUILD, 'tools', 'make_variants'), 'compress', f, compressed])
    zscan, zscan_rss = measure(sql_cmd(compressed, 'SELECT count(*), sum(period) FROM perf_samples(@file)'), r)
    report(tag + 'zstd scan speed / uncompressed scan speed', scan / zscan, 0.5, 'high',
           '(%.0f MB compressed, %.0f MB RSS)' % (os.path.getsize(compressed) / 1e6, zscan_rss))

    # 10. Memory as the file grows: a ~2 GB file of the same records repeated
    if not args.quick and not args.no_inflate:
        big = base + '.inflated.data'
        k = max(2, int(2e9 // os.path.getsize(f)))
        if not os.path.exists(big) or os.path.getmtime(big) < os.path.getmtime(f):
            subprocess.check_call([os.path.join(BUILD, 'tools', 'make_variants'), 'inflate', f, big, str(k)])
        _, big_scan_rss = measure(sql_cmd(big, 'SELECT count(*), sum(period) FROM perf_samples(@file)'), 1)
        report(tag + 'scan peak RSS, %.1f GB file / %.0f MB file' % (os.path.getsize(big) / 1e9, size_mb),
               big_scan_rss / scan_rss, 1.25, 'low', '(%.0f MB)' % big_scan_rss)
        if flat_sql:
            _, big_flat_rss = measure(sql_cmd(big, flat_sql), 1)
            report(tag + 'flat profile peak RSS, 2 GB file / small file', big_flat_rss / flat_rss, 1.25, 'low',
                   '(%.0f MB)' % big_flat_rss)
        ms, table = slowest_first_row(big)
        report(tag + 'first row of the slowest table, 2 GB file (ms)', ms, 10, 'low', '(%s)' % table)
    db.close()
    line('    (%s)' % load_note())


def summary_table():
    """One row per workload, one column per target: markdown for the
    README's speed section."""
    if not SUMMARY:
        return
    heads = [h for _, h in COLUMNS] + [h for _, h in INFO_COLUMNS]
    line('')
    line('Summary (best of %d, %s; ratios, PASS/MISS against the target in each heading):'
         % (SUMMARY_REPEAT[0], load_note()))
    line('')
    line('| workload | ' + ' | '.join(heads) + ' |')
    line('|---|' + '---|' * len(heads))
    for w in SUMMARY:
        cells = [w['cells'].get(k, '-') for k, _ in COLUMNS] + [w['info'].get(k, '-') for k, _ in INFO_COLUMNS]
        line('| %s | %s |' % (w['label'], ' | '.join(cells)))


SUMMARY_REPEAT = [3]


def bench_home():
    """A HOME of the bench's own, empty: perf report, perf script,
    hotspot-perfparser and perfvtab all look for symbols in $HOME/.debug
    (perf's build-id cache), so all see the same (empty) cache."""
    home = tempfile.mkdtemp(prefix='perfvtab-bench-home-')
    os.environ['HOME'] = home
    os.environ.pop('PERF_BUILDID_DIR', None)
    return home


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('files', nargs='*', help='frame-pointer system-wide recordings, one part each')
    ap.add_argument('--repeat', type=int, default=3)
    ap.add_argument('--quick', action='store_true',
                    help='every workload and every target once (--repeat 1); skip export-to-sqlite.py'
                    ' and the 2 GB files; hotspot-perfparser stopped after 90 s')
    ap.add_argument('--unseen', help='a recording never tuned against (bench/run.sh: mixed.data),'
                    ' measured like FILE, reported in a section of its own')
    ap.add_argument('--hotspot-limit', type=int, help='seconds after which hotspot-perfparser is'
                    ' stopped (default 300, --quick 90)')
    ap.add_argument('--no-inflate', action='store_true', help='skip the 2 GB files')
    ap.add_argument('--dwarf', help='a --call-graph dwarf recording for the DWARF part')
    ap.add_argument('--only', choices=['dwarf', 'scan'],
                    help='run only this part (scan: the plain scan of each FILE)')
    ap.add_argument('--build', help='the build folder to measure (default: build/), '
                    'so that two builds can be compared')
    args = ap.parse_args()
    if args.build:
        global BUILD, EXT
        BUILD = os.path.abspath(args.build)
        EXT = os.path.join(BUILD, 'perfvtab.so')
    r = 1 if args.quick else args.repeat
    SUMMARY_REPEAT[0] = r
    if args.hotspot_limit is None:
        args.hotspot_limit = 90 if args.quick else 300
    home = bench_home()
    try:
        line('perfvtab bench, best of %d runs per command (%s)' % (r, load_note()))
        line('symbol sources: HOME=%s, an empty build-id cache, for perf, hotspot-perfparser and perfvtab alike'
             % home)
        if args.only != 'dwarf':
            if not args.files and not args.unseen:
                ap.error('FILE is needed')
            for f, unseen in [(f, False) for f in args.files] + ([(args.unseen, True)] if args.unseen else []):
                f = os.path.abspath(f)
                label = os.path.splitext(os.path.basename(f))[0]
                if args.only == 'scan':
                    scan_only_part(f, label, r)
                else:
                    workload_part(f, label, args, r, unseen)
        if args.dwarf:
            dwarf_part(os.path.abspath(args.dwarf), r)
        elif args.only == 'dwarf':
            ap.error('--only dwarf needs --dwarf DWARF_FILE')
        line('%d of %d targets met (%s)' % (sum(results), len(results), load_note()))
        summary_table()
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == '__main__':
    main()
