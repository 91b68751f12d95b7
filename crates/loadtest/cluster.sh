#!/bin/sh
# One node, then three nodes, of a cluster on PostgreSQL and NATS, loaded
# by baghchal-load with the same load, REPS times each, alternating; prints
# the median accepted actions/s and delivery p50/p99 of each setup. Each
# run has its own database and cluster name; the one-node setup is a
# cluster of one (same storage, no relaying), so the difference is the
# routing.
#
#   cargo build --release -p baghchal -p baghchal-loadtest
#   crates/loadtest/cluster.sh [TABLES] [RATE] [SECONDS] [REPS]
#
# PG names the PostgreSQL server (postgres://postgres@127.0.0.1:5432),
# NATS the NATS server (nats://127.0.0.1:4222), BIN the binaries'
# directory (target/release), SPECTATORS the spectators a table (1),
# NATS_PID the NATS server's process id, whose CPU an action is then
# reported too (default: a nats-server running here, if there is one),
# PG_PID PostgreSQL's postmaster, whose CPU an action and its backends'
# is then reported (default: the oldest process named postgres here, if
# there is one), SETUPS the setups to run ("1 3"; "1" for one node alone,
# to measure what PostgreSQL pays without the relaying), CEILING=1 to run
# the ceiling's nodes (baghchal-ceiling: no rules, storage, leases or
# tasks of their own, relaying through the same NATS) instead of the
# table server's, for the floor of what a cluster costs.
# The CSV files and node logs stay in the directory printed at the end.
set -eu
. "$(dirname "$0")/listening.sh"

bin=${BIN:-target/release}
pg=${PG:-postgres://postgres@127.0.0.1:5432}
nats=${NATS:-nats://127.0.0.1:4222}
tables=${1:-90}
rate=${2:-300}
seconds=${3:-15}
reps=${4:-3}
spectators=${SPECTATORS:-1}
setups=${SETUPS:-1 3}
out=$(mktemp -d "${TMPDIR:-/tmp}/baghchal-cluster.XXXXXX")
nats_pid=${NATS_PID:-$(pgrep -x nats-server | head -n 1 || true)}
pg_pid=${PG_PID:-$(pgrep -o -x postgres || true)}
services=$(echo "$nats_pid,$pg_pid" | sed 's/^,//; s/,$//')
pids=
databases=

cleanup() {
    for pid in $pids; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    for db in $databases; do
        psql "$pg/postgres" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
    done
}
trap cleanup EXIT INT TERM

# node NAME DATABASE CLUSTER: starts a node, prints its process id and
# log.
node() {
    log=$out/$2-$1.log
    if [ "${CEILING:-0}" = 1 ]; then
        "$bin/baghchal-ceiling" --addr 127.0.0.1:0 --nats-url "$nats" \
            --cluster "$3" --node-id "$1" >"$log" 2>&1 &
        echo "$! $log"
        return
    fi
    "$bin/baghchal" serve --addr 127.0.0.1:0 --no-tablebase --log warn \
        --database-url "$pg/$2" --nats-url "$nats" --cluster "$3" \
        --node-id "$1" --lease 5s \
        --ws-rate 100000 --ws-burst 100000 \
        --table-burst 1000000 --tables-per-minute 1000000 \
        --connections-per-address 1000000 --websockets-per-address 1000000 \
        --hello-burst 1000000 --hellos-per-minute 1000000 >"$log" 2>&1 &
    echo "$! $log"
}

# service_cpu PID REPORT: the CPU an action of service PID in the
# baghchal-load REPORT.
service_cpu() {
    sed -n "s/^service $1's CPU.*, \([0-9.]*\) µs an action$/\1/p" "$2"
}

# run NODES REP: one measured run on a fresh database and cluster.
run() {
    n=$1
    db=baghchal_bench_$$_${n}_$2
    cluster=bench$$x${n}x$2
    psql "$pg/postgres" -qc "CREATE DATABASE $db" >/dev/null
    databases="$databases $db"
    urls=
    nodepids=
    for i in $(seq 1 "$n"); do
        set -- $(node "n$i" "$db" "$cluster")
        nodepids="$nodepids,$1"
        pids="$pids $1"
        url=$(listening "$2")
        urls="$urls,$url"
    done
    "$bin/baghchal-load" --url "${urls#,}" --server-pid "${nodepids#,}" \
        ${services:+--service-pid "$services"} \
        -t "$tables" -s "$spectators" -r "$rate" -d "${seconds}s" --seed "$rep" -q \
        --csv "$out/nodes$n.csv" >"$out/run-$n-$rep.txt"
    grep -E "accepted actions/s|delivered to every|errors:|service .* CPU" "$out/run-$n-$rep.txt" | head -5
    [ -z "$nats_pid" ] || service_cpu "$nats_pid" "$out/run-$n-$rep.txt" >>"$out/nats$n.txt"
    [ -z "$pg_pid" ] || service_cpu "$pg_pid" "$out/run-$n-$rep.txt" >>"$out/pg$n.txt"
    for pid in $(echo "$nodepids" | tr ',' ' '); do kill "$pid" 2>/dev/null || true; done
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for rep in $(seq 1 "$reps"); do
    for n in $setups; do
        echo "== $n node(s), repetition $rep"
        run "$n" "$rep"
    done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

# The median of column NAME of FILE.
median() {
    col=$(head -n 1 "$2" | tr ',' '\n' | grep -nx "$1" | cut -d: -f1)
    tail -n +2 "$2" | cut -d, -f"$col" | sort -n |
        awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# The median of the numbers in FILE, one a line ("-" when there are none).
median_of() {
    sort -n "$1" 2>/dev/null |
        awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
printf '\n%-8s %14s %10s %10s %12s %12s %14s %14s\n' nodes "actions/s" "p50 ms" "p99 ms" "CPU cores" "CPU µs/act" "NATS µs/act" "PG µs/act"
for n in $setups; do
    f=$out/nodes$n.csv
    printf '%-8s %14s %10s %10s %12s %12s %14s %14s\n' "$n" "$(median actions_per_s "$f")" \
        "$(median p50_ms "$f")" "$(median p99_ms "$f")" "$(median cpu_cores "$f")" \
        "$(median cpu_us_per_action "$f")" "$(median_of "$out/nats$n.txt")" "$(median_of "$out/pg$n.txt")"
done
echo "(medians of $reps runs: $tables tables, $spectators spectator(s) each, $rate actions/s, ${seconds} s; files in $out)"
