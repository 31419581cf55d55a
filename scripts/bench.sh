#!/usr/bin/env bash
# npm run bench:<name>: runs bench/<name>.ts on Node 24 with the server process's heap settings.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/node24.sh
source scripts/server-node-options.sh
name="$1"
shift
exec node "bench/$name.ts" "$@"
