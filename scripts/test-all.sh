#!/usr/bin/env bash
# The README's test command (`npm test`): lint as n8n's verification does, type-check, the unit and
# in-process workflow tests, the end-to-end suite in a real n8n (2.41.1), a smoke on the other n8n versions,
# the install by name through Community Nodes, then the same package in n8n's queue mode.
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
echo "== smoke on the other n8n versions (test/e2e/lib/versions.ts)"
npm run --silent test:versions
echo "== installed from a registry through Community Nodes (offline namespace, local registry)"
npm run --silent test:install
echo "== queue mode: PostgreSQL, Redis, n8n main + 2 webhook processes + 1 worker"
npm run --silent test:queue
