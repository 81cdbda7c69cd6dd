#!/usr/bin/python3
"""Query a perf.data file from Python through perfvtab.

    /usr/bin/python3 examples/query.py [PERF.DATA] [EXTENSION]

PERF.DATA defaults to tests/fixtures/example.data, EXTENSION to
build/perfvtab (both relative to the repository root); after `make install`
the extension loads by its bare name, "perfvtab".

It needs a Python whose sqlite3 module can load extensions: Debian's
/usr/bin/python3 can; builds made by pyenv (and some others) are compiled
without it, and this script says so.
"""
import os
import sqlite3
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    data = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "tests/fixtures/example.data")
    ext = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "build/perfvtab")

    conn = sqlite3.connect(":memory:")
    if not hasattr(conn, "enable_load_extension"):
        sys.exit(f"query.py: {sys.executable} has a sqlite3 module built without extension "
                 "loading (enable_load_extension is missing; pyenv builds often are). "
                 "Use Debian's /usr/bin/python3, or rebuild Python with "
                 "PYTHON_CONFIGURE_OPTS=--enable-loadable-sqlite-extensions.")
    conn.enable_load_extension(True)
    try:
        conn.load_extension(ext)
    except sqlite3.OperationalError as e:
        sys.exit(f"query.py: cannot load {ext}: {e} (run make first)")
    conn.enable_load_extension(False)  # only this extension, nothing from SQL

    # The path is a bound parameter: no quoting of file names in SQL text.
    total, = conn.execute("SELECT count(*) FROM perf_samples(?)", (data,)).fetchone()
    # the default path as seen from where the script runs (the README's output)
    shown = data if len(sys.argv) > 1 else os.path.relpath(data)
    print(f"{shown}: {total} samples")
    print(f"{'pid':>7} {'comm':<16} {'samples':>8}")
    rows = conn.execute("""
        SELECT s.pid,
               coalesce((SELECT comm FROM perf_comms(:f) AS c WHERE c.pid = s.pid
                         ORDER BY c.record DESC LIMIT 1),
                        s.comm) AS comm,   -- a forked child's: inherited, as in perf
               count(*) AS samples, max(s.record)
        FROM perf_samples(:f) AS s
        GROUP BY s.pid
        ORDER BY samples DESC, s.pid
        LIMIT 10""", {"f": data})
    for pid, comm, samples, _ in rows:
        print(f"{pid:>7} {comm or ':' + str(pid):<16} {samples:>8}")

    # A bad file is an ordinary SQL error that names the file.
    try:
        conn.execute("SELECT count(*) FROM perf_samples(?)", ("/nonexistent/perf.data",)).fetchone()
    except sqlite3.Error as e:
        print(f"error, as expected: {e}")


if __name__ == "__main__":
    main()
