#!/usr/bin/env bash
# Installs the named Debian packages that are not installed yet, with apt-get: Chromium for the browser suite,
# PostgreSQL and Redis for queue mode. CI runs this as root on a fresh machine (no stdin); elsewhere it uses
# sudo. One install at a time: `npm test` starts these installs early in the background, and a suite that
# needs a package meanwhile waits here for it. With no package named, it only waits for a running install.
# Usage: scripts/install-debian-packages.sh [--no-install-recommends] [PACKAGE...]
set -euo pipefail
options=()
if [ "${1:-}" = --no-install-recommends ]; then options+=("$1"); shift; fi
exec 9< /var/lib/dpkg
if ! flock -n 9; then
	echo "waiting for another install of Debian packages to finish..." >&2
	flock 9
fi
missing=()
for package in "$@"; do
	[ "$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null)" = installed ] || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
echo "installing ${missing[*]} with apt-get" >&2
sudo=()
if [ "$(id -u)" -ne 0 ]; then sudo=(sudo -n); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq >&2
"${sudo[@]}" apt-get install -y -qq "${options[@]}" "${missing[@]}" > /dev/null
