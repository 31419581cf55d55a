#!/usr/bin/env bash
# npm run test:busy: `npm test` while scripts/cpu-hog.ts keeps every CPU busy (CPU_HOG_WORKERS threads,
# default one per CPU), as on a shared machine that is doing other work. The tests must pass here too:
# they wait on the application's state, never on the clock. Prints the time taken and the load seen.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/node24.sh

node scripts/cpu-hog.ts &
hog=$!
stop_hog() {
  if kill -0 "$hog" 2>/dev/null; then
    kill -TERM "$hog"
    wait "$hog"
  fi
}
trap stop_hog EXIT
trap 'exit 130' INT TERM

started=$(date +%s)
bash scripts/test.sh "$@"
status=$?
elapsed=$(($(date +%s) - started))
stop_hog
echo "test:busy: npm test took $((elapsed / 60))m$(printf %02d $((elapsed % 60)))s beside the CPU hog (exit status $status)"
exit $status
