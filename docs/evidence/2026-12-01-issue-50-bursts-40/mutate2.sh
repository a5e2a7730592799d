#!/usr/bin/env bash
# Runs the stall rounds (SIGSTOP after the 20th 2xx of 40 events, for 15 s) on the five deployments with the trigger
# mutated to take every copy of a delivery as new (../2026-11-28-issue-50-bursts/duplicates-taken-as-new.patch),
# three times in a row; each run must fail. Worktree: this commit with the patch applied.
cd /work/wt/s72-mut2 || exit 1
export PATH=$PWD/node_modules/.bin:$PATH
unset PACKED_TARBALL
for i in 1 2 3; do
  echo "=== mutated run $i, $(date -u +%FT%TZ), $(git log --oneline -1), mutation: duplicates-taken-as-new.patch, load $(cut -d' ' -f1-3 /proc/loadavg)"
  E2E_ONLY='SIGSTOP' npm run --silent test:faults 2>&1
  echo "=== exit $?"
done
