#!/bin/sh
# The work of the bench's third workload (bench/run.sh records it as
# bench/data/mixed.data with `perf record -F 4999 -g -- sh bench/mixed_work.sh
# DIR SECONDS`).  DIR holds a copy of src/ and ext/, gen/ (protoc-c's
# output), deep_stacks, mixed_python.py and the list of sources.  Each round,
# until SECONDS have passed: gcc -O2 compiles an eighth of the sources two at
# a time (cc1 and as: many short processes and maps), links them into a
# shared object (collect2, ld), four python3 processes import many
# extension modules and recurse, and two deep_stacks processes work at the
# bottom of deep frame-pointer stacks.
set -u
cd "$1" || exit 1
end=$(($(date +%s) + $2))
round=0
tracefs=$(pkg-config --cflags libtraceevent)
while [ ! -e stop ] && [ "$(date +%s)" -lt "$end" ]; do
    round=$((round + 1))
    awk -v r=$round 'NR % 8 == r % 8' sources |
        TRACEFS="$tracefs" xargs -P2 -I{} sh -c 'gcc -O2 -g -std=c11 -D_GNU_SOURCE -fPIC -iquote src -iquote ext \
            -isystem gen $TRACEFS -c {} -o obj/$(echo {} | tr / _).o' 2>/dev/null || true
    gcc -shared -o obj/slice.so obj/*.o 2>/dev/null || true
    for i in 1 2; do
        python3 mixed_python.py "$round$i" & python3 mixed_python.py "$round$i$i"
        wait
    done
    ./deep_stacks 600 & ./deep_stacks 600
    wait
done
