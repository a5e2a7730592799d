# python3 analyze.py: the reply's path, step by step (ms, one reply at a time), from the files beside it.
import json, re, statistics as st
log = open('n8n-log-probe-lines.txt').read()
trig = [dict(json.loads(m)) for m in re.findall(r'PROBE trigger (\[.*?\]\])', log)]
ask = [dict(json.loads(m)) for m in re.findall(r'PROBE ask (\[.*?\]\])', log)]
samples = [json.loads(m) for m in re.findall(r'PROBE sample (\{.*?\})', open('bench-samples.txt').read())]
ours, anchor = samples[:30], samples[30:]  # round 1 measures ours first (bench/conversations.ts)
steps = {}
for s in ours:
    t = next(t for t in trig if s['t0'] <= t['enter'] <= s['after'])
    a = next(a for a in ask if t['postSent'] <= a['enter'] <= t['postAnswered'])
    for k, v in {
        '1 bench sends -> trigger webhook entered (n8n)': t['enter'] - s['t0'],
        '2 trigger, before the secret': t['beforeSecret'] - t['enter'],
        '3 trigger reads the Webhook Secret': t['afterSecret'] - t['beforeSecret'],
        '4 trigger, secret -> hand-over POST sent': t['postSent'] - t['afterSecret'],
        '5 POST sent -> asking node webhook entered (n8n)': a['enter'] - t['postSent'],
        '6 asking node checks the reply': a['exit'] - a['enter'],
        '7 asking node done -> next node started (n8n)': s['after'] - a['exit'],
        'total (bench, whole ms)': s['ms'],
    }.items():
        steps.setdefault(k, []).append(v)
for k, v in steps.items():
    print(f'{k:52s} p50 {st.median(v):6.2f}   min {min(v):6.2f}   max {max(v):6.2f}')
print(f"{'anchor total (bench, whole ms)':52s} p50 {st.median([s['ms'] for s in anchor]):6.2f}   min {min(s['ms'] for s in anchor):6.2f}   max {max(s['ms'] for s in anchor):6.2f}")
