#!/usr/bin/env bash
# make check-layers: the reader's layers (docs/architecture.md) are folders
# of src/, and a file may include only headers of its own layer and of the
# layers below it.  No two files of src/ include each other, directly or
# around a circle of any length, inside a folder or across folders, and no
# two files of ext/ do either.  Also:
# nothing in src/ mentions SQLite, and ext/ neither includes the byte reader
# nor calls it (tables get typed records from src/decode/).  Prints each
# breach and exits 1 when there is any.
set -u
cd "$(dirname "$0")/.."

# layer: the folders its files may include (besides its own)
declare -A may_include=(
    [base]=""
    [format]="base"
    [stream]="format base"
    [decode]="stream format base"
    [scan]="decode stream format base"
    [unwind]="decode stream format base"
    [symbols]="unwind decode stream format base"
    [analysis]="render symbols unwind scan decode stream format base"
    [render]="base"
)

breaches=0
breach() {
    echo "check-layers: $*"
    breaches=$((breaches + 1))
}

for dir in src/*/; do
    layer=$(basename "$dir")
    [ -n "${may_include[$layer]+set}" ] || breach "src/$layer/ is not a known layer (add it to scripts/check_layers.sh and docs/architecture.md)"
done
for f in src/*.c src/*.h; do
    [ -e "$f" ] && breach "$f: every reader file belongs in a layer folder"
done

# unit_of file: sets unit to the unit include cycles are made of that file
# belongs to.  A file and its header are one (record_walk.c including
# unpack.h while unpack.c includes record_walk.h is a cycle), and so are a
# private header name_internal.h and name's files.
unit_of() {
    unit=${1%.[ch]}
    case "$unit" in
    *_internal) [ -e "${unit%_internal}.c" ] || [ -e "${unit%_internal}.h" ] && unit=${unit%_internal} ;;
    esac
}
edges=""                 # "unit included_unit" lines, for tsort
declare -A edge_example  # "unit included_unit": one include that makes it

for f in src/*/*.[ch]; do
    layer=$(basename "$(dirname "$f")")
    allowed=" $layer ${may_include[$layer]:-} "
    unit_of "$f"
    includer=$unit
    while IFS= read -r inc; do
        case "$inc" in
        */*) ;;
        *) breach "$f includes \"$inc\": name the layer folder (\"layer/$inc\")"; continue ;;
        esac
        target=${inc%%/*}
        [ -f "src/$inc" ] || { breach "$f includes \"$inc\", which is not a file of src/"; continue; }
        case "$allowed" in
        *" $target "*) ;;
        *) breach "$f ($layer) includes \"$inc\": $layer may include only ${may_include[$layer]:-nothing below it}" ;;
        esac
        unit_of "src/$inc"
        if [ "$unit" != "$includer" ]; then
            edges+="$includer $unit"$'\n'
            edge_example["$includer $unit"]="$f includes \"$inc\""
        fi
    done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
done

# ext/ has no layers, but no circles either: its files include each other
# by bare name ("vtab_common.h"), and a file and its header are one unit.
for f in ext/*.[ch]; do
    unit_of "$f"
    includer=$unit
    while IFS= read -r inc; do
        [ -f "ext/$inc" ] || continue
        unit_of "ext/$inc"
        if [ "$unit" != "$includer" ]; then
            edges+="$includer $unit"$'\n'
            edge_example["$includer $unit"]="$f includes \"$inc\""
        fi
    done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"/]*\)".*/\1/p' "$f")
done

# tsort names the units of each cycle it meets, in include order, after a
# line saying "input contains a loop".
report_cycle() {
    local -a units=("$@")
    local n=${#units[@]} k path="" steps="" example
    for ((k = 0; k < n; k++)); do
        path+="${units[k]} -> "
        example=${edge_example["${units[k]} ${units[(k + 1) % n]}"]:-}
        [ -n "$example" ] && steps+="; $example"
    done
    breach "include cycle ${path}${units[0]} (a file and its header count as one)${steps:+: ${steps#; }}"
}
cycle=()
while IFS= read -r line; do
    case "$line" in
    *"input contains a loop:")
        [ ${#cycle[@]} -gt 0 ] && report_cycle "${cycle[@]}"
        cycle=() ;;
    tsort:\ *) cycle+=("${line#tsort: }") ;;
    esac
done < <(printf '%s' "$edges" | tsort 2>&1 >/dev/null)
[ ${#cycle[@]} -gt 0 ] && report_cycle "${cycle[@]}"

if grep -rniI 'sqlite' src; then
    breach "src/ mentions SQLite (lines above): the reader knows nothing of it"
fi
if grep -nE '#[[:space:]]*include[[:space:]]*"base/byte_reader\.h"|\bpv_(bytes|byte_reader)_[a-z0-9_]+[[:space:]]*\(|\bpv_load_u(16|32|64)[[:space:]]*\(' ext/*.[ch]; then
    breach "ext/ reads bytes (lines above): decode them in src/decode/ and hand ext/ typed values"
fi

if [ "$breaches" -gt 0 ]; then
    echo "check-layers: $breaches breaches"
    exit 1
fi
echo "check-layers: ok ($(ls src/*/*.[ch] | wc -l) reader files in $(ls -d src/*/ | wc -l) layers)"
