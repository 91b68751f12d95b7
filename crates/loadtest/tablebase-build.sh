#!/bin/sh
# The load benchmark's latency while the server builds its tablebase,
# against the same server without one. Each run starts a fresh server with
# an empty data directory, either as a new user's server starts (no
# tablebase file: it builds one in the background) or with --no-tablebase,
# loads it with baghchal-load, and reads /readyz before and after the load:
# a "build" run counts only when the tablebase was still building when the
# load ended (the line of the run says how much of it was built by then).
# The two kinds of run alternate, RUNS times each, so that both
# see the same machine; the medians of p50 and p99 (to every subscriber)
# are printed at the end.
#
#   cargo build --release -p baghchal -p baghchal-loadtest
#   crates/loadtest/tablebase-build.sh [RUNS] [TABLES] [RATE] [DURATION]
#
# The defaults are 3 runs of 1,000 tables (two spectators each, 4,000
# sockets) at 1,000 actions/s for 20 s, the benchmark's standard load. BIN
# names the directory of the binaries (target/release by default);
# BUILD_ARGS adds flags to the building server's command line (e.g.
# BUILD_ARGS="--tablebase-threads 1"). The CSV
# files of both kinds and every server's log stay in the directory printed
# at the end.
set -eu

bin=${BIN:-target/release}
runs=${1:-3}
tables=${2:-1000}
rate=${3:-1000}
duration=${4:-20s}
out=$(mktemp -d "${TMPDIR:-/tmp}/baghchal-tablebase-build.XXXXXX")

# readyz URL: the tablebase's state in /readyz, e.g. building or off.
readyz() {
    curl -fsS "$1/readyz" | sed -n 's/.*"state":"\([a-z_]*\)".*/\1/p'
}

# built URL: how much of the tablebase is built, e.g. "41 % built" (empty
# unless it is building).
built() {
    curl -fsS "$1/readyz" | sed -n 's/.*"done":\([0-9]*\),"total":\([0-9]*\).*/\1 \2/p' |
        awk '{ printf "%.0f %% built", 100 * $1 / $2 }'
}

# one KIND RUN: one load run against a fresh server of this kind.
one() {
    kind=$1
    run=$2
    dir=$out/$kind-$run
    mkdir "$dir"
    set -- "$bin/baghchal" serve --addr 127.0.0.1:0 \
        --database-url "sqlite://$dir/baghchal.db?mode=rwc" --data-dir "$dir" \
        --table-burst 1000000 --ws-rate 100000 --ws-burst 100000 --log warn \
        --connections-per-address 1000000 --websockets-per-address 1000000 \
        --hello-burst 1000000 --hellos-per-minute 1000000
    if [ "$kind" = off ]; then
        set -- "$@" --no-tablebase
    else
        # shellcheck disable=SC2086 # BUILD_ARGS is a list of flags
        set -- "$@" ${BUILD_ARGS:-}
    fi
    "$@" >"$dir/server.log" 2>&1 &
    pid=$!
    url=
    tries=0
    while [ -z "$url" ]; do
        if ! kill -0 "$pid" 2>/dev/null; then
            echo "the server exited before listening: see $dir/server.log" >&2
            exit 1
        fi
        tries=$((tries + 1))
        if [ "$tries" -gt 120 ]; then
            echo "the server did not listen within a minute: see $dir/server.log" >&2
            kill -INT "$pid"
            exit 1
        fi
        sleep 0.5
        url=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$dir/server.log" | head -n 1)
    done
    before=$(readyz "$url")
    load=$(cut -d' ' -f1 /proc/loadavg)
    "$bin/baghchal-load" --url "$url" --server-pid "$pid" --tables "$tables" \
        --spectators 2 --rate "$rate" --duration "$duration" --seed "$run" --quiet \
        --csv "$dir/run.csv" >"$dir/load.txt" 2>&1 || {
        echo "the load run failed: see $dir/load.txt" >&2
        kill -INT "$pid"
        exit 1
    }
    after=$(readyz "$url")
    share=$(built "$url")
    kill -INT "$pid"
    wait "$pid" || true
    row=$(tail -n 1 "$dir/run.csv")
    echo "$kind run $run: load average $load, tablebase $before -> $after${share:+ ($share)}: $row"
    if [ "$kind" = build ] && [ "$after" != building ]; then
        echo "  (not counted: the build ended before the load did)"
        return
    fi
    head -n 1 "$dir/run.csv" >"$out/header.csv"
    echo "$row" >>"$out/$kind.csv"
}

# median KIND COLUMN: the median of one CSV column over the counted runs.
median() {
    column=$(tr ',' '\n' <"$out/header.csv" | grep -nx "$2" | cut -d: -f1)
    cut -d, -f"$column" "$out/$1.csv" | sort -g | awk '
        { v[NR] = $1 }
        END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

run=1
while [ "$run" -le "$runs" ]; do
    one build "$run"
    one off "$run"
    run=$((run + 1))
done
for kind in build off; do
    [ -s "$out/$kind.csv" ] || { echo "$kind: no run counted"; continue; }
    echo "$kind: $(wc -l <"$out/$kind.csv") runs, median p50 $(median "$kind" p50_ms) ms," \
        "p99 $(median "$kind" p99_ms) ms, p99.9 $(median "$kind" p999_ms) ms," \
        "$(median "$kind" actions_per_s) actions/s, server CPU $(median "$kind" cpu_cores) cores"
done
echo "runs: $out"
