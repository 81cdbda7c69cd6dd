#!/usr/bin/env bash
# perf_records.fields against perf: for every file of tests/expected/record_fields/
# (fixtures and corpus files, see tests/gen/record_fields.sh),
#   - every fields value is valid JSON;
#   - the values perf prints for the first records of each type (matched by
#     file_offset) are the values fields holds.
# Env: PV_ROOT, PV_SHARED, PV_SQLRUN.  Output: "ok - ..." / "not ok - ...".
set -u
. "$(dirname "$0")/lib/common.sh"
root=${PV_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
shared=${PV_SHARED:-$root/../shared}
sqlrun=${PV_SQLRUN:-$root/build/sqlrun}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for exp in "$root"/tests/expected/record_fields/*.tsv; do
    label=$(sed -n 's/^# source\t//p' "$exp")
    case $label in
        fixture:*) file=$root/tests/fixtures/${label#fixture:} ;;
        corpus:*)  # else the copy kept in the repository (tests/corpus)
            file=$shared/corpus/${label#corpus:}
            [ -f "$file" ] || [ ! -f "$root/tests/corpus/${label#corpus:}" ] ||
                file=$root/tests/corpus/${label#corpus:} ;;
        *) echo "not ok - $exp: no source line"; continue ;;
    esac
    name=$(basename "$exp" .tsv)
    if [ ! -f "$file" ]; then
        case $label in
        corpus:*) echo "ok - $name: fields are valid JSON and hold perf's values # SKIP input absent: $file" ;;
        *) echo "not ok - $name: $file is missing" ;;
        esac
        continue
    fi
    qfile=$(sql_quote "$file")

    # 1. every fields value is valid JSON (an error in any record fails the query)
    if bad=$("$sqlrun" "SELECT count(*) FROM perf_records($qfile) WHERE json_valid(fields) = 0" 2>"$tmp/err"); then
        if [ "$bad" = 0 ]; then
            echo "ok - $name: every fields value is valid JSON"
        else
            echo "not ok - $name: $bad fields values are not valid JSON"
        fi
    else
        echo "not ok - $name: json_valid query failed: $(head -c 300 "$tmp/err")"
    fi

    # 2. the spot checks, one query: a VALUES table of (n, offset, path, how)
    grep -v '^#' "$exp" >"$tmp/checks"
    awk -F'\t' -v q="'" '
        function quote(s) { gsub(q, q q, s); return q s q }
        { printf "%s(%d,%s,%s,%s)", (NR > 1 ? ",\n" : ""), NR, $1, quote($4), quote($5) }
    ' "$tmp/checks" >"$tmp/values"
    cat >"$tmp/query.sql" <<SQL
WITH exp(n, off, path, how) AS (VALUES
$(cat "$tmp/values")),
r AS MATERIALIZED (
  SELECT file_offset, name, fields FROM perf_records($qfile)
  WHERE file_offset IN (SELECT off FROM exp))
SELECT exp.n, r.name,
  CASE exp.how
    WHEN 'v' THEN json_extract(r.fields, exp.path)
    WHEN 'f' THEN printf('%f', json_extract(r.fields, exp.path))
    WHEN 'bit1' THEN json_extract(r.fields, exp.path) & 1
  END
FROM exp LEFT JOIN r ON r.file_offset = exp.off ORDER BY exp.n;
SQL
    if ! "$sqlrun" -f "$tmp/query.sql" >"$tmp/got" 2>"$tmp/err"; then
        echo "not ok - $name: spot-check query failed: $(head -c 300 "$tmp/err")"
        continue
    fi
    # One ok/not ok line per record type: every value of its checked records.
    awk -F'\t' -v file="$name" '
        NR == FNR { want_name[FNR] = $2; want[FNR] = $6; label[FNR] = $3; off[FNR] = $1
                    if (!($2 in order)) { order[$2] = ++ntypes; types[ntypes] = $2 }
                    count[$2]++; total = FNR; next }
        {
            n = $1; got_name = $2; got = $0
            sub(/^[^\t]*\t[^\t]*\t/, "", got)
            t = want_name[n]
            if (got_name != t) {
                if (!(t in why)) why[t] = sprintf("record at offset %d is %s, perf says %s", off[n], got_name == "" ? "missing" : got_name, t)
            } else if (got != want[n]) {
                if (!(t in why)) why[t] = sprintf("%s at offset %d: got \"%s\", perf says \"%s\"", label[n], off[n], got, want[n])
            }
            seen++
        }
        END {
            if (seen != total) { printf "not ok - %s: %d spot-check rows for %d checks\n", file, seen, total }
            for (i = 1; i <= ntypes; i++) {
                t = types[i]
                if (t in why) printf "not ok - %s: %s fields match perf (%d values): %s\n", file, t, count[t], why[t]
                else printf "ok - %s: %s fields match perf (%d values)\n", file, t, count[t]
            }
        }
    ' "$tmp/checks" "$tmp/got"
done
