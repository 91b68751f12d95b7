#!/usr/bin/env bash
# The browser tests: the page in headless Debian Chromium, driven by
# playwright-core, against the real server binary. Installs what a fresh
# machine lacks (Chromium, the npm packages), type-checks the page's script
# and its wire types against the protocol's golden JSON, then runs the tests:
# the browser tests and the unit tests of the page's pure modules.
set -euo pipefail
cd "$(dirname "$0")"

if [ ! -x /usr/bin/chromium ]; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium fonts-noto-core
fi

npm ci --no-audit --no-fund

(cd ../.. && cargo build -p baghchal --locked)

npm run --silent typecheck
node --test --test-concurrency=1
