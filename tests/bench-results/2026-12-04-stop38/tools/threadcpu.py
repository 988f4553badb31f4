# per 60 s, CPU-s per thread group from threadcpu.sh samples (groups: name with digits stripped)
import sys, re, collections
rows = collections.defaultdict(dict)  # ts -> {(tid-less name): ticks}
for line in open(sys.argv[1]):
    ts, name, ticks = line.rstrip('\n').split('|')
    g = re.sub(r'[#\-]?\d+', '', name).strip()
    rows[int(ts)][g] = rows[int(ts)].get(g, 0) + int(ticks)
ts = sorted(rows)
groups = sorted({g for t in ts for g in rows[t]})
sel = ts[::2]
deltas = []
for a, b in zip(sel, sel[1:]):
    deltas.append({g: (rows[b].get(g, 0) - rows[a].get(g, 0)) / 100 for g in groups})
top = sorted(groups, key=lambda g: -sum(d[g] for d in deltas))[:14]
print('min ' + ' '.join(f'{g[:12]:>12}' for g in top))
for i, d in enumerate(deltas):
    print(f'{i+1:3d} ' + ' '.join(f'{d[g]:12.1f}' for g in top))
