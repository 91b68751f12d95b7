#!/bin/sh
# Instructions per accepted action, of the table server and of the ceiling,
# counted by callgrind: a count that does not depend on how busy the
# machine is, unlike wall or CPU time. Each server runs under
# `valgrind --tool=callgrind` twice, loaded by baghchal-load with SMALL and
# then LARGE actions on TABLES tables; the difference of the two totals,
# divided by the difference of the action counts, is the cost of one
# action with the connections taken out. The start-up is not counted at
# all: each run's counts are zeroed once the process answers a request.
#
#   cargo build --release -p baghchal -p baghchal-loadtest
#   crates/loadtest/instructions.sh [TABLES] [SMALL] [LARGE] [SPECTATORS]
#
# The callgrind files stay in the directory printed at the end, for
# callgrind_annotate. BIN names the directory of the binaries
# (target/release by default); SERVER_ARGS adds arguments to the table
# server's command line; TARGETS=server (or ceiling) measures one only.
# It needs valgrind (with callgrind_control) and curl.
set -eu

bin=${BIN:-target/release}
tables=${1:-10}
small=${2:-500}
large=${3:-1500}
spectators=${4:-2}
out=$(mktemp -d "${TMPDIR:-/tmp}/baghchal-instructions.XXXXXX")

# total TARGET ACTIONS: prints the instructions of one run.
total() {
    target=$1
    actions=$2
    name=$out/$target-$actions
    case $target in
    server)
        set -- "$bin/baghchal" serve --addr 127.0.0.1:0 \
            --database-url "sqlite://$name.db?mode=rwc" --no-tablebase \
            --ws-rate 100000 --ws-burst 100000 \
            --connections-per-address 1000000 --websockets-per-address 1000000 \
            --hello-burst 1000000 --hellos-per-minute 1000000 ${SERVER_ARGS:-}
        ;;
    ceiling)
        set -- "$bin/baghchal-ceiling" --addr 127.0.0.1:0
        ;;
    esac
    valgrind --tool=callgrind --callgrind-out-file="$name.callgrind" "$@" \
        >"$name.log" 2>&1 &
    pid=$!
    url=
    tries=0
    while [ -z "$url" ]; do
        if ! kill -0 "$pid" 2>/dev/null; then
            echo "$target exited before listening: see $name.log" >&2
            exit 1
        fi
        tries=$((tries + 1))
        if [ "$tries" -gt 600 ]; then
            echo "$target did not listen within 5 minutes: see $name.log" >&2
            exit 1
        fi
        sleep 0.5
        url=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$name.log" | head -n 1)
    done
    # The start-up is not counted: once the process answers a request, its
    # counts are zeroed. (Its work up to then cancels out in the difference
    # of two runs only on average: it includes quanta's clock calibration,
    # a busy loop bounded by wall time, so its count follows how fast
    # valgrind ran it, by millions of instructions.)
    curl -s -o /dev/null --max-time 300 "$url/healthz" || {
        echo "$target did not answer: see $name.log" >&2
        kill -INT "$pid"
        exit 1
    }
    callgrind_control -z "$pid" >/dev/null
    "$bin/baghchal-load" --url "$url" --tables "$tables" --spectators "$spectators" \
        --rate 0 --actions "$actions" --duration 30m --timeout 5m --quiet \
        >"$name.load" 2>&1 || {
        echo "the load run failed: see $name.load" >&2
        kill -INT "$pid"
        exit 1
    }
    grep -q 'errors: 0 while connecting, 0 while playing' "$name.load" || {
        echo "the load run had errors: see $name.load" >&2
        kill -INT "$pid"
        exit 1
    }
    kill -INT "$pid"
    wait "$pid" || true
    sed -n 's/^summary: *//p' "$name.callgrind"
}

for target in ${TARGETS:-server ceiling}; do
    a=$(total "$target" "$small")
    b=$(total "$target" "$large")
    per=$(( (b - a) / (large - small) ))
    echo "$target: $a instructions for $small actions, $b for $large: $per instructions per action"
done
echo "callgrind files: $out (callgrind_annotate --inclusive=yes FILE | head -60)"
