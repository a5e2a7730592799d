#!/usr/bin/env bash
# What n8n 2.41.1 spends on the e2e suite's set-up and on the suites' calls to its APIs: measure.patch applied to a
# clean clone of the commit named as $1 (default: HEAD of this repository), then
# 1. the e2e set-up alone (E2E_ONLY matching no check, one lane), twice: publication polled every 100 ms (as the
#    suites do) and every 500 ms; the patch logs the n8n process's own CPU (/proc/<pid>/stat) at readiness, for the
#    activations, idle, per API call, and at readiness after restarts with every workflow active;
# 2. the whole e2e suite (npm run test:e2e), counting every call of N8n.rest() and N8n.api() by path.
# Run on an otherwise idle machine, with PACKED_TARBALL set (node --import tsx tools/n8n/pack.ts <dir>).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(git -C "$here" rev-parse --show-toplevel)
commit=${1:-$(git -C "$repo" rev-parse HEAD)}
scratch=$(mktemp -d)
git clone -q "$repo" "$scratch/repo"
cd "$scratch/repo"
git checkout -q "$commit"
git apply "$here/measure.patch"
ln -s "$repo/node_modules" node_modules
export PATH=$PWD/node_modules/.bin:$PATH
echo "# $(date -u +%FT%TZ) commit $commit with measure.patch; load $(cut -d' ' -f1-3 /proc/loadavg)"
for poll in 100 500; do
	echo "## e2e set-up alone, publication polled every $poll ms"
	MEASURE=1 POLL_MS=$poll E2E_ONLY=no-check-has-this-name E2E_LANES=1 npm run --silent test:e2e 2>&1 | grep -E 'MEASURE|CALLS|activate:|n8n start:|passed, ' || true
done
echo "## the whole e2e suite (two lanes)"
npm run --silent test:e2e 2>&1 | grep -E 'MEASURE|CALLS|timings|passed, ' || true
rm -rf "$scratch"
