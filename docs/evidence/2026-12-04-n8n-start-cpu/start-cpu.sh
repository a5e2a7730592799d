#!/bin/bash
# usage: start-cpu.sh <n8n version> <tarball> <out dir>
# A throwaway user folder with the package and the suites' environment for n8n (../2026-12-02-compile-cache/n8n-env.mts),
# Node's compile cache on (as the suites run n8n): one CLI command on a fresh database and one again (n8n's
# migrations), then three starts to readiness, each measured 5 s after readiness (CPU: user + system seconds of n8n's
# main process and of its task runner, from /proc/<pid>/stat), the third under --cpu-prof (profile into <out dir>).
set -u
version=$1; tarball=$2; out=$3
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/start-cpu-XXXX)
node --import tsx "$here/../2026-12-02-compile-cache/n8n-env.mts" "$version" "$work/home" "$tarball" > "$work/env.sh" || exit 1
source "$work/env.sh"
export NODE_COMPILE_CACHE=$work/compile-cache
echo '[]' > "$work/none.json"
cd "$work/home"
echo "# n8n $version, node $(node --version), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in 1 2; do
  /usr/bin/time -f "%U %S %e" -o "$work/time" node "$N8N_BIN" import:credentials --input="$work/none.json" > /dev/null 2>&1
  awk -v i=$i '{printf "CLI command %d (import:credentials of none%s): %.2f CPU s, %.2f s wall\n", i, (i==1?", fresh database":""), $1+$2, $3}' "$work/time"
done
tck=$(getconf CLK_TCK)
node_cpu() { awk -v t=$tck '{printf "%.2f", ($14+$15)/t}' /proc/$1/stat; }
for r in 1 2 3; do
  extra=""; [ $r = 3 ] && extra="--cpu-prof --cpu-prof-dir=$out"
  node $extra "$N8N_BIN" start > "$work/start$r.log" 2>&1 &
  pid=$! t0=$(date +%s.%N)
  until curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:5799/healthz/readiness 2>/dev/null | grep -q 200; do sleep 0.1; done
  t1=$(date +%s.%N)
  sleep 5
  main=$(node_cpu $pid) runner=0
  for c in $(pgrep -P $pid); do runner=$(echo "$runner + $(node_cpu $c)" | bc); done
  printf "start %d%s: %.2f CPU s 5 s after readiness (main %s, task runner %s); readiness after %.1f s\n" $r "$([ $r = 3 ] && echo ' (--cpu-prof)')" "$(echo "$main + $runner" | bc)" $main $runner "$(echo "$t1 - $t0" | bc)"
  kill -INT $pid; wait $pid 2>/dev/null
done
rm -rf "$work"
