#!/usr/bin/env bash
# Installs the Debian packages perfvtab's build, demo and tests need, and only
# those that are missing.  Quiet when everything is already installed; runs
# `apt-get update` once, and only when something has to be installed.
# Idempotent.  Runs as root, or through sudo when that is available.
#
#   gcc g++ make libc6-dev   the compilers (g++: t_alloc's C++ workload) and C library headers
#   libsqlite3-dev       sqlite3.h and libsqlite3 (the extension, its test driver)
#   libzstd-dev          the reader decompresses COMPRESSED records
#   libelf-dev           the reader reads build-ids and symbols from ELF files
#   libiberty-dev        cplus_demangle: C++ symbol names as perf shows them
#   libdw-dev            unwinding --call-graph dwarf user stacks (libdwfl)
#   libtraceevent-dev    the reader parses tracepoint formats (perf's own library)
#                        to name the fields of tracepoint samples
#   libprotobuf-c-dev protobuf-c-compiler
#                        perf_pprof's protobuf: protoc-c generates C from
#                        src/render/profile.proto at build time, with which
#                        the unit test reads back what the encoder wrote
#   zlib1g-dev           perf_pprof gzips the profile, as pprof expects on disk
#   golang-go            `go tool pprof`, which tests/t_pprof.sh reads the
#                        profiles with
#   sqlite3              the shell: make demo, sql/*.sql, tests that load the .so
#   linux-perf           perf itself: re-recording fixtures, perf-oracle outputs
#   python3              Debian's /usr/bin/python3 (its sqlite3 module can load
#                        extensions), used by tests and examples/query.py
#   pkg-config           finding the libraries' flags
#   chromium             headless, renders perf_flamegraph's SVG for its test
#                        (tests/t_flamegraph_chromium.sh: DOM and screenshot)
#   chromium-driver      chromedriver: the same test clicks, types and scrolls in
#                        the SVG as a person would (zoom, reset, search)
#   fonts-dejavu-core    a known font for that rendering, whose text widths the
#                        test measures
#   time                 GNU time: make bench's peak RSS of each command
#   clang libclang-rt-14-dev  ThreadSanitizer build of tests/t_threads.sh, and
#                        the libFuzzer targets of `make fuzz`
#   xz-utils             tests/t_jitdump.sh unpacks the node fixture's jitdump
#                        (committed as .xz: 2.2 MB raw)
#   nodejs               Debian's node: tests/t_jitdump.sh records node
#                        --perf-prof live and compares with perf inject --jit
#   strace               tests/t_hostile_schema.sh watches which files a victim's
#                        process touches
#   rustc                Debian's Rust compiler: tests/t_rust_names.sh builds a
#                        Rust program (legacy and v0 mangling) and records it
#   llvm                 llvm-dwarfdump: tests/oracle/perf_inline_proof.py reads the DIE
#                        tags that prove perf 6.1 wrong where it prints a clone
#                        "(inlined)"; tests/t_frame_names.sh checks the reader's
#                        inlined flags against them
#   dpkg-dev debhelper   dpkg-buildpackage and dh: tests/t_deb.sh builds the
#                        Debian package from debian/
#   lintian              checks that package (tests/t_deb.sh: no error)
#   man-db bsdextrautils man and col: the tests open the man pages make
#                        install puts (perfsql(1), perfvtab(7)) and read them
#   libc6-dbg            libc's detached DWARF 5 (compressed sections):
#                        tests/t_line_table.sh holds the line tables to libdw's
#                        at every address of libc, libm and ld.so
#
# With --bench, also what only `make bench` needs:
#   hotspot              its hotspot-perfparser, timed beside perf report
set -euo pipefail

packages=(gcc g++ make libc6-dev libsqlite3-dev libzstd-dev libelf-dev libiberty-dev libdw-dev
          libtraceevent-dev libprotobuf-c-dev protobuf-c-compiler zlib1g-dev sqlite3
          linux-perf python3 pkg-config chromium chromium-driver fonts-dejavu-core time clang
          libclang-rt-14-dev rustc golang-go llvm dpkg-dev debhelper lintian man-db bsdextrautils
          strace xz-utils nodejs libc6-dbg)
if [ "${1:-}" = --bench ]; then
    packages+=(hotspot)
elif [ $# -gt 0 ]; then
    echo "usage: install-deps.sh [--bench]" >&2
    exit 2
fi

installed() {
    local status
    status=$(dpkg -s "$1" 2>/dev/null) || return 1
    [[ $status == *$'\nStatus: install ok installed'* ]]
}

missing=()
for p in "${packages[@]}"; do
    installed "$p" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-deps: apt-get not found; install these packages by hand: ${missing[*]}" >&2
    exit 1
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        sudo=(sudo)
    else
        echo "install-deps: not root and no sudo; as root run: apt-get install ${missing[*]}" >&2
        exit 1
    fi
fi

echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
