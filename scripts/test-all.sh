#!/usr/bin/env bash
# The README's test command (`npm test`): lint as n8n's verification does, type-check, the unit and
# in-process workflow tests, the end-to-end suite in a real n8n, then the same package in n8n's queue mode.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== lint (n8n-node lint)"
npm run --silent lint
echo "== type check"
npm run --silent typecheck
echo "== unit and workflow tests (jest)"
npx jest --ci
echo "== end-to-end in a real n8n"
npm run --silent test:e2e
echo "== queue mode: PostgreSQL, Redis, n8n main + 2 webhook processes + 1 worker"
npm run --silent test:queue
