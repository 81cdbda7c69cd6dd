#!/usr/bin/env bash
# Runs one test so that it sees none of the machine's state (tests/run.sh
# calls it for every test):
#   isolate.sh --probe          prints "tmpfs" where each test can have its
#                               own /tmp, else "home: <why not>"
#   isolate.sh HOME_DIR cmd...  runs cmd with an empty HOME and, in tmpfs
#                               mode ($PV_ISOLATION), in a private mount
#                               namespace with an empty tmpfs on /tmp
# HOME holds perf's build-id cache (~/.debug) and perf's config: a test that
# records must not fill the machine's cache, and a test that reads must not
# find binaries an earlier run left there.  /tmp holds what earlier
# recordings left (a workload at the path a committed recording names): a
# fixture that resolves its symbols only where such a file exists must fail
# here, not pass on the machine that recorded it.
# PV_ISOLATE=home forces the HOME-only mode (tests/t_runner.sh uses it to
# show that its probe fails without a private /tmp).
set -u

probe() {
    if [ "${PV_ISOLATE:-}" = home ]; then
        echo "home: PV_ISOLATE=home"
    elif [ "$(id -u)" -ne 0 ]; then
        echo "home: not root, so no private mount namespace"
    elif ! command -v unshare >/dev/null 2>&1; then
        echo "home: no unshare command"
    else
        case "$(cd "$(dirname "$0")/../.." && pwd -P)/" in
        /tmp/*) echo "home: the repository is under /tmp, which a tmpfs there would hide" ;;
        *)
            if unshare -m sh -c 'mount -t tmpfs tmpfs /tmp' 2>/dev/null; then
                echo tmpfs
            else
                echo "home: unshare -m or a tmpfs mount on /tmp is refused here"
            fi
            ;;
        esac
    fi
}

if [ "${1:-}" = --probe ]; then
    probe
    exit 0
fi

home=$1
shift
case "${PV_ISOLATION:-$(probe)}" in
tmpfs)
    # the new /tmp is empty; HOME is made in it, so it goes with the test
    exec unshare -m sh -c 'mount -t tmpfs -o mode=1777 tmpfs /tmp &&
        mkdir -m 700 /tmp/home && unset TMPDIR && HOME=/tmp/home exec "$@"' isolate "$@"
    ;;
*)
    HOME=$home exec "$@"
    ;;
esac
