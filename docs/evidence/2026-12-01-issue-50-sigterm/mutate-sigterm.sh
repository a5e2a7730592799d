#!/usr/bin/env bash
# Runs every SIGTERM round of the trigger (default settings; the sharing trigger + 2 workflows receiving through it)
# at the new size (220 events, SIGTERM after the 20th 2xx; 120 to the sharing trigger), on every deployment, with the
# trigger mutated to answer 200 before n8n creates the run (../2026-11-28-issue-50-bursts/answer-before-run.patch),
# $1 times in a row; each run must fail. Worktree: main with the new sizes and the patch applied.
cd /work/wt/sigterm-mut || exit 1
export PATH=$PWD/node_modules/.bin:$PATH
unset PACKED_TARBALL
for i in $(seq 1 "${1:-1}"); do
  echo "=== mutated run $i, $(date -u +%FT%TZ), $(git log --oneline -1) + new SIGTERM sizes, mutation: answer-before-run.patch, load $(cut -d' ' -f1-3 /proc/loadavg)"
  E2E_ONLY=' SIGTERM, (trigger|sharing)' npm run --silent test:faults 2>&1
  echo "=== exit $?"
done
