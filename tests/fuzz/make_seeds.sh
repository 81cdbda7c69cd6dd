#!/usr/bin/env bash
# Assembles the fuzz seed corpus into OUTDIR (made fresh): the fixtures,
# tests/bad_input/base.data and its damaged copies, and every data file of
# $PV_SHARED/corpus (MANIFEST.tsv: other projects' files and their fuzz
# reproducers) up to MAX_BYTES (default 4 MiB); without ../shared, the few
# corpus files kept in tests/corpus.  Files are copied, named by
# their path with / turned into __, so nothing is committed in bulk.
#
#   tests/fuzz/make_seeds.sh OUTDIR [MAX_BYTES]
set -eu
out=$1
max=${2:-4194304}
root=$(cd "$(dirname "$0")/../.." && pwd)
shared=${PV_SHARED:-$root/../shared}
rm -rf "$out"
mkdir -p "$out"

add() {  # file name
    local size
    size=$(stat -c %s "$1")
    [ "$size" -le "$max" ] && cp "$1" "$out/$2"
    return 0
}

for f in $(cd "$root/tests/fixtures" && find . -type f ! -name '*.md' ! -name '*.sh' ! -name '*.c' | sort); do
    add "$root/tests/fixtures/$f" "fixtures__$(echo "${f#./}" | sed 's|/|__|g')"
done
add "$root/tests/bad_input/base.data" bad_input__base.data
bad=$(mktemp -d)
trap 'rm -rf "$bad"' EXIT
/usr/bin/python3 "$root/tests/bad_input/make_bad.py" "$root/tests/bad_input/base.data" "$bad" >/dev/null
for f in $(ls "$bad" | sort); do
    [ -f "$bad/$f" ] && add "$bad/$f" "bad_input__$f"
done
if [ -f "$shared/corpus/MANIFEST.tsv" ]; then
    tail -n +2 "$shared/corpus/MANIFEST.tsv" | cut -f1 | while read -r f; do
        [ -f "$shared/corpus/$f" ] && add "$shared/corpus/$f" "corpus__$(echo "$f" | sed 's|/|__|g')"
    done
else  # the few corpus files kept in the repository
    for f in $(cd "$root/tests/corpus" && find . -type f -name '*data*' ! -name '*.md' ! -name '*.txt' | sort); do
        add "$root/tests/corpus/$f" "corpus__$(echo "${f#./}" | sed 's|/|__|g')"
    done
fi
echo "$(ls "$out" | wc -l) seeds in $out"
