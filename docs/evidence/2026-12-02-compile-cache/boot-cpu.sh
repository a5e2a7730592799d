#!/bin/bash
# usage: boot-cpu.sh <n8n version> <rounds> <tarball>
# For one n8n version: a throwaway user folder, one CLI command first (n8n's migrations), then <rounds> rounds,
# each a CLI command (import:credentials of one credential) and a start to readiness (/healthz/readiness 200),
# first without NODE_COMPILE_CACHE, then with it (a fresh cache folder, filled by round 1's commands).
# CPU: user + system seconds; the CLI's from /usr/bin/time, the start's of n8n's main process and its task
# runner from /proc/<pid>/stat at readiness.
set -u
version=$1; rounds=$2; tarball=$3
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/boot-cpu-XXXX)
node --import tsx "$here/n8n-env.mts" "$version" "$work/home" "$tarball" > "$work/env.sh" || exit 1
source "$work/env.sh"
echo '[{"id":"probeCredential01","name":"Probe","type":"businessMessagingApi","data":{"clientId":"probe"}}]' > "$work/cred.json"
cd "$work/home"
tck=$(getconf CLK_TCK)
node_cpu() { awk -v t=$tck '{printf "%.2f", ($14+$15)/t}' /proc/$1/stat; }
cli() { /usr/bin/time -f "%U %S %e" -o "$work/time" node "$N8N_BIN" import:credentials --input="$work/cred.json" > "$work/cli.log" 2>&1; awk '{printf "CLI %.2f CPU s, %.2f s wall", $1+$2, $3}' "$work/time"; }
start() {
  node "$N8N_BIN" start > "$work/start.log" 2>&1 &
  local pid=$! t0=$(date +%s.%N)
  until curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:5799/healthz/readiness 2>/dev/null | grep -q 200; do sleep 0.1; done
  local t1=$(date +%s.%N) main=$(node_cpu $pid) runner=0
  for c in $(pgrep -P $pid); do runner=$(echo "$runner + $(node_cpu $c)" | bc); done
  printf "start %.2f CPU s (main %s, task runner %s), %.2f s to readiness" $(echo "$main + $runner" | bc) $main $runner $(echo "$t1 - $t0" | bc)
  kill -INT $pid; wait $pid 2>/dev/null
}
echo "# n8n $version, node $(node --version), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
cli > /dev/null; echo "first CLI command (migrations): $(cat $work/time)"
for mode in plain cached; do
  if [ $mode = cached ]; then export NODE_COMPILE_CACHE="$work/compile-cache"; fi
  for r in $(seq 1 $rounds); do echo "$mode round $r: $(cli); $(start)"; done
done
echo "# compile cache: $(du -sh "$work/compile-cache" | cut -f1)"
rm -rf "$work"
