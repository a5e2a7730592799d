#!/usr/bin/env bash
# The README's test command (`npm test`): the package built and packed once; side by side the lint as n8n's
# verification does, the type check, the unit and in-process workflow tests and the trigger's own use of Node on
# the other Node versions; the release checks (workflows, lint set-up, lock, docs, the packed tarball and n8n's
# scanner); then side by side the end-to-end suite in a real n8n (2.41.1), the install by name through Community Nodes,
# the editor in a browser and the demo stopped with Ctrl-C; then side by side a smoke on the other n8n versions
# (and on 2.41.1 under the recommended expression setting) and the same package in n8n's queue mode; then n8n
# killed or stalled mid-burst (the fault suite, also under the recommended expression setting).
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=scripts/step.sh
source scripts/step.sh
# At the end, passed or not: every step's wall and CPU time.
trap steps_table EXIT
# `npm run test:quick` (--quick), the inner loop: the lint, type check and unit tests only.
quick=${1:-}

# n8n's versions, the other Node versions, the tools and Debian's packages the suites below install on first
# use: started now, beside the first steps; a suite that needs one still under way waits for it.
if [ "$quick" != --quick ]; then
	background "installs (tools/n8n/installs.ts)" node --import tsx tools/n8n/installs.ts
fi
# The first checks side by side: alone, the lint and the type check use one core and jest's workers about one and
# a half; one after another they took 153 s of the run's first 196 (docs/results/2026-12-02-npm-test-6102676.txt).
# Jest with five workers: its tests mostly wait on sockets and timers, so on CI's 2 cores four took 101-107 s where
# one per core took 181 s (docs/results/2026-11-30-jest-workers.txt), and alone five 107 s where four took 129 s
# (docs/results/2026-12-04-jest-workers.txt); jest's default would leave one core idle.
first_checks=(
	"lint (n8n-node lint)" "npm run --silent lint"
	"type check" "npm run --silent typecheck"
	"unit and workflow tests (jest)" "npx jest --ci --maxWorkers=5"
)
if [ "$quick" = --quick ]; then
	together \
		"${first_checks[@]}"
	exit 0
fi
# Built and packed once, for every suite below: they install this tarball (two builds at once in one folder
# would remove each other's dist). tools/n8n/n8n.ts reads PACKED_TARBALL.
steps_dir
step "build and pack the package once" bash -c "node --import tsx tools/n8n/pack.ts '$STEPS_DIR/pack' > '$STEPS_DIR/tarball'"
PACKED_TARBALL=$(cat "$STEPS_DIR/tarball")
export PACKED_TARBALL
together \
	"${first_checks[@]}" \
	"the trigger's own use of Node's HTTP response, on the other Node versions users run n8n on (tools/n8n/versions.ts)" "npm run --silent test:node-versions"
# After jest, not beside it: both run the first publish with the release image's npm, which on a new machine each
# would fetch into the same npx folder at once (test/release/pinned-npm.ts).
step "release: the workflows, n8n's lint and cloud-support, the lock, the docs (versions, links, figures), the packed tarball and n8n's scanner" npm run --silent test:release
# The suites that mostly wait (on n8n, a registry, a browser, a terminal), side by side.
together \
	"end-to-end in a real n8n" "npm run --silent test:e2e" \
	"installed from a registry through Community Nodes (offline namespace, local registry)" "npm run --silent test:install" \
	"n8n's editor in a browser (Chromium)" "npm run --silent test:ui" \
	"demo: busy port, Ctrl-C and a killed demo stop everything" "npm run --silent test:demo-stop"
# Side by side too: each alone used about 1.4 and 1.2 of the two cores (docs/results/2026-12-01-npm-test-7c5fe49.txt).
together \
	"smoke on the other n8n versions (tools/n8n/versions.ts), and on 2.41.1 with the recommended expression setting" "npm run --silent test:versions" \
	"queue mode: PostgreSQL, Redis, n8n main + 2 webhook processes + 1 worker; n8n defaults and the recommended expression setting, side by side" "npm run --silent test:queue"
# RECORD_FAULTS=1 npm test also keeps the fault suite's output as evidence in docs/results/ (npm run record).
faults_suite=(test:faults)
if [[ -n ${RECORD_FAULTS:-} ]]; then faults_suite=(record -- faults); fi
step "faults: n8n killed (SIGKILL, SIGTERM) or stalled (SIGSTOP) mid-burst, regular and queue mode, and under the recommended expression setting; no acknowledged event lost" npm run --silent "${faults_suite[@]}"
