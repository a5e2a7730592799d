#!/usr/bin/env bash
# Runs the fault suite's SIGKILL bursts (trigger at default settings, sharing trigger) with the trigger mutated
# to answer 200 before n8n creates the run (answer-before-run.patch), three times in a row; each run must fail.
cd /work/wt/i50-mut
for i in 1 2 3; do
  echo "=== mutated run $i, $(date -u +%FT%TZ), $(git log --oneline -1), mutation: answer-before-run.patch"
  E2E_ONLY='^n8n (1\.123\.81 regular|2\.3\.6 regular|2\.41\.1 regular|2\.41\.1 queue) SIGKILL, (trigger, default|sharing)' npm run --silent test:faults 2>&1
  echo "=== exit $?"
done
