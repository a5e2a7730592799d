#!/usr/bin/env bash
# The regex check of n8n 2.41.1's publish, alone, then with its process stopped (SIGSTOP) 0.4 s twenty times.
set -euo pipefail
cd "$(dirname "$0")"
echo "# alone"; node stall.js
echo "# stopped 0.4 s twenty times"
node stall.js & pid=$!
sleep 2
for _ in $(seq 1 20); do kill -STOP "$pid"; sleep 0.4; kill -CONT "$pid"; sleep 0.3; done
wait "$pid"
