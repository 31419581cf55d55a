#!/usr/bin/env bash
# Runs a command on Node 24 (see node24.sh), so npm scripts work even when the machine's node is older.
source "$(dirname "${BASH_SOURCE[0]}")/node24.sh" && exec "$@"
