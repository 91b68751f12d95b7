#!/bin/sh
# The quick-pairing benchmark: three nodes of a cluster on PostgreSQL and
# NATS, on this machine, and PLAYERS players (spread over the nodes, each
# listening on its lobby channel) joining one pool at once, REPS times on
# a fresh database each; prints each run's line and the medians of the
# time to be paired (median and p99 over the players) against the 2 s
# wave period.
#
#   cargo build --release -p baghchal -p baghchal-loadtest
#   crates/loadtest/pools.sh [PLAYERS] [REPS] [NODES]
#
# PG names the PostgreSQL server (postgres://postgres@127.0.0.1:5432),
# NATS the NATS server (nats://127.0.0.1:4222), BIN the binaries'
# directory (target/release). Every player comes from 127.0.0.1, so each
# node lifts its per-address budgets: --new-player-burst (first visits),
# --read-burst and --reads-per-second (each first visit is an API read),
# --connections-per-address (the channels are HTTP connections) and
# --websockets-per-address (the channels count as sockets). The node logs
# stay in the directory printed at the end.
set -eu
. "$(dirname "$0")/listening.sh"

bin=${BIN:-target/release}
pg=${PG:-postgres://postgres@127.0.0.1:5432}
nats=${NATS:-nats://127.0.0.1:4222}
players=${1:-2000}
reps=${2:-3}
nodes=${3:-3}
out=$(mktemp -d "${TMPDIR:-/tmp}/baghchal-pools.XXXXXX")
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

# node NAME DATABASE CLUSTER: starts a node, prints its pid and log.
node() {
    log=$out/$2-$1.log
    "$bin/baghchal" serve --addr 127.0.0.1:0 --no-tablebase --log warn \
        --database-url "$pg/$2" --nats-url "$nats" --cluster "$3" \
        --node-id "$1" --lease 5s \
        --new-player-burst 1000000 --new-players-per-minute 1000000 \
        --read-burst 1000000 --reads-per-second 1000000 \
        --connections-per-address 1000000 --websockets-per-address 1000000 >"$log" 2>&1 &
    echo "$! $log"
}

for rep in $(seq 1 "$reps"); do
    db=baghchal_pools_$$_$rep
    cluster=pools$$x$rep
    psql "$pg/postgres" -qc "CREATE DATABASE $db" >/dev/null
    databases="$databases $db"
    urls=
    nodepids=
    for i in $(seq 1 "$nodes"); do
        set -- $(node "n$i" "$db" "$cluster")
        nodepids="$nodepids $1"
        pids="$pids $1"
        url=$(listening "$2")
        urls="$urls,$url"
    done
    "$bin/baghchal-pools" --url "${urls#,}" --players "$players" -q | tee -a "$out/runs.txt"
    for pid in $nodepids; do kill "$pid" 2>/dev/null || true; done
done

# The median over the runs of field NAME.
median() {
    sed -n "s/.* $1=\([0-9.]*\).*/\1/p" "$out/runs.txt" | sort -n |
        awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
echo "medians of $reps runs, $players players over $nodes nodes: time to be paired" \
    "median $(median median_ms) ms, p99 $(median p99_ms) ms, the last one $(median max_ms) ms;" \
    "the join answered in median $(median join_median_ms) ms, p99 $(median join_p99_ms) ms;" \
    "the wave period is 2000 ms (files in $out)"
