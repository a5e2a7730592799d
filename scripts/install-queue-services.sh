#!/usr/bin/env bash
# Installs what the queue-mode suite and benchmark start besides n8n: Debian's PostgreSQL server and
# Redis, when missing (after an install `npm test` started in the background, if one runs).
set -euo pipefail
cd "$(dirname "$0")"
./install-debian-packages.sh
missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null || missing+=(postgresql)
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
# Only the binaries are used: the suite starts its own servers on random ports with temp data folders.
exec ./install-debian-packages.sh --no-install-recommends "${missing[@]}"
