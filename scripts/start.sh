#!/usr/bin/env bash
# npm start: build the client if it is missing or stale, then serve (embedded PostgreSQL unless DATABASE_URL).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/node24.sh
source scripts/server-node-options.sh
node scripts/build-if-needed.ts
exec node src/server/main.ts
