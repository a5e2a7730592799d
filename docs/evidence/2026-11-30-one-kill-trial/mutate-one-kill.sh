#!/usr/bin/env bash
# Runs the fault suite's SIGKILL rounds (one kill for the four receivers' bursts) with the trigger mutated to
# answer 200 before n8n creates the run (answer-before-run.patch); each trigger round must fail.
cd /work/wt/mut
export PATH=$PWD/node_modules/.bin:$PATH PACKED_TARBALL=/tmp/packmut/n8n-nodes-business-messaging-0.2.0.tgz
for i in 2 3; do
  echo "=== mutated run $i, $(date -u +%FT%TZ), $(git log --oneline -1 | cut -c1-60), mutation: answer-before-run.patch"
  E2E_ONLY='^n8n (1\.123\.81 regular|2\.3\.6 regular|2\.41\.1 regular|2\.41\.1 queue) SIGKILL' npm run --silent test:faults 2>&1
  echo "=== exit $?"
done
echo "=== mutated run 4, $(date -u +%FT%TZ), mutation: answer-before-run.patch"
E2E_ONLY='^n8n (1\.123\.81 regular|2\.3\.6 regular) SIGKILL' npm run --silent test:faults 2>&1
echo "=== exit $?"
