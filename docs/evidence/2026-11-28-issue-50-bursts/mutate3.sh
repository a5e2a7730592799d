#!/usr/bin/env bash
# The 2.41.1 sharing SIGKILL rounds (regular, queue) with answer-before-run.patch again, twice: in mutated runs 2
# and 3 they ended before their kill (fewer than 50 events answered 2xx, load average 14-20).
cd /work/wt/i50-mut
for i in 4 5; do
  echo "=== mutated run $i, $(date -u +%FT%TZ), $(git log --oneline -1), mutation: answer-before-run.patch"
  E2E_ONLY='^n8n 2\.41\.1 (regular|queue) SIGKILL, sharing' npm run --silent test:faults 2>&1
  echo "=== exit $?"
done
