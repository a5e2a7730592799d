#!/usr/bin/env bash
# Runs the fault suite's stall bursts (SIGSTOP) with the trigger mutated to take every copy of a delivery as new
# (duplicates-taken-as-new.patch), three times in a row; each run must fail.
cd /work/wt/i50-mut2
until grep -q done /tmp/i50-mut2-ci.log; do sleep 5; done
for i in 1 2 3; do
  echo "=== mutated run $i, $(date -u +%FT%TZ), $(git log --oneline -1), mutation: duplicates-taken-as-new.patch"
  E2E_ONLY='SIGSTOP' npm run --silent test:faults 2>&1
  echo "=== exit $?"
done
