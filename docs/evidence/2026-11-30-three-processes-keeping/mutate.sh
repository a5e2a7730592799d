#!/bin/bash
# Runs the three-process keeping test unmutated (6 times), then with KEEP_AGAIN_TIMES 0 and 1 (3 times each).
cd /work/main
export PATH=$PWD/node_modules/.bin:$PATH
F=nodes/BusinessMessagingTrigger/sharing/statusHandOver.ts
T='three processes each keep'
run() { for i in $(seq 1 $1); do echo "-- run $i"; npx jest test/conversations/statusRace.test.ts -t "$T" 2>&1 | grep -E "✓|✕|Tests:"; done; }
echo "# $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD) + the new test; $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2); load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== unmutated (KEEP_AGAIN_TIMES = 4)"; run 6
for n in 0 1; do
  sed -i "s/^const KEEP_AGAIN_TIMES = .*/const KEEP_AGAIN_TIMES = $n;/" $F
  echo "== mutated: KEEP_AGAIN_TIMES = $n"; run 3
done
sed -i "s/^const KEEP_AGAIN_TIMES = .*/const KEEP_AGAIN_TIMES = 4;/" $F
git diff --stat -- $F
