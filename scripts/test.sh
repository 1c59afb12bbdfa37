#!/usr/bin/env bash
# The README's test command (`npm test`): installs what the suite needs (npm packages, and the
# Debian packages of the servers the tests start on loopback), builds, and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh

missing=()
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || missing+=(postgresql)
command -v redis-server >/dev/null || missing+=(redis-server)
if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing Debian packages for the test servers: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

npm run build --silent
npx vitest run "$@"
