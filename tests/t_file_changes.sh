#!/usr/bin/env bash
# plain-only (Python loads build/perfvtab.so, which the sanitizer flavour
# does not build)
# The file changing under a query, seen from SQL in one connection:
#  - replaced between queries (another recording copied over it, or an
#    atomic rename): the next query reads the new file, not cached state;
#  - truncated while a query is half-way through it: an SQL error naming
#    the file and an offset, and the process lives on (no SIGBUS: the reader
#    uses pread, not mmap);
#  - truncated between queries: an error at the next query, not stale rows.
set -u
cd "$PV_ROOT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
big=tests/corpus/perf_data_converter/src/testdata/single-event-multi-process.perf.data
/usr/bin/python3 - "$PV_ROOT/build/perfvtab.so" "$tmp" "$big" <<'PY'
import os, shutil, sqlite3, sys
ext, tmp, big = sys.argv[1:4]
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
PY
