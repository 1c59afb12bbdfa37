#!/usr/bin/env bash
# The test command (`npm test`): makes sure the database servers the storage tests start are
# installed (PostgreSQL and Redis from Debian), builds every package, then runs all tests.
# The tests start their own throwaway servers (test/setup/servers.ts); a cluster the Debian
# package may have started on port 5432 is not used.
set -euo pipefail
cd "$(dirname "$0")/.."

have_postgres() {
  local bin
  for bin in /usr/lib/postgresql/*/bin; do
    [ -x "$bin/pg_ctl" ] && [ -x "$bin/initdb" ] && return 0
  done
  return 1
}

if ! have_postgres || ! command -v redis-server >/dev/null 2>&1; then
  echo "Installing postgresql and redis-server for the storage tests..."
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update
  $sudo apt-get install -y --no-install-recommends postgresql redis-server
fi

npm run build
npx vitest run "$@"
