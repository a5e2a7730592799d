#!/usr/bin/env bash
# timestamps.sh COMMAND...: runs COMMAND with every line of its output (stdout and stderr) prefixed with its
# unix time, the form tools/timing/table.ts reads. The first line names the start and the load average.
set -o pipefail
echo "$EPOCHREALTIME START $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
"$@" 2>&1 | while IFS= read -r line; do printf '%s %s\n' "$EPOCHREALTIME" "$line"; done
