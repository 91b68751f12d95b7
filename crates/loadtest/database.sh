#!/bin/sh
# What PostgreSQL spends on play: one node (a cluster of one, so every
# batch is written under leases, as in a cluster) on a fresh database,
# loaded by baghchal-load; every 2 s the CPU of every PostgreSQL process
# (the postmaster's own, its reaped children's and its live children's,
# from /proc), the node's, and the events inserted so far. Prints the CPU
# of each an event inserted, from 6 s after the first insert to the last
# sample whose inserts still rose by half the rate asked (the play's
# steady part).
#
#   cargo build --release -p baghchal -p baghchal-loadtest
#   crates/loadtest/database.sh [TABLES] [RATE] [SECONDS] [SEED]
#
# PG names the PostgreSQL server (postgres://postgres@127.0.0.1:5432),
# which must run on this machine; PG_PID its postmaster (default: the
# oldest process named postgres); NATS the NATS server
# (nats://127.0.0.1:4222); BIN the binaries' directory (target/release).
# Run it for two builds in turns to compare them.
set -eu
. "$(dirname "$0")/listening.sh"

bin=${BIN:-target/release}
pg=${PG:-postgres://postgres@127.0.0.1:5432}
nats=${NATS:-nats://127.0.0.1:4222}
tables=${1:-2500}
rate=${2:-2500}
seconds=${3:-30}
seed=${4:-1}
postmaster=${PG_PID:-$(pgrep -o -x postgres)}
out=$(mktemp -d "${TMPDIR:-/tmp}/baghchal-database.XXXXXX")
db=baghchal_bench_db_$$
node=

cleanup() {
    [ -n "$node" ] && kill "$node" 2>/dev/null || true
    wait 2>/dev/null || true
    psql "$pg/postgres" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
}
trap cleanup EXIT INT TERM

# The user and system ticks of process PID (with its reaped children's
# when CHILDREN is 1).
ticks() {
    { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null || true; } |
        awk -v c="$2" '{ t = $12 + $13 + (c ? $14 + $15 : 0) } END { print t + 0 }'
}

# The ticks of every PostgreSQL process.
database_ticks() {
    sum=$(ticks "$postmaster" 1)
    for pid in $(pgrep -P "$postmaster"); do
        sum=$((sum + $(ticks "$pid" 0)))
    done
    echo "$sum"
}

psql "$pg/postgres" -qc "CREATE DATABASE $db" >/dev/null
"$bin/baghchal" serve --addr 127.0.0.1:0 --no-tablebase --log warn \
    --database-url "$pg/$db" --nats-url "$nats" --cluster "db$$" \
    --node-id n1 --lease 5s \
    --ws-rate 100000 --ws-burst 100000 \
    --table-burst 1000000 --tables-per-minute 1000000 \
    --connections-per-address 1000000 --websockets-per-address 1000000 \
    --hello-burst 1000000 --hellos-per-minute 1000000 >"$out/node.log" 2>&1 &
node=$!
url=$(listening "$out/node.log")

"$bin/baghchal-load" --url "$url" --server-pid "$node" \
    -t "$tables" -s 1 -r "$rate" -d "${seconds}s" --seed "$seed" -q >"$out/load.txt" 2>&1 &
load=$!
start=$(date +%s%N)
while kill -0 "$load" 2>/dev/null; do
    inserted=$(psql "$pg/$db" -Atqc \
        "SELECT coalesce(sum(n_tup_ins), 0) FROM pg_stat_user_tables WHERE relname = 'events'")
    echo "$((($(date +%s%N) - start) / 1000000)) $(database_ticks) $(ticks "$node" 0) $inserted" >>"$out/samples.txt"
    sleep 2
done
wait "$load" || true
grep -E "errors:|delivered to every" "$out/load.txt" || true

awk -v hz="$(getconf CLK_TCK)" -v rate="$rate" '
    { ms[NR] = $1; db[NR] = $2; node[NR] = $3; ins[NR] = $4 }
    END {
        for (i = 1; i <= NR && ins[i] == 0; i++) ;
        for (a = i; a <= NR && ms[a] < ms[i] + 6000; a++) ;
        for (b = NR; b > a && ins[b] - ins[b - 1] < rate; b--) ;
        n = ins[b] - ins[a]
        if (b <= a || n <= 0) { print "no steady play was sampled"; exit 1 }
        us = 1e6 / hz / n
        printf "%.1f-%.1f s: %d events (%.0f a second); CPU an event: PostgreSQL %.1f µs, the node %.1f µs\n",
            ms[a] / 1000, ms[b] / 1000, n, n * 1000 / (ms[b] - ms[a]),
            (db[b] - db[a]) * us, (node[b] - node[a]) * us
    }' "$out/samples.txt"
echo "(files in $out)"
