#!/usr/bin/env bash
# Times the npm test steps issue 31 changed (lint, type check, release, jest) on the commit before it
# (dc76fd7) and the merge that brought it (716f38f), in alternating order, on this machine.
set -uo pipefail
run() { # $1 label, $2 dir, rest: command
  local label=$1 dir=$2; shift 2
  local t0=$(date +%s.%N)
  (cd "$dir" && "$@" > /tmp/time31-$label.log 2>&1); local rc=$?
  local t1=$(date +%s.%N)
  printf '%s\t%s\texit %s\t%.1f s\n' "$label" "$(git -C "$dir" rev-parse --short HEAD)" "$rc" "$(echo "$t1 - $t0" | bc)"
}
echo "# $(date -u +%FT%TZ) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), node $(node --version)"
for pass in 1 2; do
  for w in pre31 pre29; do
    run "$w-jest-$pass" /work/wt/$w npx jest --ci
  done
done
for w in pre31 pre29; do
  run "$w-lint" /work/wt/$w npm run --silent lint
  run "$w-typecheck" /work/wt/$w npm run --silent typecheck
  run "$w-release" /work/wt/$w npm run --silent test:release
done
