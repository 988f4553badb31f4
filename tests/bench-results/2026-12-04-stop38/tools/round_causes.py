# What the long commit rounds of a sustained level had in them: log checkpoints and compaction
# commits, from the commitInfo of every table's _delta_log. A round is the span between two
# consecutive commits of tenant 0's bronze table (one per Flink checkpoint); a compaction commit
# (engineInfo ending in " compaction") or a log checkpoint is counted in the round in which it was
# committed.
# usage: python3 round_causes.py WORKDIR [skip_seconds]
import bisect, glob, json, os, re, statistics, sys

def commits(logdir):
    out = {}
    for f in glob.glob(logdir + '/*.json'):
        b = os.path.basename(f)
        if re.match(r'^\d{20}\.json$', b):
            with open(f) as fh:
                for line in fh:
                    if '"commitInfo"' in line:
                        out[int(b[:20])] = json.loads(line)['commitInfo']
                        break
    return out

def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p))] if xs else 0

work = sys.argv[1]
skip = float(sys.argv[2]) if len(sys.argv) > 2 else 0
lake = glob.glob(f'{work}/lake-sust_l*')
lake = sorted(lake)[-1]
ref = commits(f'{lake}/tenant-0/bronze/journal_events/_delta_log')
starts = [ref[v]['timestamp'] for v in sorted(ref) if 'compaction' not in ref[v].get('engineInfo', '')]
t0 = starts[0]
gaps = [b - a for a, b in zip(starts, starts[1:])]
ckpt, comp = {}, {}
for log in glob.glob(f'{lake}/*/*/*/_delta_log'):
    c = commits(log)
    for f in glob.glob(log + '/*.checkpoint.parquet'):
        v = int(os.path.basename(f)[:20])
        if v in c:
            r = bisect.bisect_right(starts, c[v]['timestamp']) - 1
            ckpt[r] = ckpt.get(r, 0) + 1
    for v, ci in c.items():
        if ci.get('engineInfo', '').endswith('compaction'):
            r = bisect.bisect_right(starts, ci['timestamp']) - 1
            comp[r] = comp.get(r, 0) + 1
rounds = [r for r in range(len(gaps)) if starts[r] - t0 >= skip * 1000]
def stats(sel, name):
    g = [gaps[r] for r in sel]
    if g:
        print(f'  {name}: {len(g)} rounds, gap ms mean {statistics.mean(g):.0f} p50 {pct(g,.5)} p99 {pct(g,.99)} max {max(g)}')
print(f'{lake}: {len(rounds)} rounds after {skip:.0f} s')
stats(rounds, 'all')
stats([r for r in rounds if r not in comp and r not in ckpt], 'neither')
stats([r for r in rounds if r in comp and r not in ckpt], 'compaction only')
stats([r for r in rounds if r in ckpt and r not in comp], 'log checkpoint only')
stats([r for r in rounds if r in ckpt and r in comp], 'both')
for n in range(1, 6):
    stats([r for r in rounds if comp.get(r, 0) == n], f'{n} compactions')
slow = sorted(rounds, key=lambda r: -gaps[r])[:25]
print('  longest rounds: t s, gap ms, compactions, log checkpoints')
for r in slow:
    print(f'    {(starts[r]-t0)/1000:7.1f} {gaps[r]:5d} {comp.get(r,0)} {ckpt.get(r,0)}')
print('  per minute: rounds, gap mean / p99 ms, compactions, log checkpoints')
for m in range(0, 12):
    sel = [r for r in rounds if m * 60000 <= starts[r] - t0 - skip * 1000 < (m + 1) * 60000]
    if sel:
        g = [gaps[r] for r in sel]
        print(f'    {m+1:2d} {len(sel):4d} {statistics.mean(g):5.0f} {pct(g,.99):5d} {sum(comp.get(r,0) for r in sel):4d} {sum(ckpt.get(r,0) for r in sel):3d}')
