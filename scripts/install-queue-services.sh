#!/usr/bin/env bash
# Installs what the queue-mode suite and benchmark start besides n8n: Debian's PostgreSQL server and
# Redis, when missing. CI runs this as root on a fresh machine (no stdin); elsewhere it uses sudo.
set -euo pipefail
missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null || missing+=(postgresql)
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
echo "installing ${missing[*]} with apt-get" >&2
sudo=()
if [ "$(id -u)" -ne 0 ]; then sudo=(sudo -n); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq >&2
# Only the binaries are used: the suite starts its own servers on random ports with temp data folders.
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
