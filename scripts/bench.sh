#!/usr/bin/env bash
# npm run bench:<name>: runs bench/<name>.ts on Node 24, with the server process's heap settings when it measures the server.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/node24.sh
name="$1"
shift
# bench:demo measures `npm run demo`, a command of its own, which runs without the server's heap
# settings (they keep a long-running server small and cost a bulk load's generator ~2 s of GC per
# 100,000 orders).
if [ "$name" != demo ]; then source scripts/server-node-options.sh; fi
exec node "bench/$name.ts" "$@"
