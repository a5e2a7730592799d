#!/usr/bin/env bash
# Applies one mutation at a time to the worktree, runs the jest tests that guard it, restores the file.
set -u
cd /work/wt/i29-30
run() { # name file python-replacement tests...
	local name=$1 file=$2 py=$3; shift 3
	cp "$file" /tmp/mutate.bak
	python3 -c "$py" "$file"
	echo "=== mutation: $name ($(git diff --stat -- "$file" | tail -1))"
	git diff -- "$file" | grep '^[-+][^-+]' | head -6
	npx jest --ci "$@" 2>&1 | grep -E '✕|Tests:' | head -12
	cp /tmp/mutate.bak "$file"
}
R='import sys;p=sys.argv[1];s=open(p).read();a,b=OLD,NEW;assert a in s;open(p,"w").write(s.replace(a,b))'
sub() { echo "OLD=$1;NEW=$2;$R"; }
run "n8n's answer learnt from the connection's close (the old trigger)" nodes/BusinessMessagingTrigger/acknowledgement.ts \
  "$(sub "\"\"\"	if (response.writableEnded) settleNow();
	else response.once('prefinish', settleNow);\"\"\"" "\"\"\"	response.once('close', () => settle(response.headersSent && response.statusCode >= 200 && response.statusCode < 300));\"\"\"")" \
  test/trigger/concurrency.test.ts
run "no hand-over with the trigger's own answers" nodes/BusinessMessagingTrigger/BusinessMessagingTrigger.node.ts \
  "$(sub "\"\"\"		handOverDeliveries(scopeOf(context), () => context.getWorkflowStaticData('node'), Math.floor(Date.now() / 1000));\"\"\"" "\"\"\"		void scopeOf;\"\"\"")" \
  test/trigger/duplicates.test.ts test/trigger/concurrency.test.ts
run "a copy waits for the earlier copy without a bound" nodes/BusinessMessagingTrigger/deliveryStore.ts \
  "$(sub "\"\"\"Promise.race([inFlight.then(() => true), sleep(IN_FLIGHT_WAIT_MS).then(() => false)])\"\"\"" "\"\"\"inFlight.then(() => true)\"\"\"")" \
  test/trigger/concurrency.test.ts
run "the README quotes the old log text" README.md \
  "$(sub "\"\"\"n8n's log for \\\"Business Messaging Trigger: delivery refused (…)\\\"\"\"\"" "\"\"\"n8n's log for \\\"Business Messaging Trigger: request rejected (…)\\\"\"\"\"")" \
  test/trigger/refusals.test.ts -t README
run "two reasons share a check (the body's timestamp field advised as the header's)" nodes/BusinessMessagingTrigger/refusals.ts \
  "$(sub "\"\"\"		check: 'timestamp field present',\"\"\"" "\"\"\"		check: 'timestamp header present',\"\"\"")" \
  test/trigger/refusals.test.ts
run "a refusal answered 401 where the table says 400 (what the service does changes)" nodes/BusinessMessagingTrigger/refusals.ts \
  "$(sub "\"\"\"	'missing data field': {
		status: 400,\"\"\"" "\"\"\"	'missing data field': {
		status: 401,\"\"\"")" \
  test/trigger/refusals.test.ts
git status --short
