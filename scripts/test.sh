#!/usr/bin/env bash
# npm test: typecheck, Vitest (unit + integration on real PostgreSQL), client build, Playwright in Debian's
# Chromium. Every stage runs even when an earlier one fails; the last line sums up all tests.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/node24.sh
results=.cache/test-results
mkdir -p "$results"
rm -f "$results"/*.json
status=0
bin=node_modules/.bin

echo "== typecheck"
"$bin/tsc" -p tsconfig.json --noEmit && echo "typecheck: no errors" || status=1

echo "== vitest"
"$bin/vitest" run --reporter=default --reporter=json --outputFile.json="$results/vitest.json" || status=1

echo "== build"
"$bin/vite" build --logLevel warn || status=1

echo "== playwright"
PLAYWRIGHT_JSON_OUTPUT_NAME="$results/playwright.json" "$bin/playwright" test || status=1

node scripts/test-summary.ts "$results/vitest.json" "$results/playwright.json" || status=1
exit $status
