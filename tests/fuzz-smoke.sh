#!/usr/bin/env bash
# The fuzz targets' smoke run: builds every target of crates/rules/fuzz and
# crates/server/fuzz and runs each for a few seconds
# (FUZZ_SMOKE_SECONDS, default 5) from an empty scratch corpus plus the
# protocol's fixtures, so that the targets keep building and a shallow
# crash shows at once. The long runs and their figures are in
# docs/fuzzing.md. Installs cargo-fuzz when it is missing; uses rustup's
# nightly toolchain, or RUSTC_BOOTSTRAP=1 on the default one without it.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
seconds="${FUZZ_SMOKE_SECONDS:-5}"

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "installing cargo-fuzz"
    cargo install cargo-fuzz --locked
fi
if rustup run nightly rustc --version >/dev/null 2>&1; then
    toolchain=(+nightly)
else
    toolchain=()
    export RUSTC_BOOTSTRAP=1
fi

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
for crate in crates/rules crates/server; do
    (cd "$crate" && cargo "${toolchain[@]}" fuzz build)
    seeds=()
    if [ "$crate" = crates/server ]; then
        seeds=("$root/tests/fixtures/protocol")
    fi
    for target in $(cd "$crate" && cargo "${toolchain[@]}" fuzz list); do
        options=(-max_total_time="$seconds")
        if [ -f "$crate/fuzz/$target.dict" ]; then
            options+=(-dict="$root/$crate/fuzz/$target.dict")
        fi
        mkdir -p "$scratch/$target"
        log="$scratch/$target.log"
        if ! (cd "$crate" && cargo "${toolchain[@]}" fuzz run "$target" \
            "$scratch/$target" "${seeds[@]}" -- "${options[@]}" >"$log" 2>&1); then
            tail -n 40 "$log" >&2
            echo "fuzz target $target failed; its input is in $crate/fuzz/artifacts/$target" >&2
            exit 1
        fi
        echo "$target: $(grep -E '^Done' "$log")"
    done
done
