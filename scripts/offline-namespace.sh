#!/usr/bin/env bash
# Runs a command in its own network and mount namespace: only loopback, and a private /etc/hosts in which
# the public npm registry's host name (n8n's built-in community-package registry) is 127.0.0.1. Whatever
# answers there (the install suite's local registry) is what n8n and npm reach; nothing leaves the machine.
# Usage: scripts/offline-namespace.sh <command> [args…]   (as root; otherwise in a user namespace)
set -euo pipefail
REGISTRY_HOST=registry.npmjs.org
if [ "${BM_OFFLINE_NAMESPACE:-}" = 1 ]; then exec "$@"; fi
if ! command -v unshare >/dev/null || ! command -v ip >/dev/null; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y util-linux iproute2 >&2
	else
		echo "offline-namespace.sh needs unshare (util-linux) and ip (iproute2)" >&2
		exit 1
	fi
fi
hosts=$(mktemp "${TMPDIR:-/tmp}/bm-offline-hosts.XXXXXX")
trap 'rm -f "$hosts"' EXIT
{ grep -v "$REGISTRY_HOST" /etc/hosts || true; printf '127.0.0.1\t%s\n' "$REGISTRY_HOST"; } >"$hosts"
chmod 644 "$hosts"
# Root gets the namespaces directly; anyone else maps to root inside a user namespace (same effect here).
userns=()
[ "$(id -u)" = 0 ] || userns=(--map-root-user)
# BM_OFFLINE_HOSTS_FILE: the file behind /etc/hosts in the namespace (a test may take the name away).
export BM_OFFLINE_NAMESPACE=1 BM_OFFLINE_HOSTS_FILE=$hosts
unshare "${userns[@]}" --mount --net --propagation private -- bash -c '
	set -e
	ip link set lo up
	mount --bind "$0" /etc/hosts
	"$@"
' "$hosts" "$@"
