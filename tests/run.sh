#!/usr/bin/env bash
# The whole test suite, as a new user and CI run it: the Rust tests of every
# crate (SQLite always; PostgreSQL too where one answers, and always in CI),
# a smoke run of every fuzz target, then the browser tests against the real
# server. It installs what a fresh machine lacks for them.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo test --workspace --locked

# The table core's benchmark runs each case once, as a smoke test: no
# figure is asserted (docs/performance.md has the figures).
cargo test --locked -p baghchal-table --benches

# Every fuzz target builds and runs for a few seconds.
tests/fuzz-smoke.sh

if [ -x tests/browser/run.sh ]; then
    tests/browser/run.sh
fi
