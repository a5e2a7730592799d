#!/usr/bin/env bash
# The README's test command (`npm test`): lint as n8n's verification does, type-check, the unit and
# in-process workflow tests, the end-to-end suite in a real n8n, then the demo stopped with Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=scripts/step.sh
source scripts/step.sh

step "lint (n8n-node lint)" npm run --silent lint
step "type check" npm run --silent typecheck
step "unit and workflow tests (jest)" npx jest --ci
step "end-to-end in a real n8n" npm run --silent test:e2e
step "demo: busy port, Ctrl-C and a killed demo stop everything" npm run --silent test:demo-stop
