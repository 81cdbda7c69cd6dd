#!/usr/bin/env bash
# plain-only: one package build, about a minute.
# The Debian package: dpkg-buildpackage turns debian/ into a .deb (built from
# a copy of the tree in a temporary directory, since dpkg-buildpackage writes
# into the parent of the source: nothing lands in or beside the repository),
# lintian reports no error on it, its Depends name the libraries the
# extension links and the sqlite3 shell perfsql runs, and from the tree
# `dpkg-deb -x` unpacks into a temporary root, perfsql runs the ready
# queries as the clone's does, the extension loads by name and the man
# pages open.
#
# Env: PV_ROOT.
set -u
. "$(dirname "$0")/lib/common.sh"
: "${PV_ROOT:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
example=$PV_ROOT/tests/fixtures/example.data

missing=
for tool in dpkg-buildpackage dpkg-deb dh lintian man; do
    command -v "$tool" >/dev/null 2>&1 || missing+=" $tool"
done
if [ -n "$missing" ]; then
    echo "ok - the Debian package # SKIP not installed:$missing (scripts/install-deps.sh installs them)"
    exit 0
fi

version=$(sed -n '1s/^perfvtab (\([^)]*\)).*/\1/p' "$PV_ROOT/debian/changelog")
if [ -z "$version" ]; then
    not_ok "debian/changelog" "no version on its first line"
    exit 0
fi
# what is beside and in the repository before the build
touch "$tmp/marker"
before=$(cd "$PV_ROOT" && git status --porcelain 2>/dev/null)

src=$tmp/src/perfvtab-$version
mkdir -p "$src"
tar -C "$PV_ROOT" --exclude=./build --exclude=./.git --exclude=./bench/data -cf - . | tar -C "$src" -xf -
if (cd "$src" && DEB_BUILD_OPTIONS=parallel=2 timeout 900 dpkg-buildpackage -us -uc -b \
        >"$tmp/build.log" 2>&1 </dev/null); then
    ok "dpkg-buildpackage -b builds the package from a copy of the tree"
else
    not_ok "dpkg-buildpackage" "$(tail -n 5 "$tmp/build.log" | tr '\n' ' ')"
    exit 0
fi
deb=$tmp/src/perfvtab_${version}_$(dpkg-architecture -qDEB_HOST_ARCH 2>/dev/null || dpkg --print-architecture).deb
if [ ! -f "$deb" ]; then
    not_ok "the .deb" "not at $deb: $(ls "$tmp/src")"
    exit 0
fi

# nothing written into or beside the repository
after=$(cd "$PV_ROOT" && git status --porcelain 2>/dev/null)
strays=$(find "$PV_ROOT" "$(dirname "$PV_ROOT")" -maxdepth 1 -newer "$tmp/marker" \
             \( -name '*.deb' -o -name '*.changes' -o -name '*.buildinfo' -o -name '*.ddeb' \) 2>/dev/null)
check "the package build leaves nothing in the repository or its parent directory" \
    "$([ "$before" = "$after" ] && [ -z "$strays" ] && echo none)${strays}" none

# lintian: no error (warnings are printed, not failed)
lintian "$tmp/src"/perfvtab_"${version}"_*.changes >"$tmp/lintian" 2>&1 </dev/null
errors=$(grep -c '^E: ' "$tmp/lintian")
grep '^W: ' "$tmp/lintian" | sed 's/^/# lintian /'
if [ "$errors" = 0 ] && grep -q . "$tmp/lintian"; then
    ok "lintian reports no error on the package ($(grep -c '^W: ' "$tmp/lintian") warnings)"
elif [ "$errors" = 0 ]; then
    ok "lintian reports nothing on the package"
else
    not_ok "lintian" "$errors errors: $(grep '^E: ' "$tmp/lintian" | head -n 5 | tr '\n' ' ')"
fi

# Depends: the libraries the extension links (dh_shlibdeps), SQLite and
# the shell
depends=$(dpkg-deb -f "$deb" Depends)
missing=
for p in libsqlite3-0 sqlite3 libzstd1 libelf1 libdw1 libtraceevent1 zlib1g; do
    grep -qE "(^|, )$p( |,|$)" <<<"$depends" || missing+=" $p"
done
check "the package depends on SQLite, the shell and every library the extension links ($depends)" \
    "${missing:-none missing}" "none missing"

# From the unpacked tree alone
root=$tmp/root
mkdir -p "$root" "$tmp/data" "$tmp/run"
dpkg-deb -x "$deb" "$root"
cp "$example" "$tmp/data/example.data"
for q in overview record_stats flat_profile samples_by_event; do
    (cd "$tmp/run" && PERFVTAB=$PV_ROOT/build/perfvtab "$PV_ROOT/scripts/perfsql" -m tsv \
        "$tmp/data/example.data" "$q" >"$tmp/clone.$q" 2>&1 </dev/null)
    if (cd "$tmp/run" && env -i PATH=/usr/bin:/bin HOME="$tmp/run" "$root/usr/bin/perfsql" -m tsv \
            "$tmp/data/example.data" "$q" >"$tmp/deb.$q" 2>&1 </dev/null) &&
       [ -s "$tmp/deb.$q" ] && cmp -s "$tmp/clone.$q" "$tmp/deb.$q"; then
        ok "the unpacked package's perfsql runs $q with its own queries and extension, as the clone's"
    else
        not_ok "the unpacked package's perfsql $q" "$(diff "$tmp/clone.$q" "$tmp/deb.$q" | head -n 4 | tr '\n' ' ')"
    fi
done
got=$(cd "$tmp/run" && LD_LIBRARY_PATH=$root/usr/lib sqlite3 :memory: '.load perfvtab' \
          "SELECT count(*) FROM perf_samples('$tmp/data/example.data')" 2>&1)
check "the unpacked extension loads by name (.load perfvtab)" "$got" \
    "$(wc -l <"$PV_ROOT/tests/expected/perf_oracle/example/samples.tsv")"
for page in man1/perfsql.1.gz man7/perfvtab.7.gz; do
    LC_ALL=C.UTF-8 MANWIDTH=100 man --warnings -E UTF-8 -l -Tutf8 -Z "$root/usr/share/man/$page" \
        >/dev/null 2>"$tmp/err" </dev/null
    if [ -s "$root/usr/share/man/$page" ] && [ ! -s "$tmp/err" ]; then
        ok "man -l opens the package's $page without a warning"
    else
        not_ok "the package's $page" "$(oneline "$tmp/err")"
    fi
done
