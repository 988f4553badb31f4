# Mean gap (ms) between consecutive commits of one table around its log checkpoint versions
# (every 100th), against the other rounds, from the commitInfo timestamps of the _delta_log.
# usage: python3 checkpoint_gaps.py WORKDIR...   (a SustainedBenchmark --work directory)
import json, glob, os, sys, re, statistics

def timestamps(logdir):
    out = {}
    for f in glob.glob(logdir + '/*.json'):
        b = os.path.basename(f)
        if not re.match(r'^\d{20}\.json$', b):
            continue
        for line in open(f):
            if '"commitInfo"' in line:
                out[int(b[:20])] = json.loads(line)['commitInfo']['timestamp']
                break
    return out

for work in sys.argv[1:]:
    res = []
    for table in ['tenant-0/bronze/journal_events', 'tenant-3/silver/memories']:
        t = timestamps(f'{work}/lake-sust_l1/{table}/_delta_log')
        gap = lambda r: [t[v + 1] - t[v] for v in t if v + 1 in t and v % 100 == r and v >= 100]
        other = [t[v + 1] - t[v] for v in t if v + 1 in t and v % 100 not in (99, 0, 1) and v >= 100]
        res.append(f"{table}: 99->100 {statistics.mean(gap(99)):.0f} 100->101 {statistics.mean(gap(0)):.0f}"
                   f" 101->102 {statistics.mean(gap(1)):.0f} other rounds {statistics.mean(other):.0f}"
                   f" (p99 {sorted(other)[int(len(other) * .99)]})")
    print(work, ' | '.join(res))
