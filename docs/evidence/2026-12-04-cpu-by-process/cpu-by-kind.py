#!/usr/bin/env python3
"""Samples /proc every second and adds up CPU seconds (user+system) by kind of process until killed (SIGINT/SIGTERM),
then prints the totals. Kinds from each process's command line."""
import os, signal, sys, time
HZ = os.sysconf('SC_CLK_TCK')
def kind(cmd):
    c = ' '.join(cmd)
    if 'n8n/bin/n8n' in c:
        for k in ('webhook', 'worker', 'start'):
            if c.endswith(' ' + k) or (' ' + k + ' ') in c: return 'n8n ' + k
        return 'n8n cli ' + (cmd[-1] if cmd else '')
    if 'task-runner' in c or '@n8n/task-runner' in c or 'runners' in c and 'n8n' in c: return 'n8n task runner'
    if 'postgres' in c: return 'postgres'
    if 'redis' in c: return 'redis'
    if 'chrom' in c:
        t = [a for a in cmd if a.startswith('--type=')]
        return 'chromium ' + (t[0][7:] if t else 'browser')
    if 'tools/sandbox' in c or 'sandbox/cli' in c or 'sandbox/run' in c: return 'sandbox'
    if 'jest' in c: return 'jest'
    if 'tsx' in c or 'node' in c.split(' ')[0]: return 'node: ' + ' '.join(cmd[1:4])[:80]
    return (cmd[0] if cmd else '?')[:40]
last = {}   # pid -> (ticks, kind)
totals = {}
def sample():
    seen = set()
    for pid in os.listdir('/proc'):
        if not pid.isdigit(): continue
        try:
            with open(f'/proc/{pid}/stat') as f: st = f.read()
            with open(f'/proc/{pid}/cmdline', 'rb') as f: cmd = [x.decode(errors='replace') for x in f.read().split(b'\0') if x]
        except OSError: continue
        fields = st.rsplit(')', 1)[1].split()
        ticks = int(fields[11]) + int(fields[12])
        seen.add(pid)
        k = kind(cmd) if cmd else last.get(pid, (0, '?'))[1]
        prev = last.get(pid)
        if prev is None:
            # a process born since the last sample: all its ticks are new (unless we start mid-run: first sample)
            if started: totals[k] = totals.get(k, 0) + ticks
        else:
            totals[k] = totals.get(k, 0) + ticks - prev[0]
        last[pid] = (ticks, k)
    for pid in list(last):
        if pid not in seen: del last[pid]
started = False
def stop(*_):
    sample()
    for k, t in sorted(totals.items(), key=lambda x: -x[1]):
        if t / HZ >= 0.5: print(f'{t / HZ:8.1f}  {k}')
    print(f'{sum(totals.values()) / HZ:8.1f}  total')
    sys.exit(0)
signal.signal(signal.SIGINT, stop); signal.signal(signal.SIGTERM, stop)
import json
out = open(sys.argv[1], 'a') if len(sys.argv) > 1 else None
sample(); started = True
n = 0
while True:
    time.sleep(0.5); sample(); n += 1
    if out and n % 20 == 0:
        out.write(json.dumps({'t': time.time(), 'cpu': {k: round(v / HZ, 1) for k, v in totals.items()}}) + '\n'); out.flush()
