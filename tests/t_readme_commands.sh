#!/usr/bin/env bash
# plain-only: the examples load the plain build (build/perfvtab.so).
# The shell examples of README.md and docs/*.md (code blocks of `$ command`
# lines and their output), run literally from a scratch copy of the
# repository's root: each prints what the document shows
# (tests/oracle/readme_commands.py).  The sqlite3 sessions are t_readme_tour's.
set -u
. "$(dirname "$0")/lib/common.sh"
# the documents' outputs were made where the fixtures' kernel was not the
# running one: so here too, whatever this machine runs (its kallsyms would
# name their kernel frames where its kernel is theirs)
export PERFVTAB_NOT_RUNNING_KERNEL=1
cd "$PV_ROOT"
for doc in README.md docs/*.md; do
    python3 tests/oracle/readme_commands.py "$doc" "$PV_ROOT"
done
exit 0
