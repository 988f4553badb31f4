# How many of a sustained level's tables write their log checkpoint in the same commit round, and
# the gaps between rounds, from the commitInfo timestamps of every table's _delta_log.
# A round is the span between two consecutive commits of tenant 0's bronze table (it commits once
# per Flink checkpoint); a table's checkpoint is counted in the round in which the commit of the
# checkpoint's version was made.
# usage: python3 checkpoint_rounds.py WORKDIR...   (a SustainedBenchmark --work directory)
import bisect, glob, json, os, re, statistics, sys

def timestamps(logdir):
    out = {}
    for f in glob.glob(logdir + '/*.json'):
        b = os.path.basename(f)
        if re.match(r'^\d{20}\.json$', b):
            with open(f) as fh:
                for line in fh:
                    if '"commitInfo"' in line:
                        out[int(b[:20])] = json.loads(line)['commitInfo']['timestamp']
                        break
    return out

def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p))]

for work in sys.argv[1:]:
    lake = f'{work}/lake-sust_l1'
    ref = timestamps(f'{lake}/tenant-0/bronze/journal_events/_delta_log')
    starts = [ref[v] for v in sorted(ref)]
    gaps = [b - a for a, b in zip(starts, starts[1:])]
    per_round = {}
    tables = 0
    for log in glob.glob(f'{lake}/*/*/*/_delta_log') + glob.glob(f'{lake}/*/*/_delta_log'):
        tables += 1
        t = timestamps(log)
        for f in glob.glob(log + '/*.checkpoint.parquet'):
            v = int(os.path.basename(f)[:20])
            if v in t:
                r = bisect.bisect_right(starts, t[v]) - 1
                per_round[r] = per_round.get(r, 0) + 1
    busy = sorted(per_round.values())
    slow = [g for g in gaps if g >= 1200]
    print(f'{work}: {tables} tables, {len(gaps)} rounds; round gap ms p50 {pct(gaps, .5)} p99 '
          f'{pct(gaps, .99)} max {max(gaps)}; rounds >= 1.2 s: {len(slow)}; rounds with a '
          f'checkpoint: {len(busy)}, checkpoints per such round: max {busy[-1]}, '
          f'mean {statistics.mean(busy):.1f}; mean gap of rounds with >= 10 checkpoints: '
          f'{statistics.mean([gaps[r] for r, n in per_round.items() if n >= 10 and r < len(gaps)] or [0]):.0f} ms, '
          f'with 1-3: {statistics.mean([gaps[r] for r, n in per_round.items() if 1 <= n <= 3 and r < len(gaps)] or [0]):.0f} ms, '
          f'with none: {statistics.mean([g for r, g in enumerate(gaps) if r not in per_round]):.0f} ms')
