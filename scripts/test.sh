#!/usr/bin/env bash
# The README's test command (`npm test`): installs what the suite needs (the npm packages, and
# from Debian the PostgreSQL and Redis servers the storage tests start on loopback, the
# PgBouncer the pooler tests put in front of PostgreSQL, the openssl that signs the certificate
# of the PostgreSQL the TLS tests start, and the Chromium the inbox's end-to-end tests drive),
# builds every package, then runs all tests.
# The tests start their own throwaway servers (test/setup/servers.ts); a cluster the Debian
# package may have started on port 5432 is not used.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh

have_postgres() {
  local bin
  for bin in /usr/lib/postgresql/*/bin; do
    [ -x "$bin/pg_ctl" ] && [ -x "$bin/initdb" ] && return 0
  done
  return 1
}

missing=()
have_postgres || missing+=(postgresql)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
[ -x /usr/sbin/pgbouncer ] || missing+=(pgbouncer)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
[ -x /usr/bin/chromium ] || missing+=(chromium)
if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing from Debian for the tests: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update
  $sudo apt-get install -y --no-install-recommends "${missing[@]}"
fi

npm run lint
npm run build
# After the build: some tests import a package's built files (../dist/...), which knip follows.
npm run knip # unused files, exports and dependencies (knip.json says what is an entry)
npm run typecheck # the tests too: the build compiles only the packages' sources
npx vitest run "$@"
