#!/usr/bin/env bash
# Sums faults-alone-cpu-per-process.txt (CPU ticks of 1/100 s, pid, command line: the last value sampled for every
# process every 2 s while `npm run test:faults` ran alone, before a242c63) by the kind of process.
awk '{t=$1/100; c=$0; if (c ~ /n8n\/bin\/n8n (start|webhook|worker|import:[a-z]+)/) {match(c, /n8n\/bin\/n8n [a-z:]+/); k=substr(c, RSTART+8, RLENGTH-8)} else if (c ~ /disallow-code-generation/) k="task runner"; else if (c ~ /tsx test\/faults/) k="the suite (tsx test/faults/run.ts)"; else if (c ~ /postgres/) k="postgres"; else if (c ~ /redis/) k="redis"; else k="other"; s[k]+=t} END {for (k in s) printf "%8.1f s  %s\n", s[k], k}' "$(dirname "$0")/faults-alone-cpu-per-process.txt" | sort -rn
