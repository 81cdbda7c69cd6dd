#!/usr/bin/env python3
"""A database file whose schema calls every function and table of the
extension, and a victim that opens it and writes to it.

    hostile_schema.py make DIR CANARY SYMDIR EXTENSION
    hostile_schema.py victim DIR PROBE EXTENSION

make: as an attacker with the extension loaded, writes into DIR one
database file per hostile object (so that a schema SQLite cannot load hides
no other object): views and
triggers over every table and function; CHECK constraints, DEFAULTs,
generated columns (virtual and stored), expression and partial indexes
calling every scalar function; tables kept in the file with a path.  Every
path named is CANARY; perf_symbol_path names SYMDIR.  What SQLite refuses to
create (a non-deterministic function in a generated column or an index, a
table with a path outside temp) is written into sqlite_schema with
writable_schema, as an attacker would.
victim: loads the extension, opens each database of DIR, reads every table
and view and
writes every table (each statement may fail), then prints one line per
check: its symbol setting is unchanged (PROBE's workload samples are not
named from SYMDIR, on this connection nor on another one).  Whether a file
was read is seen from outside (tests/t_hostile_schema.sh runs this under
strace).
"""
import glob
import sqlite3
import sys

TABLES = ["perf_samples", "perf_mmaps", "perf_comms", "perf_records", "perf_events",
          "perf_features", "perf_build_ids", "perf_tasks", "perf_lost", "perf_switches",
          "perf_stats", "perf_callchains", "perf_profile", "perf_diagnostics", "perf_offcpu",
          "perf_folded_stacks"]


def scalar_calls(canary, symdir):
    """Every scalar function of the extension, as expressions."""
    q = lambda s: "'" + s.replace("'", "''") + "'"
    return [
        "perf_symbol_path(NULL, %s)" % q(symdir),
        "perf_symbol_path(%s)" % q(symdir),
        "perf_pprof(%s)" % q(canary),
        "perf_pprof(%s, 'cpu-clock')" % q(canary),
        "perf_cache_stats()",
        "perf_frame_name('f', 'd', 1)",
    ]


def aggregate_calls():
    return ["perf_folded('f', 0)", "perf_flamegraph('a;b', 1)", "perf_flamegraph_diff('a;b', 1, 1)",
            "perf_sum_by(1, 2)"]


def objects(canary, symdir):
    """(name, DDL statements, forged schema rows) of each hostile object."""
    q = lambda s: "'" + s.replace("'", "''") + "'"
    out = []
    for t in TABLES:
        out.append(("view over " + t, ["CREATE VIEW v AS SELECT * FROM %s(%s)" % (t, q(canary))], []))
        out.append(("trigger over " + t, ["CREATE TABLE t(x)",
                    "CREATE TRIGGER tr AFTER INSERT ON t BEGIN SELECT count(*) FROM %s(%s); END"
                    % (t, q(canary))], []))
        # a table kept in the file, naming its path (refused at CREATE now)
        out.append(("kept " + t, [], [("insert", "kept",
                    "CREATE VIRTUAL TABLE kept USING %s(%s)" % (t, q(canary)))]))
    for call in scalar_calls(canary, symdir) + aggregate_calls():
        out.append(("view calling " + call, ["CREATE VIEW v AS SELECT %s AS v" % call], []))
        out.append(("trigger calling " + call, ["CREATE TABLE t(x)",
                    "CREATE TRIGGER tr BEFORE INSERT ON t BEGIN SELECT %s; END" % call], []))
    for call in scalar_calls(canary, symdir):
        out.append(("CHECK calling " + call, ["CREATE TABLE t(x CHECK (coalesce((%s), 1) IS NOT NULL))" % call], []))
        out.append(("DEFAULT calling " + call, ["CREATE TABLE t(x DEFAULT (%s), y)" % call], []))
        # made with a harmless expression, then rewritten in sqlite_schema
        out.append(("generated column calling " + call, ["CREATE TABLE t(x, y AS (abs(1)))"],
                    [("rewrite", "t", "CREATE TABLE t(x, y AS (%s))" % call)]))
        out.append(("stored generated column calling " + call, ["CREATE TABLE t(x, y AS (abs(1)) STORED)"],
                    [("rewrite", "t", "CREATE TABLE t(x, y AS (%s) STORED)" % call)]))
        out.append(("expression index calling " + call, ["CREATE TABLE t(x)", "CREATE INDEX i ON t(abs(x))"],
                    [("rewrite", "i", "CREATE INDEX i ON t(%s)" % call)]))
        out.append(("partial index calling " + call,
                    ["CREATE TABLE t(x)", "CREATE INDEX i ON t(x) WHERE abs(x) > 0"],
                    [("rewrite", "i", "CREATE INDEX i ON t(x) WHERE (%s) IS NOT NULL" % call)]))
    return out


def make(directory, canary, symdir, extension):
    made = 0
    for i, (what, ddl, forged) in enumerate(objects(canary, symdir)):
        db = sqlite3.connect("%s/%03d.db" % (directory, i))
        db.enable_load_extension(True)
        db.load_extension(extension)
        db.execute("CREATE TABLE what(x)")
        db.execute("INSERT INTO what VALUES (?)", (what,))
        for statement in ddl:
            db.execute(statement)
        db.commit()
        db.execute("PRAGMA writable_schema = ON")
        for kind, name, sql in forged:
            if kind == "rewrite":
                db.execute("UPDATE sqlite_schema SET sql = ? WHERE name = ?", (sql, name))
            else:
                db.execute("INSERT INTO sqlite_schema(type, name, tbl_name, rootpage, sql) "
                           "VALUES ('table', ?, ?, 0, ?)", (name, name, sql))
        db.commit()
        db.close()
        made += 1
    print("%d databases" % made)


def setting(db, probe):
    """The connection's symbol setting, and how many of PROBE's workload
    samples it names."""
    return (db.execute("SELECT perf_symbol_path()").fetchone()[0],
            db.execute("SELECT count(sym) FROM perf_samples(?) WHERE dso GLOB '*/workload'",
                       (probe,)).fetchone()[0])


def victim(directory, probe, extension):
    def connect(path):
        c = sqlite3.connect(path, isolation_level=None)
        c.enable_load_extension(True)
        c.load_extension(extension)
        return c
    other = connect(":memory:")
    mine = connect(":memory:")
    before = setting(mine, probe), setting(other, probe)
    tried = refused = unloadable = 0
    paths = sorted(glob.glob(directory + "/*.db"))
    for path in paths:
        # the app's connection opens the database the attacker wrote
        try:
            mine.execute("ATTACH ? AS h", (path,))
        except sqlite3.Error:
            unloadable += 1
            continue
        try:
            names = [r[0] for r in mine.execute(
                "SELECT name FROM h.sqlite_schema WHERE type IN ('table', 'view') AND name != 'what'")]
        except sqlite3.Error:
            names = []
            unloadable += 1
        for name in names:
            for sql in ('SELECT * FROM h."%s"' % name,
                        'INSERT INTO h."%s" DEFAULT VALUES' % name,
                        'INSERT INTO h."%s"(x) VALUES (1)' % name,
                        'UPDATE h."%s" SET x = 2' % name,
                        'DELETE FROM h."%s"' % name):
                tried += 1
                try:
                    mine.execute(sql).fetchall()
                except sqlite3.Error:
                    refused += 1
        mine.execute("DETACH h")
        # and a connection of its own
        try:
            own = connect(path)
            for name in names:
                try:
                    own.execute('INSERT INTO "%s"(x) VALUES (3)' % name).fetchall()
                except sqlite3.Error:
                    pass
            own.close()
        except sqlite3.Error:
            pass
    after = setting(mine, probe), setting(other, probe)
    print("# %d databases (%d whose schema SQLite refuses to load), %d statements, %d refused"
          % (len(paths), unloadable, tried, refused))
    ok = before == after and before[0][1] == 0
    print("%s - the victim's symbol setting is unchanged after %d statements over %d hostile "
          "databases: (setting, workload samples named) %s before, %s after (this connection, "
          "another one)"
          % ("ok" if ok else "not ok", tried, len(paths), before, after))
    return 0 if ok and tried > 0 else 1


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(*sys.argv[2:6])
    else:
        sys.exit(victim(*sys.argv[2:5]))
