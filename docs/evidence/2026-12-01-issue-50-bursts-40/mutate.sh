#!/usr/bin/env bash
# Runs every SIGKILL round of the trigger (default settings, Allow Duplicate Deliveries, the sharing trigger) at the
# new size, 40 events killed after the 20th 2xx, on the five deployments, with the trigger mutated to answer 200
# before n8n creates the run (../2026-11-28-issue-50-bursts/answer-before-run.patch), three times in a row; each
# run must fail. Worktree: this commit with the patch applied.
cd /work/wt/s72-mut1 || exit 1
export PATH=$PWD/node_modules/.bin:$PATH
unset PACKED_TARBALL
for i in 1 2 3; do
  echo "=== mutated run $i, $(date -u +%FT%TZ), $(git log --oneline -1), mutation: answer-before-run.patch, load $(cut -d' ' -f1-3 /proc/loadavg)"
  E2E_ONLY=' SIGKILL, (trigger|sharing)' npm run --silent test:faults 2>&1
  echo "=== exit $?"
done
