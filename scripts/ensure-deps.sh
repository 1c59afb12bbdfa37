#!/usr/bin/env bash
# Installs the npm packages when they are missing or older than the lockfile, so that the
# README's two commands work on a fresh clone.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
