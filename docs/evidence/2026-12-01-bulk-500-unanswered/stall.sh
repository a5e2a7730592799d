#!/bin/bash
# SIGSTOP the n8n whose pid is in /tmp/stall.pid 0.4 s in every 1.0 s
while true; do
  pid=$(cat /tmp/stall.pid 2>/dev/null)
  if [ -n "$pid" ] && kill -0 $pid 2>/dev/null; then kill -STOP $pid; sleep 0.4; kill -CONT $pid; sleep 0.6; else sleep 0.5; fi
done
