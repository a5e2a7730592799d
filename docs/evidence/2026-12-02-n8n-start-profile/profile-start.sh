#!/bin/bash
# usage: profile-start.sh <n8n version> <tarball> <outdir>: a throwaway user folder with the package (the suites' environment for n8n, ../2026-12-02-compile-cache/n8n-env.mts), one CLI command (migrations), a start to readiness that fills the compile cache, then a start under --cpu-prof (main process; the task runner is not profiled); each start's main-process CPU 3 s after readiness
set -u
version=$1; tarball=$2; out=$3
here=$(cd "$(dirname "$0")/../2026-12-02-compile-cache" && pwd)
work=$(mktemp -d /tmp/prof-XXXX)
cd "$here/../../.." && node --import tsx "$here/n8n-env.mts" "$version" "$work/home" "$tarball" > "$work/env.sh" || exit 1
source "$work/env.sh"
export NODE_COMPILE_CACHE="$work/compile-cache"
echo '[{"id":"probeCredential01","name":"Probe","type":"businessMessagingApi","data":{"clientId":"probe"}}]' > "$work/cred.json"
cd "$work/home"
node "$N8N_BIN" import:credentials --input="$work/cred.json" > /dev/null 2>&1
start() {
  node $1 "$N8N_BIN" start > "$work/start.log" 2>&1 &
  local pid=$!
  until curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:5799/healthz/readiness 2>/dev/null | grep -q 200; do sleep 0.1; done
  sleep 3
  echo "main cpu: $(awk -v t=$(getconf CLK_TCK) '{printf "%.2f", ($14+$15)/t}' /proc/$pid/stat)"
  kill -INT $pid; wait $pid 2>/dev/null
}
start ""
mkdir -p $out; start "--cpu-prof --cpu-prof-dir=$out"
ls $out
