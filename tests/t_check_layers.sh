#!/usr/bin/env bash
# plain-only: it tests scripts/check_layers.sh, not a build.
# make check-layers finds include cycles of any length, in a folder or
# across folders: copies of src/ and ext/ with a forged cycle each must
# fail with the cycle named, the tree as it is must pass, and a private
# header name_internal.h is one with name's files (no cycle).
set -u
. "$(dirname "$0")/lib/common.sh"
cd "$PV_ROOT"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# check_copy name [file line]...: runs the script over a fresh copy of the
# tree with each line appended to its file; its output in $work/$name.out,
# its status in $work/$name.status
check_copy() {
    local name=$1 tree="$work/$1"
    shift
    mkdir -p "$tree/scripts"
    cp scripts/check_layers.sh "$tree/scripts/"
    cp -R src ext "$tree/"
    while [ $# -ge 2 ]; do
        echo "$2" >>"$tree/$1"
        shift 2
    done
    bash "$tree/scripts/check_layers.sh" >"$work/$name.out" 2>&1
    echo $? >"$work/$name.status"
}

# expect_cycle name unit...: the copy failed, naming the cycle through
# those units in include order (from whichever one tsort starts at)
expect_cycle() {
    local name=$1 k n found=""
    shift
    local -a units=("$@")
    n=${#units[@]}
    for ((k = 0; k < n; k++)); do
        local text="include cycle" j
        for ((j = 0; j <= n; j++)); do
            text+=" ${units[(k + j) % n]}"
            [ "$j" -lt "$n" ] && text+=" ->"
        done
        grep -qF "$text" "$work/$name.out" && found=$text
    done
    if [ "$(cat "$work/$name.status")" = 1 ] && [ -n "$found" ]; then
        ok "$name: $found"
    else
        not_ok "$name" "status $(cat "$work/$name.status"), want 1 and the cycle ${units[*]} in: $(oneline "$work/$name.out")"
    fi
}

check_copy as_is
check "the tree as it is passes" "$(cat "$work/as_is.status") $(grep -c 'cycle' "$work/as_is.out")" "0 0"

# the circle src/stream/ had: the unpacker walking with the record walk
# that enters its containers
check_copy unpack_walk src/stream/unpack.c '#include "stream/record_walk.h"'
expect_cycle unpack_walk src/stream/unpack src/stream/record_walk

# the circle ext/ had: the connection's file cache including the module's
# header, which includes the cache's
check_copy cache_module ext/file_cache.c '#include "vtab_common.h"'
expect_cycle cache_module ext/file_cache ext/vtab_common

# ext/ calling the byte reader is a breach of its own
check_copy ext_bytes ext/lost.c 'static unsigned probe(pv_byte_reader *r) { return pv_bytes_u32(r); }'
if [ "$(cat "$work/ext_bytes.status")" = 1 ] && grep -qF 'ext/ reads bytes' "$work/ext_bytes.out"; then
    ok "ext_bytes: ext/ calling pv_bytes_u32 is reported"
else
    not_ok "ext_bytes: ext/ calling pv_bytes_u32 is reported" "$(oneline "$work/ext_bytes.out")"
fi

# forged files of their own, so that the checks do not hang on the tree's
# includes: three .c/.h pairs of one folder in a circle
check_copy three_files \
    src/base/probe_a.h '/* a */' src/base/probe_a.c '#include "base/probe_b.h"' \
    src/base/probe_b.h '/* b */' src/base/probe_b.c '#include "base/probe_c.h"' \
    src/base/probe_c.h '/* c */' src/base/probe_c.c '#include "base/probe_a.h"'
expect_cycle three_files src/base/probe_a src/base/probe_b src/base/probe_c

# headers alone, and across folders (the layer check sees the upward
# include as well)
check_copy two_folders \
    src/base/probe_low.h '#include "format/probe_high.h"' \
    src/format/probe_high.h '#include "base/probe_low.h"'
expect_cycle two_folders src/base/probe_low src/format/probe_high
if grep -qF 'src/base/probe_low.h (base) includes "format/probe_high.h"' "$work/two_folders.out"; then
    ok "two_folders: the layer breach is reported too"
else
    not_ok "two_folders: the layer breach is reported too" "$(oneline "$work/two_folders.out")"
fi

# a private header name_internal.h is one with name's files: name.c
# including it while it includes name.h is no cycle; another file including
# it and included by name.c makes one
check_copy private_header \
    src/base/probe.h '/* probe */' src/base/probe_internal.h '#include "base/probe.h"' \
    src/base/probe.c '#include "base/probe_internal.h"'
check "private_header: name.c, name_internal.h and name.h pass" \
    "$(cat "$work/private_header.status") $(grep -c 'cycle' "$work/private_header.out")" "0 0"
check_copy private_cycle \
    src/base/probe.h '/* probe */' src/base/probe_internal.h '#include "base/probe.h"' \
    src/base/probe.c '#include "base/probe_other.h"' \
    src/base/probe_other.h '/* other */' src/base/probe_other.c '#include "base/probe_internal.h"'
expect_cycle private_cycle src/base/probe src/base/probe_other
