#!/usr/bin/env bash
# Installs the install and release suites' tools (tools/npm-tools: verdaccio, n8n's scanner) exactly as their
# lock says, unless they are installed from that lock already. One install at a time: `npm test` starts this
# early in the background, and a suite that needs the tools meanwhile waits here for it.
set -euo pipefail
cd "$(dirname "$0")/../tools/npm-tools"
exec 9< .
if ! flock -n 9; then
	echo "waiting for another install of tools/npm-tools to finish..." >&2
	flock 9
fi
lock=$(sha256sum package-lock.json)
if [ "$(cat node_modules/.installed-from 2> /dev/null)" = "$lock" ]; then exit 0; fi
echo "installing tools/npm-tools (verdaccio, n8n's scanner) from its lock..." >&2
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2
echo "$lock" > node_modules/.installed-from
