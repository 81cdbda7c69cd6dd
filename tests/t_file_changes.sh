#!/usr/bin/env bash
# plain-only (Python loads build/perfvtab.so, which the sanitizer flavour
# does not build)
# The file changing under a query, seen from SQL in one connection:
#  - replaced between queries (another recording copied over it, or an
#    atomic rename): the next query reads the new file, not cached state;
#  - truncated while a query is half-way through it: an SQL error naming
#    the file and an offset, and the process lives on (no SIGBUS: the reader
#    uses pread, not mmap);
#  - truncated between queries: an error at the next query, not stale rows;
#  - rewritten in place during a query (same size and layout, every
#    sample's period changed), or another recording copied over it: the
#    rows before the error all come from the file as it was, and the first
#    read after the change is an error saying so;
#  - another recording renamed over it during a query: the open file is
#    read to its end, as it was (rows wholly from one version);
#  - the binary and the debug file a DWARF query reads (unwinding, inline
#    names, source lines) truncated, or replaced by another file, between
#    two rows: rows or an error, and the process lives on (libelf and libdw
#    map files, and a mapped file that shrinks is a SIGBUS: they are given
#    sealed snapshots, src/unwind/elf_snapshot.c).
set -u
cd "$PV_ROOT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
big=tests/corpus/perf_data_converter/src/testdata/single-event-multi-process.perf.data
"$PV_ROOT/build/tools/make_variants" inflate tests/fixtures/example.data "$tmp/inflated.data" 60 ||
    echo "not ok - make_variants inflate failed"
/usr/bin/python3 - "$PV_ROOT/build/perfvtab.so" "$tmp" "$big" "$tmp/inflated.data" <<'PY'
import os, shutil, sqlite3, struct, sys
ext, tmp, big, inflated = sys.argv[1:5]
def check(ok, what, why=''):
    print(('ok - %s' % what) if ok else ('not ok - %s: %s' % (what, why)))
db = sqlite3.connect(':memory:')
db.enable_load_extension(True)
db.load_extension(ext)
count = lambda p: db.execute('SELECT count(*), total(time) FROM perf_samples(?)', (p,)).fetchone()
f = os.path.join(tmp, 'live.data')
shutil.copy('tests/fixtures/fp.data', f)
fp = count(f)
shutil.copy('tests/fixtures/multi.data', f)   # same inode, new contents
multi = count('tests/fixtures/multi.data')
check(count(f) == multi and fp != multi, 'a file overwritten between queries is read anew',
      '%s then %s' % (fp, count(f)))
other = os.path.join(tmp, 'other.data')
shutil.copy('tests/fixtures/example.data', other)
os.rename(other, f)                           # a new inode under the same name
check(count(f) == count('tests/fixtures/example.data'), 'a file renamed over between queries is read anew')

shutil.copy(big, f)
# file order: this file has no FINISHED_ROUND, so its time order reads it
# whole (up to 32 MiB) before the first row
cur = db.execute('SELECT record, time FROM perf_samples(?) ORDER BY record', (f,))
first = cur.fetchmany(10)
os.truncate(f, os.path.getsize(f) // 3)
try:
    rest = cur.fetchall()
    check(False, 'a file truncated during a query gives an error', 'got %d more rows' % len(rest))
except sqlite3.Error as e:
    msg = str(e)
    check(f in msg and 'offset 0x' in msg, 'a file truncated during a query gives an error naming the file and offset', msg)
try:
    db.execute('SELECT count(*) FROM perf_samples(?)', (f,)).fetchone()
    check(False, 'the truncated file is an error at the next query too', 'no error')
except sqlite3.Error as e:
    check(f in str(e) and 'offset 0x' in str(e), 'the truncated file is an error at the next query too', str(e))
check(len(first) == 10, 'the process survived the truncation')

# Changed during a query, over several 256 KiB windows of reading
v1 = open(inflated, 'rb').read()
# v2: the same layout, each sample's period (at offset 32 of an
# IP|TID|TIME|CALLCHAIN|PERIOD sample) one more
v2 = bytearray(v1)
for (off,) in db.execute("SELECT file_offset FROM perf_records(?) WHERE name = 'SAMPLE'", (inflated,)):
    period = struct.unpack_from('<Q', v2, off + 32)[0]
    struct.pack_into('<Q', v2, off + 32, period + 1)
clean = db.execute('SELECT record, period FROM perf_samples(?) ORDER BY record', (inflated,)).fetchall()

def during(label, change):
    f = os.path.join(tmp, 'changing.data')
    open(f, 'wb').write(v1)
    cur = db.execute('SELECT record, period FROM perf_samples(?) ORDER BY record', (f,))
    rows = cur.fetchmany(100)
    change(f)
    error = None
    try:
        rows += cur.fetchall()
    except sqlite3.Error as e:
        error = str(e)
    return rows, error

def rewrite(f):
    with open(f, 'r+b') as out:
        out.write(v2)
rows, error = during('rewritten', rewrite)
check(error is not None and 'changed while it was being read' in error and rows == clean[:len(rows)]
      and len(rows) < len(clean),
      'a file rewritten in place during a query: %d rows as it was, then an error saying it changed'
      % len(rows), 'rows %d of %d, equal to the first ones: %s; error %s'
      % (len(rows), len(clean), rows == clean[:len(rows)], error))
rows, error = during('copied over', lambda f: shutil.copy('tests/fixtures/multi.data', f))
check(error is not None and rows == clean[:len(rows)],
      'another recording copied over it during a query: %d rows as it was, then an error' % len(rows),
      'rows equal to the first ones: %s; error %s' % (rows == clean[:len(rows)], error))
def rename_over(f):
    other = os.path.join(tmp, 'other2.data')
    shutil.copy('tests/fixtures/multi.data', other)
    os.rename(other, f)
rows, error = during('renamed over', rename_over)
check(error is None and rows == clean,
      'another recording renamed over it during a query: the open file read to its end as it was '
      '(%d rows)' % len(rows), 'error %s, rows equal: %s' % (error, rows == clean))

# The binary of dwarf.data (with its debug info) in a symbol dir of our own
symdir = os.path.join(tmp, 'symbols')
shutil.copytree('tests/fixtures/symbols', symdir)
binary = os.path.join(symdir, '.build-id', 'c1', '599b38f1a85b0d75483b70cc6f7c358d642838')
pristine = open(binary, 'rb').read()
dwarf_query = 'SELECT sample, depth, ip, sym, srcline, inlined FROM perf_callchains(?)'
def fresh_db():
    d = sqlite3.connect(':memory:')
    d.enable_load_extension(True)
    d.load_extension(ext)
    d.execute('SELECT perf_symbol_path(NULL, ?)', (symdir,)).fetchone()
    return d
clean_frames = fresh_db().execute(dwarf_query, ('tests/fixtures/dwarf.data',)).fetchall()
for label, change in (('truncated to 4 KiB', lambda: os.truncate(binary, 4096)),
                      ('truncated to nothing', lambda: os.truncate(binary, 0)),
                      ('replaced by another file', lambda: shutil.copy('tests/fixtures/example.data', binary))):
    open(binary, 'wb').write(pristine)
    d = fresh_db()
    cur = d.execute(dwarf_query, ('tests/fixtures/dwarf.data',))
    rows = cur.fetchmany(40)
    change()
    error = None
    try:
        rows += cur.fetchall()
    except sqlite3.Error as e:
        error = str(e)
    check(rows[:40] == clean_frames[:40] and len(rows) <= len(clean_frames),
          'the binary a DWARF query reads %s between two rows: the process lives on, %d rows%s'
          % (label, len(rows), ', then an error' if error else ''),
          'first rows equal: %s, %d rows of %d, error %s' % (rows[:40] == clean_frames[:40], len(rows), len(clean_frames), error))
    d.close()
open(binary, 'wb').write(pristine)
PY
